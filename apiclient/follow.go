package apiclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"rangecopy/catalog"
	"rangecopy/server"
)

// maxReconnects is how many times in a row Follow opens a broken stream again before it
// gives up.
const maxReconnects = 10

// Final reports whether a job state is one a job does not leave: done, failed, cancelled
// or lost.
func Final(state string) bool {
	s, err := catalog.ParseJobState(state)
	return err == nil && s.Final()
}

// Follow follows a job's events until it ends, handing each to fn (nil: none), and returns
// the job as it ended. A stream that breaks before the end is opened again (each time the
// job is read first, in case it ended meanwhile); after 10 failures in a row it gives up
// with the last error. A job the server does not know is an *Error of status 404.
func (c *Client) Follow(ctx context.Context, id string, fn func(Event)) (server.JobOut, error) {
	failures := 0
	for {
		final, err := c.followOnce(ctx, id, fn)
		if final {
			return c.GetJob(ctx, id)
		}
		if ctx.Err() != nil {
			return server.JobOut{}, fmt.Errorf("follow job %s: %w", id, ctx.Err())
		}
		var apiErr *Error
		if errors.As(err, &apiErr) && apiErr.Status < 500 {
			return server.JobOut{}, err
		}
		// The stream broke (or ended early): has the job ended meanwhile?
		j, gerr := c.GetJob(ctx, id)
		if gerr == nil && Final(j.State) {
			return j, nil
		}
		if errors.As(gerr, &apiErr) && apiErr.Status < 500 {
			return server.JobOut{}, gerr
		}
		if err == nil {
			err = gerr
		}
		if failures++; failures >= maxReconnects {
			return server.JobOut{}, fmt.Errorf("follow job %s: gave up after %d broken streams: %w", id, failures, err)
		}
		select {
		case <-ctx.Done():
			return server.JobOut{}, fmt.Errorf("follow job %s: %w", id, ctx.Err())
		case <-time.After(time.Duration(failures) * time.Second):
		}
	}
}

// followOnce reads one stream of a job's events; final is true when it saw the job end.
// It returns a nil error when the stream ended without the end of the job.
func (c *Client) followOnce(ctx context.Context, id string, fn func(Event)) (final bool, err error) {
	s, err := c.Events(ctx, id)
	if err != nil {
		return false, err
	}
	defer s.Close()
	for {
		ev, err := s.Next()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if ev.State != nil && ev.State.State == "unknown" && ev.State.Final {
			return false, &Error{Method: "GET", Path: server.APIPrefix + jobPath(id, "/events"), Status: 404,
				Title: "Not Found", Detail: "job " + id + ": " + ev.State.Message}
		}
		if fn != nil {
			fn(ev)
		}
		if ev.State != nil && ev.State.Final {
			return true, nil
		}
	}
}
