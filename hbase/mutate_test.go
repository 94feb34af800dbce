package hbase

import (
	"context"
	"math"
	"testing"

	"rangecopy/hbase/pb"
)

func TestMutationProto(t *testing.T) {
	f, q := []byte("f"), []byte("q")
	tests := []struct {
		name  string
		m     *Mutation
		typ   pb.MutationProto_MutationType
		cells []CellType
		ts    uint64
	}{
		{"put", NewPut([]byte("r")).Add(f, q, 5, []byte("v")).Add(f, nil, LatestTimestamp, nil), pb.MutationProto_PUT,
			[]CellType{CellTypePut, CellTypePut}, 0},
		{"delete kinds", NewDelete([]byte("r")).DeleteVersion(f, q, 1).DeleteColumn(f, q, 2).DeleteFamily(f, 3).DeleteFamilyVersion(f, 4),
			pb.MutationProto_DELETE, []CellType{CellTypeDelete, CellTypeDeleteColumn, CellTypeDeleteFamily, CellTypeDeleteFamilyVersion}, LatestTimestamp},
		{"whole row", &Mutation{Row: []byte("r"), Type: MutationDelete, Timestamp: 77}, pb.MutationProto_DELETE, nil, 77},
	}
	for _, tt := range tests {
		if err := tt.m.validate(); err != nil {
			t.Fatalf("%s: validate: %v", tt.name, err)
		}
		mp, cb, err := tt.m.proto([]byte("prefix"))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if mp.GetMutateType() != tt.typ || int(mp.GetAssociatedCellCount()) != len(tt.cells) || string(mp.GetRow()) != "r" {
			t.Errorf("%s: proto %v", tt.name, mp)
		}
		if tt.typ == pb.MutationProto_DELETE && mp.GetTimestamp() != tt.ts {
			t.Errorf("%s: timestamp %d, want %d", tt.name, mp.GetTimestamp(), tt.ts)
		}
		if string(cb[:6]) != "prefix" {
			t.Fatalf("%s: cell block prefix lost", tt.name)
		}
		cells, rest, err := decodeCellBlock(cb[6:], len(tt.cells))
		if err != nil || len(rest) != 0 {
			t.Fatalf("%s: cell block: %v, %d left", tt.name, err, len(rest))
		}
		for i, c := range cells {
			if c.Type != tt.cells[i] || string(c.Row) != "r" {
				t.Errorf("%s: cell %d = %s", tt.name, i, c)
			}
		}
	}
}

func TestMutationValidate(t *testing.T) {
	f := []byte("f")
	bad := map[string]*Mutation{
		"empty row":        NewPut(nil).Add(f, nil, 1, nil),
		"put without cell": NewPut([]byte("r")),
		"other row":        {Row: []byte("r"), Type: MutationPut, Cells: []Cell{{Row: []byte("x"), Family: f, Type: CellTypePut}}},
		"no family":        NewPut([]byte("r")).Add(nil, nil, 1, nil),
		"delete in put":    {Row: []byte("r"), Type: MutationPut, Cells: []Cell{{Row: []byte("r"), Family: f, Type: CellTypeDelete}}},
		"put in delete":    NewDelete([]byte("r")).Add(f, nil, 1, nil),
	}
	for name, m := range bad {
		if err := m.validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestScanProto(t *testing.T) {
	s := Scan{StartRow: []byte("a"), StopRow: []byte("z"), Raw: true, MaxVersions: 3, BatchSize: 10, Caching: 7,
		TimeRange: TimeRange{Min: 5},
		Columns:   []Column{{Family: []byte("f"), Qualifier: []byte("1")}, {Family: []byte("g")}, {Family: []byte("f"), Qualifier: []byte("2")}}}
	p := s.pb()
	if string(p.GetStartRow()) != "a" || string(p.GetStopRow()) != "z" || p.GetMaxVersions() != 3 || p.GetBatchSize() != 10 || p.GetCaching() != 7 {
		t.Fatalf("scan %v", p)
	}
	if p.GetTimeRange().GetFrom() != 5 || p.GetTimeRange().GetTo() != math.MaxInt64 {
		t.Errorf("time range %v", p.GetTimeRange())
	}
	if len(p.GetAttribute()) != 1 || p.GetAttribute()[0].GetName() != "_raw_" || p.GetAttribute()[0].GetValue()[0] == 0 {
		t.Errorf("raw attribute %v", p.GetAttribute())
	}
	if len(p.GetColumn()) != 2 || string(p.GetColumn()[0].GetFamily()) != "f" || len(p.GetColumn()[0].GetQualifier()) != 2 ||
		string(p.GetColumn()[1].GetFamily()) != "g" || len(p.GetColumn()[1].GetQualifier()) != 0 {
		t.Errorf("columns %v", p.GetColumn())
	}
	if z := (&Scan{}).pb(); z.TimeRange != nil || z.GetCaching() != 100 {
		t.Error("zero Scan should have no time range and default caching")
	}
}

func TestScanResultsFromCellBlock(t *testing.T) {
	cells := sampleCells()
	cb, _ := encodeCellBlock(cells)
	res, err := scanResults(&pb.ScanResponse{CellsPerResult: []uint32{2, 1, 3}}, cb)
	if err != nil || len(res) != 3 || len(res[0].Cells) != 2 || string(res[2].Row) != "row3" {
		t.Fatalf("results %v, %v", res, err)
	}
	if _, err := scanResults(&pb.ScanResponse{CellsPerResult: []uint32{2, 1, 4}}, cb); err == nil {
		t.Fatal("more cells announced than the block holds: accepted")
	}
}

func TestScanReversedRange(t *testing.T) {
	c := &Client{}
	sc := c.Scan("t", Scan{StartRow: []byte("b"), StopRow: []byte("a")})
	if sc.Next(context.Background()) || sc.Err() == nil {
		t.Fatalf("reversed range accepted: %v", sc.Err())
	}
}
