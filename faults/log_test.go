package faults

import (
	"testing"
	"time"
)

// TestParseLog checks the log parsing the fault tests rely on: JSON lines of
// log/slog with their time, message and attributes, other lines kept raw,
// and a last line still being written left out.
func TestParseLog(t *testing.T) {
	in := `{"time":"2026-11-30T01:02:03.5Z","level":"INFO","msg":"file loaded","job":"j1","task":"t1","family":"f","first":"3031","worker":"w1"}
panic: not json
{"time":"2026-11-30T01:02:04Z","level":"WARN","msg":"claim lost; task stopped without writing more","task":"t1","n":3}
{"time":"2026-11-30T01:02:05Z","msg":"file lo`
	lines := parseLog([]byte(in))
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3 (the partial last line left out): %+v", len(lines), lines)
	}
	want := time.Date(2026, 11, 30, 1, 2, 3, 500_000_000, time.UTC)
	if l := lines[0]; l.Msg != "file loaded" || l.Level != "INFO" || !l.Time.Equal(want) || l.attr("first") != "3031" || l.attr("missing") != "" {
		t.Errorf("line 0: %+v", l)
	}
	if l := lines[1]; l.Msg != "" || l.Raw != "panic: not json" {
		t.Errorf("line 1: %+v", l)
	}
	if l := lines[2]; l.attr("n") != "3" {
		t.Errorf("line 2: number attribute %q, want 3", l.attr("n"))
	}
	if got := filterLines(lines, "file loaded", "job", "j1", "task", "t1"); len(got) != 1 {
		t.Errorf("filter by job and task: %d lines, want 1", len(got))
	}
	if got := filterLines(lines, "file loaded", "job", "j2"); len(got) != 0 {
		t.Errorf("filter by another job: %d lines, want 0", len(got))
	}
}

// TestTwice checks files loaded twice are counted by task, family, first
// row and size, whoever loaded them.
func TestTwice(t *testing.T) {
	loads := []fileLoad{
		{worker: "a", task: "t1", family: "f", first: "00", bytes: "100"},
		{worker: "a", task: "t1", family: "f", first: "10", bytes: "100"},
		{worker: "b", task: "t1", family: "f", first: "10", bytes: "100"},
		{worker: "b", task: "t1", family: "f", first: "10", bytes: "250"}, // another store file at the same row
		{worker: "b", task: "t1", family: "g", first: "10", bytes: "100"},
		{worker: "b", task: "t2", family: "f", first: "10", bytes: "100"},
	}
	if n, keys := twice(loads); n != 1 || len(keys) != 1 || keys[0] != "t1/f/10/100 (2 times)" {
		t.Errorf("twice: %d %v, want 1 [t1/f/10/100 (2 times)]", n, keys)
	}
}
