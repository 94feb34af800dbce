package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"rangecopy/hfile"
	"rangecopy/render"
	"rangecopy/rowkey"
)

// ReportVersion is the format version of Report's JSON.
const ReportVersion = 1

// Range is a row range as reports write it: \xNN escapes, "" the table's
// start or end.
type Range struct {
	StartRow string `json:"startRow"`
	StopRow  string `json:"stopRow"`
}

// Report is what one verification found.
type Report struct {
	Version        int      `json:"version"`
	SourceTable    string   `json:"sourceTable"`
	TargetTable    string   `json:"targetTable"`
	Mode           Mode     `json:"mode"`
	StartRow       string   `json:"startRow"`
	StopRow        string   `json:"stopRow"`
	MinTimeMs      int64    `json:"minTimeMs"`
	MaxTimeMs      int64    `json:"maxTimeMs"`
	Families       []string `json:"families"`
	SourceSnapshot string   `json:"sourceSnapshot"`
	TargetSnapshot string   `json:"targetSnapshot"`
	// SourceCells and TargetCells count the cells compared on each side
	// (after the mode's semantics); SourceRows and TargetRows their rows.
	SourceCells int64 `json:"sourceCells"`
	TargetCells int64 `json:"targetCells"`
	SourceRows  int64 `json:"sourceRows"`
	TargetRows  int64 `json:"targetRows"`
	// Batches is how many batches were hashed on each side; BatchesMatched
	// and BatchesMismatched split them.
	Batches           int `json:"batches"`
	BatchesMatched    int `json:"batchesMatched"`
	BatchesMismatched int `json:"batchesMismatched"`
	// BatchesProven counts the matched batches that were not read: every
	// store file a read of them opens is byte-for-byte the same on both
	// sides by its HDFS checksum (Options.ReadAll turns this off). Their
	// cells are not in the cell and row counts.
	BatchesProven int `json:"batchesProven,omitempty"`
	// MismatchedRanges are the mismatched batches, adjacent ones joined.
	MismatchedRanges []Range `json:"mismatchedRanges"`
	// DifferenceCount counts every differing cell of the mismatched
	// batches; Differences lists the first of them (at most MaxDiffs).
	DifferenceCount int64        `json:"differenceCount"`
	Differences     []Difference `json:"differences"`
	// BytesRead counts the HFile bytes read on both sides.
	BytesRead int64 `json:"bytesRead"`
	ElapsedMs int64 `json:"elapsedMs"`
	// HashTable is the HashTable output folder the target was compared
	// with (AgainstHashTable), if it was; then the source's cells are
	// counted only in the differences, and only when the source was read.
	HashTable string `json:"hashTable,omitempty"`
	// Repaired lists the ranges re-copied by a repair, if one ran.
	Repaired []Range `json:"repaired,omitempty"`
	// Job is the registry job of a verification run through the registry
	// (Options.Registry); Units counts its units (tasks: a side's batches in one
	// region), UnitsResumed those found hashed by an earlier run (or by
	// worker agents) and UnitsHashed those this run hashed, whole or from
	// a checkpoint.
	Job          string `json:"job,omitempty"`
	Units        int    `json:"units,omitempty"`
	UnitsResumed int    `json:"unitsResumed,omitempty"`
	UnitsHashed  int    `json:"unitsHashed,omitempty"`
}

// Equal says the two sides held the same cells.
func (r Report) Equal() bool { return r.BatchesMismatched == 0 && r.DifferenceCount == 0 }

// MarshalJSON writes a difference with its bytes in \xNN form.
func (d Difference) MarshalJSON() ([]byte, error) {
	type out struct {
		Kind        DiffKind `json:"kind"`
		Row         string   `json:"row"`
		Family      string   `json:"family"`
		Qualifier   string   `json:"qualifier"`
		Timestamp   int64    `json:"timestamp"`
		Type        string   `json:"type"`
		SourceValue *string  `json:"sourceValue,omitempty"`
		TargetValue *string  `json:"targetValue,omitempty"`
	}
	o := out{Kind: d.Kind, Row: rowkey.Format(d.Row), Family: d.Family, Qualifier: rowkey.Format(d.Qualifier), Timestamp: d.Timestamp, Type: d.Type.String()}
	if d.Kind != ExtraOnTarget {
		v := rowkey.Format(d.SourceValue)
		o.SourceValue = &v
	}
	if d.Kind != MissingOnTarget {
		v := rowkey.Format(d.TargetValue)
		o.TargetValue = &v
	}
	return json.Marshal(o)
}

// WriteJSON writes r as one indented JSON document.
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes r for a person.
func WriteText(w io.Writer, r Report) error {
	var b strings.Builder
	verdict := "EQUAL"
	if !r.Equal() {
		verdict = "DIFFERENT"
	}
	fmt.Fprintf(&b, "verify %s (%s) -> %s (%s), %s mode: %s\n", r.SourceTable, r.SourceSnapshot, r.TargetTable, r.TargetSnapshot, r.Mode, verdict)
	if r.HashTable != "" {
		fmt.Fprintf(&b, "  hash table    %s (HBase HashTable's MD5 batches)\n", r.HashTable)
	}
	fmt.Fprintf(&b, "  rows          %s\n", render.Rows(r.StartRow, r.StopRow))
	fmt.Fprintf(&b, "  times         %s\n", render.Times(r.MinTimeMs, r.MaxTimeMs))
	fmt.Fprintf(&b, "  families      %s\n", strings.Join(r.Families, ","))
	fmt.Fprintf(&b, "  cells         source %d, target %d\n", r.SourceCells, r.TargetCells)
	fmt.Fprintf(&b, "  rows compared source %d, target %d\n", r.SourceRows, r.TargetRows)
	if r.BatchesProven > 0 {
		fmt.Fprintf(&b, "  batches       %d: %d matched (%d of them by file checksums, not read), %d mismatched\n", r.Batches, r.BatchesMatched, r.BatchesProven, r.BatchesMismatched)
	} else {
		fmt.Fprintf(&b, "  batches       %d: %d matched, %d mismatched\n", r.Batches, r.BatchesMatched, r.BatchesMismatched)
	}
	if r.Units > 0 {
		fmt.Fprintf(&b, "  units         %d: %d resumed, %d hashed (job %s)\n", r.Units, r.UnitsResumed, r.UnitsHashed, r.Job)
	}
	fmt.Fprintf(&b, "  bytes read    %d in %d ms\n", r.BytesRead, r.ElapsedMs)
	if r.DifferenceCount > 0 {
		fmt.Fprintf(&b, "  differences   %d, the first %d:\n", r.DifferenceCount, len(r.Differences))
		for _, d := range r.Differences {
			fmt.Fprintf(&b, "    %s\n", d)
		}
	}
	for _, rg := range r.MismatchedRanges {
		fmt.Fprintf(&b, "  mismatched    %s\n", render.Rows(rg.StartRow, rg.StopRow))
	}
	for _, rg := range r.Repaired {
		fmt.Fprintf(&b, "  repaired      %s\n", render.Rows(rg.StartRow, rg.StopRow))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// UnmarshalJSON reads a difference as MarshalJSON writes it.
func (d *Difference) UnmarshalJSON(b []byte) error {
	var in struct {
		Kind        DiffKind `json:"kind"`
		Row         string   `json:"row"`
		Family      string   `json:"family"`
		Qualifier   string   `json:"qualifier"`
		Timestamp   int64    `json:"timestamp"`
		Type        string   `json:"type"`
		SourceValue *string  `json:"sourceValue"`
		TargetValue *string  `json:"targetValue"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	out := Difference{Kind: in.Kind, Family: in.Family, Timestamp: in.Timestamp}
	var err error
	if out.Row, err = rowkey.Parse(in.Row); err != nil {
		return fmt.Errorf("difference row %q: %w", in.Row, err)
	}
	if out.Qualifier, err = rowkey.Parse(in.Qualifier); err != nil {
		return fmt.Errorf("difference qualifier %q: %w", in.Qualifier, err)
	}
	found := false
	for _, t := range []hfile.CellType{hfile.TypePut, hfile.TypeDelete, hfile.TypeDeleteColumn, hfile.TypeDeleteFamily, hfile.TypeDeleteFamilyVersion} {
		if t.String() == in.Type {
			out.Type, found = t, true
		}
	}
	if !found {
		return fmt.Errorf("difference type %q: not a cell type", in.Type)
	}
	for _, v := range []struct {
		in  *string
		out *[]byte
	}{{in.SourceValue, &out.SourceValue}, {in.TargetValue, &out.TargetValue}} {
		if v.in == nil {
			continue
		}
		if *v.out, err = rowkey.Parse(*v.in); err != nil {
			return fmt.Errorf("difference value %q: %w", *v.in, err)
		}
	}
	*d = out
	return nil
}
