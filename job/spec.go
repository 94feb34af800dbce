package job

import (
	"errors"
	"fmt"
	"strings"
)

// Spec is what an operator asks to copy.
type Spec struct {
	// Table is the source table, [namespace:]name.
	Table string
	// TargetTable is the table written on the target; empty means Table.
	TargetTable string
	// Rows is the key range to copy; the zero value is the whole table.
	Rows KeyRange
	// Time is the range of cell timestamps to copy; the zero value means
	// every timestamp (see Times).
	Time TimeRange
	// Families limits the copy to these column families; empty means all.
	Families []string
}

// Target returns the name of the table written on the target cluster.
func (s Spec) Target() string {
	if s.TargetTable == "" {
		return s.Table
	}
	return s.TargetTable
}

// Times returns the time range to copy, with the zero value read as all time.
func (s Spec) Times() TimeRange {
	if s.Time == (TimeRange{}) {
		return AllTime()
	}
	return s.Time
}

// WantsFamily reports whether the spec copies family f.
func (s Spec) WantsFamily(f string) bool {
	if len(s.Families) == 0 {
		return true
	}
	for _, g := range s.Families {
		if g == f {
			return true
		}
	}
	return false
}

// Validate checks the spec on its own, before any cluster is asked, and
// returns every problem it finds, each naming the field and the value.
func (s Spec) Validate() error {
	var errs []error
	if err := ValidateTableName(s.Table); err != nil {
		errs = append(errs, fmt.Errorf("source table: %w", err))
	}
	if s.TargetTable != "" {
		if err := ValidateTableName(s.TargetTable); err != nil {
			errs = append(errs, fmt.Errorf("target table: %w", err))
		}
	}
	if s.Rows.Empty() {
		errs = append(errs, fmt.Errorf("row range %s is empty or reversed: the stop row must sort after the start row", s.Rows))
	}
	t := s.Times()
	if t.Min < 0 {
		errs = append(errs, fmt.Errorf("time range %s: start time %d is negative", t, t.Min))
	}
	if t.Min >= t.Max {
		errs = append(errs, fmt.Errorf("time range %s is empty or reversed: the end time must be after the start time", t))
	}
	seen := map[string]bool{}
	for _, f := range s.Families {
		if err := ValidateFamilyName(f); err != nil {
			errs = append(errs, err)
		}
		if seen[f] {
			errs = append(errs, fmt.Errorf("family %q named twice", f))
		}
		seen[f] = true
	}
	return errors.Join(errs...)
}

// ValidateTableName checks a table name against HBase's rules: an optional
// namespace of letters, digits and underscores, then a colon, then a
// qualifier of letters, digits, '_', '-' and '.', not starting with '.' or
// '-'. Tables of the system namespace "hbase" are refused: they are not
// data to copy.
func ValidateTableName(name string) error {
	if name == "" {
		return errors.New("table name is empty")
	}
	ns, qual, hasNS := strings.Cut(name, ":")
	if !hasNS {
		ns, qual = "default", name
	}
	if ns == "" {
		return fmt.Errorf("table name %q: namespace before ':' is empty", name)
	}
	for i := 0; i < len(ns); i++ {
		c := ns[i]
		if !(isAlnum(c) || c == '_') {
			return fmt.Errorf("table name %q: namespace has illegal character %q at %d (letters, digits and '_' only)", name, c, i)
		}
	}
	if ns == "hbase" {
		return fmt.Errorf("table name %q: tables of the system namespace hbase are not copied", name)
	}
	if qual == "" {
		return fmt.Errorf("table name %q: name after the namespace is empty", name)
	}
	if qual[0] == '.' || qual[0] == '-' {
		return fmt.Errorf("table name %q: must not start with %q", name, qual[0])
	}
	for i := 0; i < len(qual); i++ {
		c := qual[i]
		if !(isAlnum(c) || c == '_' || c == '-' || c == '.') {
			return fmt.Errorf("table name %q: illegal character %q (letters, digits, '_', '-' and '.' only)", name, c)
		}
	}
	return nil
}

// ValidateFamilyName checks a column family name against HBase's rules: not
// empty, not starting with '.', and no control characters, ':', '\' or '/'.
func ValidateFamilyName(f string) error {
	if f == "" {
		return errors.New("family name is empty")
	}
	if f[0] == '.' {
		return fmt.Errorf("family %q: must not start with '.'", f)
	}
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c < 0x20 || c == 0x7F || c == ':' || c == '\\' || c == '/' {
			return fmt.Errorf("family %q: illegal character %q at %d", f, c, i)
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
