package snapshot

import (
	"bytes"
	"context"
	"errors"
	"path"
	"strings"
	"testing"

	"rangecopy/fsys"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/snapshot/pb"
)

func TestParseFileName(t *testing.T) {
	tests := []struct {
		name   string
		hasRef bool
		want   FileName
		bad    bool
	}{
		{name: "0a1b2c3d4e5f", want: FileName{Kind: KindHFile, HFile: "0a1b2c3d4e5f"}},
		{name: "abc_SeqId_42_", want: FileName{Kind: KindHFile, HFile: "abc_SeqId_42_"}},
		{name: "abc_del", want: FileName{Kind: KindHFile, HFile: "abc_del"}},
		{name: "t1=0123abcd-feed", want: FileName{Kind: KindLink, HFile: "feed",
			Link: &hfile.Link{Namespace: "default", Table: "t1", Region: "0123abcd", HFile: "feed"}}},
		{name: "ns_1=t.a-b=0123abcd-feed_SeqId_7_", want: FileName{Kind: KindLink, HFile: "feed_SeqId_7_",
			Link: &hfile.Link{Namespace: "ns_1", Table: "t.a-b", Region: "0123abcd", HFile: "feed_SeqId_7_"}}},
		{name: "feed.0123abcd", hasRef: true, want: FileName{Kind: KindReference, HFile: "feed", Parent: "0123abcd"}},
		// A reference name without a Reference in the manifest: the
		// reference file is read instead.
		{name: "feed.0123abcd", want: FileName{Kind: KindReference, HFile: "feed", Parent: "0123abcd"}},
		{name: "t1=0123abcd-feed.99aa", hasRef: true, want: FileName{Kind: KindReference, HFile: "feed", Parent: "99aa",
			Link: &hfile.Link{Namespace: "default", Table: "t1", Region: "0123abcd", HFile: "feed"}}},
		{name: "ns=t1=0123abcd-feed.99aa", hasRef: true, want: FileName{Kind: KindReference, HFile: "feed", Parent: "99aa",
			Link: &hfile.Link{Namespace: "ns", Table: "t1", Region: "0123abcd", HFile: "feed"}}},
		{name: "", bad: true},
		{name: ".", bad: true},
		{name: "..", bad: true},
		{name: "a/b", bad: true},
		{name: "../0123", bad: true},
		{name: "xyz", bad: true},                         // not hex
		{name: "ABCD", bad: true},                        // upper-case hex is not HBase's
		{name: "feed.0123ABCD", hasRef: true, bad: true}, // parent not an encoded name
		{name: "feed.par/ent", hasRef: true, bad: true},
		{name: "feed", hasRef: true, bad: true},         // reference on a plain name
		{name: "t1=0123-feed", hasRef: true, bad: true}, // reference on a link name
		{name: "=0123-feed", bad: true},                 // link without a table
		{name: "t1=01x3-feed", bad: true},               // link region not hex
		{name: "t1=0123-", bad: true},                   // link without an hfile
		{name: ".t1=0123-feed", bad: true},              // table starting with '.'
		{name: "feed.", hasRef: true, bad: true},        // reference without a parent
		{name: ".0123", hasRef: true, bad: true},        // reference without a file
	}
	for _, tc := range tests {
		got, err := ParseFileName(tc.name, tc.hasRef)
		if tc.bad {
			if err == nil || !errors.Is(err, ErrCorrupt) {
				t.Errorf("ParseFileName(%q, %v) = %+v, %v; want ErrCorrupt", tc.name, tc.hasRef, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseFileName(%q, %v): %v", tc.name, tc.hasRef, err)
			continue
		}
		if got.Kind != tc.want.Kind || got.HFile != tc.want.HFile || got.Parent != tc.want.Parent ||
			(got.Link == nil) != (tc.want.Link == nil) || (got.Link != nil && *got.Link != *tc.want.Link) {
			t.Errorf("ParseFileName(%q, %v) = %+v (link %+v), want %+v (link %+v)", tc.name, tc.hasRef, got, got.Link, tc.want, tc.want.Link)
		}
	}
}

func TestResolveFoundNowhere(t *testing.T) {
	dir := t.TempDir()
	_, err := Resolve(context.Background(), fsys.Local{Root: dir}, testRoot, "ns:t", ManifestFile{Region: "0123", Family: "f", Name: "feed"})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	for _, p := range []string{"/hbase/data/ns/t/0123/f/feed", "/hbase/archive/data/ns/t/0123/f/feed", "/hbase/.tmp/data/ns/t/0123/f/feed"} {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("err = %v, want it to name %s", err, p)
		}
	}
	// A link names the linked table's places.
	_, err = Resolve(context.Background(), fsys.Local{Root: dir}, testRoot, "t", ManifestFile{Region: "0123", Family: "f", Name: "o=src=99aa-feed"})
	for _, p := range []string{"/hbase/data/o/src/99aa/f/feed", "/hbase/archive/data/o/src/99aa/f/feed", "/hbase/.tmp/data/o/src/99aa/f/feed"} {
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("err = %v, want it to name %s", err, p)
		}
	}
}

func TestResolveOrder(t *testing.T) {
	ctx := context.Background()
	ref := hfile.NewSplitReference([]byte("m"), hfile.RangeBottom)
	tests := []struct {
		name   string
		files  []string // paths that exist
		mf     ManifestFile
		want   string
		hasRef bool
	}{
		{"live first", []string{"/hbase/data/default/t/r1/f/ab", "/hbase/archive/data/default/t/r1/f/ab"},
			ManifestFile{Region: "r1", Family: "f", Name: "ab"}, "/hbase/data/default/t/r1/f/ab", false},
		{"archive", []string{"/hbase/archive/data/default/t/r1/f/ab", "/hbase/.tmp/data/default/t/r1/f/ab"},
			ManifestFile{Region: "r1", Family: "f", Name: "ab"}, "/hbase/archive/data/default/t/r1/f/ab", false},
		{".tmp", []string{"/hbase/.tmp/data/default/t/r1/f/ab"},
			ManifestFile{Region: "r1", Family: "f", Name: "ab"}, "/hbase/.tmp/data/default/t/r1/f/ab", false},
		{"link to another namespace", []string{"/hbase/archive/data/o/src/99aa/f/cd"},
			ManifestFile{Region: "r1", Family: "f", Name: "o=src=99aa-cd"}, "/hbase/archive/data/o/src/99aa/f/cd", false},
		{"reference to the parent", []string{"/hbase/data/default/t/aa01/f/cd"},
			ManifestFile{Region: "r1", Family: "f", Name: "cd.aa01", Reference: ref}, "/hbase/data/default/t/aa01/f/cd", true},
		{"reference to a link", []string{"/hbase/data/default/src/bb02/f/cd"},
			ManifestFile{Region: "r1", Family: "f", Name: "src=bb02-cd.aa01", Reference: ref}, "/hbase/data/default/src/bb02/f/cd", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, p := range tc.files {
				put(t, dir, p, []byte("12345"))
			}
			in, err := Resolve(ctx, fsys.Local{Root: dir}, testRoot, "t", tc.mf)
			if err != nil {
				t.Fatal(err)
			}
			if in.Path != tc.want || in.Size != 5 || (in.Reference != nil) != tc.hasRef {
				t.Errorf("Resolve = %+v, want %s", in, tc.want)
			}
		})
	}
}

func TestResolveReadsReferenceFile(t *testing.T) {
	dir := t.TempDir()
	ref := hfile.NewSplitReference([]byte("m"), hfile.RangeTop)
	put(t, dir, "/hbase/data/default/t/r1/f/cd.aa01", ref.Marshal())
	put(t, dir, "/hbase/archive/data/default/t/aa01/f/cd", []byte("x"))
	in, err := Resolve(context.Background(), fsys.Local{Root: dir}, testRoot, "t", ManifestFile{Region: "r1", Family: "f", Name: "cd.aa01"})
	if err != nil {
		t.Fatal(err)
	}
	if in.Path != "/hbase/archive/data/default/t/aa01/f/cd" || in.Reference == nil || in.Reference.Range != hfile.RangeTop || !bytes.Equal(in.Reference.SplitKey, ref.SplitKey) {
		t.Errorf("Resolve = %+v", in)
	}
}

// TestReadLocal builds a snapshot of a table mid-split on local disk: a split
// parent (offline, split) whose daughters hold references, one to a parent
// file that was archived and one to a link; and a region whose file is a link
// to another table's archived file.
func TestReadLocal(t *testing.T) {
	dir := t.TempDir()
	m := mTable{ns: "ns", qual: "t", families: []*pb.ColumnFamilySchema{family("f")}}
	parent := mRegion{start: "", end: "r", id: 10, offline: true, split: true}
	bottom := mRegion{start: "", end: "k", id: 11}
	top := mRegion{start: "k", end: "r", id: 11}
	last := mRegion{start: "r", end: "", id: 10}
	pName, bName, tName, lName := m.regionName(parent), m.regionName(bottom), m.regionName(top), m.regionName(last)

	// The parent's files: one archived (compacted away after the
	// snapshot), one a link into table o:src.
	parentRows := append(rowsN("c", 0, 300), rowsN("m", 0, 300)...)
	parentFile := hfileBytes(t, "f", parentRows, 100, 512)
	put(t, dir, "/hbase/archive/data/ns/t/"+pName+"/f/aa11", parentFile)
	srcRows := append(rowsN("d", 0, 50), rowsN("p", 0, 50)...)
	put(t, dir, "/hbase/data/o/src/5e5e/f/bb22", hfileBytes(t, "f", srcRows, 200, 512))
	lastRows := rowsN("s", 0, 1000)
	put(t, dir, "/hbase/archive/data/o/src/6f6f/f/cc33", hfileBytes(t, "f", lastRows, 300, 1024))

	split := hfile.NewSplitReference([]byte("k"), hfile.RangeBottom)
	splitTop := hfile.NewSplitReference([]byte("k"), hfile.RangeTop)
	parent.files = map[string][]mFile{"f": {{name: "aa11"}, {name: "o=src=5e5e-bb22"}}}
	bottom.files = map[string][]mFile{"f": {{name: "aa11." + pName, ref: split}, {name: "o=src=5e5e-bb22." + pName, ref: split}}}
	top.files = map[string][]mFile{"f": {{name: "aa11." + pName, ref: splitTop}, {name: "o=src=5e5e-bb22." + pName, ref: splitTop}}}
	last.files = map[string][]mFile{"f": {{name: "o=src=6f6f-cc33"}}}
	m.regions = []mRegion{last, top, parent, bottom}
	m.write(t, dir, "snap")

	p, err := Read(context.Background(), fsys.Local{Root: dir}, testRoot, "snap", Options{Parallelism: 2, MaxIndexEntries: 10})
	if err != nil {
		t.Fatal(err)
	}
	wantRegions := []job.Region{
		{EncodedName: bName, Rows: job.KeyRange{Start: []byte{}, End: []byte("k")}},
		{EncodedName: tName, Rows: job.KeyRange{Start: []byte("k"), End: []byte("r")}},
		{EncodedName: lName, Rows: job.KeyRange{Start: []byte("r"), End: []byte{}}},
	}
	if len(p.Regions) != len(wantRegions) {
		t.Fatalf("regions = %+v", p.Regions)
	}
	for i, r := range p.Regions {
		w := wantRegions[i]
		if r.EncodedName != w.EncodedName || !bytes.Equal(r.Rows.Start, w.Rows.Start) || !bytes.Equal(r.Rows.End, w.Rows.End) {
			t.Errorf("region %d = %v %v, want %v %v", i, r.EncodedName, r.Rows, w.EncodedName, w.Rows)
		}
	}
	type want struct {
		region, name, path, first, last string
		min, max                        int64
		ref                             *hfile.Range
	}
	rb, rt := hfile.RangeBottom, hfile.RangeTop
	wants := []want{
		{bName, "aa11." + pName, "/hbase/archive/data/ns/t/" + pName + "/f/aa11", "c00000", "c00299", 100, 100, &rb},
		{bName, "o=src=5e5e-bb22." + pName, "/hbase/data/o/src/5e5e/f/bb22", "d00000", "d00049", 200, 200, &rb},
		{tName, "aa11." + pName, "/hbase/archive/data/ns/t/" + pName + "/f/aa11", "m00000", "m00299", 100, 100, &rt},
		{tName, "o=src=5e5e-bb22." + pName, "/hbase/data/o/src/5e5e/f/bb22", "p00000", "p00049", 200, 200, &rt},
		{lName, "o=src=6f6f-cc33", "/hbase/archive/data/o/src/6f6f/f/cc33", "s00000", "s00999", 300, 300, nil},
	}
	if len(p.Files) != len(wants) {
		t.Fatalf("files = %+v", p.Files)
	}
	for i, f := range p.Files {
		w := wants[i]
		in, ok := p.Input(f)
		if f.Region != w.region || f.Family != "f" || f.Name != w.name || !ok || in.Path != w.path || in.Size != f.Size ||
			string(f.FirstRow) != w.first || string(f.LastRow) != w.last || !f.HasTime || f.MinTime != w.min || f.MaxTime != w.max {
			t.Errorf("file %d = %+v (input %+v), want %+v", i, f, in, w)
		}
		if (in.Reference == nil) != (w.ref == nil) || (w.ref != nil && in.Reference.Range != *w.ref) {
			t.Errorf("file %d: reference %+v, want range %v", i, in.Reference, w.ref)
		}
		if len(f.Index) < 2 || string(f.Index[0].Row) != w.first {
			t.Errorf("file %d: index %d entries, first %q", i, len(f.Index), f.Index[0].Row)
		}
		idx := f.Index
		if w.ref != nil && *w.ref == hfile.RangeBottom {
			// A bottom half's index ends with the parent's first block past it.
			end := idx[len(idx)-1]
			idx = idx[:len(idx)-1]
			if bytes.Compare(end.Row, []byte("k")) < 0 || end.Offset <= idx[len(idx)-1].Offset {
				t.Errorf("file %d: end marker %q at %d", i, end.Row, end.Offset)
			}
		}
		if len(idx) > 10 {
			t.Errorf("file %d: %d index entries, want at most 10", i, len(idx))
		}
		for j, e := range idx {
			if bytes.Compare(e.Row, f.FirstRow) < 0 || bytes.Compare(e.Row, f.LastRow) > 0 || (j > 0 && e.Offset < f.Index[j-1].Offset) {
				t.Errorf("file %d: index entry %d (%q at %d) outside [%q, %q] or out of order", i, j, e.Row, e.Offset, f.FirstRow, f.LastRow)
			}
		}
	}
	// The plan accepts what Read returns.
	plan, err := job.Make(job.Spec{Table: "ns:t"}, p.Regions, p.Files, job.PlanOptions{TaskBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Tasks) < len(p.Regions) {
		t.Errorf("plan has %d tasks for %d regions", len(plan.Tasks), len(p.Regions))
	}
	// The daughters' estimates add up to the parent files' bytes (give or
	// take the blocks around the split), not to twice that.
	whole, err := job.Make(job.Spec{Table: "ns:t"}, p.Regions, p.Files, job.PlanOptions{TaskBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	var daughters int64
	for _, task := range whole.Tasks {
		if task.Region == bName || task.Region == tName {
			daughters += task.Bytes
		}
	}
	parentBytes := int64(len(parentFile) + len(hfileBytes(t, "f", srcRows, 200, 512)))
	if daughters > parentBytes+4*512 || daughters < parentBytes/2 {
		t.Errorf("daughters' tasks estimate %d bytes, the parent's files hold %d", daughters, parentBytes)
	}
	t.Logf("daughters estimate %d bytes of the parent's %d", daughters, parentBytes)

	// The same snapshot with the archived parent file gone fails and
	// names the places looked.
	dir2 := t.TempDir()
	m.write(t, dir2, "snap")
	put(t, dir2, "/hbase/data/o/src/5e5e/f/bb22", hfileBytes(t, "f", srcRows, 200, 512))
	put(t, dir2, "/hbase/archive/data/o/src/6f6f/f/cc33", hfileBytes(t, "f", lastRows, 300, 1024))
	_, err = Read(context.Background(), fsys.Local{Root: dir2}, testRoot, "snap", Options{})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), path.Join("/hbase/archive/data/ns/t", pName, "f")) {
		t.Errorf("err = %v, want ErrNotFound naming the parent's archive folder", err)
	}
}

func TestCheckCoverage(t *testing.T) {
	r := func(start, end string) RegionInfo {
		return RegionInfo{EncodedName: start + "-" + end, StartKey: []byte(start), EndKey: []byte(end)}
	}
	tests := []struct {
		regions []RegionInfo
		bad     string
	}{
		{[]RegionInfo{r("", "")}, ""},
		{[]RegionInfo{r("", "b"), r("b", "d"), r("d", "")}, ""},
		{nil, "no regions"},
		{[]RegionInfo{r("a", "")}, "not at the table's start"},
		{[]RegionInfo{r("", "b"), r("c", "")}, "ends at b but the next region c- starts at c"},
		{[]RegionInfo{r("", "c"), r("b", "")}, "ends at c"},
		{[]RegionInfo{r("", "b"), r("b", "c")}, "not at the table's end"},
		{[]RegionInfo{r("", ""), r("", "")}, "ends at  but"},
	}
	for _, tc := range tests {
		err := checkCoverage(tc.regions)
		if (err == nil) != (tc.bad == "") || (err != nil && (!errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.bad))) {
			t.Errorf("checkCoverage(%v) = %v, want %q", tc.regions, err, tc.bad)
		}
	}
}

func TestReadRefusesAGap(t *testing.T) {
	dir := t.TempDir()
	m := simpleTable()
	m.regions = m.regions[:1] // [, m) only
	m.write(t, dir, "s")
	_, err := Read(context.Background(), fsys.Local{Root: dir}, testRoot, "s", Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "not at the table's end") {
		t.Errorf("err = %v", err)
	}
}

func TestClipIndex(t *testing.T) {
	e := func(rows ...string) []job.IndexEntry {
		var out []job.IndexEntry
		for i, r := range rows {
			out = append(out, job.IndexEntry{Row: []byte(r), Offset: int64(i * 100)})
		}
		return out
	}
	idx := e("a", "c", "e", "e", "g")
	tests := []struct {
		first, last string
		want        []job.IndexEntry
	}{
		{"a", "h", idx},
		{"b", "f", []job.IndexEntry{{Row: []byte("b"), Offset: 0}, {Row: []byte("c"), Offset: 100}, {Row: []byte("e"), Offset: 200}, {Row: []byte("e"), Offset: 300}}},
		{"e", "e", []job.IndexEntry{{Row: []byte("e"), Offset: 100}, {Row: []byte("e"), Offset: 200}, {Row: []byte("e"), Offset: 300}}},
		{"h", "z", []job.IndexEntry{{Row: []byte("h"), Offset: 400}}},
		{"0", "b", []job.IndexEntry{{Row: []byte("0"), Offset: 0}}},
	}
	for _, tc := range tests {
		got := clipIndex(idx, []byte(tc.first), []byte(tc.last))
		if len(got) != len(tc.want) {
			t.Errorf("clip [%s, %s] = %v, want %v", tc.first, tc.last, got, tc.want)
			continue
		}
		for i := range got {
			if !bytes.Equal(got[i].Row, tc.want[i].Row) || got[i].Offset != tc.want[i].Offset {
				t.Errorf("clip [%s, %s] = %v, want %v", tc.first, tc.last, got, tc.want)
				break
			}
		}
	}
	if clipIndex(nil, []byte("a"), []byte("b")) != nil {
		t.Error("clip of no index is not nil")
	}
}

func TestSampleIndex(t *testing.T) {
	var idx []job.IndexEntry
	for i := 0; i < 1000; i++ {
		idx = append(idx, job.IndexEntry{Offset: int64(i)})
	}
	got := sampleIndex(idx, 256)
	if len(got) != 256 || got[0].Offset != 0 || got[255].Offset < 990 {
		t.Errorf("sample: %d entries, first %d, last %d", len(got), got[0].Offset, got[len(got)-1].Offset)
	}
	if len(sampleIndex(idx[:10], 256)) != 10 {
		t.Error("a short index was sampled")
	}
}
