package job

import (
	"errors"
	"fmt"
	"strings"

	"rangecopy/units"
)

// MinTaskBytes is the smallest task size a request may ask for.
const MinTaskBytes = 1 << 20

// Request is a copy as an operator asks for it, in the words of rangecopy copy's flags and of
// the body of POST /api/v1/jobs: row keys in the HBase shell's \xNN escapes, sizes and rates
// as text ("512MiB", "200MB/s"). Resolve checks it and turns it into a Spec and Settings.
type Request struct {
	// Table is the source table, [namespace:]name.
	Table string `json:"table"`
	// TargetTable is the target table; empty means Table.
	TargetTable string `json:"targetTable,omitempty"`
	// StartRow is the first row (inclusive) and StopRow the row to stop before (exclusive);
	// empty means the start or the end of the table.
	StartRow string `json:"startRow,omitempty"`
	StopRow  string `json:"stopRow,omitempty"`
	// StartTime is the oldest cell timestamp (inclusive, ms) and EndTime the timestamp to stop
	// before (exclusive, ms); nil means no bound.
	StartTime *int64 `json:"startTime,omitempty"`
	EndTime   *int64 `json:"endTime,omitempty"`
	// Families limits the copy to these column families; empty means all.
	Families []string `json:"families,omitempty"`
	// Bandwidth caps the job-wide read rate, such as "200MB/s"; empty means no cap.
	Bandwidth string `json:"bandwidth,omitempty"`
	// TaskSize is the input size a task aims at, such as "512MiB"; empty means
	// DefaultTaskBytes.
	TaskSize string `json:"taskSize,omitempty"`
	// CreateTable creates a missing target table, pre-split like the source.
	CreateTable bool `json:"createTable,omitempty"`
	// KeepSnapshot keeps the source snapshot when the job is done.
	KeepSnapshot bool `json:"keepSnapshot,omitempty"`
	// Retries bounds the resets of a failed task before the job pauses; 0 means
	// DefaultRetries.
	Retries int `json:"retries,omitempty"`
	// ProtectSource throttles the copy to keep the source's read p99 at a target: a factor
	// of the p99 measured before the copy ("2x") or a latency ("20ms"); empty means no
	// throttle beyond Bandwidth, which stays the ceiling.
	ProtectSource string `json:"protectSource,omitempty"`
	// Pin is how the source's inputs are pinned: "snapshot" (empty means it) or "live"
	// (PinLive: the regions flushed and their open store files read, without a snapshot).
	Pin string `json:"pin,omitempty"`
}

// Settings are how a request asks its copy to run, beside what it copies.
type Settings struct {
	// Bandwidth is the job-wide read cap in bytes per second; 0 means none.
	Bandwidth float64
	// TaskBytes is the input size a task aims at; 0 means DefaultTaskBytes.
	TaskBytes int64
	// CreateTable, KeepSnapshot and Retries are as in Request.
	CreateTable, KeepSnapshot bool
	Retries                   int
	// ProtectSource is the source's read latency target; the zero value means none.
	ProtectSource Protect
	// Pin is how the source's inputs are pinned.
	Pin PinMode
}

// FieldError says which field of a Request is wrong, by its JSON name ("startRow"); the
// command line names the flag of the same words ("--start-row").
type FieldError struct {
	// Field is the field's JSON name.
	Field string
	// Err says what is wrong with it.
	Err error
}

// Error implements error.
func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns what is wrong.
func (e *FieldError) Unwrap() error { return e.Err }

// Flag is the command-line flag of the field's words: "startRow" is "--start-row".
func (e *FieldError) Flag() string {
	var b strings.Builder
	b.WriteString("--")
	for _, r := range e.Field {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('-')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Resolve checks the request and returns what it copies and how. Its error joins a
// *FieldError for every field that is wrong, so that all of them are told at once.
func (r Request) Resolve() (Spec, Settings, error) {
	var errs []error
	bad := func(field string, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Err: fmt.Errorf(format, args...)})
	}
	s := Spec{Table: r.Table, TargetTable: r.TargetTable}
	if r.Table == "" {
		bad("table", "required")
	} else if err := ValidateTableName(r.Table); err != nil {
		bad("table", "%v", err)
	}
	if r.TargetTable != "" {
		if err := ValidateTableName(r.TargetTable); err != nil {
			bad("targetTable", "%v", err)
		}
	}
	var err error
	if s.Rows.Start, err = ParseKey(r.StartRow); err != nil {
		bad("startRow", "%v", err)
	}
	if s.Rows.End, err = ParseKey(r.StopRow); err != nil {
		bad("stopRow", "%v", err)
	}
	if len(s.Rows.Start) == 0 {
		s.Rows.Start = nil
	}
	if len(s.Rows.End) == 0 {
		s.Rows.End = nil
	}
	if s.Rows.Empty() {
		bad("stopRow", "row range %s is empty or reversed: the stop row must sort after the start row", s.Rows)
	}
	if r.StartTime != nil || r.EndTime != nil {
		s.Time = AllTime()
		if r.StartTime != nil {
			s.Time.Min = *r.StartTime
		}
		if r.EndTime != nil {
			s.Time.Max = *r.EndTime
		}
		switch {
		case s.Time.Min < 0:
			bad("startTime", "%d is negative", s.Time.Min)
		case s.Time.Min >= s.Time.Max:
			bad("endTime", "time range %s is empty or reversed: the end time must be after the start time", s.Time)
		}
	}
	seen := map[string]bool{}
	for _, f := range r.Families {
		f = strings.TrimSpace(f)
		if err := ValidateFamilyName(f); err != nil {
			bad("families", "%v", err)
			continue
		}
		if strings.Contains(f, ",") {
			// A list in one item ("a,,b", ","), as a command line writes it, is a mistake
			// that would copy no family or drop a name: each family is an item of its own.
			bad("families", "family %q holds a comma: give each family as an item of its own", f)
			continue
		}
		if seen[f] {
			bad("families", "family %q named twice", f)
			continue
		}
		seen[f] = true
		s.Families = append(s.Families, f)
	}
	set, err := r.ResolveSettings()
	for _, fe := range FieldErrors(err) {
		errs = append(errs, fe)
	}
	if len(errs) > 0 {
		return Spec{}, Settings{}, errors.Join(errs...)
	}
	return s, set, nil
}

// ResolveSettings checks and returns the request's settings alone (for a job resumed by
// id, whose spec is its own); its error joins a *FieldError for every field that is wrong.
func (r Request) ResolveSettings() (Settings, error) {
	var errs []error
	bad := func(field string, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Err: fmt.Errorf(format, args...)})
	}
	var err error
	var set Settings
	if r.Bandwidth != "" {
		if set.Bandwidth, err = units.ParseRate(r.Bandwidth); err != nil {
			bad("bandwidth", "%v", err)
		}
	}
	if r.TaskSize != "" {
		n, err := units.ParseBytes(r.TaskSize)
		if err != nil || n < MinTaskBytes {
			bad("taskSize", "%q: want a size of at least 1MiB, e.g. 256MiB", r.TaskSize)
		}
		set.TaskBytes = int64(n)
	}
	if r.Retries < 0 || r.Retries > MaxRetries {
		bad("retries", "%d: want 0 to %d", r.Retries, MaxRetries)
	}
	if set.ProtectSource, err = ParseProtect(r.ProtectSource); err != nil {
		bad("protectSource", "%v", err)
	}
	if set.Pin, err = ParsePinMode(r.Pin); err != nil {
		bad("pin", "%v", err)
	}
	set.Retries, set.CreateTable, set.KeepSnapshot = r.Retries, r.CreateTable, r.KeepSnapshot
	if len(errs) > 0 {
		return Settings{}, errors.Join(errs...)
	}
	return set, nil
}

// FieldErrors lists the *FieldError in err (joined by Resolve), in order.
func FieldErrors(err error) []*FieldError {
	var out []*FieldError
	var walk func(error)
	walk = func(e error) {
		if fe, ok := e.(*FieldError); ok {
			out = append(out, fe)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		if u := errors.Unwrap(e); u != nil {
			walk(u)
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}
