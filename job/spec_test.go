package job

import (
	"strings"
	"testing"
)

func TestSpecValidate(t *testing.T) {
	ok := Spec{Table: "ns:events", Rows: kr("a", "b"), Time: TimeRange{Min: 0, Max: 10}, Families: []string{"f", "g"}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid spec: %v", err)
	}
	if err := (Spec{Table: "t"}).Validate(); err != nil {
		t.Fatalf("whole-table spec: %v", err)
	}
	tests := []struct {
		name string
		spec Spec
		want []string
	}{
		{"no table", Spec{}, []string{"source table: table name is empty"}},
		{"reversed rows", Spec{Table: "t", Rows: kr("b", "a")}, []string{`row range ["b", "a") is empty or reversed`}},
		{"empty rows", Spec{Table: "t", Rows: kr("\x00", "\x00")}, []string{`row range ["\x00", "\x00") is empty`}},
		{"reversed time", Spec{Table: "t", Time: TimeRange{Min: 5, Max: 5}}, []string{"time range [1970-01-01T00:00:00.005Z, 1970-01-01T00:00:00.005Z) is empty or reversed"}},
		{"negative time", Spec{Table: "t", Time: TimeRange{Min: -1, Max: 5}}, []string{"start time -1 is negative"}},
		{"bad target", Spec{Table: "t", TargetTable: "-x"}, []string{"target table: table name \"-x\": must not start with '-'"}},
		{"families", Spec{Table: "t", Families: []string{"f", "", "a:b", "f"}}, []string{"family name is empty", `family "a:b": illegal character ':'`, `family "f" named twice`}},
		{"all at once", Spec{Table: "hbase:meta", Rows: kr("z", "a")}, []string{"system namespace hbase", `row range ["z", "a")`}},
	}
	for _, tt := range tests {
		err := tt.spec.Validate()
		if err == nil {
			t.Errorf("%s: Validate() = nil", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Validate() = %q, want it to contain %q", tt.name, err, w)
			}
		}
	}
}

func TestValidateTableName(t *testing.T) {
	for _, good := range []string{"t", "default:t", "ns_1:Events-2024.v2", "a_b"} {
		if err := ValidateTableName(good); err != nil {
			t.Errorf("ValidateTableName(%q) = %v", good, err)
		}
	}
	bad := map[string]string{
		"":          "empty",
		":t":        "namespace before ':' is empty",
		"ns:":       "name after the namespace is empty",
		"n-s:t":     "namespace has illegal character '-'",
		".t":        "must not start with '.'",
		"t t":       "illegal character ' '",
		"ns:a:b":    "illegal character ':'",
		"hbase:acl": "system namespace",
	}
	for name, want := range bad {
		if err := ValidateTableName(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidateTableName(%q) = %v, want it to contain %q", name, err, want)
		}
	}
}

func TestSpecDefaults(t *testing.T) {
	s := Spec{Table: "t"}
	if s.Target() != "t" || !s.Times().IsAll() || !s.WantsFamily("anything") {
		t.Errorf("defaults: target %q, times %s, wants any family %v", s.Target(), s.Times(), s.WantsFamily("anything"))
	}
	s = Spec{Table: "t", TargetTable: "u", Families: []string{"f"}, Time: TimeRange{Min: 1, Max: 2}}
	if s.Target() != "u" || s.Times() != (TimeRange{Min: 1, Max: 2}) || s.WantsFamily("g") || !s.WantsFamily("f") {
		t.Errorf("set: target %q, times %s", s.Target(), s.Times())
	}
}
