package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/danielgtaylor/huma/v2/sse"

	"rangecopy/api"
	"rangecopy/catalog"
)

// eventPoll is how often an event stream looks at its job.
const eventPoll = time.Second

// eventsIn names the job; its path parameter is declared here, not embedded: huma's SSE
// registration left an embedded jobIDIn's id empty.
type eventsIn struct {
	ID string `path:"id" minLength:"1" maxLength:"128" pattern:"^[A-Za-z0-9._:-]+$" doc:"the job's id"`
}

func (a *rest) registerEvents() {
	o := op("job-events", http.MethodGet, "/jobs/{id}/events", "Follow a job: Server-Sent Events of its progress and state changes", catalog.RoleViewer, "jobs")
	o.Description += " A progress event (the job as GET /jobs/{id} shows it) comes when anything changed, at most once a second; a state event on each change of state. The stream ends after the job ends."
	o.Description += " A server holds a bounded number of streams at once (503 past that), and so does each token (429); both answers say when to try again (Retry-After)."
	o.Errors = append(o.Errors, http.StatusNotFound, http.StatusServiceUnavailable)
	o.Middlewares = huma.Middlewares{a.streamSlot}
	sse.Register(a.h, o, map[string]any{"progress": api.JobOut{}, "state": api.StateEvent{}},
		func(ctx context.Context, in *eventsIn, send sse.Sender) {
			a.follow(ctx, in.ID, send)
		})
}

// follow sends a job's events until it ends or the client goes away. The looks at the job
// come from its feed, which every stream following the job shares.
func (a *rest) follow(ctx context.Context, id string, send sse.Sender) {
	var last api.JobOut
	var lastState api.JobState
	looks, leave := a.feeds.subscribe(id)
	defer leave()
	for first := true; ; first = false {
		var look jobLook
		select {
		case <-ctx.Done():
			return
		case look = <-looks:
		}
		if look.err != nil {
			var se huma.StatusError
			if errors.As(look.err, &se) && se.GetStatus() == http.StatusNotFound && first {
				_ = send(sse.Message{Data: &api.StateEvent{ID: id, State: api.JobUnknown, Message: "no such job", Final: true}})
				return
			}
			continue
		}
		v := look.v
		final := v.State.Final()
		if v.State != lastState {
			if send(sse.Message{Data: &api.StateEvent{ID: id, State: v.State, Message: v.Message, Final: final}}) != nil {
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
}

// progressChanged reports whether a job moved since the last event.
func progressChanged(a, b api.JobOut) bool {
	return a.Progress.BytesDone != b.Progress.BytesDone || a.Progress.Tasks != b.Progress.Tasks ||
		a.Progress.FilesLoaded != b.Progress.FilesLoaded || a.Progress.BandwidthLimit != b.Progress.BandwidthLimit ||
		a.State != b.State || a.Message != b.Message || a.LastError != b.LastError
}

// streamRetry is the Retry-After of a stream refused for want of a slot.
const streamRetry = 5 * time.Second

// streamSlot holds one of the server's (and the caller's) event-stream slots while the
// stream runs, or answers 503 (the server's are taken) or 429 (the caller's are) with
// Retry-After. A stream is not cut by the server's read and write timeouts: it lifts them,
// and each event sets its own write deadline.
func (a *rest) streamSlot(ctx huma.Context, next func(huma.Context)) {
	p := callerOf(ctx.Context())
	key := "token " + p.tokenID
	if p.tokenID == "" {
		key = "client " + clientOf(ctx.Context(), ctx.RemoteAddr())
	}
	release, status := a.streams.acquire(key)
	if status != 0 {
		ctx.SetHeader("Retry-After", strconv.Itoa(int(streamRetry/time.Second)))
		msg := fmt.Sprintf("the server holds %d event streams, its most: try again later", a.streams.max)
		if status == http.StatusTooManyRequests {
			msg = fmt.Sprintf("%s holds %d event streams, its most: close one or try again later", key, a.streams.perKey)
		}
		_ = huma.WriteErr(a.h, ctx, status, msg)
		return
	}
	defer release()
	if _, w := humago.Unwrap(ctx); w != nil {
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
	}
	next(ctx)
}

// streamLimits counts the event streams open, in all and by holder (a token, or a client
// address), against their caps.
type streamLimits struct {
	max, perKey int
	mu          sync.Mutex
	open        int
	by          map[string]int
}

func newStreamLimits(max, perKey int) *streamLimits {
	return &streamLimits{max: max, perKey: perKey, by: map[string]int{}}
}

// acquire takes a slot for key and returns its release, or the status that refuses it:
// 503 when the server holds its most, 429 when key does.
func (l *streamLimits) acquire(key string) (release func(), status int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.open >= l.max:
		return nil, http.StatusServiceUnavailable
	case l.by[key] >= l.perKey:
		return nil, http.StatusTooManyRequests
	}
	l.open++
	l.by[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.open--
			if l.by[key]--; l.by[key] == 0 {
				delete(l.by, key)
			}
		})
	}, 0
}

// inUse is how many streams are open.
func (l *streamLimits) inUse() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// dashStream serves the dashboard's live streams (h) within the same caps as the API's event
// streams, held by the client's address, and keeps the server's read and write timeouts
// from cutting them: each write gets its own deadline instead.
func (a *rest) dashStream(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, status := a.streams.acquire("client " + clientOf(r.Context(), r.RemoteAddr))
		if status != 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(streamRetry/time.Second)))
			http.Error(w, "too many live streams: try again later", status)
			return
		}
		defer release()
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		h.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: rc, timeout: a.s.cfg.Limits.WriteTimeout}, r)
	})
}

// deadlineWriter gives each write of a stream its own write deadline.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	return w.ResponseWriter.Write(b)
}

func (w *deadlineWriter) WriteHeader(code int) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
