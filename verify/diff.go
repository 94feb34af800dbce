package verify

import (
	"bytes"
	"fmt"
	"slices"

	"rangecopy/hfile"
	"rangecopy/rowkey"
)

// DiffKind is how a cell differs between source and target.
type DiffKind int

// The kinds of difference.
const (
	// MissingOnTarget is a source cell the target lacks.
	MissingOnTarget DiffKind = iota + 1
	// ExtraOnTarget is a target cell the source lacks.
	ExtraOnTarget
	// ValueDiffers is a key both sides have, with other values.
	ValueDiffers
)

// String names the kind as the report writes it.
func (k DiffKind) String() string {
	switch k {
	case MissingOnTarget:
		return "missing on target"
	case ExtraOnTarget:
		return "extra on target"
	case ValueDiffers:
		return "value differs"
	}
	return fmt.Sprintf("DiffKind(%d)", int(k))
}

// MarshalText writes the kind as String, for JSON.
func (k DiffKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads the kind as MarshalText writes it.
func (k *DiffKind) UnmarshalText(b []byte) error {
	for _, c := range []DiffKind{MissingOnTarget, ExtraOnTarget, ValueDiffers} {
		if c.String() == string(b) {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("difference kind %q: want missing on target, extra on target or value differs", b)
}

// Difference is one cell that differs. It owns its bytes.
type Difference struct {
	Kind      DiffKind
	Row       []byte
	Family    string
	Qualifier []byte
	Timestamp int64
	Type      hfile.CellType
	// SourceValue and TargetValue are the values of the sides that have the
	// cell.
	SourceValue, TargetValue []byte
}

// String writes the difference on one line: the row in \xNN form,
// family:qualifier, timestamp, type and kind.
func (d Difference) String() string {
	s := fmt.Sprintf("%s %s row %s %s:%s ts %d", d.Kind, d.Type, rowkey.Format(d.Row), d.Family, rowkey.Format(d.Qualifier), d.Timestamp)
	if d.Kind == ValueDiffers {
		s += fmt.Sprintf(" (source %d bytes, target %d bytes)", len(d.SourceValue), len(d.TargetValue))
	}
	return s
}

func newDiff(k DiffKind, c *hfile.Cell) Difference {
	return Difference{Kind: k, Row: slices.Clone(c.Row), Family: string(c.Family), Qualifier: slices.Clone(c.Qualifier),
		Timestamp: c.Timestamp, Type: c.Type}
}

// Diff walks two streams in key order and calls fn for every difference
// (the cells it gets are its own) and same for every key both hold with
// the same value. It stops at the first error of either stream. Pure but
// for the streams' reads.
func Diff(src, dst CellIter, fn func(Difference), same func(*hfile.Cell)) error {
	okA, okB := src.Next(), dst.Next()
	for okA || okB {
		c := 0
		switch {
		case !okB:
			c = -1
		case !okA:
			c = 1
		default:
			c = hfile.CompareKeys(src.Cell(), dst.Cell())
		}
		switch {
		case c < 0:
			fn(newDiff(MissingOnTarget, src.Cell()))
			okA = src.Next()
		case c > 0:
			d := newDiff(ExtraOnTarget, dst.Cell())
			d.TargetValue = slices.Clone(dst.Cell().Value)
			fn(d)
			okB = dst.Next()
		default:
			a, b := src.Cell(), dst.Cell()
			if bytes.Equal(a.Value, b.Value) {
				same(a)
			} else {
				d := newDiff(ValueDiffers, a)
				d.SourceValue, d.TargetValue = slices.Clone(a.Value), slices.Clone(b.Value)
				fn(d)
			}
			okA, okB = src.Next(), dst.Next()
		}
	}
	if err := src.Err(); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if err := dst.Err(); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	return nil
}
