package job

import (
	"strings"
	"testing"
)

func TestRequestResolve(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	s, set, err := Request{Table: "ns:t", TargetTable: "ns2:t", StartRow: `a\x00`, StopRow: "b",
		StartTime: i64(10), EndTime: i64(20), Families: []string{"cf1", " cf2"}, Bandwidth: "200MB/s",
		TaskSize: "64MiB", CreateTable: true, Retries: 7}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if string(s.Rows.Start) != "a\x00" || string(s.Rows.End) != "b" || s.Time != (TimeRange{10, 20}) ||
		len(s.Families) != 2 || s.Families[1] != "cf2" || s.Target() != "ns2:t" {
		t.Errorf("spec = %+v", s)
	}
	if set.Bandwidth != 200e6 || set.TaskBytes != 64<<20 || !set.CreateTable || set.Retries != 7 {
		t.Errorf("settings = %+v", set)
	}
	// The whole table, all time: no bounds at all.
	s, _, err = Request{Table: "t"}.Resolve()
	if err != nil || s.Rows.Start != nil || s.Rows.End != nil || s.Time != (TimeRange{}) {
		t.Errorf("whole table: %+v, %v", s, err)
	}
}

func TestRequestResolveNamesEveryBadField(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	for _, c := range []struct {
		r      Request
		fields []string
	}{
		{Request{}, []string{"table"}},
		{Request{Table: "bad table"}, []string{"table"}},
		{Request{Table: "t", TargetTable: "x/y"}, []string{"targetTable"}},
		{Request{Table: "t", StartRow: `\xZZ`}, []string{"startRow"}},
		{Request{Table: "t", StartRow: "b", StopRow: "a"}, []string{"stopRow"}},
		{Request{Table: "t", StartTime: i64(-1)}, []string{"startTime"}},
		{Request{Table: "t", StartTime: i64(5), EndTime: i64(5)}, []string{"endTime"}},
		{Request{Table: "t", Families: []string{"cf", "cf"}}, []string{"families"}},
		{Request{Table: "t", Families: []string{"c:f"}}, []string{"families"}},
		{Request{Table: "t", Families: []string{"a", "", "b"}}, []string{"families"}},
		{Request{Table: "t", Families: []string{" "}}, []string{"families"}},
		{Request{Table: "t", Families: []string{"a,,b"}}, []string{"families"}},
		{Request{Table: "t", Families: []string{","}}, []string{"families"}},
		{Request{Table: "t", Bandwidth: "fast"}, []string{"bandwidth"}},
		{Request{Table: "t", TaskSize: "1KiB"}, []string{"taskSize"}},
		{Request{Table: "t", Retries: MaxRetries + 1}, []string{"retries"}},
		{Request{Bandwidth: "0", Retries: -1}, []string{"table", "bandwidth", "retries"}},
	} {
		_, _, err := c.r.Resolve()
		fes := FieldErrors(err)
		var got []string
		for _, fe := range fes {
			got = append(got, fe.Field)
		}
		if strings.Join(got, ",") != strings.Join(c.fields, ",") {
			t.Errorf("%+v: fields %v (%v), want %v", c.r, got, err, c.fields)
		}
	}
}

func TestFieldErrorFlag(t *testing.T) {
	for field, flag := range map[string]string{"table": "--table", "startRow": "--start-row", "taskSize": "--task-size"} {
		if got := (&FieldError{Field: field}).Flag(); got != flag {
			t.Errorf("%s: %s, want %s", field, got, flag)
		}
	}
}
