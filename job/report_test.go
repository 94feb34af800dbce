package job

import (
	"errors"
	"math"
	"os"
	"reflect"
	"testing"
	"time"
)

func TestReportRoundTrip(t *testing.T) {
	r := NewReport("copy-t-1", Spec{Table: "ns:t", Rows: KeyRange{Start: []byte{0x00, 'a'}, End: []byte("z")}, Time: TimeRange{Min: 5, Max: 9}})
	r.Status, r.Tasks, r.TasksDone, r.BytesRead, r.InputBytes = ReportDone, 3, 3, 4000, 4096
	r.UpdatedAt = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r.SetElapsed(2 * time.Second)
	b, err := EncodeReport(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeReport(b)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("DecodeReport(%s) = %+v, %v; want %+v", b, got, err, r)
	}
	if got.BytesPerSecond != 2000 || got.Seconds() != 2 || got.Rows().String() != `["\x00a", "z")` || got.Times().String() != "[1970-01-01T00:00:00.005Z, 1970-01-01T00:00:00.009Z)" {
		t.Errorf("rendered: %v B/s, %v s, rows %s, time %s", got.BytesPerSecond, got.Seconds(), got.Rows(), got.Times())
	}
	whole := NewReport("x", Spec{Table: "t"})
	if whole.Rows().String() != `all rows` || whole.MaxTimeMs != math.MaxInt64 {
		t.Errorf("whole table: rows %s, max time %d", whole.Rows(), whole.MaxTimeMs)
	}
}

// TestReportFirstFormat reads a report as release 02d71e2 stored it (the
// leader's report of testdata/v2-detached in master).
func TestReportFirstFormat(t *testing.T) {
	b, err := os.ReadFile("testdata/report-first-format.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := DecodeReport(b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != 0 || r.Status != ReportRunning || r.ElapsedMs != 16487 || r.Tasks != 4 || r.TasksDone != 1 ||
		r.BytesRead != 29372 || r.BytesLoaded != 19082 || r.FilesLoaded != 2 || r.Cells != 314 || r.Job == "" || r.Table == "" {
		t.Errorf("first format read as %+v", r)
	}
}

func TestDecodeReportRefuses(t *testing.T) {
	for _, b := range []string{``, `[]`, `{"version":2}`, `{"version":"1"}`, `{"seconds":"x"}`} {
		if _, err := DecodeReport([]byte(b)); !errors.Is(err, ErrReport) {
			t.Errorf("DecodeReport(%q): %v, want ErrReport", b, err)
		}
	}
}

func TestPlanTotals(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))
	p := Plan{Tasks: []Task{{ID: "a"}, {ID: "b"}}, Bytes: 1 << 20, Pruned: []Pruned{{}}}
	tot := TotalsOf(p, at)
	if tot.Message() != "planned: 2 tasks, 1048576 bytes, 1 files pruned" {
		t.Errorf("message %q", tot.Message())
	}
	b, err := EncodePlanTotals(tot)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"version":1,"tasks":2,"inputBytes":1048576,"filesPruned":1,"plannedAt":"2026-12-01T09:00:00Z"}` {
		t.Errorf("encoded %s", b)
	}
	got, err := DecodePlanTotals(b)
	if err != nil || !reflect.DeepEqual(got, tot) {
		t.Errorf("DecodePlanTotals = %+v, %v; want %+v", got, err, tot)
	}
	for _, bad := range []string{`{}`, `{"version":1,"tasks":-1}`, `x`} {
		if _, err := DecodePlanTotals([]byte(bad)); !errors.Is(err, ErrReport) {
			t.Errorf("DecodePlanTotals(%q): %v", bad, err)
		}
	}
}
