package snapshot_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/snapshot"
	"rangecopy/testenv"
)

// cluster is the source cluster as a test uses it.
type cluster struct {
	env    *testenv.Env
	c      *testenv.Cluster
	client *hbase.Client
	hdfs   *hdfs.Client
	fs     *fsys.HDFS
	root   string
}

func testLogger() *slog.Logger {
	if os.Getenv("RANGECOPY_TEST_DEBUG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

func source(t *testing.T) *cluster {
	env := testenv.Get(t)
	c := env.Source
	client := testsupport.DialWith(t, c, hbase.Config{Logger: testLogger()})
	h := c.HDFS(t, "")
	fs, err := fsys.NewHDFS(h, fsys.HDFSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{env: env, c: c, client: client, hdfs: h, fs: fs, root: c.RootDirPath()}
}

// table creates a table with the harness and deletes it at the end.
func (s *cluster) table(t *testing.T, name string, fams []testenv.Family, splits [][]byte) string {
	t.Helper()
	return s.tableWith(t, name, fams, splits, testenv.TableOptions{})
}

// tableWith is table with table options (compaction on, for a test that
// compacts).
func (s *cluster) tableWith(t *testing.T, name string, fams []testenv.Family, splits [][]byte, opts testenv.TableOptions) string {
	t.Helper()
	if err := s.c.CreateTableWith(t.Context(), name, fams, splits, opts); err != nil {
		t.Fatalf("create table %s: %v", name, err)
	}
	s.dropLater(t, name)
	return name
}

func (s *cluster) dropLater(t *testing.T, table string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := s.c.DeleteTable(ctx, table); err != nil {
			t.Logf("delete table %s: %v", table, err)
		}
	})
}

// pin takes a snapshot with Pin and releases it at the end.
func (s *cluster) pin(t *testing.T, table string) (*snapshot.Pinned, string) {
	t.Helper()
	name := testenv.UniqueName(t, "snap")
	ctx := t.Context()
	start := time.Now()
	p, err := snapshot.Pin(ctx, s.client, s.fs, s.root, table, name, snapshot.Options{Logger: testLogger()})
	if err == nil {
		t.Logf("pinned %s as %s in %v: %d regions, %d files", table, name, time.Since(start).Round(time.Millisecond), len(p.Regions), len(p.Files))
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := snapshot.Release(ctx, s.client, name); err != nil && !errors.Is(err, hbase.ErrSnapshotNotFound) {
			t.Logf("release %s: %v", name, err)
		}
	})
	if err != nil {
		t.Fatalf("pin %s: %v", table, err)
	}
	return p, name
}

// put writes one cell per row into family at ts (0: the server's time).
func (s *cluster) put(t *testing.T, table, family string, rows []string, qualifier string, ts int64) {
	t.Helper()
	var cells []testenv.Cell
	for _, r := range rows {
		c := testenv.Cell{Row: []byte(r), Family: []byte(family), Qualifier: []byte(qualifier), Type: "Put", Value: []byte(family + "/" + r + "/" + qualifier)}
		if ts != 0 {
			c.Timestamp = ts
		} else {
			c.Timestamp = hbase.LatestTimestamp
		}
		cells = append(cells, c)
	}
	if err := s.c.Mutate(t.Context(), table, cells); err != nil {
		t.Fatalf("write %d cells to %s: %v", len(cells), table, err)
	}
}

func rows(prefix string, from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%04d", prefix, from+i)
	}
	return out
}

// checkRegions compares the pinned regions with hbase:meta's.
func (s *cluster) checkRegions(t *testing.T, table string, p *snapshot.Pinned) {
	t.Helper()
	meta, err := s.c.Regions(t.Context(), table)
	if err != nil {
		t.Fatal(err)
	}
	if len(meta) != len(p.Regions) {
		t.Fatalf("pinned %d regions, hbase:meta lists %d", len(p.Regions), len(meta))
	}
	for i, r := range p.Regions {
		m := meta[i]
		if r.EncodedName != m.EncodedName || !bytes.Equal(r.Rows.Start, m.StartKey) || !bytes.Equal(r.Rows.End, m.EndKey) {
			t.Errorf("region %d: pinned %s %v, hbase:meta %s [%q, %q)", i, r.EncodedName, r.Rows, m.EncodedName, m.StartKey, m.EndKey)
		}
	}
}

// filesOf returns the pinned files of a region and family.
func filesOf(p *snapshot.Pinned, region, family string) []job.StoreFile {
	var out []job.StoreFile
	for _, f := range p.Files {
		if f.Region == region && f.Family == family {
			out = append(out, f)
		}
	}
	return out
}

// readCells reads every cell of a pinned file through hfile (the half view
// for a reference).
func (s *cluster) readCells(t *testing.T, p *snapshot.Pinned, f job.StoreFile) []hfile.Cell {
	t.Helper()
	in, ok := p.Input(f)
	if !ok {
		t.Fatalf("no input for %+v", f)
	}
	file, err := s.fs.Open(context.Background(), in.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, err := hfile.Open(file, in.Size, in.Path)
	if err != nil {
		t.Fatal(err)
	}
	var sc *hfile.Scanner
	if in.Reference != nil {
		h, err := hfile.NewHalfReader(r, in.Reference)
		if err != nil {
			t.Fatal(err)
		}
		sc = h.Scanner(hfile.ScanOptions{})
	} else {
		sc = r.Scanner(hfile.ScanOptions{})
	}
	var out []hfile.Cell
	for sc.Next() {
		out = append(out, *sc.Cell().Clone())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", in.Path, err)
	}
	return out
}

// checkCells compares the cells of a region's pinned files of family with a
// raw, all-versions scan of the region through HBase's own client. It also
// checks that each file's first and last rows are those of its cells.
func (s *cluster) checkCells(t *testing.T, table string, p *snapshot.Pinned, r job.Region, family string) int {
	t.Helper()
	var got []hfile.Cell
	for _, f := range filesOf(p, r.EncodedName, family) {
		cells := s.readCells(t, p, f)
		if len(cells) == 0 {
			t.Errorf("file %s of region %s holds no cells but is listed", f.Name, f.Region)
			continue
		}
		if !bytes.Equal(cells[0].Row, f.FirstRow) || !bytes.Equal(cells[len(cells)-1].Row, f.LastRow) {
			t.Errorf("file %s of region %s: rows [%q, %q], facts say [%q, %q]", f.Name, f.Region, cells[0].Row, cells[len(cells)-1].Row, f.FirstRow, f.LastRow)
		}
		for _, c := range cells {
			if !r.Rows.Contains(c.Row) {
				t.Errorf("file %s of region %s: row %q outside the region %v", f.Name, f.Region, c.Row, r.Rows)
				break
			}
			if f.HasTime && (c.Timestamp < f.MinTime || c.Timestamp > f.MaxTime) {
				t.Errorf("file %s: cell at %d outside TIMERANGE [%d, %d]", f.Name, c.Timestamp, f.MinTime, f.MaxTime)
				break
			}
		}
		got = append(got, cells...)
	}
	sort.SliceStable(got, func(i, j int) bool { return hfile.Compare(&got[i], &got[j]) < 0 })
	scan, err := s.c.Scan(t.Context(), table, testenv.ScanSpec{StartRow: r.Rows.Start, StopRow: r.Rows.End, Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	var want []testenv.Cell
	for _, c := range scan {
		if string(c.Family) == family {
			want = append(want, c)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("region %s family %s: files hold %d cells, a raw scan shows %d", r.EncodedName, family, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if !bytes.Equal(g.Row, w.Row) || !bytes.Equal(g.Family, w.Family) || !bytes.Equal(g.Qualifier, w.Qualifier) ||
			g.Timestamp != w.Timestamp || g.Type.String() != w.Type || !bytes.Equal(g.Value, w.Value) {
			t.Fatalf("region %s family %s cell %d: file has %s=%q, scan has %q/%s:%s/%d/%s=%q", r.EncodedName, family, i,
				g.String(), g.Value, w.Row, w.Family, w.Qualifier, w.Timestamp, w.Type, w.Value)
		}
	}
	return len(got)
}

// listStore lists the store files in a live family folder of the table.
func (s *cluster) listStore(t *testing.T, table, region, family string) []string {
	t.Helper()
	dir := path.Join(s.root, "data", "default", table, region, family)
	infos, err := s.hdfs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fi := range infos {
		if !fi.IsDir() && !strings.HasPrefix(fi.Name(), ".") {
			out = append(out, fi.Name())
		}
	}
	sort.Strings(out)
	return out
}

func names(fs []job.StoreFile) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	sort.Strings(out)
	return out
}

func TestPinThreeRegionsTwoFamilies(t *testing.T) {
	s := source(t)
	table := s.table(t, testenv.UniqueName(t, "pin3"), []testenv.Family{{Name: "f", MaxVersions: 3}, {Name: "g", Compression: "GZ", Encoding: "FAST_DIFF", Bloom: "ROWCOL", BlockSize: 1024}},
		[][]byte{[]byte("g"), []byte("p")})
	for flush := 0; flush < 3; flush++ {
		all := append(append(rows("a", flush*100, 100), rows("h", flush*100, 100)...), rows("q", flush*100, 100)...)
		s.put(t, table, "f", all, "q", 0)
		if flush != 1 {
			s.put(t, table, "g", all, fmt.Sprintf("c%d", flush), 0)
		}
		if err := s.c.Flush(t.Context(), table); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := s.pin(t, table)
	if p.Info.Table != table || p.Info.Type != snapshot.TypeFlush || p.Info.Version != 2 {
		t.Errorf("info = %+v", p.Info)
	}
	g := p.Schema.Family("g")
	if f := p.Schema.Family("f"); f == nil || f.MaxVersions != 3 || g == nil || g.Compression != "GZ" || g.DataBlockEncoding != "FAST_DIFF" || g.BloomFilter != "ROWCOL" || g.BlockSize != 1024 {
		t.Errorf("schema = %+v", p.Schema)
	}
	s.checkRegions(t, table, p)
	total := 0
	for _, r := range p.Regions {
		for _, fam := range []string{"f", "g"} {
			files := filesOf(p, r.EncodedName, fam)
			want := map[string]int{"f": 3, "g": 2}[fam]
			if len(files) != want {
				t.Errorf("region %s family %s: %d files, want %d (one per flush)", r.EncodedName, fam, len(files), want)
			}
			if live := s.listStore(t, table, r.EncodedName, fam); strings.Join(live, ",") != strings.Join(names(files), ",") {
				t.Errorf("region %s family %s: pinned %v, HDFS holds %v", r.EncodedName, fam, names(files), live)
			}
			for _, f := range files {
				in, _ := p.Input(f)
				if in.Path != path.Join(s.root, "data/default", table, r.EncodedName, fam, f.Name) || in.Reference != nil || in.Size != f.Size || !f.HasTime {
					t.Errorf("file %+v: input %+v", f, in)
				}
				// g is GZ-compressed, FAST_DIFF-encoded in 1 KiB blocks: its
				// index is read through the codec too.
				if len(f.Index) == 0 || !bytes.Equal(f.Index[0].Row, f.FirstRow) {
					t.Errorf("file %s: index %v does not start at %q", f.Name, f.Index, f.FirstRow)
				}
				if fam == "g" && len(f.Index) < 2 {
					t.Errorf("file %s of family g: %d index entries, want several blocks", f.Name, len(f.Index))
				}
			}
			total += s.checkCells(t, table, p, r, fam)
		}
	}
	if total != 900+600 {
		t.Errorf("%d cells in all files, want 1500", total)
	}
	// The plan takes what Pin returns.
	if _, err := job.Make(job.Spec{Table: table}, p.Regions, p.Files, job.PlanOptions{}); err != nil {
		t.Errorf("plan: %v", err)
	}
}

// splitTable makes a table of one family f whose 1,000 rows (r0000 to r0999)
// were flushed into one file of its one region, then split at r0500, and
// returns it with the parent region's encoded name and that file's name.
// System compactions would rewrite the daughters' references soon after the
// split; with compactions off for the table they stay.
func (s *cluster) splitTable(t *testing.T, prefix string) (table, parent, parentFile string) {
	t.Helper()
	table = testenv.UniqueName(t, prefix)
	err := s.client.CreateTable(t.Context(), hbase.TableDescriptor{Name: table, Families: []hbase.FamilyDescriptor{{Name: "f", BlockSize: 1024}},
		Attributes: map[string]string{"COMPACTION_ENABLED": "false"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.dropLater(t, table)
	s.put(t, table, "f", rows("r", 0, 1000), "q", 0)
	if err := s.c.Flush(t.Context(), table); err != nil {
		t.Fatal(err)
	}
	before, err := s.c.Regions(t.Context(), table)
	if err != nil || len(before) != 1 {
		t.Fatalf("regions before the split: %v, %v", before, err)
	}
	parent = before[0].EncodedName
	parentFiles := s.listStore(t, table, parent, "f")
	if len(parentFiles) != 1 {
		t.Fatalf("parent holds %v", parentFiles)
	}
	if err := s.c.Split(t.Context(), table, []byte("r0500")); err != nil {
		t.Fatal(err)
	}
	return table, parent, parentFiles[0]
}

func TestPinSplitReferences(t *testing.T) {
	s := source(t)
	table, parent, parentFile := s.splitTable(t, "split")
	p, name := s.pin(t, table)
	s.checkRegions(t, table, p)
	if len(p.Regions) != 2 {
		t.Fatalf("regions = %v", p.Regions)
	}
	// The manifest lists the parent too, offline and split, with its own
	// file; Read leaves it out.
	m, err := snapshot.ReadManifest(t.Context(), s.fs, s.root, name, snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	parents := 0
	for _, r := range m.Regions {
		if r.IsSplitParent() {
			parents++
			if r.EncodedName != parent {
				t.Errorf("split parent %s, want %s", r.EncodedName, parent)
			}
		}
	}
	if len(m.Regions) != 3 || parents != 1 {
		t.Errorf("manifest regions = %+v, want the parent and two daughters", m.Regions)
	}
	wantRows := [][2]string{{"r0000", "r0499"}, {"r0500", "r0999"}}
	wantRange := []hfile.Range{hfile.RangeBottom, hfile.RangeTop}
	for i, r := range p.Regions {
		files := filesOf(p, r.EncodedName, "f")
		if len(files) != 1 {
			t.Fatalf("region %s: files %v", r.EncodedName, names(files))
		}
		f := files[0]
		in, _ := p.Input(f)
		if f.Name != parentFile+"."+parent {
			t.Errorf("region %s: file %s, want a reference %s.%s", r.EncodedName, f.Name, parentFile, parent)
		}
		if live := s.listStore(t, table, r.EncodedName, "f"); len(live) != 1 || live[0] != f.Name {
			t.Errorf("region %s: HDFS holds %v", r.EncodedName, live)
		}
		if in.Reference == nil || in.Reference.Range != wantRange[i] || in.Path != path.Join(s.root, "data/default", table, parent, "f", parentFile) {
			t.Errorf("region %s: input %+v (reference %+v)", r.EncodedName, in, in.Reference)
		}
		// A worker that has only the file's name reads the reference from
		// the daughter's reference file, as HBase wrote it.
		byName, err := snapshot.Resolve(t.Context(), s.fs, s.root, table, snapshot.ManifestFile{Region: r.EncodedName, Family: "f", Name: f.Name})
		if err != nil || byName.Path != in.Path || byName.Reference == nil || byName.Reference.Range != in.Reference.Range ||
			!bytes.Equal(byName.Reference.SplitKey, in.Reference.SplitKey) {
			t.Errorf("region %s: resolved by name to %+v (%v), from the manifest to %+v", r.EncodedName, byName, err, in)
		}
		if string(f.FirstRow) != wantRows[i][0] || string(f.LastRow) != wantRows[i][1] {
			t.Errorf("region %s: rows [%s, %s], want %v", r.EncodedName, f.FirstRow, f.LastRow, wantRows[i])
		}
		idx := f.Index
		if wantRange[i] == hfile.RangeBottom {
			// The bottom half's index ends with the parent's first block past it.
			idx = idx[:len(idx)-1]
		}
		if len(idx) < 2 {
			t.Errorf("region %s: index %v", r.EncodedName, f.Index)
		}
		for _, e := range idx {
			if !r.Rows.Contains(e.Row) {
				t.Errorf("region %s: index row %q outside %v", r.EncodedName, e.Row, r.Rows)
			}
		}
		if n := s.checkCells(t, table, p, r, "f"); n != 500 {
			t.Errorf("region %s: %d cells, want 500", r.EncodedName, n)
		}
	}
	// Each daughter's planned bytes are about half the parent file, and
	// together about the whole of it.
	plan, err := job.Make(job.Spec{Table: table}, p.Regions, p.Files, job.PlanOptions{TaskBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	parentSize := p.Files[0].Size
	var sum int64
	for _, task := range plan.Tasks {
		if task.Bytes >= parentSize*3/4 {
			t.Errorf("task %s: %d bytes of a %d-byte parent file", task.ID, task.Bytes, parentSize)
		}
		sum += task.Bytes
	}
	if sum < parentSize/2 || sum > parentSize+4096 {
		t.Errorf("daughters' tasks: %d bytes, the parent file %d", sum, parentSize)
	}
	t.Logf("daughters' tasks estimate %d bytes of the parent file's %d", sum, parentSize)
}

func TestPinThenMajorCompactionMovesToArchive(t *testing.T) {
	s := source(t)
	table := s.tableWith(t, testenv.UniqueName(t, "arch"), []testenv.Family{{Name: "f"}}, [][]byte{[]byte("m")}, testenv.TableOptions{Compaction: true})
	for flush := 0; flush < 2; flush++ {
		s.put(t, table, "f", append(rows("a", flush*50, 50), rows("x", flush*50, 50)...), "q", 0)
		if err := s.c.Flush(t.Context(), table); err != nil {
			t.Fatal(err)
		}
	}
	p, name := s.pin(t, table)
	if err := s.c.Compact(t.Context(), table, true); err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Regions {
		live := s.listStore(t, table, r.EncodedName, "f")
		pinned := names(filesOf(p, r.EncodedName, "f"))
		if len(live) != 1 || len(pinned) != 2 || live[0] == pinned[0] || live[0] == pinned[1] {
			t.Fatalf("region %s after major compaction holds %v; the snapshot has %v", r.EncodedName, live, pinned)
		}
	}
	again, err := snapshot.Read(t.Context(), s.fs, s.root, name, snapshot.Options{Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Files) != 4 {
		t.Fatalf("files = %v", names(again.Files))
	}
	for _, f := range again.Files {
		in, _ := again.Input(f)
		if want := path.Join(s.root, "archive/data/default", table, f.Region, "f", f.Name); in.Path != want {
			t.Errorf("file %s: resolved to %s, want %s", f.Name, in.Path, want)
		}
	}
	for _, r := range again.Regions {
		if n := s.checkCellsOf(t, again, r, "f"); n != 100 {
			t.Errorf("region %s: %d cells, want 100", r.EncodedName, n)
		}
	}
}

// checkCellsOf counts the cells of a region's pinned files of family, checking
// each file's facts against its cells (for snapshots whose table changed since).
func (s *cluster) checkCellsOf(t *testing.T, p *snapshot.Pinned, r job.Region, family string) int {
	n := 0
	for _, f := range filesOf(p, r.EncodedName, family) {
		cells := s.readCells(t, p, f)
		if len(cells) == 0 || !bytes.Equal(cells[0].Row, f.FirstRow) || !bytes.Equal(cells[len(cells)-1].Row, f.LastRow) {
			t.Errorf("file %s: %d cells do not match facts [%q, %q]", f.Name, len(cells), f.FirstRow, f.LastRow)
		}
		n += len(cells)
	}
	return n
}

var nonNamespace = regexp.MustCompile(`[^A-Za-z0-9_]`)

func TestPinClonedTableResolvesLinks(t *testing.T) {
	s := source(t)
	ns := nonNamespace.ReplaceAllString(testenv.UniqueName(t, "ns"), "_")
	origin := s.tableWith(t, ns+":"+testenv.UniqueName(t, "origin"), []testenv.Family{{Name: "f"}}, [][]byte{[]byte("k")}, testenv.TableOptions{Compaction: true})
	s.put(t, origin, "f", append(rows("c", 0, 80), rows("t", 0, 80)...), "q", 0)
	if err := s.c.Flush(t.Context(), origin); err != nil {
		t.Fatal(err)
	}
	originSnap := testenv.UniqueName(t, "osnap")
	if err := s.c.CreateSnapshot(t.Context(), origin, originSnap); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.c.DeleteSnapshot(context.Background(), originSnap) })
	clone := testenv.UniqueName(t, "clone")
	if err := s.c.CloneSnapshot(t.Context(), originSnap, clone); err != nil {
		t.Fatal(err)
	}
	s.dropLater(t, clone)
	originRegions, err := s.c.Regions(t.Context(), origin)
	if err != nil {
		t.Fatal(err)
	}

	p, name := s.pin(t, clone)
	s.checkRegions(t, clone, p)
	if len(p.Files) != 2 {
		t.Fatalf("files = %v", names(p.Files))
	}
	linkRE := regexp.MustCompile(`^` + regexp.QuoteMeta(ns) + `=` + regexp.QuoteMeta(strings.TrimPrefix(origin, ns+":")) + `=([0-9a-f]+)-([0-9a-f]+)$`)
	for i, f := range p.Files {
		m := linkRE.FindStringSubmatch(f.Name)
		if m == nil || m[1] != originRegions[i].EncodedName {
			t.Fatalf("file %q of region %s is not a link into %s region %s", f.Name, f.Region, origin, originRegions[i].EncodedName)
		}
		in, _ := p.Input(f)
		if want := path.Join(s.root, "data", ns, strings.TrimPrefix(origin, ns+":"), m[1], "f", m[2]); in.Path != want {
			t.Errorf("link %s: resolved to %s, want %s", f.Name, in.Path, want)
		}
	}
	for _, r := range p.Regions {
		if n := s.checkCells(t, clone, p, r, "f"); n != 80 {
			t.Errorf("region %s: %d cells, want 80", r.EncodedName, n)
		}
	}
	// Once the origin is compacted, its files live on in the archive (kept
	// by the links' back references) and the links resolve there.
	s.put(t, origin, "f", rows("c", 500, 5), "q", 0)
	if err := s.c.Flush(t.Context(), origin); err != nil {
		t.Fatal(err)
	}
	if err := s.c.Compact(t.Context(), origin, true); err != nil {
		t.Fatal(err)
	}
	again, err := snapshot.Read(t.Context(), s.fs, s.root, name, snapshot.Options{Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range again.Files {
		in, _ := again.Input(f)
		if !strings.HasPrefix(in.Path, path.Join(s.root, "archive/data", ns)+"/") {
			t.Errorf("link %s after the origin's compaction: resolved to %s, want the archive", f.Name, in.Path)
		}
	}
}

func TestPinTimeRanges(t *testing.T) {
	s := source(t)
	// In a namespace of its own, so that Pin meets a namespaced table.
	ns := nonNamespace.ReplaceAllString(testenv.UniqueName(t, "tns"), "_")
	table := s.table(t, ns+":"+testenv.UniqueName(t, "time"), []testenv.Family{{Name: "f", MaxVersions: 5}}, nil)
	// Two flushes of cells with explicit timestamps: [1000, 1099] and
	// [5000, 5099], the same rows, so the region's two files overlap in
	// rows but not in time.
	for i, base := range []int64{1000, 5000} {
		var cells []testenv.Cell
		for j, r := range rows("k", 0, 100) {
			cells = append(cells, testenv.Cell{Row: []byte(r), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: base + int64(j), Type: "Put", Value: []byte(fmt.Sprint(i))})
		}
		if err := s.c.Mutate(t.Context(), table, cells); err != nil {
			t.Fatal(err)
		}
		if err := s.c.Flush(t.Context(), table); err != nil {
			t.Fatal(err)
		}
	}
	p, name := s.pin(t, table)
	if len(p.Files) != 2 {
		t.Fatalf("files = %v", names(p.Files))
	}
	got := [][2]int64{}
	for _, f := range p.Files {
		if !f.HasTime {
			t.Fatalf("file %s has no TIMERANGE", f.Name)
		}
		got = append(got, [2]int64{f.MinTime, f.MaxTime})
	}
	for _, f := range p.Files {
		in, _ := p.Input(f)
		if want := path.Join(s.root, "data", ns, strings.TrimPrefix(table, ns+":"), f.Region, "f", f.Name); in.Path != want {
			t.Errorf("file %s: resolved to %s, want %s", f.Name, in.Path, want)
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i][0] < got[j][0] })
	if got[0] != [2]int64{1000, 1099} || got[1] != [2]int64{5000, 5099} {
		t.Errorf("TIMERANGEs = %v, want [1000 1099] and [5000 5099]", got)
	}
	if n := s.checkCells(t, table, p, p.Regions[0], "f"); n != 200 {
		t.Errorf("%d cells, want 200", n)
	}
	// Planning an incremental copy of [5000, 6000) prunes the older file
	// by its TIMERANGE.
	plan, err := job.Make(job.Spec{Table: table, Time: job.TimeRange{Min: 5000, Max: 6000}}, p.Regions, p.Files, job.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Pruned) != 1 || plan.Pruned[0].Reason != job.PrunedByTime || plan.Pruned[0].File.MinTime != 1000 {
		t.Errorf("pruned = %+v", plan.Pruned)
	}

	// Pin again under the same name (a master restarted mid-job) reads
	// the snapshot taken before instead of taking a new one; another
	// table under that name is refused.
	s.put(t, table, "f", rows("later", 0, 10), "q", 0)
	again, err := snapshot.Pin(t.Context(), s.client, s.fs, s.root, table, name, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Info.Created.Equal(p.Info.Created) || strings.Join(names(again.Files), ",") != strings.Join(names(p.Files), ",") {
		t.Errorf("pinned again: %+v with %v, first %+v with %v", again.Info, names(again.Files), p.Info, names(p.Files))
	}
	other := s.table(t, testenv.UniqueName(t, "other"), []testenv.Family{{Name: "f"}}, nil)
	if _, err := snapshot.Pin(t.Context(), s.client, s.fs, s.root, other, name, snapshot.Options{}); err == nil || !strings.Contains(err.Error(), "is of table "+table) {
		t.Errorf("pin of %s under the name of a snapshot of %s: %v", other, table, err)
	}

	// Release deletes the snapshot: its manifest is gone.
	if err := snapshot.Release(t.Context(), s.client, name); err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.Read(t.Context(), s.fs, s.root, name, snapshot.Options{}); !errors.Is(err, snapshot.ErrNotFound) {
		t.Errorf("read after release: %v, want ErrNotFound", err)
	}
}

func TestReadMissingSnapshot(t *testing.T) {
	s := source(t)
	_, err := snapshot.Read(t.Context(), s.fs, s.root, testenv.UniqueName(t, "nosuch"), snapshot.Options{})
	if !errors.Is(err, snapshot.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}
