package relocation

import (
	"fmt"
	"strings"

	"rangecopy/job"
)

// TableMap is one table in scope: the source table and the target table it goes to.
type TableMap struct {
	// Source is the source table, [namespace:]name.
	Source string `json:"source"`
	// Target is the target table; empty means Source.
	Target string `json:"target,omitempty"`
}

// TargetTable is the table the source table is copied to.
func (t TableMap) TargetTable() string {
	if t.Target == "" {
		return t.Source
	}
	return t.Target
}

// ParseTableMap reads "ns:t" or "ns:t→ns2:t2" (also written "ns:t=ns2:t2" or
// "ns:t->ns2:t2"): a source table, optionally renamed on the target.
func ParseTableMap(s string) (TableMap, error) {
	s = strings.TrimSpace(s)
	var src, dst string
	found := false
	for _, sep := range []string{"→", "->", "="} {
		if a, b, ok := strings.Cut(s, sep); ok {
			src, dst, found = strings.TrimSpace(a), strings.TrimSpace(b), true
			break
		}
	}
	if !found {
		src = s
	}
	if err := job.ValidateTableName(src); err != nil {
		return TableMap{}, fmt.Errorf("table %q: %w", s, err)
	}
	if found {
		if err := job.ValidateTableName(dst); err != nil {
			return TableMap{}, fmt.Errorf("table %q: target: %w", s, err)
		}
	}
	if dst == src {
		dst = ""
	}
	return TableMap{Source: src, Target: dst}, nil
}

// Scope is what a relocation moves: its tables, and the rows and families of each.
type Scope struct {
	// Tables are the tables in scope.
	Tables []TableMap
	// StartRow and StopRow bound the rows, in the HBase shell's \xNN escapes; empty is
	// the start or the end of each table.
	StartRow, StopRow string
	// Families limits the copy to these families; empty is all.
	Families []string
	// Bandwidth is the job-wide read cap of each job, such as "200MB/s"; empty is none.
	Bandwidth string
}

// PlanWindow returns the copy requests of window w: one per table in scope. The full copy
// copies every cell and creates missing target tables, pinning the source with a snapshot
// (it may take hours); a catch-up or final window copies [w.StartTime, w.EndTime) and pins
// the source live (job.PinLive: flushed regions and their open files, no snapshot), since
// it reads its few new files within seconds.
func PlanWindow(sc Scope, w Window) []job.Request {
	out := make([]job.Request, 0, len(sc.Tables))
	for _, t := range sc.Tables {
		r := job.Request{Table: t.Source, TargetTable: t.Target, StartRow: sc.StartRow, StopRow: sc.StopRow,
			Families: append([]string(nil), sc.Families...), Bandwidth: sc.Bandwidth}
		if w.Kind == Full {
			r.CreateTable = true
		} else {
			start, end := w.StartTime, w.EndTime
			r.StartTime, r.EndTime = &start, &end
			r.Pin = string(job.PinLive)
		}
		out = append(out, r)
	}
	return out
}

// Overlaps reports whether two scopes copy into or out of the same table, with overlapping
// rows: two relocations that would fight over it.
func Overlaps(a, b Scope) bool {
	ra, errA := rowsOf(a)
	rb, errB := rowsOf(b)
	rowsMeet := errA != nil || errB != nil || keyRangesMeet(ra, rb)
	if !rowsMeet {
		return false
	}
	for _, x := range a.Tables {
		for _, y := range b.Tables {
			if x.Source == y.Source || x.TargetTable() == y.TargetTable() {
				return true
			}
		}
	}
	return false
}

func rowsOf(s Scope) (job.KeyRange, error) {
	var r job.KeyRange
	var err error
	if r.Start, err = job.ParseKey(s.StartRow); err != nil {
		return r, err
	}
	r.End, err = job.ParseKey(s.StopRow)
	return r, err
}

// keyRangesMeet reports whether two half-open key ranges share a row (an empty end is the
// end of the table).
func keyRangesMeet(a, b job.KeyRange) bool {
	before := func(end, start []byte) bool { // end <= start: the range ending at end is all before start
		return len(end) > 0 && string(end) <= string(start)
	}
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}
