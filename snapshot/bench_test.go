package snapshot

import (
	"context"
	"errors"
	"fmt"
	"path"
	"testing"

	"rangecopy/fsys"
	"rangecopy/snapshot/pb"
)

// manyFiles writes a snapshot of regions regions with files files each, every
// file holding 2000 cells in 4 KiB blocks.
func manyFiles(t testing.TB, dir string, regions, files int) {
	m := mTable{qual: "big", families: []*pb.ColumnFamilySchema{family("f")}}
	for i := 0; i < regions; i++ {
		r := mRegion{id: 1, files: map[string][]mFile{}}
		if i > 0 {
			r.start = fmt.Sprintf("r%03d", i)
		}
		if i < regions-1 {
			r.end = fmt.Sprintf("r%03d", i+1)
		}
		for j := 0; j < files; j++ {
			name := fmt.Sprintf("%04x%04x", i, j)
			r.files["f"] = append(r.files["f"], mFile{name: name})
			b := hfileBytes(t, "f", rowsN(fmt.Sprintf("r%03d-%02d-", i, j), 0, 2000), int64(j), 4096)
			put(t, dir, path.Join(testRoot, "data/default/big", m.regionName(r), "f", name), b)
		}
		m.regions = append(m.regions, r)
	}
	m.write(t, dir, "big")
}

func BenchmarkReadLocal(b *testing.B) {
	dir := b.TempDir()
	manyFiles(b, dir, 20, 10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := Read(context.Background(), fsys.Local{Root: dir}, testRoot, "big", Options{})
		if err != nil || len(p.Files) != 200 {
			b.Fatalf("%v, %d files", err, len(p.Files))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/200, "µs/file")
}

func TestReadCancelled(t *testing.T) {
	dir := t.TempDir()
	manyFiles(t, dir, 4, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, fsys.Local{Root: dir}, testRoot, "big", Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	p, err := Read(context.Background(), fsys.Local{Root: dir}, testRoot, "big", Options{Parallelism: 1})
	if err != nil || len(p.Files) != 12 || len(p.Regions) != 4 {
		t.Fatalf("%v; %d files, %d regions", err, len(p.Files), len(p.Regions))
	}
	for i := 1; i < len(p.Files); i++ {
		a, b := p.Files[i-1], p.Files[i]
		if a.Region == b.Region && a.Name >= b.Name {
			t.Errorf("files out of order: %s before %s", a.Name, b.Name)
		}
	}
}
