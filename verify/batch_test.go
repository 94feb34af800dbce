package verify

import (
	"crypto/sha256"
	"testing"

	"rangecopy/hfile"
	"rangecopy/job"
)

func kr(s, e string) job.KeyRange {
	var r job.KeyRange
	if s != "" {
		r.Start = []byte(s)
	}
	if e != "" {
		r.End = []byte(e)
	}
	return r
}

func rangesString(rs []job.KeyRange) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return join(out)
}

func TestPlanBatches(t *testing.T) {
	w := func(r string, n int64) WeightedRow { return WeightedRow{Row: []byte(r), Bytes: n} }
	tests := []struct {
		name    string
		rows    job.KeyRange
		cuts    []string
		weights []WeightedRow
		target  int64
		want    string
	}{
		{"one batch", kr("", ""), nil, nil, 100, `all rows`},
		{"region cuts inside the range only", kr("b", "y"), []string{"", "a", "m", "z"}, nil, 100, `["b", "m") ["m", "y")`},
		{"cut once the target is reached", kr("", ""), nil,
			[]WeightedRow{w("a", 60), w("b", 60), w("c", 60), w("d", 60)}, 100, `[first row, "c") ["c", last row]`},
		{"weights of one row add up", kr("", ""), nil,
			[]WeightedRow{w("a", 60), w("a", 60), w("b", 10), w("c", 10)}, 100, `[first row, "b") ["b", last row]`},
		{"a region cut resets the count", kr("", ""), []string{"b"},
			[]WeightedRow{w("a", 90), w("b", 50), w("c", 50), w("d", 10)}, 100, `[first row, "b") ["b", "d") ["d", last row]`},
		{"a weight at the range start is not a cut", kr("a", ""), nil,
			[]WeightedRow{w("a", 200), w("b", 1)}, 100, `["a", "b") ["b", last row]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cuts [][]byte
			for _, c := range tc.cuts {
				cuts = append(cuts, []byte(c))
			}
			got := rangesString(PlanBatches(tc.rows, cuts, tc.weights, tc.target))
			if got != tc.want {
				t.Errorf("batches %s, want %s", got, tc.want)
			}
		})
	}
}

func TestHasher(t *testing.T) {
	batches := []job.KeyRange{kr("", "c"), kr("c", "e"), kr("e", "")}
	h := NewHasher(batches)
	for _, c := range sorted(put("a", "q", 1, "x"), put("a", "r", 1, "y"), put("b", "q", 1, "z"), put("f", "q", 1, "w")) {
		h.Add(&c)
	}
	got := h.Finish()
	if got[0].Cells != 3 || got[0].Rows != 2 || got[1].Cells != 0 || got[2].Cells != 1 || got[2].Rows != 1 {
		t.Fatalf("counts %+v", got)
	}
	if got[1].Sum != sha256.Sum256(nil) {
		t.Errorf("an empty batch hashes to %x, want SHA-256 of nothing", got[1].Sum)
	}
	// Same cells, same hashes; one byte anywhere, another hash.
	again := func(cs ...hfile.Cell) [32]byte {
		h := NewHasher(batches[:1])
		for _, c := range cs {
			h.Add(&c)
		}
		return h.Finish()[0].Sum
	}
	base := again(put("a", "q", 1, "x"))
	if again(put("a", "q", 1, "x")) != base {
		t.Error("the same cell hashes differently")
	}
	for name, c := range map[string]hfile.Cell{
		"value": put("a", "q", 1, "y"), "timestamp": put("a", "q", 2, "x"),
		"type": mark("a", "q", 1, hfile.TypeDelete), "qualifier": put("a", "r", 1, "x"),
		"family": cell("a", "g", "q", 1, hfile.TypePut, "x"),
	} {
		if again(c) == base {
			t.Errorf("a cell of another %s hashes the same", name)
		}
	}
	// Framing: moving a byte between fields changes the hash.
	if again(cell("ab", "f", "q", 1, hfile.TypePut, "")) == again(cell("a", "f", "bq", 1, hfile.TypePut, "")) {
		t.Error("row ab/qualifier q hashes like row a/qualifier bq")
	}
	// Tags and sequence ids do not count.
	c := put("a", "q", 1, "x")
	c.SeqID, c.Tags = 42, []byte{1, 2}
	if again(c) != base {
		t.Error("the sequence id or tags change the hash")
	}
}

func TestMismatchedAndJoin(t *testing.T) {
	a := []BatchHash{{Cells: 1}, {Cells: 2}, {Cells: 3}, {Cells: 4}, {Cells: 5}}
	b := []BatchHash{{Cells: 1}, {Cells: 9}, {Cells: 9}, {Cells: 4}, {Cells: 9}}
	bad := Mismatched(a, b)
	if join(func() []string {
		var s []string
		for _, i := range bad {
			s = append(s, string(rune('0'+i)))
		}
		return s
	}()) != "1 2 4" {
		t.Fatalf("mismatched %v", bad)
	}
	batches := []job.KeyRange{kr("", "b"), kr("b", "c"), kr("c", "d"), kr("d", "e"), kr("e", "")}
	if got, want := rangesString(JoinRanges(batches, bad)), `["b", "d") ["e", last row]`; got != want {
		t.Errorf("joined %s, want %s", got, want)
	}
}

func TestRegionUnits(t *testing.T) {
	regions := []job.Region{{EncodedName: "r1", Rows: kr("", "m")}, {EncodedName: "r2", Rows: kr("m", "")}}
	tests := []struct {
		name    string
		batches []job.KeyRange
		want    string
	}{
		{"every batch", []job.KeyRange{kr("", "c"), kr("c", "m"), kr("m", "x"), kr("x", "")}, "r1[0,2) r2[2,4)"},
		{"a gap makes two runs", []job.KeyRange{kr("a", "c"), kr("e", "f"), kr("f", "m")}, "r1[0,1) r1[1,3)"},
		{"a region without batches", []job.KeyRange{kr("n", "p")}, "r2[0,1)"},
		{"none", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, u := range regionUnits(regions, tc.batches) {
				got = append(got, u.region.EncodedName+"["+string(rune('0'+u.lo))+","+string(rune('0'+u.hi))+")")
			}
			if join(got) != tc.want {
				t.Errorf("units %q, want %q", join(got), tc.want)
			}
		})
	}
}

func TestOverlapping(t *testing.T) {
	batches := []job.KeyRange{kr("", "c"), kr("c", "m"), kr("m", "x"), kr("x", "")}
	got := rangesString(overlapping(batches, []job.KeyRange{kr("d", "e"), kr("y", "")}))
	if got != `["c", "m") ["x", last row]` {
		t.Errorf("overlapping %s", got)
	}
}
