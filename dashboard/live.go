package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// maxLive bounds the jobs one stream follows (a page of the jobs list).
const maxLive = jobsPerPage

// liveJob is what the page's script needs to update a job in place: every number already
// written for people, so the rendering stays in Go.
type liveJob struct {
	ID       string  `json:"id"`
	State    string  `json:"state"`
	Message  string  `json:"message"`
	Final    bool    `json:"final"`
	Percent  float64 `json:"percent"`
	Progress string  `json:"progress"`
	Done     string  `json:"done"`
	Rate     string  `json:"rate"`
	ETA      string  `json:"eta"`
	Tasks    string  `json:"tasks"`
	Limit    string  `json:"limit"`
	Loaded   string  `json:"loaded"`
	Elapsed  string  `json:"elapsed"`
	Error    string  `json:"error"`
}

func liveOf(j Job) liveJob {
	return liveJob{ID: j.ID, State: j.State, Message: j.Message, Final: j.Final,
		Percent: min(100, max(0, j.Fraction*100)), Progress: percentText(j.Fraction),
		Done: bytesText(j.BytesDone) + " of " + bytesText(j.BytesTotal), Rate: rateText(j.BytesPerSecond),
		ETA: etaText(j.ETA), Tasks: tasksText(j.Tasks), Limit: limitText(j.BandwidthLimit),
		Loaded:  fmt.Sprintf("%d files, %s", j.FilesLoaded, bytesText(j.BytesLoaded)),
		Elapsed: durationText(j.Elapsed), Error: j.LastError}
}

// live streams Server-Sent Events of the jobs named by ?job=: an event "job" for each job
// whenever what the page shows of it changed (at once for each, then at most every Live),
// and "end" once every job followed has ended.
func (d *Dashboard) live(w http.ResponseWriter, r *http.Request) {
	ids := r.URL.Query()["job"]
	if len(ids) == 0 || len(ids) > maxLive {
		http.Error(w, fmt.Sprintf("name 1 to %d jobs with ?job=", maxLive), http.StatusBadRequest)
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	ctx := r.Context()
	last := map[string]liveJob{}
	open := map[string]bool{}
	for _, id := range ids {
		open[id] = true
	}
	t := time.NewTicker(d.cfg.Live)
	defer t.Stop()
	for {
		for _, id := range ids {
			if !open[id] {
				continue
			}
			j, err := d.cfg.Source.Job(ctx, id)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				continue // shown again at the next look
			}
			v := liveOf(j)
			if prev, ok := last[id]; ok && prev == v {
				continue
			}
			last[id] = v
			b, _ := json.Marshal(v)
			if _, err := fmt.Fprintf(w, "event: job\ndata: %s\n\n", b); err != nil {
				return
			}
			if v.Final {
				delete(open, id)
			}
		}
		if len(open) == 0 {
			_, _ = fmt.Fprint(w, "event: end\ndata: {}\n\n")
			_ = rc.Flush()
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// relocationVersion sums up what a relocation page shows that changes as it runs: when it
// differs, the page is out of date.
func relocationVersion(r Relocation) string {
	v := fmt.Sprintf("%s|%s|%d|%t|%d|%d", r.Phase, r.UpdatedAt.Format(time.RFC3339Nano), len(r.Windows), r.Verifying,
		r.RunningWindow, r.Lag)
	if n := len(r.Windows); n > 0 {
		w := r.Windows[n-1]
		v += fmt.Sprintf("|%s|%s", w.Outcome, w.FinishedAt.Format(time.RFC3339Nano))
	}
	return v
}

// liveRelocation streams Server-Sent Events of the relocation named by ?id=: an event
// "changed" whenever what its page shows changed (looked at every Live), and "end" once it
// has ended. The page's script then fetches the page again and swaps its content in.
func (d *Dashboard) liveRelocation(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if id == "" {
		http.Error(w, "name the relocation with ?id=", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	rel, err := d.cfg.Source.Relocation(ctx, id)
	if err != nil {
		http.Error(w, "relocation "+id+": "+err.Error(), http.StatusNotFound)
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return
	}
	last := relocationVersion(rel)
	t := time.NewTicker(d.cfg.Live)
	defer t.Stop()
	for !rel.Final {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		next, err := d.cfg.Source.Relocation(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			continue // looked at again at the next tick
		}
		rel = next
		if v := relocationVersion(rel); v != last {
			last = v
			if _, err := fmt.Fprintf(w, "event: changed\ndata: %q\n\n", rel.Phase); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
	fmt.Fprint(w, "event: end\ndata: \"\"\n\n")
	_ = rc.Flush()
}
