package job

import (
	"math"
	"testing"
)

func kr(start, end string) KeyRange {
	r := KeyRange{}
	if start != "" {
		r.Start = []byte(start)
	}
	if end != "" {
		r.End = []byte(end)
	}
	return r
}

func TestKeyRangeIntersect(t *testing.T) {
	tests := []struct {
		a, b KeyRange
		want KeyRange
		ok   bool
	}{
		{kr("", ""), kr("", ""), kr("", ""), true},
		{kr("", ""), kr("b", "d"), kr("b", "d"), true},
		{kr("a", "c"), kr("b", "d"), kr("b", "c"), true},
		{kr("a", ""), kr("", "c"), kr("a", "c"), true},
		{kr("a", "b"), kr("b", "c"), KeyRange{}, false},
		{kr("c", ""), kr("a", "c"), KeyRange{}, false},
		{kr("a", "z"), kr("m", "m\x00"), kr("m", "m\x00"), true},
	}
	for _, tt := range tests {
		for _, pair := range [][2]KeyRange{{tt.a, tt.b}, {tt.b, tt.a}} {
			got, ok := pair[0].Intersect(pair[1])
			if ok != tt.ok || got.String() != tt.want.String() {
				t.Errorf("%s ∩ %s = %s, %v; want %s, %v", pair[0], pair[1], got, ok, tt.want, tt.ok)
			}
		}
	}
}

func TestKeyRangePredicates(t *testing.T) {
	r := kr("b", "d")
	for key, want := range map[string]bool{"a": false, "b": true, "c\xff": true, "d": false, "": false} {
		if got := r.Contains([]byte(key)); got != want {
			t.Errorf("%s.Contains(%q) = %v, want %v", r, key, got, want)
		}
	}
	if !kr("", "").Contains(nil) || !kr("", "").Contains([]byte("\xff\xff")) {
		t.Error("the whole table does not contain every key")
	}
	covers := []struct {
		outer, inner KeyRange
		want         bool
	}{
		{kr("", ""), kr("a", ""), true},
		{kr("a", ""), kr("", "b"), false},
		{kr("a", "d"), kr("b", "c"), true},
		{kr("a", "d"), kr("b", ""), false},
		{kr("a", "d"), kr("a", "d"), true},
	}
	for _, c := range covers {
		if got := c.outer.Covers(c.inner); got != c.want {
			t.Errorf("%s.Covers(%s) = %v, want %v", c.outer, c.inner, got, c.want)
		}
	}
	if !kr("b", "b").Empty() || !kr("c", "b").Empty() || kr("b", "").Empty() || kr("", "").Empty() {
		t.Error("Empty is wrong")
	}
	overlaps := []struct {
		first, last string
		want        bool
	}{{"a", "a\xff", false}, {"a", "b", true}, {"c", "c", true}, {"d", "e", false}, {"a", "z", true}}
	for _, o := range overlaps {
		if got := r.OverlapsRows([]byte(o.first), []byte(o.last)); got != o.want {
			t.Errorf("%s.OverlapsRows(%q, %q) = %v, want %v", r, o.first, o.last, got, o.want)
		}
	}
}

func TestTimeRange(t *testing.T) {
	tr := TimeRange{Min: 100, Max: 200}
	for _, c := range []struct {
		min, max          int64
		overlaps, covered bool
	}{
		{0, 99, false, false},
		{0, 100, true, false},
		{100, 199, true, true},
		{150, 200, true, false},
		{200, 300, false, false},
	} {
		if got := tr.Overlaps(c.min, c.max); got != c.overlaps {
			t.Errorf("%s.Overlaps(%d, %d) = %v, want %v", tr, c.min, c.max, got, c.overlaps)
		}
		if got := tr.Covers(c.min, c.max); got != c.covered {
			t.Errorf("%s.Covers(%d, %d) = %v, want %v", tr, c.min, c.max, got, c.covered)
		}
	}
	if !tr.Contains(100) || tr.Contains(200) || !AllTime().Contains(math.MaxInt64-1) || !AllTime().IsAll() || tr.IsAll() {
		t.Error("Contains or IsAll is wrong")
	}
	if s := AllTime().String(); s != "all time" {
		t.Errorf("AllTime().String() = %s", s)
	}
}
