package verify

import (
	"math"
	"testing"

	"rangecopy/hashtable"
	"rangecopy/hfile"
	"rangecopy/job"
)

func TestHashTableScan(t *testing.T) {
	rules := Rules{MaxVersions: 3, OldestUnexpired: math.MinInt64}
	tests := []struct {
		name     string
		time     job.TimeRange
		versions int
		cells    []hfile.Cell
		want     string
	}{
		{"one version by default", job.AllTime(), 1,
			[]hfile.Cell{put("r", "a", 3, "x"), put("r", "a", 2, "y"), put("r", "b", 1, "z")},
			"r/f:a/3/Put=x r/f:b/1/Put=z"},
		{"versions capped by the family", job.AllTime(), 5,
			[]hfile.Cell{put("r", "a", 4, "w"), put("r", "a", 3, "x"), put("r", "a", 2, "y"), put("r", "a", 1, "z")},
			"r/f:a/4/Put=w r/f:a/3/Put=x r/f:a/2/Put=y"},
		{"puts after the range do not count as versions", job.TimeRange{Min: 0, Max: 3}, 1,
			[]hfile.Cell{put("r", "a", 4, "w"), put("r", "a", 3, "x"), put("r", "a", 2, "y"), put("r", "a", 1, "z")},
			"r/f:a/2/Put=y"},
		{"a DeleteColumn after the range masks the puts in it", job.TimeRange{Min: 0, Max: 3}, 1,
			[]hfile.Cell{mark("r", "a", 5, hfile.TypeDeleteColumn), put("r", "a", 2, "y"), put("r", "b", 1, "z")},
			"r/f:b/1/Put=z"},
		{"a DeleteFamily before the range masks nothing in it", job.TimeRange{Min: 2, Max: 9}, 1,
			[]hfile.Cell{mark("r", "", 1, hfile.TypeDeleteFamily), put("r", "a", 2, "y"), put("r", "b", 1, "z")},
			"r/f:a/2/Put=y"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := &Visible{In: &hashTableScan{In: &sliceIter{cells: sorted(tc.cells...)}, Time: tc.time}, Rules: func([]byte) Rules {
				r := rules
				r.MaxVersions = min(r.MaxVersions, tc.versions)
				return r
			}}
			got, err := collect(v)
			if err != nil {
				t.Fatal(err)
			}
			if join(got) != tc.want {
				t.Errorf("scanned cells\n got %q\nwant %q", join(got), tc.want)
			}
		})
	}
}

func TestManifestTime(t *testing.T) {
	for _, tr := range []job.TimeRange{job.AllTime(), {Min: 5, Max: math.MaxInt64}, {Min: 0, Max: 9}, {Min: 5, Max: 9}} {
		s, e := manifestTime(tr)
		if got := timeOfManifest(hashtable.Manifest{StartTime: s, EndTime: e}); got != tr {
			t.Errorf("time range %s written as %d,%d reads back as %s", tr, s, e, got)
		}
	}
}
