package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/sse"

	"rangecopy/catalog"
)

// StateEvent is sent when a job changes state.
type StateEvent struct {
	ID      string `json:"id" doc:"the job's id"`
	State   string `json:"state" doc:"its new state"`
	Message string `json:"message,omitempty" doc:"what it means"`
	Final   bool   `json:"final" doc:"the job has ended; the stream ends after this event"`
}

// eventPoll is how often an event stream looks at its job.
const eventPoll = time.Second

// eventsIn names the job; its path parameter is declared here, not embedded: huma's SSE
// registration left an embedded jobIDIn's id empty.
type eventsIn struct {
	ID string `path:"id" minLength:"1" maxLength:"128" pattern:"^[A-Za-z0-9._:-]+$" doc:"the job's id"`
}

func (a *api) registerEvents() {
	o := op("job-events", http.MethodGet, "/jobs/{id}/events", "Follow a job: Server-Sent Events of its progress and state changes", catalog.RoleViewer, "jobs")
	o.Description += " A progress event (the job as GET /jobs/{id} shows it) comes when anything changed, at most once a second; a state event on each change of state. The stream ends after the job ends."
	o.Errors = append(o.Errors, http.StatusNotFound)
	sse.Register(a.h, o, map[string]any{"progress": JobOut{}, "state": StateEvent{}},
		func(ctx context.Context, in *eventsIn, send sse.Sender) {
			a.follow(ctx, in.ID, send)
		})
}

// follow sends a job's events until it ends or the client goes away.
func (a *api) follow(ctx context.Context, id string, send sse.Sender) {
	var last JobOut
	lastState := ""
	t := time.NewTicker(eventPoll)
	defer t.Stop()
	// Changes in the registry wake the stream at once; the ticker covers the catalog (and a
	// job the registry does not hold).
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changed, err := a.s.reg.WatchJob(wctx, id)
	if err != nil {
		changed = nil
	}
	for first := true; ; first = false {
		v, err := a.jobView(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			var se huma.StatusError
			if errors.As(err, &se) && se.GetStatus() == http.StatusNotFound && first {
				_ = send(sse.Message{Data: &StateEvent{ID: id, State: "unknown", Message: "no such job", Final: true}})
				return
			}
		} else {
			final := stateNamed(v.State).Final()
			if v.State != lastState {
				if send(sse.Message{Data: &StateEvent{ID: id, State: v.State, Message: v.Message, Final: final}}) != nil {
					return
				}
				lastState = v.State
			}
			if first || progressChanged(last, v) {
				if send(sse.Message{Data: &v}) != nil {
					return
				}
				last = v
			}
			if final {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case _, ok := <-changed:
			if !ok {
				changed = nil
			}
		}
	}
}

// progressChanged reports whether a job moved since the last event.
func progressChanged(a, b JobOut) bool {
	return a.Progress.BytesDone != b.Progress.BytesDone || a.Progress.Tasks != b.Progress.Tasks ||
		a.Progress.FilesLoaded != b.Progress.FilesLoaded || a.Progress.BandwidthLimit != b.Progress.BandwidthLimit ||
		a.State != b.State || a.Message != b.Message || a.LastError != b.LastError
}
