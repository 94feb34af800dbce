package hfile

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"rangecopy/testenv"
)

// These tests check the package against HBase's own writer and reader,
// running the fixture class testenv/src/main/java/rangecopy/testenv/fixtures/
// HFileFixtures.java inside the test environment's JVM. The class must be
// compiled (make testenv-build, or mvn -q -B -o -f testenv/pom.xml compile).
// Every compression the writer has is compared: NONE, GZ, SNAPPY, LZ4 and
// ZSTD. For ZSTD the harness runs HBase's own zstd-jni codec
// (hbase.io.compress.zstd.codec in testenv/src/main/resources/hbase-site.xml;
// Hadoop's default ZStandardCodec needs a native library the harness lacks),
// which frames blocks as ZstdHadoopBlock does; TestInteropZstdCodecs also runs
// HBase's aircompressor codec. docs/hfile-interop.md keeps the matrix.

// fixtureClass is the fixture writer and dumper. The harness loads classes
// from its own class path first: after changing the fixture, restart a
// long-running harness (make testenv-down testenv-up).
const fixtureClass = "rangecopy.testenv.fixtures.HFileFixtures"

func runFixture(t *testing.T, mode, dir string) string {
	t.Helper()
	env := testenv.Get(t)
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	classes := filepath.Join(root, "testenv", "target", "classes")
	if _, err := os.Stat(filepath.Join(classes, "rangecopy", "testenv", "fixtures", "HFileFixtures.class")); err != nil {
		t.Fatalf("fixture class not compiled (run mvn -q -B -o -f testenv/pom.xml compile): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := env.Source.RunTool(ctx, fixtureClass, []string{mode, dir}, []string{classes})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("%s %s: exit %d:\n%s", fixtureClass, mode, res.ExitCode, res.Output)
	}
	return res.Output
}

func hexField(b []byte) string { return "x" + hex.EncodeToString(b) }

func dumpLine(c *Cell) string {
	return fmt.Sprintf("cell %s %s %s %d %d %s %s %d", hexField(c.Row), hexField(c.Family), hexField(c.Qualifier),
		c.Timestamp, c.Type, hexField(c.Value), hexField(c.Tags), c.SeqID)
}

// dumpCells renders cells and keys the way the fixture dumps a file.
func dumpCells(cells []*Cell, first, last []byte) []string {
	var out []string
	for _, c := range cells {
		out = append(out, dumpLine(c))
	}
	key := func(k []byte) string {
		if k == nil {
			return "-"
		}
		return hexField(k)
	}
	return append(out, fmt.Sprintf("entries %d", len(cells)), "first "+key(first), "last "+key(last))
}

func readDump(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

func compareDumps(t *testing.T, name string, got, want []string) {
	t.Helper()
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			t.Fatalf("%s: line %d differs:\n got %s\nwant %s", name, i+1, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d dump lines, want %d", name, len(got), len(want))
	}
}

// TestInteropReadHBaseFiles reads HFiles HBase wrote (every encoding x NONE/
// GZ/SNAPPY/LZ4 x tags x MVCC) and compares every cell with HBase's own reader.
func TestInteropReadHBaseFiles(t *testing.T) {
	dir := t.TempDir()
	runFixture(t, "write", dir)
	files, err := filepath.Glob(filepath.Join(dir, "*.hfile"))
	if err != nil || len(files) != 5*5*6+3 { // encodings x codecs x tags/MVCC, and 3 huge-cell files
		t.Fatalf("HBase wrote %d files (%v), want 153", len(files), err)
	}
	compressed, zstd := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Open(bytes.NewReader(b), int64(len(b)), filepath.Base(f))
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		if r.Info().TagsCompressed && r.Info().MaxTagsLen > 0 {
			compressed++
		}
		if r.Trailer().Compression == CompressionZSTD {
			zstd++
		}
		cells := readAll(t, r, ScanOptions{})
		if r.Trailer().NumDataIndexLevels < 2 && !strings.Contains(f, "-huge-") {
			t.Errorf("%s: %d index levels; the fixture should force a multi-level index", filepath.Base(f), r.Trailer().NumDataIndexLevels)
		}
		got := dumpCells(cells, r.Info().FirstKey, r.Info().LastKey)
		compareDumps(t, filepath.Base(f), got, readDump(t, f+".dump"))
		// HBase stores shortened "midpoint" keys in its index; they must
		// ascend and bound the blocks' cells.
		idx, err := r.DataIndex()
		if err != nil || len(idx) < 2 && !strings.Contains(f, "-huge-") {
			t.Fatalf("%s: data index of %d entries: %v", filepath.Base(f), len(idx), err)
		}
		for i := 1; i < len(idx); i++ {
			if CompareKeys(idx[i-1].Key, idx[i].Key) >= 0 {
				t.Fatalf("%s: index keys %d and %d out of order", filepath.Base(f), i-1, i)
			}
		}
		// Seeks land where a scan says they should.
		s := r.Scanner(ScanOptions{})
		for i := 0; i < len(cells); i += 101 {
			s.Seek(cells[i])
			if !s.Next() || !cellsEqual(s.Cell(), cells[i]) {
				t.Fatalf("%s: seek to cell %d (%s) found %v (err %v)", filepath.Base(f), i, cells[i], s.Cell(), s.Err())
			}
		}
	}
	if compressed < 5*3*2 {
		t.Errorf("only %d files with compressed tags", compressed)
	}
	if zstd != 5*6+1 {
		t.Errorf("%d ZSTD files, want %d", zstd, 5*6+1)
	}
	t.Logf("read %d files HBase wrote, %d of them ZSTD", len(files), zstd)
}

// TestInteropHBaseReadsOurFiles writes files with our writer and has HBase's
// reader (HFile.createReader, the bulk-load validation path) dump them.
func TestInteropHBaseReadsOurFiles(t *testing.T) {
	dir := t.TempDir()
	want := map[string][]string{}
	write := func(name string, opts WriterOptions, cells []*Cell) {
		b := writeFile(t, opts, cells)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		var first, last []byte
		if len(cells) > 0 {
			first, last = KeyBytes(cells[0]), KeyBytes(cells[len(cells)-1])
		}
		exp := dumpCells(cells, first, last)
		if !opts.IncludeMVCC {
			for i, c := range cells {
				cc := *c
				cc.SeqID = 0
				exp[i] = dumpLine(&cc)
			}
		}
		want[name] = exp
	}
	seed := uint64(100)
	for _, enc := range allEncodings {
		for _, comp := range []Compression{CompressionNone, CompressionGZ, CompressionSnappy, CompressionLZ4, CompressionZSTD} {
			for _, tagMode := range []int{0, 1, 2} {
				tags, compressTags := tagMode > 0, tagMode == 2
				for _, mvcc := range []bool{false, true} {
					seed++
					name := fmt.Sprintf("go-%s-%s-tags%v-compresstags%v-mvcc%v.hfile", enc, comp, tags, compressTags, mvcc)
					write(name, WriterOptions{BlockSize: 1024, Encoding: enc, Compression: comp, ZstdFraming: ZstdHadoopBlock, IncludeTags: tags,
						CompressTags: compressTags, IncludeMVCC: mvcc, IndexBlockSize: 512, IndexMinEntries: 4},
						genCells(3000, seed, tags, mvcc))
				}
			}
		}
	}
	write("go-bloom.row.hfile", WriterOptions{BlockSize: 1024, Bloom: BloomRow, BloomBlockSize: 256}, genCells(3000, 1, false, false))
	write("go-bloom.rowcol.hfile", WriterOptions{BlockSize: 1024, Encoding: EncodingFastDiff, Compression: CompressionGZ,
		Bloom: BloomRowCol, BloomBlockSize: 256}, genCells(3000, 2, false, false))
	write("go-bloom2.row.hfile", WriterOptions{BlockSize: 1024, Encoding: EncodingFastDiff, Compression: CompressionGZ, Bloom: BloomRow, BloomBlockSize: 256}, genCells(3000, 1, false, false))
	write("go-bloom2.rowcol.hfile", WriterOptions{BlockSize: 1024, Bloom: BloomRowCol, BloomBlockSize: 256}, genCells(3000, 2, false, false))
	write("go-single.hfile", WriterOptions{}, genCells(1, 3, false, false))
	// Cells larger than a block and than one Hadoop compression group.
	huge := genCells(20, 5, false, false)
	for i, c := range huge {
		if i%5 == 0 {
			c.Value = bytes.Repeat([]byte(fmt.Sprintf("huge value %d ", i)), 30000)
		}
	}
	write("go-huge-snappy.hfile", WriterOptions{Compression: CompressionSnappy}, huge)
	write("go-huge-gz.hfile", WriterOptions{Compression: CompressionGZ, Encoding: EncodingFastDiff}, huge)
	write("go-huge-zstd.hfile", WriterOptions{Compression: CompressionZSTD, ZstdFraming: ZstdHadoopBlock, Encoding: EncodingDiff}, huge)
	write("go-empty.hfile", WriterOptions{Encoding: EncodingFastDiff}, nil)
	write("go-nochecksum.hfile", WriterOptions{BytesPerChecksum: -1, Compression: CompressionSnappy}, genCells(500, 4, false, false))

	output := runFixture(t, "dump", dir)
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		got := readDump(t, filepath.Join(dir, name+".hbase.dump"))
		exp := want[name]
		if strings.Contains(name, ".row") {
			if len(got) == 0 || !strings.HasPrefix(got[len(got)-1], "bloom ") {
				t.Fatalf("%s: no bloom line", name)
			}
			var checked, missing int
			fmt.Sscanf(got[len(got)-1], "bloom %d %d", &checked, &missing)
			if checked == 0 || missing != 0 {
				var misses []string
				for _, l := range strings.Split(output, "\n") {
					if strings.Contains(l, "bloom miss") {
						misses = append(misses, l)
					}
				}
				t.Fatalf("%s: HBase's bloom filter misses %d of %d keys:\n%s", name, missing, checked, strings.Join(misses, "\n"))
			}
			got = got[:len(got)-1]
		}
		compareDumps(t, name, got, exp)
	}
	t.Logf("HBase read %d files we wrote", len(names))
}

// TestInteropZstdCodecs runs both of HBase's ZSTD codecs (zstd-jni and
// aircompressor) one stream per payload, as HFile blocks use them: each reads
// the blocks we compress with ZstdHadoopBlock framing, and we read what each
// writes. Payloads larger than a compression group take several groups.
func TestInteropZstdCodecs(t *testing.T) {
	dir := t.TempDir()
	var cs codecs
	payloads := map[string][]byte{}
	for i, n := range []int{1, 100, 4096, hadoopChunk, hadoopChunk + 1, 300 << 10} {
		var b []byte
		for len(b) < n {
			b = fmt.Appendf(b, "row-%06d value-%d;", len(b)%977, len(b)/13)
		}
		payloads[fmt.Sprintf("p%d-%d", i, n)] = b[:n]
	}
	for name, p := range payloads {
		z, err := cs.compress(CompressionZSTD, ZstdHadoopBlock, nil, p)
		if err != nil {
			t.Fatal(err)
		}
		for file, b := range map[string][]byte{name + ".zst": z, name + ".raw": p} {
			if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	runFixture(t, "codecs", dir)
	checked := 0
	for _, codec := range []string{"zstdjni", "aircompressor"} {
		for name, p := range payloads {
			got, err := os.ReadFile(filepath.Join(dir, name+".zst."+codec+".out"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, p) {
				t.Errorf("%s read our %s as %d bytes, want the %d we compressed", codec, name, len(got), len(p))
			}
			z, err := os.ReadFile(filepath.Join(dir, name+".raw."+codec+".zst"))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.HasPrefix(z, zstdMagic) {
				t.Errorf("%s wrote %s as a plain zstd frame; ZstdHadoopBlock is the wrong framing for it", codec, name)
			}
			back, err := cs.decompress(CompressionZSTD, nil, z, len(p))
			if err != nil || !bytes.Equal(back, p) {
				t.Errorf("%s's %s: we read %d bytes (%v), want %d", codec, name, len(back), err, len(p))
			}
			checked += 2
		}
	}
	t.Logf("%d ZSTD streams checked both ways", checked)
}

// TestInteropBulkLoad bulk loads files our writer produced into a table that
// is split in the middle of their key range with HBase's own
// BulkLoadHFilesTool (which validates the files, splits them at the region
// boundary with HBase's half-file reader and writer, and loads them), then
// reads the table back with a raw scan.
func TestInteropBulkLoad(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name        string
		opts        WriterOptions
		compression string // of the table's family
	}{
		{"plain", WriterOptions{}, ""},
		{"hfileoutputformat2", WriterOptions{Encoding: EncodingFastDiff, Compression: CompressionGZ, IncludeTags: true,
			IncludeMVCC: true, Bloom: BloomRow, BlockSize: 4096}, "GZ"},
		{"snappy-rowcol", WriterOptions{Encoding: EncodingDiff, Compression: CompressionSnappy, Bloom: BloomRowCol,
			BlockSize: 2048, IndexBlockSize: 256, IndexMinEntries: 4}, ""},
		{"zstd", WriterOptions{Encoding: EncodingFastDiff, Compression: CompressionZSTD, ZstdFraming: ZstdHadoopBlock,
			IncludeMVCC: true, Bloom: BloomRow, BlockSize: 4096}, "ZSTD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table := testenv.UniqueName(t, "hfile_bulk")
			err := env.Source.CreateTable(ctx, table, []testenv.Family{{Name: "cf", MaxVersions: 10, Compression: tc.compression}}, [][]byte{[]byte("r01000")})
			if err != nil {
				t.Fatal(err)
			}
			defer env.Source.DeleteTable(context.Background(), table)
			var cells []*Cell
			types := []CellType{TypePut, TypePut, TypePut, TypeDelete, TypeDeleteColumn}
			for r := 0; r < 2000; r++ {
				row := []byte(fmt.Sprintf("r%05d", r))
				if r%100 == 7 {
					cells = append(cells, &Cell{Row: row, Family: []byte("cf"), Timestamp: 1000, Type: TypeDeleteFamily})
				}
				for q := 0; q < 3; q++ {
					for v := 0; v < 2; v++ {
						c := &Cell{Row: row, Family: []byte("cf"), Qualifier: []byte(fmt.Sprintf("q%d", q)),
							Timestamp: int64(2000 - v), Type: types[(r+q+v)%len(types)]}
						if c.Type == TypePut {
							c.Value = []byte(fmt.Sprintf("value-%d-%d-%d", r, q, v))
						}
						if tc.opts.IncludeTags && r%3 == 0 {
							c.Tags = []byte{0, 3, 100, 'x', 'y'} // a tag type HBase does not interpret (8 would be a TTL)
						}
						cells = append(cells, c)
					}
				}
			}
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "cf"), 0o755); err != nil {
				t.Fatal(err)
			}
			b := writeFile(t, tc.opts, cells)
			if err := os.WriteFile(filepath.Join(dir, "cf", "0123456789abcdef0123456789abcdef"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := env.Source.RunTool(ctx, "org.apache.hadoop.hbase.tool.BulkLoadHFilesTool", []string{"file://" + dir, table}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 0 {
				t.Fatalf("BulkLoadHFilesTool exit %d:\n%s", res.ExitCode, res.Output)
			}
			got, err := env.Source.Scan(ctx, table, testenv.ScanSpec{Raw: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(cells) {
				t.Fatalf("scan returned %d cells, want %d", len(got), len(cells))
			}
			for i, g := range got {
				w := cells[i]
				if !bytes.Equal(g.Row, w.Row) || !bytes.Equal(g.Family, w.Family) || !bytes.Equal(g.Qualifier, w.Qualifier) ||
					g.Timestamp != w.Timestamp || g.Type != w.Type.String() || !bytes.Equal(g.Value, w.Value) {
					t.Fatalf("cell %d: HBase has %q/%q:%q/%d/%s=%q, want %s=%q", i, g.Row, g.Family, g.Qualifier, g.Timestamp, g.Type, g.Value, w, w.Value)
				}
			}
		})
	}
}
