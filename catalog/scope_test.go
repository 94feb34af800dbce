package catalog

import (
	"strings"
	"testing"
	"time"
)

func TestParseScope(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: the scope's String, or the error's telling words
		ok       bool
	}{
		{"*", "*", true},
		{"dc2:*", "dc2:*", true},
		{"dc2:ns_a:*", "dc2:ns_a:*", true},
		{"dc2:ns_a:events", "dc2:ns_a:events", true},
		{"dc2:ns_a:ev*", "dc2:ns_a:ev*", true},
		{"*:scratch:*", "*:scratch:*", true},
		{"dc2:*:*", "dc2:*", true},
		{"dc-2.east:default:t1", "dc-2.east:default:t1", true},
		{"", "empty", false},
		{"dc2", "must end in *", false},
		{"dc2:ns_a", "must end in *", false},
		{"dc2:ns_a:t:x", "4 parts", false},
		{"dc2::t", `namespace "": empty`, false},
		{":ns:t", `cluster "": empty`, false},
		{"dc2:ns a:*", `namespace "ns a": ' ' at byte 2`, false},
		{"dc2:n*s:*", `namespace "n*s": * at byte 1`, false},
		{"dc2:ns:t/../x", `table "t/../x": '/' at byte 1`, false},
		{"dc2:ns:" + strings.Repeat("t", 256), "256 bytes", false},
	} {
		got, err := ParseScope(tc.in)
		switch {
		case tc.ok && err != nil:
			t.Errorf("ParseScope(%q): %v", tc.in, err)
		case tc.ok && got.String() != tc.want:
			t.Errorf("ParseScope(%q) = %q, want %q", tc.in, got, tc.want)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("ParseScope(%q) = %v, %v; want an error saying %q", tc.in, got, err, tc.want)
		}
	}
}

func TestScopeAllows(t *testing.T) {
	type target struct{ cluster, ns, table string }
	for _, tc := range []struct {
		scope string
		yes   []target
		no    []target
	}{
		{"*", []target{{"dc1", "default", "t"}, {"dc2", "ns_a", "x"}, {"any", "", "t"}}, nil},
		{"dc2:*", []target{{"dc2", "ns_a", "t"}, {"dc2", "", "t"}}, []target{{"dc1", "ns_a", "t"}, {"dc22", "ns_a", "t"}, {"", "ns_a", "t"}}},
		{"dc2:ns_a:*", []target{{"dc2", "ns_a", "t"}, {"dc2", "ns_a", "u"}},
			[]target{{"dc2", "ns_b", "t"}, {"dc2", "", "t"}, {"dc2", "default", "t"}, {"dc1", "ns_a", "t"}, {"dc2", "ns_ab", "t"}}},
		{"dc2:default:*", []target{{"dc2", "", "t"}, {"dc2", "default", "t"}}, []target{{"dc2", "ns_a", "t"}}},
		{"dc2:ns_a:events", []target{{"dc2", "ns_a", "events"}}, []target{{"dc2", "ns_a", "events2"}, {"dc2", "ns_a", "event"}}},
		{"dc2:ns_a:ev*", []target{{"dc2", "ns_a", "ev"}, {"dc2", "ns_a", "events"}}, []target{{"dc2", "ns_a", "e"}, {"dc2", "ns_a", "xev"}, {"dc2", "ns_a", ""}}},
		{"*:scratch:*", []target{{"dc1", "scratch", "t"}, {"dc9", "scratch", "u"}}, []target{{"dc1", "prod", "t"}}},
	} {
		sc, err := ParseScope(tc.scope)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range tc.yes {
			if !sc.Allows(x.cluster, x.ns, x.table) {
				t.Errorf("%s refuses %+v", tc.scope, x)
			}
		}
		for _, x := range tc.no {
			if sc.Allows(x.cluster, x.ns, x.table) {
				t.Errorf("%s allows %+v", tc.scope, x)
			}
		}
	}
}

func TestScopesAllow(t *testing.T) {
	none := Scopes(nil)
	if !none.AllowsTable("dc1", "ns:t") || none.String() != "*" {
		t.Errorf("no scopes: %v, %q", none.AllowsTable("dc1", "ns:t"), none)
	}
	ss, err := ParseScopes([]string{"dc2:ns_a:*", " dc3:* "})
	if err != nil {
		t.Fatal(err)
	}
	for table, want := range map[[2]string]bool{
		{"dc2", "ns_a:t"}: true, {"dc2", "ns_b:t"}: false, {"dc2", "t"}: false, {"dc3", "t"}: true, {"dc3", "x:y"}: true, {"dc1", "ns_a:t"}: false,
	} {
		if got := ss.AllowsTable(table[0], table[1]); got != want {
			t.Errorf("%s allows %s %s: %v, want %v", ss, table[0], table[1], got, want)
		}
	}
	if ss.String() != "dc2:ns_a:*,dc3:*" {
		t.Errorf("String = %q", ss)
	}
	if _, err := ParseScopes([]string{"dc2:*", "dc3"}); err == nil || !strings.Contains(err.Error(), `"dc3"`) {
		t.Errorf("ParseScopes names the bad one: %v", err)
	}
	if got := normScopes(Scopes{{"dc2", "*", "*"}, ScopeAll}); got != nil {
		t.Errorf("normScopes with * = %v", got)
	}
}

func TestParseLifetime(t *testing.T) {
	for in, want := range map[string]time.Duration{"90d": 90 * 24 * time.Hour, "1d": 24 * time.Hour, "12h": 12 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := ParseLifetime(in); err != nil || got != want {
			t.Errorf("ParseLifetime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "0d", "-1h", "d", "1.5d", "x", "99999999d"} {
		if got, err := ParseLifetime(in); err == nil {
			t.Errorf("ParseLifetime(%q) = %v; want an error", in, got)
		}
	}
}

func TestCheckSecret(t *testing.T) {
	s, err := GenerateSecret()
	if err != nil || CheckSecret(s) != nil || !secretForm.MatchString(s) {
		t.Fatalf("GenerateSecret = %q, %v; CheckSecret: %v", s, err, CheckSecret(s))
	}
	for _, bad := range []string{"", "CHANGE-ME", s[:len(s)-1], s + "a", "rc_" + strings.Repeat("A", 52), "rc_" + strings.Repeat("1", 52)} {
		if CheckSecret(bad) == nil {
			t.Errorf("CheckSecret(%q) = nil", bad)
		}
	}
}
