package server

import (
	"errors"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/relocate"
)

// TestJobError: the API's answers become the relocation driver's errors, saying what they
// said; any other error stays as it is.
func TestJobError(t *testing.T) {
	other := errors.New("zookeeper unreachable")
	for _, c := range []struct {
		err  error
		want error
	}{
		{huma.Error400BadRequest("the request body is not valid: table: empty"), relocate.ErrInvalid},
		{huma.Error404NotFound("no job j1"), relocate.ErrNotFound},
		{huma.Error409Conflict("another copy holds ns:t"), relocate.ErrConflict},
		{huma.Error502BadGateway("cannot submit the job"), nil},
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
