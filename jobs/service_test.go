package jobs

import (
	"errors"
	"fmt"
	"testing"

	"rangecopy/job"
)

func TestNewRequestNamesTheFields(t *testing.T) {
	_, err := NewRequest("dc1", "dc2", job.Request{StartRow: "b", StopRow: "a", TaskSize: "1KiB"})
	var inv *InvalidError
	if !errors.As(err, &inv) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("NewRequest = %v, want an *InvalidError", err)
	}
	var fields []string
	for _, f := range inv.Fields {
		fields = append(fields, f.Field)
		if f.Message == "" {
			t.Errorf("field %s has no message", f.Field)
		}
	}
	if fmt.Sprint(fields) != "[table stopRow taskSize]" {
		t.Errorf("fields %v, want table, stopRow and taskSize", fields)
	}

	req, err := NewRequest("dc1", "dc2", job.Request{Table: "ns:t", Families: []string{"f"}, Bandwidth: "1MB/s", Pin: "live"})
	if err != nil {
		t.Fatal(err)
	}
	if req.Source != "dc1" || req.Target != "dc2" || req.Spec.Table != "ns:t" || req.Settings.Bandwidth != 1e6 ||
		!req.Settings.Pin.Live() || req.Asked.Table != "ns:t" {
		t.Errorf("NewRequest = %+v", req)
	}
}

func TestErrorKinds(t *testing.T) {
	cause := errors.New("cause")
	tests := []struct {
		err  error
		kind error
		msg  string
	}{
		{&NotFoundError{What: "job j", Why: "no such job"}, ErrNotFound, "job j: no such job"},
		{&ConflictError{Err: cause}, ErrConflict, "cause"},
		{&InvalidError{Err: cause}, ErrInvalid, "cause"},
		{&InvalidError{Fields: []FieldError{{Field: "a", Message: "bad"}, {Field: "b", Message: "worse"}}}, ErrInvalid,
			"the request is not valid: a: bad; b: worse"},
		{&UnavailableError{Err: cause}, ErrUnavailable, "cause"},
	}
	kinds := []error{ErrNotFound, ErrConflict, ErrInvalid, ErrUnavailable}
	for _, tt := range tests {
		wrapped := fmt.Errorf("context: %w", tt.err)
		for _, k := range kinds {
			if got := errors.Is(wrapped, k); got != (k == tt.kind) {
				t.Errorf("errors.Is(%v, %v) = %v", tt.err, k, got)
			}
		}
		if tt.err.Error() != tt.msg {
			t.Errorf("%T says %q, want %q", tt.err, tt.err.Error(), tt.msg)
		}
	}
}

func TestOutcome(t *testing.T) {
	tests := []struct {
		o     Outcome
		ended bool
		state string
		why   string
	}{
		{Outcome{State: job.StateRunning, Message: "running"}, false, "running", "running"},
		{Outcome{State: job.StateDone}, true, "done", ""},
		{Outcome{State: job.StateFailed, Message: "m", LastError: "e"}, true, "failed", "e"},
		{Outcome{Lost: true, Message: "gone"}, true, "lost", "gone"},
	}
	for _, tt := range tests {
		if tt.o.Ended() != tt.ended || tt.o.StateText() != tt.state || tt.o.Why() != tt.why {
			t.Errorf("%+v: Ended %v, StateText %q, Why %q", tt.o, tt.o.Ended(), tt.o.StateText(), tt.o.Why())
		}
	}
}
