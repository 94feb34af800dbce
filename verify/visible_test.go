package verify

import (
	"math"
	"testing"

	"rangecopy/hbase"
	"rangecopy/hfile"
)

func TestVisible(t *testing.T) {
	forever := Rules{MaxVersions: 10, OldestUnexpired: math.MinInt64}
	tests := []struct {
		name  string
		rules Rules
		cells []hfile.Cell
		want  string
	}{
		{"puts pass", forever,
			[]hfile.Cell{put("r", "a", 2, "x"), put("r", "a", 1, "y"), put("r", "b", 1, "z")},
			"r/f:a/2/Put=x r/f:a/1/Put=y r/f:b/1/Put=z"},
		{"Delete masks exactly its timestamp", forever,
			[]hfile.Cell{put("r", "a", 3, "x"), put("r", "a", 2, "y"), put("r", "a", 1, "z"), mark("r", "a", 2, hfile.TypeDelete)},
			"r/f:a/3/Put=x r/f:a/1/Put=z"},
		{"Delete of a timestamp without a put masks nothing", forever,
			[]hfile.Cell{put("r", "a", 3, "x"), put("r", "a", 1, "z"), mark("r", "a", 2, hfile.TypeDelete)},
			"r/f:a/3/Put=x r/f:a/1/Put=z"},
		{"two Deletes of one column", forever,
			[]hfile.Cell{put("r", "a", 3, "x"), put("r", "a", 2, "y"), put("r", "a", 1, "z"), mark("r", "a", 3, hfile.TypeDelete), mark("r", "a", 1, hfile.TypeDelete)},
			"r/f:a/2/Put=y"},
		{"DeleteColumn masks its timestamp and older", forever,
			[]hfile.Cell{put("r", "a", 3, "x"), put("r", "a", 2, "y"), put("r", "a", 1, "z"), mark("r", "a", 2, hfile.TypeDeleteColumn), put("r", "b", 1, "w")},
			"r/f:a/3/Put=x r/f:b/1/Put=w"},
		{"DeleteColumn wins over a Delete below it", forever,
			[]hfile.Cell{put("r", "a", 2, "y"), put("r", "a", 1, "z"), mark("r", "a", 3, hfile.TypeDeleteColumn), mark("r", "a", 2, hfile.TypeDelete)},
			""},
		{"DeleteFamily masks every column at or before it", forever,
			[]hfile.Cell{put("r", "a", 3, "x"), put("r", "a", 2, "y"), put("r", "b", 1, "z"), mark("r", "", 2, hfile.TypeDeleteFamily), put("s", "a", 1, "next row")},
			"r/f:a/3/Put=x s/f:a/1/Put=next row"},
		{"DeleteFamily of another family masks nothing", forever,
			[]hfile.Cell{put("r", "a", 1, "x"), cell("r", "g", "", 5, hfile.TypeDeleteFamily, "")},
			"r/f:a/1/Put=x"},
		{"DeleteFamilyVersion masks exactly its timestamp in every column", forever,
			[]hfile.Cell{put("r", "a", 2, "x"), put("r", "a", 1, "y"), put("r", "b", 2, "z"), put("r", "b", 3, "w"), mark("r", "", 2, hfile.TypeDeleteFamilyVersion)},
			"r/f:a/1/Put=y r/f:b/3/Put=w"},
		{"a marker masks a put written after it (same timestamp)", forever,
			[]hfile.Cell{func() hfile.Cell { c := put("r", "a", 5, "later"); c.SeqID = 9; return c }(),
				func() hfile.Cell { c := mark("r", "a", 5, hfile.TypeDelete); c.SeqID = 1; return c }()},
			""},
		{"VERSIONS caps each column", Rules{MaxVersions: 2, OldestUnexpired: math.MinInt64},
			[]hfile.Cell{put("r", "a", 3, "x"), put("r", "a", 2, "y"), put("r", "a", 1, "z"), put("r", "b", 1, "w")},
			"r/f:a/3/Put=x r/f:a/2/Put=y r/f:b/1/Put=w"},
		{"deleted versions do not count", Rules{MaxVersions: 2, OldestUnexpired: math.MinInt64},
			[]hfile.Cell{put("r", "a", 3, "x"), put("r", "a", 2, "y"), put("r", "a", 1, "z"), mark("r", "a", 3, hfile.TypeDelete)},
			"r/f:a/2/Put=y r/f:a/1/Put=z"},
		{"TTL expires old versions", Rules{MaxVersions: 10, OldestUnexpired: 2},
			[]hfile.Cell{put("r", "a", 3, "x"), put("r", "a", 2, "y"), put("r", "a", 1, "z")},
			"r/f:a/3/Put=x r/f:a/2/Put=y"},
		{"MIN_VERSIONS keeps expired versions", Rules{MaxVersions: 10, MinVersions: 2, OldestUnexpired: 10},
			[]hfile.Cell{put("r", "a", 3, "x"), put("r", "a", 2, "y"), put("r", "a", 1, "z")},
			"r/f:a/3/Put=x r/f:a/2/Put=y"},
		{"markers reset per row", forever,
			[]hfile.Cell{mark("r", "a", 9, hfile.TypeDeleteColumn), put("s", "a", 1, "x")},
			"s/f:a/1/Put=x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := &Visible{In: &sliceIter{cells: sorted(tc.cells...)}, Rules: func([]byte) Rules { return tc.rules }}
			got, err := collect(v)
			if err != nil {
				t.Fatal(err)
			}
			if join(got) != tc.want {
				t.Errorf("visible cells\n got %q\nwant %q", join(got), tc.want)
			}
		})
	}
}

func TestRulesOf(t *testing.T) {
	tests := []struct {
		d    hbase.FamilyDescriptor
		want Rules
	}{
		{hbase.FamilyDescriptor{MaxVersions: 3}, Rules{MaxVersions: 3, OldestUnexpired: math.MinInt64}},
		{hbase.FamilyDescriptor{}, Rules{MaxVersions: 1, OldestUnexpired: math.MinInt64}},
		{hbase.FamilyDescriptor{MaxVersions: 1, TTL: math.MaxInt32}, Rules{MaxVersions: 1, OldestUnexpired: math.MinInt64}},
		{hbase.FamilyDescriptor{MaxVersions: 1, MinVersions: 1, TTL: 60}, Rules{MaxVersions: 1, MinVersions: 1, OldestUnexpired: 100_000 - 60_000}},
	}
	for _, tc := range tests {
		if got := RulesOf(tc.d, 100_000); got != tc.want {
			t.Errorf("RulesOf(%+v) = %+v, want %+v", tc.d, got, tc.want)
		}
	}
}
