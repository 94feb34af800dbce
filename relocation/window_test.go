package relocation

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPlanWindow(t *testing.T) {
	sc := Scope{Tables: []TableMap{{Source: "ns:a"}, {Source: "ns:b", Target: "ns2:b"}}, StartRow: "k", Families: []string{"f"}, Bandwidth: "10MB/s"}
	full := PlanWindow(sc, Window{Kind: Full})
	if len(full) != 2 || !full[0].CreateTable || full[0].StartTime != nil || full[1].TargetTable != "ns2:b" || full[1].Bandwidth != "10MB/s" || full[0].Pin != "" {
		t.Fatalf("full copy: %+v", full)
	}
	w := PlanWindow(sc, Window{Kind: CatchUp, StartTime: 100, EndTime: 200})
	final := PlanWindow(sc, Window{Kind: Final, StartTime: 100, EndTime: 200})
	for _, r := range append(final, w...) {
		if r.CreateTable || *r.StartTime != 100 || *r.EndTime != 200 || r.StartRow != "k" || !reflect.DeepEqual(r.Families, []string{"f"}) {
			t.Errorf("catch-up request %+v", r)
		}
		_, set, err := r.Resolve()
		if err != nil {
			t.Errorf("the request does not resolve: %v", err)
		}
		if !set.Pin.Live() {
			t.Errorf("window request %+v pins with %q, want live", r, set.Pin)
		}
	}
	w[0].Families[0] = "changed"
	if sc.Families[0] != "f" {
		t.Error("the plan shares the scope's families")
	}
}

func TestParseTableMap(t *testing.T) {
	cases := []struct {
		in   string
		want TableMap
		err  string
	}{
		{"ns:t", TableMap{Source: "ns:t"}, ""},
		{"t", TableMap{Source: "t"}, ""},
		{"ns:t→ns2:t", TableMap{Source: "ns:t", Target: "ns2:t"}, ""},
		{"ns:t -> ns2:u", TableMap{Source: "ns:t", Target: "ns2:u"}, ""},
		{"ns:t=ns:t", TableMap{Source: "ns:t"}, ""},
		{"", TableMap{}, "table"},
		{"ns:t→", TableMap{}, "target"},
		{"bad name!", TableMap{}, "bad name!"},
	}
	for _, c := range cases {
		got, err := ParseTableMap(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseTableMap(%q) = %+v, %v; want an error naming %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseTableMap(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestOverlaps(t *testing.T) {
	a := Scope{Tables: []TableMap{{Source: "ns:a"}}}
	cases := []struct {
		name string
		b    Scope
		want bool
	}{
		{"same table", Scope{Tables: []TableMap{{Source: "ns:a"}}}, true},
		{"other table", Scope{Tables: []TableMap{{Source: "ns:b"}}}, false},
		{"other table into the same target", Scope{Tables: []TableMap{{Source: "ns:b", Target: "ns:a"}}}, true},
		{"same table, rows after", Scope{Tables: []TableMap{{Source: "ns:a"}}, StartRow: "m"}, true},
	}
	for _, c := range cases {
		if got := Overlaps(a, c.b); got != c.want {
			t.Errorf("%s: Overlaps = %v; want %v", c.name, got, c.want)
		}
	}
	lo := Scope{Tables: []TableMap{{Source: "ns:a"}}, StopRow: "m"}
	hi := Scope{Tables: []TableMap{{Source: "ns:a"}}, StartRow: "m"}
	if Overlaps(lo, hi) || Overlaps(hi, lo) {
		t.Error("[,m) and [m,) overlap")
	}
	if !Overlaps(lo, Scope{Tables: []TableMap{{Source: "ns:a"}}, StartRow: "l"}) {
		t.Error("[,m) and [l,) do not overlap")
	}
}

func TestParseSchedule(t *testing.T) {
	from := time.Date(2026, 3, 1, 10, 0, 2, 0, time.UTC)
	cases := []struct {
		expr string
		next time.Time
		err  string
	}{
		{"*/5 * * * * *", time.Date(2026, 3, 1, 10, 0, 5, 0, time.UTC), ""},
		{"*/10 * * * *", time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC), ""},
		{"0 2 * * *", time.Date(2026, 3, 2, 2, 0, 0, 0, time.UTC), ""},
		{"CRON_TZ=Europe/Berlin 0 12 * * *", time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC), ""},
		{"@every 30s", time.Date(2026, 3, 1, 10, 0, 32, 0, time.UTC), ""},
		{"@hourly", time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC), ""},
		{"every ten minutes", time.Time{}, "every ten minutes"},
		{"61 * * * *", time.Time{}, "61"},
		{"CRON_TZ=Mars/Olympus 0 * * * *", time.Time{}, "Mars/Olympus"},
		{"0 0 30 2 *", time.Time{}, "never fires"},
		{"", time.Time{}, "empty"},
	}
	for _, c := range cases {
		s, err := ParseSchedule(c.expr)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseSchedule(%q): %v; want an error containing %q", c.expr, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSchedule(%q): %v", c.expr, err)
			continue
		}
		if got := s.Next(from); !got.Equal(c.next) {
			t.Errorf("ParseSchedule(%q).Next(%s) = %s; want %s", c.expr, from, got.UTC(), c.next)
		}
	}
}

func TestPhases(t *testing.T) {
	for _, p := range Phases {
		if !p.Valid() || p.String() != string(p) {
			t.Errorf("%q", p)
		}
	}
	if Phase("moving").Valid() {
		t.Error("moving is valid")
	}
	if !Done.Final() || !Failed.Final() || !Cancelled.Final() || Paused.Final() || Ready.Final() {
		t.Error("Final")
	}
}
