package server

import (
	"errors"
	"testing"

	"rangecopy/jobs"
	"rangecopy/relocate"
)

// TestJobError: the job service's errors become the relocation driver's errors, saying what they
// said; any other error stays as it is.
func TestJobError(t *testing.T) {
	other := errors.New("zookeeper unreachable")
	for _, c := range []struct {
		err  error
		want error
	}{
		{&jobs.InvalidError{Err: errors.New("table: empty"), Fields: []jobs.FieldError{{Field: "table", Message: "empty"}}}, relocate.ErrInvalid},
		{&jobs.NotFoundError{What: "job j1", Why: "no such job"}, relocate.ErrNotFound},
		{&jobs.ConflictError{Err: errors.New("another copy holds ns:t")}, relocate.ErrConflict},
		{&jobs.UnavailableError{Err: errors.New("cannot submit the job")}, nil},
		{other, nil},
	} {
		got := jobError(c.err)
		for _, kind := range []error{relocate.ErrInvalid, relocate.ErrNotFound, relocate.ErrConflict} {
			if errors.Is(got, kind) != (kind == c.want) {
				t.Errorf("%v: errors.Is %v = %v", c.err, kind, errors.Is(got, kind))
			}
		}
		if got.Error() != c.err.Error() || !errors.Is(got, c.err) {
			t.Errorf("%v: became %q, not wrapping it", c.err, got)
		}
	}
}
