package verify

import (
	"errors"
	"testing"

	"rangecopy/hfile"
	"rangecopy/job"
)

func seq(c hfile.Cell, s uint64) hfile.Cell { c.SeqID = s; return c }

func TestMerged(t *testing.T) {
	tests := []struct {
		name   string
		inputs []*Input
		want   string
	}{
		{"key order across files",
			[]*Input{
				{Cells: &sliceIter{cells: sorted(put("a", "q", 1, "1"), put("c", "q", 1, "3"))}, Rank: 0},
				{Cells: &sliceIter{cells: sorted(put("b", "q", 1, "2"), put("d", "q", 1, "4"))}, Rank: 1},
			},
			"a/f:q/1/Put=1 b/f:q/1/Put=2 c/f:q/1/Put=3 d/f:q/1/Put=4"},
		{"identical keys: the larger sequence id wins",
			[]*Input{
				{Cells: &sliceIter{cells: []hfile.Cell{seq(put("a", "q", 1, "old"), 3)}}, Rank: 0},
				{Cells: &sliceIter{cells: []hfile.Cell{seq(put("a", "q", 1, "new"), 7)}}, Rank: 1},
			},
			"a/f:q/1/Put=new"},
		{"identical keys and sequence ids: the newer file wins",
			[]*Input{
				{Cells: &sliceIter{cells: []hfile.Cell{put("a", "q", 1, "older")}}, Rank: 1},
				{Cells: &sliceIter{cells: []hfile.Cell{put("a", "q", 1, "newer")}}, Rank: 0},
			},
			"a/f:q/1/Put=newer"},
		{"a bulk-loaded file's stamp is its cells' sequence id",
			[]*Input{
				{Cells: &sliceIter{cells: []hfile.Cell{seq(put("a", "q", 1, "flushed"), 5)}}, Rank: 0},
				{Cells: &sliceIter{cells: []hfile.Cell{put("a", "q", 1, "loaded")}}, Rank: 1, Stamped: true, Stamp: 8},
			},
			"a/f:q/1/Put=loaded"},
		{"same timestamp, other types are other keys",
			[]*Input{
				{Cells: &sliceIter{cells: []hfile.Cell{put("a", "q", 1, "v")}}},
				{Cells: &sliceIter{cells: []hfile.Cell{mark("a", "q", 1, hfile.TypeDelete)}}, Rank: 1},
			},
			"a/f:q/1/Delete= a/f:q/1/Put=v"},
		{"a duplicate within one file is kept once",
			[]*Input{{Cells: &sliceIter{cells: []hfile.Cell{seq(put("a", "q", 1, "x"), 2), seq(put("a", "q", 1, "y"), 1)}}}},
			"a/f:q/1/Put=x"},
		{"no inputs", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := collect(NewMerged(tc.inputs))
			if err != nil {
				t.Fatal(err)
			}
			if join(got) != tc.want {
				t.Errorf("merged\n got %q\nwant %q", join(got), tc.want)
			}
		})
	}
}

type failingIter struct{ sliceIter }

func (f *failingIter) Err() error { return errors.New("bad block") }

func TestMergedError(t *testing.T) {
	m := NewMerged([]*Input{
		{Cells: &sliceIter{cells: sorted(put("a", "q", 1, "1"), put("z", "q", 1, "2"))}},
		{Cells: &failingIter{sliceIter{cells: sorted(put("b", "q", 1, "x"))}}, Rank: 1, Name: "f2"},
	})
	if _, err := collect(m); err == nil || err.Error() != "read f2: bad block" {
		t.Fatalf("error %v, want the failed input's", err)
	}
}

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

func TestCompareAge(t *testing.T) {
	tests := []struct {
		a, b FileRank
		want int
	}{
		{FileRank{SeqID: 1}, FileRank{SeqID: 2}, -1},
		{FileRank{SeqID: 2, Size: 10}, FileRank{SeqID: 2, Size: 5}, -1},
		{FileRank{SeqID: 2, Size: 5, BulkTime: 1}, FileRank{SeqID: 2, Size: 5, BulkTime: 2}, -1},
		{FileRank{SeqID: 2, Path: "b"}, FileRank{SeqID: 2, Path: "a"}, 1},
		{FileRank{SeqID: 2, Path: "a"}, FileRank{SeqID: 2, Path: "a"}, 0},
	}
	for _, tc := range tests {
		if got := CompareAge(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareAge(%+v, %+v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
