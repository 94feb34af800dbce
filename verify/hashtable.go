package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"rangecopy/cluster"
	"rangecopy/fsys"
	"rangecopy/hashtable"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/rowkey"
	"rangecopy/storeread"
)

// HashTableOptions are how HashTable output is written (WriteHashTable).
type HashTableOptions struct {
	// BatchSize is the target batch size in bytes; 0 means HashTable's
	// default, hashtable.DefaultBatchSize.
	BatchSize int64
	// NumHashFiles is the number of hash files; 0 means HashTable's
	// default (a hundredth of the regions, at least 1).
	NumHashFiles int
	// Versions is how many versions of a column are hashed; 0 means the
	// default Scan's 1 (and no versions in the manifest).
	Versions int
}

// HashTableReport is what WriteHashTable wrote.
type HashTableReport struct {
	Dir            string `json:"dir"`
	Table          string `json:"table"`
	SourceSnapshot string `json:"sourceSnapshot"`
	Batches        int    `json:"batches"`
	NumHashFiles   int    `json:"numHashFiles"`
	Cells          int64  `json:"cells"`
	Rows           int64  `json:"rows"`
	BytesRead      int64  `json:"bytesRead"`
	ElapsedMs      int64  `json:"elapsedMs"`
}

// hashTableScan applies HBase's HashTable scan to a merged stream: puts
// inside the time range and delete markers inside or after it (a user
// scan's ScanQueryMatcher applies markers newer than its time range), then
// what a read of versions versions returns. Markers are not returned.
type hashTableScan struct {
	In   CellIter
	Time job.TimeRange
}

func (t *hashTableScan) Next() bool {
	for t.In.Next() {
		c := t.In.Cell()
		if t.Time.Contains(c.Timestamp) || (c.Type != hfile.TypePut && c.Timestamp >= t.Time.Min) {
			return true
		}
	}
	return false
}

func (t *hashTableScan) Cell() *hfile.Cell { return t.In.Cell() }
func (t *hashTableScan) Err() error        { return t.In.Err() }

// manifestTime is a time range as a HashTable manifest holds it.
func manifestTime(tr job.TimeRange) (start, end int64) {
	start = max(tr.Min, 0)
	if tr.Max != math.MaxInt64 {
		end = tr.Max
	}
	return start, end
}

// timeOfManifest is the time range of a manifest's scan.
func timeOfManifest(m hashtable.Manifest) job.TimeRange {
	tr := job.AllTime()
	if m.StartTime != 0 || m.EndTime != 0 {
		tr.Min = m.StartTime
		if m.EndTime != 0 {
			tr.Max = m.EndTime
		}
	}
	return tr
}

// pinSide pins one table with a snapshot and prepares the rules of
// families (all of its schema's when empty); release deletes the snapshot
// unless o.KeepSnapshots.
func pinSide(ctx context.Context, name string, c cluster.Config, table string, families []string, o Options, limiter fsys.Limiter, read *atomic.Int64) (*side, []string, func(), error) {
	cn, closeConn, err := open(ctx, name, c, o)
	if err != nil {
		return nil, nil, nil, err
	}
	s := &side{name: name, table: table, fs: storeread.ArchiveFallback{Reader: cn.fs, RootDir: c.RootDir}, limiter: limiter, read: read}
	snap := SnapshotName(table, name, time.Now().UnixMilli())
	p, err := pinSnapshot(ctx, cn, c.RootDir, table, snap, o)
	release := func() {
		if !o.KeepSnapshots {
			if err := releaseSnapshot(context.WithoutCancel(ctx), cn, snap); err != nil {
				o.Logger.Warn("verify: snapshot not released", "cluster", name, "snapshot", snap, "err", err)
			}
		}
		closeConn()
	}
	if err != nil {
		release()
		return nil, nil, nil, fmt.Errorf("verify: pin the %s table: %w", name, err)
	}
	s.pinned = p
	if len(families) == 0 {
		for _, f := range p.Schema.Families {
			families = append(families, f.Name)
		}
	}
	families = slices.Clone(families)
	slices.Sort(families)
	families = slices.Compact(families)
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	s.rules = map[string]Rules{}
	for _, f := range families {
		d := p.Schema.Family(f)
		if d == nil {
			release()
			return nil, nil, nil, fmt.Errorf("verify: the %s table %s has no family %q", name, table, f)
		}
		s.rules[f] = RulesOf(*d, now.UnixMilli())
	}
	return s, families, release, nil
}

func (o *Options) limiter() (fsys.Limiter, error) {
	if o.Bandwidth <= 0 {
		return nil, nil
	}
	l, err := fsys.NewRateLimit(o.Bandwidth)
	if err != nil {
		return nil, fmt.Errorf("verify: bandwidth: %w", err)
	}
	return l, nil
}

// WriteHashTable writes what HBase's HashTable would write for the source
// table over o's rows, time range and families, from the source's HFiles
// under a snapshot, to dir of fs: one split per source region (its rows
// clipped to o.Rows), each hashed with HashTable's batching
// (hashtable.Batcher) over the cells a HashTable scan returns (delete
// markers applied, markers in or after the time range included, the newest
// h.Versions versions within the time range, TTL honoured), partitioned at
// the region start keys HashTable picks. HBase's SyncTable run on the
// target reads it. Only o.Source is used.
func WriteHashTable(ctx context.Context, o Options, h HashTableOptions, fs fsys.FS, dir string) (HashTableReport, error) {
	o.defaults()
	start := time.Now()
	if o.Table == "" {
		return HashTableReport{}, errors.New("verify: no table named")
	}
	if o.Rows.Empty() {
		return HashTableReport{}, fmt.Errorf("verify: row range %s is empty", o.Rows)
	}
	if o.Time.Min < 0 || o.Time.Max <= o.Time.Min {
		return HashTableReport{}, fmt.Errorf("verify: time range %s is empty or negative", o.Time)
	}
	if h.BatchSize <= 0 {
		h.BatchSize = hashtable.DefaultBatchSize
	}
	versions := -1
	if h.Versions > 0 {
		versions = h.Versions
	}
	o.scanVersions = max(h.Versions, 1)
	limiter, err := o.limiter()
	if err != nil {
		return HashTableReport{}, err
	}
	var read atomic.Int64
	src, families, release, err := pinSide(ctx, "source", o.Source, o.Table, o.Families, o, limiter, &read)
	if err != nil {
		return HashTableReport{}, err
	}
	defer release()

	var starts, ends [][]byte
	type split struct {
		region job.Region
		rows   job.KeyRange
	}
	var splits []split
	for _, r := range src.pinned.Regions {
		starts, ends = append(starts, r.Rows.Start), append(ends, r.Rows.End)
		if rows, ok := r.Rows.Intersect(o.Rows); ok && !rows.Empty() {
			splits = append(splits, split{region: r, rows: rows})
		}
	}
	n, parts := hashtable.SelectPartitions(starts, ends, o.Rows.Start, o.Rows.End, h.NumHashFiles)
	results := make([][]hashtable.Batch, len(splits))
	var cells, rows atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(o.Parallelism, 1))
	for i, sp := range splits {
		g.Go(func() error {
			b := hashtable.NewBatcher(sp.rows.Start, h.BatchSize)
			if err := readRange(gctx, src, sp.region, families, sp.rows, o, b.Add); err != nil {
				return fmt.Errorf("verify: source region %s rows %s: %w", sp.region.EncodedName, sp.rows, err)
			}
			results[i] = b.Finish()
			cells.Add(b.Cells)
			rows.Add(b.Rows)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return HashTableReport{}, err
	}
	st, et := manifestTime(o.Time)
	out := hashtable.Output{Manifest: hashtable.Manifest{Table: o.Table, TargetBatchSize: h.BatchSize, NumHashFiles: n,
		StartRow: o.Rows.Start, StopRow: o.Rows.End, Versions: versions, StartTime: st, EndTime: et}, Partitions: parts}
	if len(o.Families) > 0 {
		out.Manifest.Families = strings.Join(families, ",")
	}
	for _, r := range results {
		out.Batches = append(out.Batches, r...)
	}
	if err := hashtable.Write(ctx, fs, dir, out, time.Now()); err != nil {
		return HashTableReport{}, fmt.Errorf("verify: write the hash table: %w", err)
	}
	return HashTableReport{Dir: dir, Table: o.Table, SourceSnapshot: src.pinned.Info.Name, Batches: len(out.Batches), NumHashFiles: n,
		Cells: cells.Load(), Rows: rows.Load(), BytesRead: read.Load(), ElapsedMs: time.Since(start).Milliseconds()}, nil
}

// AgainstHashTable compares the target table with the output of HBase's
// HashTable run on the source, read from dir of fs, as SyncTable --dryrun
// compares them: the target's cells under a snapshot, read from its HFiles
// with the manifest's scan (rows, time range, families, versions), are
// hashed into the source's batches, and each batch's MD5 is compared. The
// manifest, not o, gives the rows, time range and families. When
// o.Source names a cluster, the mismatched batches are read on both sides
// and their differing cells listed, as verify does; else only the
// mismatched ranges are reported. A raw-scan manifest is not compared.
func AgainstHashTable(ctx context.Context, o Options, fs fsys.Reader, dir string) (Report, error) {
	o.defaults()
	start := time.Now()
	ht, err := hashtable.Read(ctx, fs, dir)
	if err != nil {
		return Report{}, fmt.Errorf("verify: read the hash table: %w", err)
	}
	m := ht.Manifest
	if m.RawScan {
		return Report{}, fmt.Errorf("verify: %s is of a raw scan; only HashTable's default (not raw) scan is compared", dir)
	}
	if m.ScanBatch > 0 {
		o.Logger.Warn("verify: the hash table's scanBatch is ignored: batches follow its keys", "scanBatch", m.ScanBatch)
	}
	if len(ht.Batches) == 0 {
		return Report{}, fmt.Errorf("verify: %s holds no batches", dir)
	}
	o.Rows = job.KeyRange{Start: nonEmpty(m.StartRow), End: nonEmpty(m.StopRow)}
	o.Time = timeOfManifest(m)
	o.Families = nil
	if m.Families != "" {
		o.Families = strings.Split(m.Families, ",")
	}
	o.scanVersions = 1
	if m.Versions > 0 {
		o.scanVersions = m.Versions
	}
	if o.Table == "" {
		o.Table = m.Table
		if o.TargetTable == "" {
			o.TargetTable = m.Table
		}
	}
	limiter, err := o.limiter()
	if err != nil {
		return Report{}, err
	}
	var read atomic.Int64
	dst, families, release, err := pinSide(ctx, "target", o.Target, o.TargetTable, o.Families, o, limiter, &read)
	if err != nil {
		return Report{}, err
	}
	defer release()

	rep := Report{Version: ReportVersion, SourceTable: m.Table, TargetTable: o.TargetTable, Mode: ModeVisible, HashTable: dir,
		StartRow: rowkey.Format(o.Rows.Start), StopRow: rowkey.Format(o.Rows.End), MinTimeMs: o.Time.Min, MaxTimeMs: o.Time.Max,
		Families: families, TargetSnapshot: dst.pinned.Info.Name, Batches: len(ht.Batches)}
	starts := make([][]byte, len(ht.Batches))
	for i, b := range ht.Batches {
		starts[i] = b.Start
	}
	batches := make([]job.KeyRange, len(starts))
	for i := range starts {
		batches[i] = job.KeyRange{Start: nonEmpty(starts[i]), End: o.Rows.End}
		if i+1 < len(starts) {
			batches[i].End = starts[i+1]
		}
	}
	// The target is hashed in one pass in key order: an MD5 runs over a
	// whole batch, which may span target regions.
	rh := hashtable.NewRehasher(starts)
	span := job.KeyRange{Start: nonEmpty(starts[0]), End: o.Rows.End}
	if err := readSpan(ctx, dst, families, span, o, rh.Add); err != nil {
		return Report{}, fmt.Errorf("verify: target rows %s: %w", span, err)
	}
	sums := rh.Finish()
	var bad []int
	for i := range ht.Batches {
		rep.TargetCells += rh.Cells[i]
		rep.TargetRows += rh.Rows[i]
		if sums[i] != ht.Batches[i].Hash {
			bad = append(bad, i)
		}
	}
	rep.BatchesMismatched = len(bad)
	rep.BatchesMatched = len(batches) - len(bad)
	for _, r := range JoinRanges(batches, bad) {
		rep.MismatchedRanges = append(rep.MismatchedRanges, Range{StartRow: rowkey.Format(r.Start), StopRow: rowkey.Format(r.End)})
	}
	if len(bad) > 0 && len(o.Source.ZKQuorum) > 0 {
		src, _, releaseSrc, err := pinSide(ctx, "source", o.Source, o.Table, families, o, limiter, &read)
		if err != nil {
			return Report{}, err
		}
		defer releaseSrc()
		rep.SourceSnapshot = src.pinned.Info.Name
		for _, i := range bad {
			err := diffSpan(ctx, []*side{src, dst}, families, batches[i], o, func(d Difference) {
				rep.DifferenceCount++
				if len(rep.Differences) < o.MaxDiffs {
					rep.Differences = append(rep.Differences, d)
				}
			})
			if err != nil {
				return Report{}, fmt.Errorf("verify: list the differences of rows %s: %w", batches[i], err)
			}
		}
	}
	rep.BytesRead = read.Load()
	rep.ElapsedMs = time.Since(start).Milliseconds()
	return rep, nil
}

// spanIter chains the regions of a side that rows spans, in key order,
// opening each when the previous is done.
type spanIter struct {
	ctx      context.Context
	s        *side
	families []string
	regions  []job.Region
	rows     job.KeyRange
	o        Options
	cur      CellIter
	closeCur func()
	err      error
}

func (it *spanIter) Next() bool {
	for {
		if it.cur != nil {
			if it.cur.Next() {
				return true
			}
			if err := it.cur.Err(); err != nil {
				it.err = err
				return false
			}
			it.closeCur()
			it.cur = nil
		}
		if len(it.regions) == 0 || it.err != nil {
			return false
		}
		r := it.regions[0]
		it.regions = it.regions[1:]
		rng, _ := r.Rows.Intersect(it.rows)
		it.cur, it.closeCur, it.err = openRange(it.ctx, it.s, r, it.families, rng, it.o)
		if it.err != nil {
			it.err = fmt.Errorf("%s region %s: %w", it.s.name, r.EncodedName, it.err)
			it.cur = nil
			return false
		}
	}
}

func (it *spanIter) Cell() *hfile.Cell { return it.cur.Cell() }
func (it *spanIter) Err() error        { return it.err }
func (it *spanIter) close() {
	if it.cur != nil {
		it.closeCur()
	}
}

// openSpan returns the cells of rows of a side, across its regions.
func openSpan(ctx context.Context, s *side, families []string, rows job.KeyRange, o Options) *spanIter {
	var regions []job.Region
	for _, r := range s.pinned.Regions {
		if rng, ok := r.Rows.Intersect(rows); ok && !rng.Empty() {
			regions = append(regions, r)
		}
	}
	slices.SortFunc(regions, func(a, b job.Region) int { return bytes.Compare(a.Rows.Start, b.Rows.Start) })
	return &spanIter{ctx: ctx, s: s, families: families, regions: regions, rows: rows, o: o}
}

func readSpan(ctx context.Context, s *side, families []string, rows job.KeyRange, o Options, fn func(*hfile.Cell)) error {
	it := openSpan(ctx, s, families, rows, o)
	defer it.close()
	n := 0
	for it.Next() {
		fn(it.Cell())
		if n++; n&4095 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return it.Err()
}

func diffSpan(ctx context.Context, sides []*side, families []string, rows job.KeyRange, o Options, fn func(Difference)) error {
	a, b := openSpan(ctx, sides[0], families, rows, o), openSpan(ctx, sides[1], families, rows, o)
	defer a.close()
	defer b.close()
	return Diff(a, b, fn, func(*hfile.Cell) {})
}
