package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"

	"rangecopy/api"
)

// Event is one event of a job's stream: a state change (State set) or progress (Progress
// set, the job as GetJob shows it). Kind is the event's type, "state" or "progress".
type Event struct {
	Kind     string
	State    *api.StateEvent
	Progress *api.JobOut
}

// EventStream reads a job's events. Close it when done.
type EventStream struct {
	body   io.ReadCloser
	r      *eventReader
	path   string
	closed bool
}

// Events opens the event stream of a job. The stream is bounded only by ctx: the server
// ends it after the job ends.
func (c *Client) Events(ctx context.Context, id string) (*EventStream, error) {
	req, err := c.newRequest(ctx, http.MethodGet, jobPath(id, "/events"), nil, nil)
	if err != nil {
		return nil, err
	}
	path := api.APIPrefix + jobPath(id, "/events")
	req.Header.Set("Accept", "text/event-stream, application/problem+json")
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, decodeError(http.MethodGet, path, resp)
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "text/event-stream" {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: answer of type %q, not text/event-stream", path, resp.Header.Get("Content-Type"))
	}
	return &EventStream{body: resp.Body, r: newEventReader(resp.Body), path: path}, nil
}

// Next returns the next event; io.EOF when the server ended the stream. Events of types
// this client does not know are skipped.
func (s *EventStream) Next() (Event, error) {
	for {
		raw, err := s.r.next()
		if err != nil {
			if err == io.EOF {
				return Event{}, io.EOF
			}
			return Event{}, fmt.Errorf("GET %s: %w", s.path, err)
		}
		ev, ok, err := decodeEvent(raw)
		if err != nil {
			return Event{}, fmt.Errorf("GET %s: %w", s.path, err)
		}
		if ok {
			return ev, nil
		}
	}
}

// decodeEvent turns a raw event into a typed one; ok is false for a type it does not know.
func decodeEvent(raw RawEvent) (Event, bool, error) {
	switch raw.Type {
	case "state":
		var st api.StateEvent
		if err := json.Unmarshal([]byte(raw.Data), &st); err != nil {
			return Event{}, false, fmt.Errorf("state event: %w", err)
		}
		return Event{Kind: raw.Type, State: &st}, true, nil
	case "progress":
		var j api.JobOut
		if err := json.Unmarshal([]byte(raw.Data), &j); err != nil {
			return Event{}, false, fmt.Errorf("progress event: %w", err)
		}
		return Event{Kind: raw.Type, Progress: &j}, true, nil
	}
	return Event{}, false, nil
}

// Close ends the stream.
func (s *EventStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return s.body.Close()
}
