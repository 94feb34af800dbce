package verify

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"sync"
	"testing"

	"rangecopy/fsys"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/snapshot"
)

// sumFS checksums files by a table of sums; a file not in it fails as
// missing. It answers nothing else.
type sumFS struct {
	fsys.Reader
	sums  map[string]fsys.Checksum
	mu    sync.Mutex
	asked []string
}

func (s *sumFS) FileChecksum(_ context.Context, p string) (fsys.Checksum, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, p)
	c, ok := s.sums[p]
	if !ok {
		return fsys.Checksum{}, &fs.PathError{Op: "checksum", Path: p, Err: fs.ErrNotExist}
	}
	return c, nil
}

// sf is a store file of region r, family f, times [min, max] (no times
// when min > max), rows [first, last].
func sf(r, f, name string, size, min, max int64, first, last string) job.StoreFile {
	s := job.StoreFile{Region: r, Family: f, Name: name, Size: size, FirstRow: []byte(first), LastRow: []byte(last)}
	if min <= max {
		s.HasTime, s.MinTime, s.MaxTime = true, min, max
	}
	return s
}

// testSide is a side of regions cut at cuts, holding files, checksummed
// by sums (path = region/family/name).
func testSide(name string, cuts []string, files []job.StoreFile, sums map[string]fsys.Checksum) *side {
	p := &snapshot.Pinned{Files: files, Inputs: map[snapshot.FileKey]snapshot.Input{}}
	start := ""
	for i := 0; i <= len(cuts); i++ {
		end := ""
		if i < len(cuts) {
			end = cuts[i]
		}
		p.Regions = append(p.Regions, job.Region{EncodedName: name + "r" + string(rune('0'+i)), Rows: kr(start, end)})
		start = end
	}
	for _, f := range files {
		p.Inputs[snapshot.FileKey{Region: f.Region, Family: f.Family, Name: f.Name}] = snapshot.Input{Path: f.Region + "/" + f.Family + "/" + f.Name, Size: f.Size}
	}
	return &side{name: name, pinned: p, fs: &sumFS{sums: sums}, rules: map[string]Rules{"a": {MaxVersions: 1}, "b": {MaxVersions: 1}}}
}

func sum(b byte) fsys.Checksum { return fsys.Checksum{BlockSize: 128 << 20, Sum: []byte{b, b, b}} }

func TestTimesApart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []job.StoreFile
		want  bool
	}{
		{"none", nil, true},
		{"one without times", []job.StoreFile{sf("r", "a", "1", 1, 1, 0, "", "")}, true},
		{"apart", []job.StoreFile{sf("r", "a", "2", 1, 20, 30, "", ""), sf("r", "a", "1", 1, 1, 19, "", "")}, true},
		{"touching at one millisecond", []job.StoreFile{sf("r", "a", "1", 1, 1, 20, "", ""), sf("r", "a", "2", 1, 20, 30, "", "")}, false},
		{"inside", []job.StoreFile{sf("r", "a", "1", 1, 1, 100, "", ""), sf("r", "a", "2", 1, 20, 30, "", "")}, false},
		{"one without times", []job.StoreFile{sf("r", "a", "1", 1, 1, 10, "", ""), sf("r", "a", "2", 1, 1, 0, "", "")}, false},
	} {
		if got := timesApart(tc.files); got != tc.want {
			t.Errorf("%s: timesApart = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSameFiles(t *testing.T) {
	src := []batchFile{{"a", "s/1", 10}, {"a", "s/2", 20}, {"b", "s/3", 10}}
	srcSums := map[string]fsys.Checksum{"s/1": sum(1), "s/2": sum(2), "s/3": sum(3)}
	dst := []batchFile{{"b", "t/9", 10}, {"a", "t/8", 20}, {"a", "t/7", 10}} // other names, other order
	dstSums := map[string]fsys.Checksum{"t/7": sum(1), "t/8": sum(2), "t/9": sum(3)}
	if !sameShape(src, dst) || !sameFiles(src, dst, srcSums, dstSums) {
		t.Fatal("the same files under other names are not the same")
	}
	if !sameFiles(nil, nil, nil, nil) {
		t.Error("no files on either side: not the same")
	}
	for name, tc := range map[string]struct {
		dst  []batchFile
		sums map[string]fsys.Checksum
	}{
		"one file fewer":    {dst[:2], dstSums},
		"other sum":         {dst, map[string]fsys.Checksum{"t/7": sum(1), "t/8": sum(4), "t/9": sum(3)}},
		"other block size":  {dst, map[string]fsys.Checksum{"t/7": sum(1), "t/8": {BlockSize: 64 << 20, Sum: sum(2).Sum}, "t/9": sum(3)}},
		"no checksum":       {dst, map[string]fsys.Checksum{"t/7": sum(1), "t/9": sum(3)}},
		"empty checksum":    {dst, map[string]fsys.Checksum{"t/7": sum(1), "t/8": {BlockSize: 1}, "t/9": sum(3)}},
		"in another family": {[]batchFile{{"b", "t/9", 10}, {"b", "t/8", 20}, {"a", "t/7", 10}}, dstSums},
	} {
		if sameFiles(src, tc.dst, srcSums, tc.sums) {
			t.Errorf("%s: the same", name)
		}
	}
	if sameShape(src, []batchFile{{"a", "t/7", 10}, {"a", "t/8", 21}, {"b", "t/9", 10}}) {
		t.Error("another size: same shape")
	}
}

func TestSplitProven(t *testing.T) {
	units := []unit{{side: 0, lo: 0, hi: 4}, {side: 1, lo: 0, hi: 2}, {side: 1, lo: 2, hi: 4}}
	same := func(a, b unit) bool { return a.side == b.side && a.lo == b.lo && a.hi == b.hi && a.proven == b.proven }
	if got := splitProven(units, nil); !slices.EqualFunc(got, units, same) {
		t.Errorf("nil proven: %+v", got)
	}
	got := splitProven(units, []bool{true, true, false, true})
	want := []unit{{side: 0, lo: 0, hi: 2, proven: true}, {side: 0, lo: 2, hi: 3}, {side: 0, lo: 3, hi: 4, proven: true},
		{side: 1, lo: 0, hi: 2, proven: true}, {side: 1, lo: 2, hi: 3}, {side: 1, lo: 3, hi: 4, proven: true}}
	if !slices.EqualFunc(got, want, same) {
		t.Errorf("splitProven:\n got %+v\nwant %+v", got, want)
	}
	// Proven runs of a side that touch across regions join; the target's
	// are not joined with the source's.
	got = splitProven(units, []bool{true, true, true, true})
	want = []unit{{side: 0, lo: 0, hi: 4, proven: true}, {side: 1, lo: 0, hi: 4, proven: true}}
	if !slices.EqualFunc(got, want, same) {
		t.Errorf("splitProven, all proven:\n got %+v\nwant %+v", got, want)
	}
}

func TestProvenBatches(t *testing.T) {
	batches := []job.KeyRange{kr("", "f"), kr("f", "m"), kr("m", "t"), kr("t", "")}
	// The source: regions [,m) [m,). The target: one region, its files
	// copies of the source's (the same bytes under other names), except:
	// batch [f,m) has a file the target changed, batch [m,t) a family
	// whose two files' times overlap, and a reference on the source side
	// of [t,).
	srcFiles := []job.StoreFile{
		sf("sr0", "a", "1", 100, 1, 10, "a", "e"),
		sf("sr0", "a", "2", 200, 11, 20, "b", "d"),
		sf("sr0", "b", "3", 300, 1, 20, "g", "k"),
		sf("sr1", "a", "4", 400, 1, 10, "m", "r"),
		sf("sr1", "a", "5", 500, 5, 15, "n", "p"),
		sf("sr1", "b", "6", 600, 1, 10, "u", "z"),
	}
	srcSums := map[string]fsys.Checksum{"sr0/a/1": sum(1), "sr0/a/2": sum(2), "sr0/b/3": sum(3), "sr1/a/4": sum(4), "sr1/a/5": sum(5), "sr1/b/6": sum(6)}
	dstFiles := []job.StoreFile{
		sf("tr0", "a", "x1", 100, 1, 10, "a", "e"),
		sf("tr0", "a", "x2", 200, 11, 20, "b", "d"),
		sf("tr0", "a", "x4", 400, 1, 10, "m", "r"),
		sf("tr0", "a", "x5", 500, 5, 15, "n", "p"),
		sf("tr0", "b", "x3", 300, 1, 20, "g", "k"),
		sf("tr0", "b", "x6", 600, 1, 10, "u", "z"),
	}
	dstSums := map[string]fsys.Checksum{"tr0/a/x1": sum(1), "tr0/a/x2": sum(2), "tr0/b/x3": sum(33), "tr0/a/x4": sum(4), "tr0/a/x5": sum(5), "tr0/b/x6": sum(6)}
	src := testSide("s", []string{"m"}, srcFiles, srcSums)
	dst := testSide("t", nil, dstFiles, dstSums)
	in := src.pinned.Inputs[snapshot.FileKey{Region: "sr1", Family: "b", Name: "6"}]
	in.Reference = &hfile.Reference{SplitKey: []byte("u"), Range: hfile.RangeTop}
	src.pinned.Inputs[snapshot.FileKey{Region: "sr1", Family: "b", Name: "6"}] = in
	o := Options{Mode: ModeVisible}
	o.defaults()
	families := []string{"a", "b"}

	got := provenBatches(context.Background(), []*side{src, dst}, families, batches, o)
	if want := []bool{true, false, false, false}; !slices.Equal(got, want) {
		t.Fatalf("provenBatches = %v, want %v", got, want)
	}
	// Only the candidates' files were checksummed: [,f) and [f,m) (the
	// latter's shape agrees; its sum does not).
	asked := append(slices.Clone(src.fs.(*sumFS).asked), dst.fs.(*sumFS).asked...)
	slices.Sort(asked)
	if want := []string{"sr0/a/1", "sr0/a/2", "sr0/b/3", "tr0/a/x1", "tr0/a/x2", "tr0/b/x3"}; !slices.Equal(asked, want) {
		t.Errorf("checksummed %v, want %v", asked, want)
	}

	// A batch with no file on either side is proven; one with a file on
	// one side only is not.
	empty := provenBatches(context.Background(), []*side{testSide("s", nil, nil, nil), testSide("t", nil, dstFiles[:1], dstSums)}, families,
		[]job.KeyRange{kr("", "a"), kr("a", "")}, o)
	if want := []bool{true, false}; !slices.Equal(empty, want) {
		t.Errorf("empty batches: %v, want %v", empty, want)
	}

	for name, mod := range map[string]func(o *Options, s, d *side){
		"read all":       func(o *Options, _, _ *side) { o.ReadAll = true },
		"other versions": func(_ *Options, _, d *side) { d.rules = map[string]Rules{"a": {MaxVersions: 3}, "b": {MaxVersions: 1}} },
		"no checksums":   func(_ *Options, s, _ *side) { s.fs = fsys.Local{} },
	} {
		s, d, o := testSide("s", []string{"m"}, srcFiles, srcSums), testSide("t", nil, dstFiles, dstSums), o
		mod(&o, s, d)
		if got := provenBatches(context.Background(), []*side{s, d}, families, batches, o); got != nil {
			t.Errorf("%s: provenBatches = %v, want nil", name, got)
		}
	}
	// Raw mode needs no rules alike (and this source has no reference).
	s, d, raw := testSide("s", []string{"m"}, srcFiles, srcSums), testSide("t", nil, dstFiles, dstSums), o
	raw.Mode = ModeRaw
	d.rules = map[string]Rules{"a": {MaxVersions: 3}}
	if got := provenBatches(context.Background(), []*side{s, d}, families, batches, raw); !slices.Equal(got, []bool{true, false, false, true}) {
		t.Errorf("raw mode: %v", got)
	}
	// A checksum that fails leaves its batches to be read.
	delete(srcSums, "sr0/a/2")
	if got := provenBatches(context.Background(), []*side{testSide("s", []string{"m"}, srcFiles, srcSums), testSide("t", nil, dstFiles, dstSums)}, families, batches, o); got[0] {
		t.Error("a batch whose file has no checksum is proven")
	}
}

func TestUnitSpecProven(t *testing.T) {
	u := UnitSpec{Side: 1, Region: job.Region{EncodedName: "r", Rows: kr("", "")}, Total: 2, Batches: []job.KeyRange{kr("", "m"), kr("m", "")}, Proven: true}
	b, err := EncodeUnitSpec(u)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeUnitSpec(b)
	if err != nil || !got.Proven || got.Side != 1 || len(got.Batches) != 2 {
		t.Fatalf("proven unit round trip: %+v, %v", got, err)
	}
	// A spec of format 1 (before flags) still reads, not proven.
	old := append([]byte{recUnit, unitFormat, 1}, b[4:]...)
	if got, err := DecodeUnitSpec(old); err != nil || got.Proven || len(got.Batches) != 2 {
		t.Errorf("format 1 spec: %+v, %v", got, err)
	}
	bad := slices.Clone(b)
	bad[3] = 0x80
	if _, err := DecodeUnitSpec(bad); !errors.Is(err, ErrUnit) {
		t.Errorf("unknown flag: err %v, want ErrUnit", err)
	}

	// assemble: the proven units' batches hash as proven on both sides,
	// and a proven unit with hashes is refused.
	src := UnitSpec{Side: 0, Total: 2, Batches: u.Batches[:1]}
	srcProven := UnitSpec{Side: 0, First: 1, Total: 2, Batches: u.Batches[1:], Proven: true}
	dst := UnitSpec{Side: 1, Total: 2, Batches: u.Batches[:1]}
	dstProven := UnitSpec{Side: 1, First: 1, Total: 2, Batches: u.Batches[1:], Proven: true}
	h := BatchHash{Cells: 3, Rows: 1}
	_, hashes, err := assemble([]UnitSpec{src, srcProven, dst, dstProven}, [][]BatchHash{{h}, nil, {h}, nil})
	if err != nil {
		t.Fatal(err)
	}
	if hashes[0][0] != h || hashes[1][0] != h || !hashes[0][1].Proven || !hashes[1][1].Proven || len(Mismatched(hashes[0], hashes[1])) != 0 {
		t.Errorf("assembled %+v", hashes)
	}
	if _, _, err := assemble([]UnitSpec{src, srcProven, dst, dstProven}, [][]BatchHash{{h}, {h}, {h}, nil}); err == nil {
		t.Error("a proven unit with hashes assembled")
	}
}
