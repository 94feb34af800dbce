package bulkload_test

import (
	"fmt"
	"testing"

	"rangecopy/bulkload"
	"rangecopy/hfile"
	"rangecopy/testenv"
)

// benchCells returns n cells of about 200 bytes in rows prefix%08d.
func benchCells(n int) []*hfile.Cell {
	val := make([]byte, 160)
	for i := range val {
		val[i] = byte('a' + i%26)
	}
	out := make([]*hfile.Cell, n)
	for i := range out {
		out[i] = &hfile.Cell{Row: fmt.Appendf(nil, "r%08d", i), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 1, Type: hfile.TypePut, Value: val}
	}
	return out
}

// BenchmarkLoad measures writing and loading one file into its region, and
// loading one that must be re-split into four parts, on the target mini
// cluster. Bytes per op are the file's cells.
func BenchmarkLoad(b *testing.B) {
	const n = 200_000
	cells := benchCells(n)
	for _, resplit := range []bool{false, true} {
		b.Run(fmt.Sprintf("resplit=%v", resplit), func(b *testing.B) {
			env := testenv.Get(b)
			cl := env.Target
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := benchSetup(b, cl)
				l := s.loader(b, nil)
				f := writeFile(b, s, "t", "f", cells, hfile.WriterOptions{})
				if resplit {
					for _, k := range []string{"r00050000", "r00100000", "r00150000"} {
						if err := cl.Split(b.Context(), s.table, []byte(k)); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StartTimer()
				if err := l.Load(b.Context(), f); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				v := l.Counters().Values()
				b.SetBytes(v.Bytes)
				b.ReportMetric(float64(v.Resplits), "resplits/op")
				b.StartTimer()
			}
		})
	}
}

func benchSetup(b *testing.B, cl *testenv.Cluster) *setup {
	s := &setup{cl: cl, table: newTable(b, cl, "bench", []testenv.Family{{Name: "f"}}, nil), c: dial(b, cl, cl.User), fs: hdfsClient(b, cl, cl.User)}
	root := "/" + testenv.UniqueName(b, "bench")
	wd, err := bulkload.OpenWorkDir(b.Context(), wrapFS(b, s.fs), "job", bulkload.WorkDirOptions{Root: root})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.fs.RemoveAll(root) })
	s.wd = wd
	return s
}
