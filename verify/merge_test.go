package verify

import (
	"testing"

	"rangecopy/hfile"
	"rangecopy/job"
)

func TestInTime(t *testing.T) {
	in := &sliceIter{cells: sorted(put("a", "q", 5, "x"), put("a", "q", 3, "y"), mark("a", "q", 9, hfile.TypeDeleteColumn), put("a", "q", 2, "z"))}
	got, err := collect(&InTime{In: in, Time: job.TimeRange{Min: 3, Max: 9}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a/f:q/5/Put=x a/f:q/3/Put=y"; join(got) != want {
		t.Errorf("got %q, want %q (a marker outside the range is left out too)", join(got), want)
	}
}
