package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/job"
)

// Options tune Read and Pin. The zero value is usable.
type Options struct {
	// Limits bound the manifest.
	Limits Limits
	// Parallelism is how many files are resolved and opened at once;
	// default 32. Each open is a few small reads (trailer, file info,
	// index), bound by round trips to the NameNode and DataNodes, not by
	// bytes: a catch-up window reads every file of the table this way.
	Parallelism int
	// MaxIndexEntries caps the index entries kept per file; default 256.
	MaxIndexEntries int
	// Logger receives progress at debug level and oddities at warn level;
	// nil discards.
	Logger *slog.Logger
	// Facts, if set, keeps the files' facts for the next pins of the
	// process and gives those it holds (FactsCache); FactsScope names the
	// source cluster in its keys (its NameNodes, say), for a cache shared by
	// the pins of several clusters.
	Facts      *FactsCache
	FactsScope string
}

func (o Options) withDefaults() Options {
	if o.Parallelism <= 0 {
		o.Parallelism = 32
	}
	if o.MaxIndexEntries <= 0 {
		o.MaxIndexEntries = 256
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Pinned is a copy's pinned input: a snapshot's description and schema, the
// regions to read and the facts of every store file, and where each file's
// bytes are.
type Pinned struct {
	Info Info
	// Schema is the table schema at snapshot time.
	Schema hbase.TableDescriptor
	// Regions are the snapshot's regions in key order, split parents and
	// read replicas left out; they cover the table.
	Regions []job.Region
	// Files are the store files of Regions with their facts (see Facts for
	// the facts of a half file), ordered by
	// region (key order), family and name. Files with no cells (an empty
	// HFile, or a half of a parent file with nothing on its side) are left
	// out: there is nothing to copy in them.
	Files []job.StoreFile
	// Inputs maps each of Files to its resolved bytes.
	Inputs map[FileKey]Input
}

// Input returns the resolved bytes of f.
func (p *Pinned) Input(f job.StoreFile) (Input, bool) {
	in, ok := p.Inputs[FileKey{Region: f.Region, Family: f.Family, Name: f.Name}]
	return in, ok
}

// Pin takes a flush snapshot of table with client, waits until it is done,
// and reads it (see Read). rootDir is the source's hbase.rootdir path in src.
//
// Pin is idempotent: when a complete snapshot of that name already exists, it
// is read as it is (it must be of the same table), so a master that restarts
// mid-job pins the same point in time again rather than a new one. On a
// failure after the snapshot was taken, the snapshot is left for the caller
// to Release.
func Pin(ctx context.Context, client *hbase.Client, src fsys.Reader, rootDir, table, snapshotName string, opts Options) (*Pinned, error) {
	_, err := ReadManifest(ctx, src, rootDir, snapshotName, opts.Limits)
	switch {
	case errors.Is(err, ErrNotFound):
		if err := client.CreateSnapshot(ctx, table, snapshotName); err != nil {
			return nil, fmt.Errorf("pin table %s: %w", table, err)
		}
	case err != nil:
		return nil, fmt.Errorf("pin table %s: existing snapshot %s: %w", table, snapshotName, err)
	}
	p, err := Read(ctx, src, rootDir, snapshotName, opts)
	if err != nil {
		return nil, fmt.Errorf("pin table %s: %w", table, err)
	}
	if p.Info.Table != table && "default:"+p.Info.Table != table {
		return nil, fmt.Errorf("pin table %s: snapshot %s is of table %s: %w", table, snapshotName, p.Info.Table, ErrCorrupt)
	}
	return p, nil
}

// Release deletes the snapshot, unpinning its files.
func Release(ctx context.Context, client *hbase.Client, name string) error {
	if err := client.DeleteSnapshot(ctx, name); err != nil {
		return fmt.Errorf("release snapshot %s: %w", name, err)
	}
	return nil
}

// Read reads an existing snapshot: its manifest, the place of every store
// file, and every file's facts, opening at most opts.Parallelism files at once.
func Read(ctx context.Context, src fsys.Reader, rootDir, name string, opts Options) (*Pinned, error) {
	opts = opts.withDefaults()
	start := time.Now()
	m, err := ReadManifest(ctx, src, rootDir, name, opts.Limits)
	if err != nil {
		return nil, err
	}
	return load(ctx, src, rootDir, m, "snapshot "+name, opts, start)
}

// load resolves and reads the facts of m's store files, opening at most
// opts.Parallelism files at once; what names m in errors and logs (the
// snapshot, or the live table).
func load(ctx context.Context, src fsys.Reader, rootDir string, m *Manifest, what string, opts Options, start time.Time) (*Pinned, error) {
	p := &Pinned{Info: m.Info, Schema: m.Schema, Inputs: map[FileKey]Input{}}
	regions := Readable(m.Regions)
	if err := checkCoverage(regions); err != nil {
		return nil, fmt.Errorf("%s of table %s: %w", what, m.Info.Table, err)
	}
	keep := make(map[string]bool, len(regions))
	for _, r := range regions {
		keep[r.EncodedName] = true
		p.Regions = append(p.Regions, job.Region{EncodedName: r.EncodedName, Rows: job.KeyRange{Start: r.StartKey, End: r.EndKey}})
	}
	var files []ManifestFile
	for _, f := range m.Files {
		if keep[f.Region] {
			files = append(files, f)
		}
	}
	opts.Logger.Debug("store files listed", "of", what, "table", m.Info.Table,
		"regions", len(m.Regions), "readable_regions", len(regions), "files", len(files))

	facts := make([]job.StoreFile, len(files))
	inputs := make([]Input, len(files))
	empty := make([]bool, len(files))
	var hits atomic.Int64 // files whose facts the cache gave
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(opts.Parallelism, 1))
	for i, f := range files {
		g.Go(func() error {
			key := factsKey(opts.FactsScope, rootDir, m.Info.Table, f)
			if e, ok := opts.Facts.get(key); ok {
				facts[i], inputs[i], empty[i] = e.facts, e.in, e.empty
				hits.Add(1)
				return nil
			}
			in, err := Resolve(gctx, src, rootDir, m.Info.Table, f)
			if err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			sf, ok, err := Facts(gctx, src, f, in, opts.MaxIndexEntries)
			if err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			facts[i], inputs[i], empty[i] = sf, in, !ok
			opts.Facts.put(key, cached{facts: sf, in: in, empty: !ok})
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, f := range files {
		if empty[i] {
			opts.Logger.Debug("store file holds no cells; left out", "of", what, "region", f.Region, "family", f.Family, "file", f.Name)
			continue
		}
		p.Files = append(p.Files, facts[i])
		p.Inputs[FileKey{Region: f.Region, Family: f.Family, Name: f.Name}] = inputs[i]
	}
	order := make(map[string]int, len(p.Regions))
	for i, r := range p.Regions {
		order[r.EncodedName] = i
	}
	sortFiles(p.Files, order)
	var total int64
	for _, f := range p.Files {
		total += f.Size
	}
	opts.Logger.Info("store files read", "of", what, "table", m.Info.Table, "regions", len(p.Regions),
		"files", len(p.Files), "cached", hits.Load(), "empty_files", len(files)-len(p.Files), "bytes", total, "took", time.Since(start))
	return p, nil
}

// Readable returns the regions a copy reads, in key order: offline split
// parents (whose data the daughters reach through references) and read
// replicas are left out, as HBase's snapshot readers do.
func Readable(rs []RegionInfo) []RegionInfo {
	var out []RegionInfo
	for _, r := range rs {
		if r.IsSplitParent() || r.ReplicaID != 0 {
			continue
		}
		out = append(out, r)
	}
	sortRegions(out)
	return out
}

// checkCoverage verifies that regions, in key order, cover the whole table
// without gaps or overlaps, so that no data of the snapshot can be left out
// unnoticed.
func checkCoverage(regions []RegionInfo) error {
	if len(regions) == 0 {
		return fmt.Errorf("no regions to read: %w", ErrCorrupt)
	}
	if len(regions[0].StartKey) != 0 {
		return fmt.Errorf("the first region %s starts at %s, not at the table's start: %w", regions[0].EncodedName, job.FormatKey(regions[0].StartKey), ErrCorrupt)
	}
	for i := 1; i < len(regions); i++ {
		prev, r := regions[i-1], regions[i]
		if len(prev.EndKey) == 0 || !bytes.Equal(prev.EndKey, r.StartKey) {
			return fmt.Errorf("region %s ends at %s but the next region %s starts at %s: %w", prev.EncodedName, job.FormatKey(prev.EndKey),
				r.EncodedName, job.FormatKey(r.StartKey), ErrCorrupt)
		}
	}
	if last := regions[len(regions)-1]; len(last.EndKey) != 0 {
		return fmt.Errorf("the last region %s ends at %s, not at the table's end: %w", last.EncodedName, job.FormatKey(last.EndKey), ErrCorrupt)
	}
	return nil
}

// Facts opens the resolved file in and returns the facts of the manifest's
// store file f: size, first and last rows, TIMERANGE and a sample of at most
// maxIndex index entries, all clipped to the half a reference selects. ok is
// false when the file (or its half) holds no cells.
//
// Size is the length of the file holding the bytes (the parent's, for a
// half). The index of a bottom half ends with one more entry, the parent's
// first block past the half (its row lies beyond LastRow), so that byte
// estimates from index offsets stop where the half does; a top half's index
// starts at the block holding its first row.
func Facts(ctx context.Context, src fsys.Reader, f ManifestFile, in Input, maxIndex int) (sf job.StoreFile, ok bool, err error) {
	sf = job.StoreFile{Region: f.Region, Family: f.Family, Name: f.Name, Size: in.Size}
	if err := ctx.Err(); err != nil {
		return sf, false, err
	}
	what := fmt.Sprintf("store file %s of region %s family %s (%s)", f.Name, f.Region, f.Family, in.Path)
	file, err := src.Open(ctx, in.Path)
	if err != nil {
		return sf, false, fmt.Errorf("%s: open: %w", what, err)
	}
	defer file.Close()
	r, err := hfile.Open(file, in.Size, in.Path)
	if err != nil {
		return sf, false, fmt.Errorf("%s: %w", what, err)
	}
	first, last := r.FirstKey(), r.LastKey()
	if in.Reference != nil {
		h, err := hfile.NewHalfReader(r, in.Reference)
		if err != nil {
			return sf, false, fmt.Errorf("%s: %w", what, err)
		}
		if first, err = h.FirstKey(); err != nil {
			return sf, false, fmt.Errorf("%s: first key of the %s half: %w", what, in.Reference.Range, err)
		}
		if last, err = h.LastKey(); err != nil {
			return sf, false, fmt.Errorf("%s: last key of the %s half: %w", what, in.Reference.Range, err)
		}
	}
	if first == nil || last == nil {
		return sf, false, nil
	}
	sf.FirstRow = append([]byte(nil), first.Row...)
	sf.LastRow = append([]byte(nil), last.Row...)
	info := r.Info()
	if info.HasTimeRange {
		sf.HasTime, sf.MinTime, sf.MaxTime = true, info.TimeRangeMin, info.TimeRangeMax
	}
	idx, err := indexSample(r, min(maxIndex, sampleWant))
	if err != nil {
		return sf, false, fmt.Errorf("%s: %w", what, err)
	}
	sf.Index = sampleIndex(clipIndex(idx, sf.FirstRow, sf.LastRow), maxIndex)
	if in.Reference != nil && in.Reference.Range == hfile.RangeBottom {
		// Mark where the half ends, so that estimates of the bytes of a
		// row range (offset differences, job.Make) stop there rather than
		// at the end of the parent file.
		if end, ok := firstAfter(idx, sf.LastRow); ok {
			sf.Index = append(sf.Index, end)
		}
	}
	return sf, true, nil
}

// firstAfter returns the first index entry whose row sorts after row.
func firstAfter(entries []job.IndexEntry, row []byte) (job.IndexEntry, bool) {
	i := sort.Search(len(entries), func(i int) bool { return bytes.Compare(entries[i].Row, row) > 0 })
	if i == len(entries) {
		return job.IndexEntry{}, false
	}
	return entries[i], true
}

// clipIndex keeps the index entries of [first, last]: the block that holds
// the first cell of row first (with first as its row, so the clipped index
// starts at the file's or half's first row), then every later entry up to
// last. Index rows may be HBase's shortened separator keys, which sort
// between a block's predecessor and its first cell; the rule holds for them.
func clipIndex(entries []job.IndexEntry, first, last []byte) []job.IndexEntry {
	if len(entries) == 0 {
		return nil
	}
	k := 0
	for k+1 < len(entries) && bytes.Compare(entries[k+1].Row, first) < 0 {
		k++
	}
	out := []job.IndexEntry{{Row: first, Offset: entries[k].Offset}}
	for _, e := range entries[k+1:] {
		if bytes.Compare(e.Row, last) > 0 {
			break
		}
		out = append(out, e)
	}
	return out
}

// sampleWant is how many index entries a file's sample should have, to cut
// its range finely enough: a multi-level index whose root has fewer is read
// one level further down (a few index blocks).
const sampleWant = 64

// indexSample returns entries of the file's data index as planning samples:
// the root level, or the next level down when the root is coarse (see
// hfile.Reader.IndexSample). In a single-level index they are the data
// blocks; in a multi-level one they may be index blocks, whose offsets still
// place their keys in the file.
func indexSample(r *hfile.Reader, want int) ([]job.IndexEntry, error) {
	root, err := r.IndexSample(want)
	if err != nil {
		return nil, err
	}
	out := make([]job.IndexEntry, len(root))
	for i, b := range root {
		out[i] = job.IndexEntry{Row: b.Key.Row, Offset: b.Offset}
	}
	return out, nil
}

// sampleIndex keeps at most max entries, evenly spread, always the first.
func sampleIndex(entries []job.IndexEntry, max int) []job.IndexEntry {
	if len(entries) <= max || max <= 0 {
		return entries
	}
	out := make([]job.IndexEntry, 0, max)
	for i := 0; i < max; i++ {
		out = append(out, entries[i*len(entries)/max])
	}
	return out
}
