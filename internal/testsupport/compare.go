package testsupport

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"rangecopy/hbase"
	"rangecopy/render"
	"rangecopy/testenv"
)

// Mode is what of a table Compare reads.
type Mode int

const (
	// Raw compares every cell a raw scan returns: every version, deleted
	// cells and delete markers. It is meaningful only while neither table
	// compacts (see Compare).
	Raw Mode = iota + 1
	// Visible compares what readers see: every version of every cell no
	// delete masks, up to the family's VERSIONS.
	Visible
)

// String names the mode.
func (m Mode) String() string {
	switch m {
	case Raw:
		return "raw"
	case Visible:
		return "visible"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// CompareSpec selects what Compare compares. The source side is a
// selection of the source table (rows, families, time); the target side is
// the whole target table, which must hold that selection and nothing else.
type CompareSpec struct {
	// SourceTable is on the environment's source cluster, TargetTable on
	// its target cluster.
	SourceTable, TargetTable string
	// StartRow (inclusive) and StopRow (exclusive) bound the source rows;
	// nil is the table's start or end.
	StartRow, StopRow []byte
	// Families are the source families compared; nil is every family.
	Families []string
	// TimeRange bounds the source timestamps, [Min, Max); zero is all time.
	TimeRange hbase.TimeRange
	// Mode is Raw or Visible; a test must choose.
	Mode Mode
}

// Summary counts the source cells Compare found equal in the target.
type Summary struct {
	Cells, Rows int
	// Types counts the cells by HBase's name of their type (Put, Delete,
	// DeleteColumn, DeleteFamily, DeleteFamilyVersion).
	Types map[string]int
}

// maxListed is how many differences Compare lists before it only counts.
const maxListed = 10

// compactionAttr is the table attribute HBase's
// TableDescriptorBuilder.setCompactionEnabled sets.
const compactionAttr = "COMPACTION_ENABLED"

// Compare checks that the target table holds exactly the source selection
// of spec, cell for cell in scan order, and returns what it compared. On a
// difference it fails the test, listing the first differences (row,
// family:qualifier, timestamp, type and value of each cell, bytes outside
// printable ASCII as \xNN) and how many there are in all. An empty source
// selection fails too: the comparison would prove nothing.
//
// Both tables are streamed with our HBase client (every version), so a
// table of any size is compared in constant memory.
//
// The rule: a Raw comparison of a live source with the target is
// meaningful only while neither table compacts. A compaction that takes
// all of a store's files drops delete markers and the cells they mask, so
// the raw cells of a table that compacts change while the visible ones do
// not. Tables the harness creates have compaction off
// (COMPACTION_ENABLED=false) unless a test asks for
// testenv.TableOptions{Compaction: true}, and a target table rangecopy
// creates takes the source's attributes. A test that compacts a table, or
// splits one that may compact (HBase compacts a split's daughters to
// rewrite their reference files), compares Visible cells. In Raw mode
// Compare enforces the rule: it fails the test unless both tables have
// COMPACTION_ENABLED=false.
func Compare(t testing.TB, env *testenv.Env, spec CompareSpec) Summary {
	t.Helper()
	if spec.SourceTable == "" || spec.TargetTable == "" {
		t.Fatalf("compare: source table %q or target table %q not named", spec.SourceTable, spec.TargetTable)
	}
	if spec.Mode != Raw && spec.Mode != Visible {
		t.Fatalf("compare %s with %s: mode %v; choose Raw or Visible", spec.SourceTable, spec.TargetTable, spec.Mode)
	}
	ctx := t.Context()
	src, dst := Dial(t, env.Source), Dial(t, env.Target)
	if spec.Mode == Raw {
		for _, side := range []struct {
			name, table string
			client      *hbase.Client
		}{{"source", spec.SourceTable, src}, {"target", spec.TargetTable, dst}} {
			d, err := side.client.TableDescriptor(ctx, side.table)
			if err != nil {
				t.Fatalf("raw comparison of %s with %s: describe the %s table: %v", spec.SourceTable, spec.TargetTable, side.name, err)
			}
			if v := d.Attributes[compactionAttr]; v != "false" {
				t.Fatalf("raw comparison of %s with %s: the %s table %s may compact (%s=%q, want \"false\"): "+
					"a compaction drops delete markers and the cells they mask, so raw scans of it are not comparable; "+
					"compare Visible cells, or keep compaction off (the harness's default)",
					spec.SourceTable, spec.TargetTable, side.name, side.table, compactionAttr, v)
			}
		}
	}
	raw := spec.Mode == Raw
	srcScan := hbase.Scan{StartRow: spec.StartRow, StopRow: spec.StopRow, TimeRange: spec.TimeRange, Raw: raw,
		MaxVersions: math.MaxInt32, Caching: 200, NoCacheBlocks: true}
	for _, f := range spec.Families {
		srcScan.Columns = append(srcScan.Columns, hbase.Column{Family: []byte(f)})
	}
	a := newCellStream(ctx, src.Scan(spec.SourceTable, srcScan))
	b := newCellStream(ctx, dst.Scan(spec.TargetTable, hbase.Scan{Raw: raw, MaxVersions: math.MaxInt32, Caching: 200, NoCacheBlocks: true}))
	defer a.close()
	defer b.close()

	sum := Summary{Types: map[string]int{}}
	var lastRow []byte
	var listed []string
	diffs := 0
	merge(a.next, b.next, func(c hbase.Cell) {
		sum.Cells++
		sum.Types[c.Type.String()]++
		if sum.Rows == 0 || !bytes.Equal(c.Row, lastRow) {
			sum.Rows++
			lastRow = c.Row
		}
	}, func(d Difference) {
		diffs++
		if len(listed) < maxListed {
			listed = append(listed, d.String())
		}
	})
	if a.err != nil {
		t.Fatalf("compare: scan source table %s: %v", spec.SourceTable, a.err)
	}
	if b.err != nil {
		t.Fatalf("compare: scan target table %s: %v", spec.TargetTable, b.err)
	}
	what := describe(spec)
	if diffs > 0 {
		t.Fatalf("%s: %d differences (%d cells equal), the first %d:\n  %s", what, diffs, sum.Cells, len(listed), strings.Join(listed, "\n  "))
	}
	if sum.Cells == 0 {
		t.Fatalf("%s: the source selection holds no cells, so the comparison proves nothing", what)
	}
	return sum
}

// describe names what a spec compares, for messages.
func describe(s CompareSpec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s comparison of source %s", s.Mode, s.SourceTable)
	if s.StartRow != nil || s.StopRow != nil {
		fmt.Fprintf(&b, " rows %s", render.RowRange(s.StartRow, s.StopRow))
	}
	if s.Families != nil {
		fmt.Fprintf(&b, " families %s", strings.Join(s.Families, ","))
	}
	if s.TimeRange != (hbase.TimeRange{}) {
		fmt.Fprintf(&b, " times %s", render.Times(int64(min(s.TimeRange.Min, math.MaxInt64)), int64(min(s.TimeRange.Max, math.MaxInt64))))
	}
	fmt.Fprintf(&b, " with target %s", s.TargetTable)
	return b.String()
}

// cellStream yields a scanner's cells one by one and keeps its error.
type cellStream struct {
	ctx   context.Context
	sc    *hbase.Scanner
	cells []hbase.Cell
	err   error
}

func newCellStream(ctx context.Context, sc *hbase.Scanner) *cellStream {
	return &cellStream{ctx: ctx, sc: sc}
}

func (s *cellStream) next() (hbase.Cell, bool) {
	for len(s.cells) == 0 {
		if !s.sc.Next(s.ctx) {
			s.err = s.sc.Err()
			return hbase.Cell{}, false
		}
		s.cells = s.sc.Result().Cells
	}
	c := s.cells[0]
	s.cells = s.cells[1:]
	return c, true
}

func (s *cellStream) close() {
	// The server drops an idle scanner by itself; a failed close only
	// costs it that wait.
	_ = s.sc.Close(context.WithoutCancel(s.ctx))
}

// DiffKind is how a cell differs between source and target.
type DiffKind int

const (
	// SourceOnly is a source cell the target lacks.
	SourceOnly DiffKind = iota + 1
	// TargetOnly is a target cell the source lacks.
	TargetOnly
	// ValueDiffers is a key both have, with other values.
	ValueDiffers
)

// Difference is one cell that differs between source and target.
type Difference struct {
	Kind           DiffKind
	Source, Target hbase.Cell // the cells of the sides that have one
}

// String describes the difference precisely, with every part of the cells.
func (d Difference) String() string {
	switch d.Kind {
	case SourceOnly:
		return "target lacks " + FormatCell(d.Source)
	case TargetOnly:
		return "target has extra " + FormatCell(d.Target)
	case ValueDiffers:
		return fmt.Sprintf("%s: source value %s, target value %s", formatKey(d.Source), formatValue(d.Source.Value), formatValue(d.Target.Value))
	}
	return fmt.Sprintf("DiffKind(%d): source %s, target %s", int(d.Kind), FormatCell(d.Source), FormatCell(d.Target))
}

// compareKeys orders cells as HBase's scans return them: by row, family
// and qualifier, then newest timestamp first, then by type code descending
// (a delete marker before the put of its timestamp).
func compareKeys(a, b hbase.Cell) int {
	if c := bytes.Compare(a.Row, b.Row); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Family, b.Family); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Qualifier, b.Qualifier); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Timestamp, a.Timestamp); c != 0 {
		return c
	}
	return cmp.Compare(b.Type, a.Type)
}

// merge walks two cell sequences in scan order, calling same for every
// source cell the target holds too and diff for every difference. Equal
// sequences never differ; for unequal ones, the merge by key says which
// side lacks which cell instead of reporting every cell after the first
// missing one. It is pure.
func merge(a, b func() (hbase.Cell, bool), same func(hbase.Cell), diff func(Difference)) {
	ca, okA := a()
	cb, okB := b()
	for okA || okB {
		c := 0
		switch {
		case !okB:
			c = -1
		case !okA:
			c = 1
		default:
			c = compareKeys(ca, cb)
		}
		switch {
		case c < 0:
			diff(Difference{Kind: SourceOnly, Source: ca})
			ca, okA = a()
		case c > 0:
			diff(Difference{Kind: TargetOnly, Target: cb})
			cb, okB = b()
		default:
			if bytes.Equal(ca.Value, cb.Value) {
				same(ca)
			} else {
				diff(Difference{Kind: ValueDiffers, Source: ca, Target: cb})
			}
			ca, okA = a()
			cb, okB = b()
		}
	}
}

// FormatCell writes a cell's row, family:qualifier, timestamp, type and
// value, bytes as FormatBytes writes them.
func FormatCell(c hbase.Cell) string {
	return formatKey(c) + " value " + formatValue(c.Value)
}

func formatKey(c hbase.Cell) string {
	return fmt.Sprintf("row %s %s:%s ts %d %s", FormatBytes(c.Row), escape(c.Family), escape(c.Qualifier), c.Timestamp, c.Type)
}

// maxValueShown is how many bytes of a value a message shows.
const maxValueShown = 48

func formatValue(v []byte) string {
	if len(v) > maxValueShown {
		return fmt.Sprintf("%s… (%d bytes)", FormatBytes(v[:maxValueShown]), len(v))
	}
	return fmt.Sprintf("%s (%d bytes)", FormatBytes(v), len(v))
}

// FormatBytes writes b in double quotes the way HBase's
// Bytes.toStringBinary does: letters, digits and most printable
// punctuation as they are, every other byte (the quote and the backslash
// too) as \xNN.
func FormatBytes(b []byte) string { return `"` + escape(b) + `"` }

// escape is FormatBytes without the quotes (for family and qualifier).
func escape(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		if c >= ' ' && c <= '~' && c != '"' && c != '\\' {
			s.WriteByte(c)
		} else {
			fmt.Fprintf(&s, `\x%02X`, c)
		}
	}
	return s.String()
}
