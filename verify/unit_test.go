package verify

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"strconv"
	"strings"
	"testing"

	"rangecopy/cluster"
	"rangecopy/job"
)

func TestUnitSpecRoundTrip(t *testing.T) {
	for _, u := range []UnitSpec{
		{Side: 0, Region: job.Region{EncodedName: "abc", Rows: kr("", "m")}, First: 0, Total: 3, Batches: []job.KeyRange{kr("", "c"), kr("c", "f")}},
		{Side: 1, Region: job.Region{EncodedName: "def", Rows: kr("m", "")}, First: 2, Total: 3, Batches: []job.KeyRange{kr("m", "")}},
		{Side: 1, Region: job.Region{EncodedName: "x", Rows: kr("\x00\xff", "\x01")}, First: 7, Total: 9, Batches: []job.KeyRange{kr("\x00\xff", "\x00\xff\x00"), kr("\x00\xff\x00", "\x01")}},
	} {
		b, err := EncodeUnitSpec(u)
		if err != nil {
			t.Fatalf("encode %+v: %v", u, err)
		}
		got, err := DecodeUnitSpec(b)
		if err != nil {
			t.Fatalf("decode %+v: %v", u, err)
		}
		if got.Side != u.Side || got.First != u.First || got.Total != u.Total || got.Region.EncodedName != u.Region.EncodedName ||
			!sameRange(got.Region.Rows, u.Region.Rows) || len(got.Batches) != len(u.Batches) {
			t.Fatalf("round trip: got %+v, want %+v", got, u)
		}
		for i := range u.Batches {
			if !sameRange(got.Batches[i], u.Batches[i]) {
				t.Errorf("batch %d: got %s, want %s", i, got.Batches[i], u.Batches[i])
			}
		}
	}
	for _, bad := range []struct {
		name string
		u    UnitSpec
	}{
		{"side 2", UnitSpec{Side: 2, Total: 1, Batches: []job.KeyRange{kr("", "")}}},
		{"no batch", UnitSpec{Total: 1}},
		{"past the total", UnitSpec{First: 1, Total: 1, Batches: []job.KeyRange{kr("", "")}}},
		{"gap", UnitSpec{Total: 2, Batches: []job.KeyRange{kr("", "b"), kr("c", "")}}},
		{"empty batch", UnitSpec{Total: 1, Batches: []job.KeyRange{kr("b", "b")}}},
	} {
		if _, err := EncodeUnitSpec(bad.u); !errors.Is(err, ErrUnit) {
			t.Errorf("%s: err %v, want ErrUnit", bad.name, err)
		}
	}
	for _, bad := range [][]byte{nil, {'U'}, {'U', 2}, {'H', 1, 0}, {'U', 1, 0, 0, 1, 0, 0, 0, 0, 0}, {'U', 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 9}} {
		if _, err := DecodeUnitSpec(bad); !errors.Is(err, ErrUnit) {
			t.Errorf("DecodeUnitSpec(%q): err %v, want ErrUnit", bad, err)
		}
	}
}

func sameRange(a, b job.KeyRange) bool {
	return bytes.Equal(a.Start, b.Start) && bytes.Equal(a.End, b.End)
}

func TestUnitCheckpointRoundTrip(t *testing.T) {
	hs := []BatchHash{{Cells: 3, Rows: 1, Sum: sha256.Sum256([]byte("a"))}, {}, {Cells: 1 << 40, Rows: 7, Sum: sha256.Sum256([]byte("b"))}}
	for n := 0; n <= len(hs); n++ {
		got, err := DecodeUnitCheckpoint(EncodeUnitCheckpoint(UnitCheckpoint{Hashes: hs[:n], BytesRead: int64(n) << 33}))
		if err != nil || len(got.Hashes) != n || got.BytesRead != int64(n)<<33 {
			t.Fatalf("%d hashes: got %+v, %v", n, got, err)
		}
		for i := range got.Hashes {
			if got.Hashes[i] != hs[i] {
				t.Errorf("hash %d: got %+v, want %+v", i, got.Hashes[i], hs[i])
			}
		}
	}
	if got, err := DecodeUnitCheckpoint(nil); err != nil || got.Hashes != nil || got.BytesRead != 0 {
		t.Errorf("no checkpoint: %v, %v", got, err)
	}
	// A checkpoint of format 1 (no bytes read) still reads.
	full := EncodeUnitCheckpoint(UnitCheckpoint{Hashes: hs, BytesRead: 5})
	old := append([]byte{recUnitHashes, unitFormat}, full[2:len(full)-1]...)
	if got, err := DecodeUnitCheckpoint(old); err != nil || len(got.Hashes) != len(hs) || got.BytesRead != 0 {
		t.Errorf("format 1 checkpoint: %+v, %v", got, err)
	}
	for _, bad := range [][]byte{full[:len(full)-1], append(full[:len(full):len(full)], 0), {'U', 1, 0}, {'H', 1, 0xff, 0xff, 0xff, 0xff, 0x0f}, {'H', 3, 0}} {
		if _, err := DecodeUnitCheckpoint(bad); !errors.Is(err, ErrUnit) {
			t.Errorf("DecodeUnitCheckpoint(%q): err %v, want ErrUnit", bad, err)
		}
	}
	// A unit of the most batches fits a checkpoint.
	if n := len(EncodeUnitCheckpoint(UnitCheckpoint{Hashes: make([]BatchHash, MaxUnitBatches), BytesRead: 1 << 50})); n > 64<<10 {
		t.Errorf("checkpoint of %d batches: %d bytes", MaxUnitBatches, n)
	}
}

func TestUnitTasks(t *testing.T) {
	batches := []job.KeyRange{kr("", "b"), kr("b", "d"), kr("d", "f"), kr("f", "h"), kr("h", "")}
	ra, rb := job.Region{EncodedName: "ra", Rows: kr("", "f")}, job.Region{EncodedName: "rb", Rows: kr("f", "")}
	units := []unit{{side: 0, region: ra, lo: 0, hi: 3}, {side: 0, region: rb, lo: 3, hi: 5}, {side: 1, region: rb, lo: 0, hi: 5}}
	for _, tc := range []struct {
		name       string
		maxBatches int
		maxSpec    int
		want       string
	}{
		{"one task per unit", 10, 1 << 20, "source-000000 0:[0,3) source-000001 0:[3,5) target-000002 1:[0,5)"},
		{"long units cut", 2, 1 << 20, "source-000000 0:[0,2) source-000001 0:[2,3) source-000002 0:[3,5) target-000003 1:[0,2) target-000004 1:[2,4) target-000005 1:[4,5)"},
		{"spec bytes bound", 10, 8, "source-000000 0:[0,1) source-000001 0:[1,2) source-000002 0:[2,3) source-000003 0:[3,4) source-000004 0:[4,5) target-000005 1:[0,1) target-000006 1:[1,2) target-000007 1:[2,3) target-000008 1:[3,4) target-000009 1:[4,5)"},
	} {
		ids, specs := unitTasks(units, batches, tc.maxBatches, tc.maxSpec)
		var got []string
		for i, s := range specs {
			got = append(got, ids[i]+" "+string(rune('0'+s.Side))+":["+itoa(s.First)+","+itoa(s.First+len(s.Batches))+")")
			if s.Total != len(batches) {
				t.Errorf("%s: unit %s total %d", tc.name, ids[i], s.Total)
			}
			if _, err := EncodeUnitSpec(s); err != nil {
				t.Errorf("%s: unit %s: %v", tc.name, ids[i], err)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, g, tc.want)
		}
		// Whatever the cut, the tasks assemble into the batches.
		done := make([][]BatchHash, len(specs))
		for i, s := range specs {
			for k := range s.Batches {
				done[i] = append(done[i], BatchHash{Cells: int64(s.Side*100 + s.First + k)})
			}
		}
		got2, hashes, err := assemble(specs, done)
		if err != nil || len(got2) != len(batches) {
			t.Fatalf("%s: assemble: %d batches, %v", tc.name, len(got2), err)
		}
		for i := range batches {
			if !sameRange(got2[i], batches[i]) || hashes[0][i].Cells != int64(i) || hashes[1][i].Cells != int64(100+i) {
				t.Errorf("%s: batch %d: %s %+v %+v", tc.name, i, got2[i], hashes[0][i], hashes[1][i])
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestAssembleRefuses(t *testing.T) {
	b := []job.KeyRange{kr("", "m"), kr("m", "")}
	h := func(n int) []BatchHash { return make([]BatchHash, n) }
	src := UnitSpec{Side: 0, Total: 2, Batches: b}
	for _, tc := range []struct {
		name  string
		specs []UnitSpec
		done  [][]BatchHash
		want  string
	}{
		{"no unit", nil, nil, "no unit"},
		{"target side missing", []UnitSpec{src}, [][]BatchHash{h(2)}, "no unit hashes batch 0 on the target"},
		{"unit half hashed", []UnitSpec{src, {Side: 1, Total: 2, Batches: b}}, [][]BatchHash{h(2), h(1)}, "hashed 1 of its 2"},
		{"batch twice", []UnitSpec{src, {Side: 0, First: 1, Total: 2, Batches: b[1:]}}, [][]BatchHash{h(2), h(1)}, "batch 1 hashed twice"},
		{"sides disagree", []UnitSpec{src, {Side: 1, Total: 2, Batches: []job.KeyRange{kr("", "k"), kr("k", "")}}}, [][]BatchHash{h(2), h(2)}, "on one side"},
		{"totals disagree", []UnitSpec{src, {Side: 1, Total: 3, Batches: b}}, [][]BatchHash{h(2), h(2)}, "counts 3 batches"},
	} {
		_, _, err := assemble(tc.specs, tc.done)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestJobID(t *testing.T) {
	src := cluster.Config{ZKQuorum: []string{"b:2181", "a:2181"}, ZNodeParent: "/hbase"}
	tgt := cluster.Config{ZKQuorum: []string{"t:2181"}, ZNodeParent: "/hbase"}
	base := Options{Source: src, Target: tgt, Table: "ns:t", Families: []string{"b", "a"}}
	id := JobID(base)
	if !strings.HasPrefix(id, "verify-ns.t-") || len(id) != len("verify-ns.t-")+16 {
		t.Errorf("JobID = %q", id)
	}
	same := base
	same.Source.ZKQuorum = []string{"a:2181", "b:2181"}
	same.Families = []string{"a", "b"}
	same.TargetTable = "ns:t"
	same.Mode = ModeVisible
	same.Parallelism, same.Bandwidth, same.MaxDiffs = 9, 100, 5 // how it runs, not what it compares
	if JobID(same) != id {
		t.Errorf("the same verification has another id: %s, %s", JobID(same), id)
	}
	for name, o := range map[string]Options{
		"raw mode":     {Source: src, Target: tgt, Table: "ns:t", Families: []string{"a", "b"}, Mode: ModeRaw},
		"other rows":   {Source: src, Target: tgt, Table: "ns:t", Families: []string{"a", "b"}, Rows: kr("a", "")},
		"other times":  {Source: src, Target: tgt, Table: "ns:t", Families: []string{"a", "b"}, Time: job.TimeRange{Min: 0, Max: 5}},
		"other target": {Source: src, Target: tgt, Table: "ns:t", TargetTable: "ns:u", Families: []string{"a", "b"}},
		"batch size":   {Source: src, Target: tgt, Table: "ns:t", Families: []string{"a", "b"}, BatchBytes: 1 << 10},
		"only ranges":  {Source: src, Target: tgt, Table: "ns:t", Families: []string{"a", "b"}, Only: []job.KeyRange{kr("a", "b")}},
	} {
		if JobID(o) == id {
			t.Errorf("%s: same id %s", name, id)
		}
	}
}

func FuzzDecodeUnitSpec(f *testing.F) {
	b, _ := EncodeUnitSpec(UnitSpec{Side: 1, Region: job.Region{EncodedName: "r", Rows: kr("a", "z")}, First: 1, Total: 4, Batches: []job.KeyRange{kr("a", "c"), kr("c", "z")}})
	f.Add(b)
	f.Add([]byte{'U', 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := DecodeUnitSpec(b)
		if err != nil {
			if !errors.Is(err, ErrUnit) {
				t.Fatalf("error not ErrUnit: %v", err)
			}
			return
		}
		again, err := EncodeUnitSpec(u)
		if err != nil {
			t.Fatalf("decoded unit does not encode: %v", err)
		}
		if _, err := DecodeUnitSpec(again); err != nil {
			t.Fatalf("re-encoded unit does not decode: %v", err)
		}
	})
}

func FuzzDecodeUnitCheckpoint(f *testing.F) {
	f.Add(EncodeUnitCheckpoint(UnitCheckpoint{Hashes: []BatchHash{{Cells: 1, Rows: 1}}, BytesRead: 300}))
	f.Add([]byte{'H', 1, 0})
	f.Add([]byte{'H', 2, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeUnitCheckpoint(b)
		if err != nil {
			if !errors.Is(err, ErrUnit) {
				t.Fatalf("error not ErrUnit: %v", err)
			}
			return
		}
		again, err := DecodeUnitCheckpoint(EncodeUnitCheckpoint(c))
		if err != nil || len(again.Hashes) != len(c.Hashes) || again.BytesRead != c.BytesRead {
			t.Fatalf("re-encoded checkpoint: %+v, %v; want %+v", again, err, c)
		}
		for i := range c.Hashes {
			if again.Hashes[i] != c.Hashes[i] {
				t.Fatalf("hash %d re-encodes as %+v, was %+v", i, again.Hashes[i], c.Hashes[i])
			}
		}
	})
}
