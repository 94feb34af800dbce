package server

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// events follows a job's event stream and keeps the state events it sends.
type events struct {
	mu     sync.Mutex
	states []string
	frames int
	done   chan struct{}
	err    error
}

func (r *rig) follow(id string) *events {
	ev := &events{done: make(chan struct{})}
	req, _ := http.NewRequestWithContext(r.t.Context(), http.MethodGet, r.url+api.APIPrefix+"/jobs/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+r.viewer)
	go func() {
		defer close(ev.done)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ev.err = err
			return
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
			ev.err = &json.UnsupportedValueError{Str: resp.Status + " " + ct}
			return
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.mu.Lock()
				ev.frames++
				if event == "state" {
					var s api.StateEvent
					if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &s); err != nil {
						ev.err = err
					}
					ev.states = append(ev.states, string(s.State))
				}
				ev.mu.Unlock()
				event = ""
			}
		}
	}()
	return ev
}

// TestServerJobLifecycle submits, follows, pauses, resumes, re-limits and cancels jobs over
// the API on the real clusters; the copied data compares cell for cell.
func TestServerJobLifecycle(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 2)
	r.registerClusters(env)
	table := copytest.CreateSource(t, env, "srvjob")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(300), 3, time.Now().UnixMilli()-100_000, true)
	copytest.DropTargetLater(t, env, table)

	// Bad input: named, nothing created.
	for _, c := range []struct {
		body  string
		field string
	}{
		{`{"source":"src","target":"dst","table":"` + table + `","startRow":"b","stopRow":"a"}`, "stopRow"},
		{`{"source":"nope","target":"dst","table":"` + table + `"}`, "source"},
		{`{"source":"src","target":"dst","table":"` + table + `","bandwidth":"fast"}`, "bandwidth"},
		{`{"source":"src","target":"dst","table":"` + table + `","colour":"blue"}`, "colour"},
		{`{"source":"src","target":"dst","table":"no_such_table_here"}`, "no_such_table_here"},
	} {
		a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", c.body)
		if a.status != http.StatusBadRequest || !strings.Contains(string(a.body), c.field) ||
			a.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("submit %s: %d %s %s; want a 400 problem naming %s", c.body, a.status, a.header.Get("Content-Type"), a.body, c.field)
		}
	}
	if page, _ := r.s.Catalog().ListJobs(t.Context(), catalog.JobFilter{}); len(page.Jobs) != 0 {
		t.Fatalf("refused submissions created jobs: %+v", page.Jobs)
	}

	// A slow job (a low bandwidth), followed from the start.
	sub := map[string]any{"source": "src", "target": "dst", "table": table, "createTable": true, "bandwidth": "20KB/s", "taskSize": "1MiB"}
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", sub, "Idempotency-Key", "k-"+table)
	if a.status != http.StatusCreated {
		t.Fatalf("submit: %d %s", a.status, a.body)
	}
	var j api.JobOut
	a.decode(t, &j)
	if j.SubmittedBy != "test operator" || j.Source != "src" || j.Request == nil || j.Request.Bandwidth != "20KB/s" {
		t.Errorf("submitted job: %+v", j)
	}
	ev := r.follow(j.ID)
	if again := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", sub); again.status != http.StatusOK || !strings.Contains(string(again.body), j.ID) {
		t.Errorf("the same copy again: %d %s; want 200 with job %s", again.status, again.body, j.ID)
	}
	other := map[string]any{"source": "src", "target": "dst", "table": table, "startRow": "\\x80"}
	if c := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", other, "Idempotency-Key", "k-"+table); c.status != http.StatusConflict {
		t.Errorf("another copy with a used Idempotency-Key: %d %s; want 409", c.status, c.body)
	}

	r.waitJob(j.ID, 2*time.Minute, "running with a task done", func(v api.JobOut) bool {
		return v.State == "running" && v.Progress.Tasks.Total > 0 && v.Progress.BandwidthLimit == 20e3
	})
	if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs/"+j.ID+"/pause", nil); a.status != http.StatusOK {
		t.Fatalf("pause: %d %s", a.status, a.body)
	}
	r.waitJob(j.ID, 30*time.Second, "paused", func(v api.JobOut) bool { return v.State == "paused" })
	// Resume only once the stream told of the pause, as someone watching it would.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ev.mu.Lock()
		seen := strings.Contains(strings.Join(ev.states, ","), "paused")
		ev.mu.Unlock()
		if seen {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the event stream did not tell of the pause")
		}
	}
	if a := r.do(r.viewer, http.MethodPost, api.APIPrefix+"/jobs/"+j.ID+"/resume", nil); a.status != http.StatusForbidden {
		t.Errorf("resume by a viewer: %d; want 403", a.status)
	}
	if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs/"+j.ID+"/resume", nil); a.status != http.StatusOK {
		t.Fatalf("resume: %d %s", a.status, a.body)
	}
	if a := r.do(r.oper, http.MethodPatch, api.APIPrefix+"/jobs/"+j.ID, map[string]any{"bandwidth": "sideways"}); a.status != http.StatusBadRequest {
		t.Errorf("patch a bad bandwidth: %d %s; want 400", a.status, a.body)
	}
	if a := r.do(r.oper, http.MethodPatch, api.APIPrefix+"/jobs/"+j.ID, map[string]any{"bandwidth": "none"}); a.status != http.StatusOK {
		t.Fatalf("lift the bandwidth: %d %s", a.status, a.body)
	}
	done := r.waitJob(j.ID, 4*time.Minute, "done", func(v api.JobOut) bool {
		if v.State == "failed" || v.State == "cancelled" {
			t.Fatalf("job ended %s: %s", v.State, v.Message)
		}
		return v.State == "done"
	})
	if done.Progress.Fraction != 1 || done.Progress.FilesLoaded == 0 || done.Report == nil {
		t.Errorf("done job: %+v", done.Progress)
	}
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw}).Cells
	select {
	case <-ev.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the event stream did not end after the job did")
	}
	ev.mu.Lock()
	states := strings.Join(ev.states, ",")
	ev.mu.Unlock()
	if ev.err != nil || !strings.Contains(states, "paused") || !strings.HasSuffix(states, "done") || ev.frames < 5 {
		t.Errorf("events: %s (%d frames), %v; want paused in them and done last", states, ev.frames, ev.err)
	}
	// The catalog agrees once reconciled: done, with the final report.
	deadline := time.Now().Add(30 * time.Second)
	for {
		row, err := r.s.Catalog().GetJob(t.Context(), j.ID)
		if err == nil && row.State == catalog.StateOf(job.StateDone) && row.FinalReport != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("catalog row: %+v, %v; want done with a report", row, err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// A second job, cancelled while it crawls.
	slow := map[string]any{"source": "src", "target": "dst", "table": table, "targetTable": table + "_c", "createTable": true, "bandwidth": "2KB/s"}
	copytest.DropTargetLater(t, env, table+"_c")
	a = r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", slow)
	if a.status != http.StatusCreated {
		t.Fatalf("submit the second: %d %s", a.status, a.body)
	}
	var j2 api.JobOut
	a.decode(t, &j2)
	r.waitJob(j2.ID, 2*time.Minute, "running", func(v api.JobOut) bool { return v.State == "running" })
	if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs/"+j2.ID+"/cancel", nil); a.status != http.StatusOK {
		t.Fatalf("cancel: %d %s", a.status, a.body)
	}
	r.waitJob(j2.ID, 2*time.Minute, "cancelled", func(v api.JobOut) bool { return v.State == "cancelled" })
	if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs/"+j2.ID+"/resume", nil); a.status != http.StatusConflict {
		t.Errorf("resume a cancelled job: %d %s; want 409", a.status, a.body)
	}

	// Listing, filters, tasks, workers, audit.
	var list struct {
		Jobs []api.JobOut `json:"jobs"`
	}
	r.do(r.viewer, http.MethodGet, api.APIPrefix+"/jobs?state=done&cluster=src", nil).decode(t, &list)
	if len(list.Jobs) != 1 || list.Jobs[0].ID != j.ID {
		t.Errorf("done jobs of src: %+v", list.Jobs)
	}
	var ws struct {
		Workers []api.WorkerOut `json:"workers"`
	}
	r.do(r.viewer, http.MethodGet, api.APIPrefix+"/workers", nil).decode(t, &ws)
	if len(ws.Workers) != 1 || ws.Workers[0].Capacity != 2 {
		t.Errorf("workers: %+v", ws.Workers)
	}
	var audit struct {
		Entries []api.AuditOut `json:"entries"`
	}
	r.do(r.admin, http.MethodGet, api.APIPrefix+"/audit", nil).decode(t, &audit)
	ops := map[string]int{}
	for _, e := range audit.Entries {
		ops[e.Operation+"/"+http.StatusText(e.Status)]++
	}
	for _, want := range []string{"submit-job/Created", "pause-job/OK", "resume-job/OK", "patch-job/OK", "cancel-job/OK", "resume-job/Forbidden"} {
		if ops[want] == 0 {
			t.Errorf("audit log has no %s: %v", want, ops)
		}
	}
	t.Logf("copied %d cells over the API; events %s", n, states)
}
