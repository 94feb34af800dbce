package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"rangecopy/cluster"
	"rangecopy/cluster/dial"
	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/rowkey"
	"rangecopy/snapshot"
	"rangecopy/storeread"
)

// Defaults of Options.
const (
	DefaultMaxDiffs    = 20
	DefaultParallelism = 4
	DefaultBatchBytes  = 32 << 20
	DefaultDialTimeout = 30 * time.Second
)

// Options are one verification.
type Options struct {
	// Source and Target reach the clusters; both need their HDFS.
	Source, Target cluster.Config
	// User is the HBase and HDFS user; empty means hbase.DefaultUser.
	User string
	// Table is the source table, TargetTable the target's (empty: Table).
	Table, TargetTable string
	// Rows bounds the rows compared, [Start, End); empty is the table.
	Rows job.KeyRange
	// Time bounds the cells compared by timestamp, [Min, Max), markers
	// too, before any delete applies; the zero value is all time.
	Time job.TimeRange
	// Only, when set, restricts the comparison to the batches that overlap
	// these ranges (a re-check of repaired ranges); the batches are still
	// cut as for the whole of Rows.
	Only []job.KeyRange
	// Families are compared; empty means every family of the source.
	Families []string
	// Mode is ModeVisible (the zero value means it) or ModeRaw.
	Mode Mode
	// MaxDiffs caps the differences listed; 0 means DefaultMaxDiffs.
	MaxDiffs int
	// Bandwidth caps the HFile bytes read per second, both sides together;
	// 0 means no cap.
	Bandwidth float64
	// Parallelism is how many regions are read at once; 0 means
	// DefaultParallelism.
	Parallelism int
	// BatchBytes is the input bytes a batch aims at; 0 means
	// DefaultBatchBytes.
	BatchBytes int64
	// KeepSnapshots keeps both snapshots when done.
	KeepSnapshots bool
	// ReadAll hashes every batch from both sides' HFiles. Without it, a
	// batch whose store files are byte-for-byte the same on both sides (the
	// same HDFS file checksums, as a fast-path copy leaves them) is matched
	// without reading them (Report.BatchesProven).
	ReadAll bool
	// Now is the time TTLs are applied at; zero means the time both
	// snapshots are taken.
	Now time.Time
	// DialTimeout bounds reaching each cluster; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// Logger receives progress; nil discards.
	Logger *slog.Logger
	// Registry, when set, runs the verification as a job of this registry
	// that survives this process (resumable, its units shared with worker
	// agents); nil runs it in this process alone, with nothing to resume.
	Registry *registry.Registry
	// LeaveUnits, with Registry, hashes no unit in this process: every
	// unit is left to the worker agents of the registry, which Run waits
	// for.
	LeaveUnits bool
	// Progress, with Registry, receives the job's units as tasks (total,
	// and done by whoever) and the HFile bytes this process reads, for a
	// progress bar (progress.Run); nil: none.
	Progress *progress.Counters

	// scanVersions, when above 0, reads with HashTable's scan instead of
	// Mode: markers in or after the time range applied, this many versions.
	scanVersions int
}

func (o *Options) defaults() {
	if o.TargetTable == "" {
		o.TargetTable = o.Table
	}
	if o.User == "" {
		o.User = hbase.DefaultUser()
	}
	if o.Time == (job.TimeRange{}) {
		o.Time = job.AllTime()
	}
	if o.Mode == 0 {
		o.Mode = ModeVisible
	}
	if o.MaxDiffs <= 0 {
		o.MaxDiffs = DefaultMaxDiffs
	}
	if o.Parallelism <= 0 {
		o.Parallelism = DefaultParallelism
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = DefaultBatchBytes
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if len(o.Rows.Start) == 0 {
		o.Rows.Start = nil
	}
	if len(o.Rows.End) == 0 {
		o.Rows.End = nil
	}
}

// check checks what o selects, its defaults applied.
func (o *Options) check() error {
	if o.Table == "" {
		return errors.New("verify: no table named")
	}
	if o.Rows.Empty() {
		return fmt.Errorf("verify: row range %s is empty", o.Rows)
	}
	if o.Time.Min < 0 || o.Time.Max <= o.Time.Min {
		return fmt.Errorf("verify: time range %s is empty or negative", o.Time)
	}
	return nil
}

// side is one pinned table and how to read its files.
type side struct {
	name     string // "source" or "target"
	table    string
	fs       fsys.Reader
	pinned   *snapshot.Pinned
	rules    map[string]Rules
	limiter  fsys.Limiter
	read     *atomic.Int64
	conn     *conn
	snapshot string // the snapshot's name
}

// Run verifies the target table against the source over o's range: it pins
// both tables with snapshots, hashes both sides' batches from their HFiles
// in parallel, re-reads the mismatched batches to list the differing cells,
// releases the snapshots and returns the report. A report that is not Equal
// is not an error; an error means the comparison could not be made.
//
// It is the one way to verify. With o.Registry set the verification is a
// registry job (runJob): its units are hashed by this process and by any
// worker agent serving the registry, checkpointed, and resumed by Run
// called again with the same o. Without, it runs in this process alone.
func Run(ctx context.Context, o Options) (Report, error) {
	o.defaults()
	start := time.Now()
	if err := o.check(); err != nil {
		return Report{}, err
	}
	if o.Registry != nil {
		return runJob(ctx, o, start)
	}
	limiter, err := newLimiter(o.Bandwidth)
	if err != nil {
		return Report{}, err
	}
	var read atomic.Int64
	stamp := time.Now().UnixMilli()
	names := [2]string{SnapshotName(o.Table, "source", stamp), SnapshotName(o.TargetTable, "target", stamp)}
	sides, families, closeSides, err := openSides(ctx, o, names, true, limiter, &read)
	defer closeSides() // after the release
	if !o.KeepSnapshots {
		defer releaseSides(context.WithoutCancel(ctx), o, sides)
	}
	if err != nil {
		return Report{}, err
	}
	rep := newReport(o, families, [2]string{sides[0].pinned.Info.Name, sides[1].pinned.Info.Name})
	batches, units, err := planUnits(ctx, sides, families, o)
	if err != nil {
		return Report{}, err
	}
	rep.Batches = len(batches)
	o.Logger.Info("verify: batches planned", "batches", len(batches), "source_files", len(sides[0].pinned.Files), "target_files", len(sides[1].pinned.Files))

	hashes := [][]BatchHash{make([]BatchHash, len(batches)), make([]BatchHash, len(batches))}
	if err := hashSides(ctx, sides, families, batches, units, o, hashes); err != nil {
		return Report{}, err
	}
	if err := finish(ctx, sides, families, batches, hashes, o, &rep, read.Load(), start); err != nil {
		return Report{}, err
	}
	return rep, nil
}

// newLimiter is the read limit of a verification: nil for no bandwidth.
func newLimiter(bandwidth float64) (fsys.Limiter, error) {
	if bandwidth <= 0 {
		return nil, nil
	}
	l, err := fsys.NewRateLimit(bandwidth)
	if err != nil {
		return nil, fmt.Errorf("verify: bandwidth: %w", err)
	}
	return l, nil
}

// newReport is the head of the report of o's verification: what it
// compares, and on which snapshots (source, target).
func newReport(o Options, families []string, snapshots [2]string) Report {
	return Report{Version: ReportVersion, SourceTable: o.Table, TargetTable: o.TargetTable, Mode: o.Mode,
		StartRow: rowkey.Format(o.Rows.Start), StopRow: rowkey.Format(o.Rows.End), MinTimeMs: o.Time.Min, MaxTimeMs: o.Time.Max,
		Families: families, SourceSnapshot: snapshots[0], TargetSnapshot: snapshots[1]}
}

// planUnits cuts the pinned sides into batches (those overlapping o.Only,
// when set) and the batches into units: a side's run of batches in one
// region, the runs proven equal by checksums apart. The same snapshots give
// the same batches and units.
func planUnits(ctx context.Context, sides []*side, families []string, o Options) ([]job.KeyRange, []unit, error) {
	batches := PlanBatches(o.Rows, cutsOf(sides), weightsOf(sides[0], families, o.Rows), o.BatchBytes)
	if o.Only != nil {
		batches = overlapping(batches, o.Only)
	}
	units, err := sideUnits(sides, batches)
	if err != nil {
		return nil, nil, err
	}
	return batches, splitProven(units, provenBatches(ctx, sides, families, batches, o)), nil
}

// finish compares both sides' hashes of batches into rep (compare), and
// adds the bytes read and the time taken since start.
func finish(ctx context.Context, sides []*side, families []string, batches []job.KeyRange, hashes [][]BatchHash, o Options, rep *Report, read int64, start time.Time) error {
	rep.Batches = len(batches)
	if err := compare(ctx, sides, families, batches, hashes, o, rep); err != nil {
		return err
	}
	rep.BytesRead = read
	rep.ElapsedMs = time.Since(start).Milliseconds()
	return nil
}

// openSides reaches both clusters and pins both tables with the snapshots
// names (source, target) when pin, or reads those snapshots as they are
// (a worker serving a verification's units: it never takes one). It
// returns the sides, the families compared (o.Families, or every family
// of the source, sorted) and a func closing the connections. On an error
// the sides pinned so far are returned too, for the caller to release.
func openSides(ctx context.Context, o Options, names [2]string, pin bool, limiter fsys.Limiter, read *atomic.Int64) ([]*side, []string, func(), error) {
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	// Both sides are reached and pinned at once: each waits on its own
	// cluster (a flush and a snapshot), nothing on the other.
	cfgs := []cluster.Config{o.Source, o.Target}
	tables := []string{o.Table, o.TargetTable}
	opened := make([]*side, 2)
	closeFns := make([]func(), 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, name := range []string{"source", "target"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, closeFn, err := open(ctx, name, cfgs[i], o)
			if err != nil {
				errs[i] = err
				return
			}
			closeFns[i] = closeFn
			s := &side{name: name, table: tables[i], fs: storeread.ArchiveFallback{Reader: c.fs, RootDir: cfgs[i].RootDir}, limiter: limiter, read: read, conn: c, snapshot: names[i]}
			if pin {
				// Returned even when the pin fails, for the caller to release what it took.
				opened[i] = s
				s.pinned, err = snapshot.Pin(ctx, c.hb, c.fs, cfgs[i].RootDir, s.table, names[i], snapshot.Options{Logger: o.Logger})
			} else if s.pinned, err = snapshot.Read(ctx, c.fs, cfgs[i].RootDir, names[i], snapshot.Options{Logger: o.Logger}); err == nil {
				opened[i] = s
			}
			if err != nil {
				errs[i] = fmt.Errorf("verify: pin the %s table: %w", s.name, err)
			}
		}()
	}
	wg.Wait()
	var sides []*side
	for i := range opened {
		if closeFns[i] != nil {
			closers = append(closers, closeFns[i])
		}
		if opened[i] != nil {
			sides = append(sides, opened[i])
		}
	}
	if err := errors.Join(errs...); err != nil {
		return sides, nil, closeAll, err
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	families := o.Families
	if len(families) == 0 {
		for _, f := range sides[0].pinned.Schema.Families {
			families = append(families, f.Name)
		}
	}
	families = slices.Clone(families)
	slices.Sort(families)
	families = slices.Compact(families)
	for _, s := range sides {
		s.rules = map[string]Rules{}
		for _, f := range families {
			d := s.pinned.Schema.Family(f)
			if d == nil {
				return sides, nil, closeAll, fmt.Errorf("verify: the %s table %s has no family %q", s.name, s.table, f)
			}
			s.rules[f] = RulesOf(*d, now.UnixMilli())
		}
	}
	return sides, families, closeAll, nil
}

// releaseSides releases the snapshots of the sides pinned, logging what
// could not be released.
func releaseSides(ctx context.Context, o Options, sides []*side) {
	var wg sync.WaitGroup
	for _, s := range sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := snapshot.Release(ctx, s.conn.hb, s.snapshot); err != nil {
				o.Logger.Warn("verify: snapshot not released", "cluster", s.name, "snapshot", s.snapshot, "err", err)
			}
		}()
	}
	wg.Wait()
}

// compare fills rep from both sides' hashes of batches: the counts, the
// mismatched batches and ranges, and the differences of the mismatched
// batches, read again on both sides.
func compare(ctx context.Context, sides []*side, families []string, batches []job.KeyRange, hashes [][]BatchHash, o Options, rep *Report) error {
	for i := range batches {
		rep.SourceCells += hashes[0][i].Cells
		rep.SourceRows += hashes[0][i].Rows
		rep.TargetCells += hashes[1][i].Cells
		rep.TargetRows += hashes[1][i].Rows
	}
	for i := range batches {
		if hashes[0][i].Proven && hashes[1][i].Proven {
			rep.BatchesProven++
		}
	}
	bad := Mismatched(hashes[0], hashes[1])
	rep.BatchesMismatched = len(bad)
	rep.BatchesMatched = len(batches) - len(bad)
	for _, r := range JoinRanges(batches, bad) {
		rep.MismatchedRanges = append(rep.MismatchedRanges, Range{StartRow: rowkey.Format(r.Start), StopRow: rowkey.Format(r.End)})
	}
	for _, i := range bad {
		err := diffBatch(ctx, sides, families, batches[i], o, func(d Difference) {
			rep.DifferenceCount++
			if len(rep.Differences) < o.MaxDiffs {
				rep.Differences = append(rep.Differences, d)
			}
		})
		if err != nil {
			return fmt.Errorf("verify: list the differences of rows %s: %w", batches[i], err)
		}
	}
	return nil
}

// MismatchedKeyRanges returns the report's mismatched ranges as key ranges.
func (r Report) MismatchedKeyRanges() ([]job.KeyRange, error) {
	var out []job.KeyRange
	for _, rg := range r.MismatchedRanges {
		s, err := rowkey.Parse(rg.StartRow)
		if err != nil {
			return nil, fmt.Errorf("mismatched range start %q: %w", rg.StartRow, err)
		}
		e, err := rowkey.Parse(rg.StopRow)
		if err != nil {
			return nil, fmt.Errorf("mismatched range stop %q: %w", rg.StopRow, err)
		}
		out = append(out, job.KeyRange{Start: nonEmpty(s), End: nonEmpty(e)})
	}
	return out, nil
}

// SnapshotName is the name of the snapshot verify takes of table on one
// side at stamp (Unix ms).
func SnapshotName(table, sideName string, stamp int64) string {
	return "rangecopy-verify-" + sideName + "-" + strings.ReplaceAll(table, ":", "_") + "-" + strconv.FormatInt(stamp, 10)
}

// conn is one cluster reached.
type conn struct {
	hb *hbase.Client
	fs *fsys.HDFS
}

func open(ctx context.Context, name string, c cluster.Config, o Options) (*conn, func(), error) {
	hb, err := dial.HBase(ctx, c, o.User, o.DialTimeout, o.Logger)
	if err != nil {
		return nil, nil, fmt.Errorf("verify: %s: %w", name, err)
	}
	fs, err := dial.HDFS(ctx, c, o.User)
	if err != nil {
		hb.Close()
		return nil, nil, fmt.Errorf("verify: %s: %w", name, err)
	}
	return &conn{hb: hb, fs: fs}, func() { fs.Close(); hb.Close() }, nil
}

func pinSnapshot(ctx context.Context, c *conn, rootDir, table, name string, o Options) (*snapshot.Pinned, error) {
	return snapshot.Pin(ctx, c.hb, c.fs, rootDir, table, name, snapshot.Options{Logger: o.Logger})
}

func releaseSnapshot(ctx context.Context, c *conn, name string) error {
	return snapshot.Release(ctx, c.hb, name)
}

// overlapping keeps the batches that overlap any of ranges. Pure.
func overlapping(batches, ranges []job.KeyRange) []job.KeyRange {
	var out []job.KeyRange
	for _, b := range batches {
		for _, r := range ranges {
			if _, ok := b.Intersect(r); ok {
				out = append(out, b)
				break
			}
		}
	}
	return out
}

// cutsOf returns the region boundaries of both sides.
func cutsOf(sides []*side) [][]byte {
	var cuts [][]byte
	for _, s := range sides {
		for _, r := range s.pinned.Regions {
			cuts = append(cuts, r.Rows.Start)
		}
	}
	return cuts
}

// weightsOf spreads each source file's size over its index entries.
func weightsOf(s *side, families []string, rows job.KeyRange) []WeightedRow {
	var out []WeightedRow
	for _, f := range s.pinned.Files {
		if !slices.Contains(families, f.Family) || len(f.Index) == 0 || !rows.OverlapsRows(f.FirstRow, f.LastRow) {
			continue
		}
		per := f.Size / int64(len(f.Index))
		for _, e := range f.Index {
			out = append(out, WeightedRow{Row: e.Row, Bytes: per})
		}
	}
	return out
}

// unit is one run of batches, one after another, in one region of a side.
type unit struct {
	side   int
	region job.Region
	lo, hi int  // batches [lo, hi)
	proven bool // every batch proven by checksums: nothing to read
}

// regionUnits groups batches (in key order, each inside one region) by
// the region that holds their start, one unit per run of touching batches.
// Pure.
func regionUnits(regions []job.Region, batches []job.KeyRange) []unit {
	var units []unit
	for _, r := range regions {
		lo := -1
		for i, b := range batches {
			in := r.Rows.Contains(b.Start)
			if lo >= 0 && (!in || !bytes.Equal(batches[i-1].End, b.Start)) {
				units = append(units, unit{region: r, lo: lo, hi: i})
				lo = -1
			}
			if in && lo < 0 {
				lo = i
			}
		}
		if lo >= 0 {
			units = append(units, unit{region: r, lo: lo, hi: len(batches)})
		}
	}
	return units
}

// hashSides hashes the units of both sides, o.Parallelism at a time, into
// hashes[side][batch]; the units proven (by checksums) are not read.
func hashSides(ctx context.Context, sides []*side, families []string, batches []job.KeyRange, units []unit, o Options, hashes [][]BatchHash) error {
	// Largest regions first would balance better; key order keeps logs
	// readable and is enough for a first cut.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(o.Parallelism, 1))
	for _, u := range units {
		if u.proven {
			for i := u.lo; i < u.hi; i++ {
				hashes[u.side][i] = BatchHash{Proven: true}
			}
			continue
		}
		g.Go(func() error {
			s := sides[u.side]
			rng := job.KeyRange{Start: batches[u.lo].Start, End: batches[u.hi-1].End}
			h := NewHasher(batches[u.lo:u.hi])
			err := readRange(gctx, s, u.region, families, rng, o, func(c *hfile.Cell) { h.Add(c) })
			if err != nil {
				return fmt.Errorf("verify: %s region %s rows %s: %w", s.name, u.region.EncodedName, rng, err)
			}
			copy(hashes[u.side][u.lo:u.hi], h.Finish())
			o.Logger.Debug("verify: region hashed", "side", s.name, "region", u.region.EncodedName, "batches", u.hi-u.lo)
			return nil
		})
	}
	return g.Wait()
}

// diffBatch re-reads one batch on both sides and lists its differences,
// streaming both.
func diffBatch(ctx context.Context, sides []*side, families []string, b job.KeyRange, o Options, fn func(Difference)) error {
	var its []CellIter
	for _, s := range sides {
		r, ok := regionOf(s.pinned.Regions, b.Start)
		if !ok {
			return fmt.Errorf("no %s region holds row %s", s.name, rowkey.Format(b.Start))
		}
		it, closeFn, err := openRange(ctx, s, r, families, b, o)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		defer closeFn()
		its = append(its, it)
	}
	return Diff(its[0], its[1], fn, func(*hfile.Cell) {})
}

func regionOf(rs []job.Region, row []byte) (job.Region, bool) {
	for _, r := range rs {
		if r.Rows.Contains(row) {
			return r, true
		}
	}
	return job.Region{}, false
}

// readRange reads the rows rng of one region of a side, merged and with the
// mode's semantics, calling fn for each cell in key order.
func readRange(ctx context.Context, s *side, region job.Region, families []string, rng job.KeyRange, o Options, fn func(*hfile.Cell)) error {
	it, closeFn, err := openRange(ctx, s, region, families, rng, o)
	if err != nil {
		return err
	}
	defer closeFn()
	n := 0
	for it.Next() {
		fn(it.Cell())
		if n++; n&4095 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return it.Err()
}

// openRange opens the files of one region of a side that may hold cells
// of the families in rng and the time range, and returns their merged
// cells with the mode's semantics; close closes the files.
func openRange(ctx context.Context, s *side, region job.Region, families []string, rng job.KeyRange, o Options) (CellIter, func(), error) {
	var inputs []*storeread.Input
	var ages []storeread.FileAge
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	for _, f := range rangeFiles(s, region, families, rng, o) {
		in, ok := s.pinned.Input(f)
		if !ok {
			closeAll()
			return nil, nil, fmt.Errorf("store file %s of family %s: not resolved", f.Name, f.Family)
		}
		sc, age, stamped, closeFn, err := openInput(ctx, s, in, rng)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, closeFn)
		inputs = append(inputs, &storeread.Input{Cells: sc, Stamped: stamped, Stamp: age.Stamp(), Name: in.Path})
		ages = append(ages, age)
	}
	// Newest first: rank 0 wins identical keys of equal sequence id.
	order := make([]int, len(inputs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return storeread.CompareAge(ages[b], ages[a]) })
	for r, i := range order {
		inputs[i].Rank = r
	}
	if o.scanVersions > 0 {
		it := &Visible{In: &hashTableScan{In: storeread.NewMerged(inputs), Time: o.Time}, Rules: func(f []byte) Rules {
			r := s.rules[string(f)]
			r.MaxVersions = min(r.MaxVersions, o.scanVersions)
			return r
		}}
		return it, closeAll, nil
	}
	var it CellIter = &InTime{In: storeread.NewMerged(inputs), Time: o.Time}
	if o.Mode == ModeVisible {
		it = &Visible{In: it, Rules: func(f []byte) Rules { return s.rules[string(f)] }}
	}
	return it, closeAll, nil
}

// rangeFiles are the store files of one region of a side that may hold
// cells of the families in rng and the time range: those a read opens.
func rangeFiles(s *side, region job.Region, families []string, rng job.KeyRange, o Options) []job.StoreFile {
	var out []job.StoreFile
	for _, f := range s.pinned.Files {
		if f.Region != region.EncodedName || !slices.Contains(families, f.Family) {
			continue
		}
		if f.FirstRow != nil && !rng.OverlapsRows(f.FirstRow, f.LastRow) {
			continue
		}
		if f.HasTime && !o.Time.Overlaps(f.MinTime, f.MaxTime) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// openInput opens one store file for the rows rng and returns its scanner,
// its age among the store's files and whether HBase stamps its cells with
// the file's sequence id (a bulk-loaded file).
func openInput(ctx context.Context, s *side, in snapshot.Input, rng job.KeyRange) (CellIter, storeread.FileAge, bool, func(), error) {
	f, err := s.fs.Open(ctx, in.Path)
	if err != nil {
		return nil, storeread.FileAge{}, false, nil, fmt.Errorf("open %s: %w", in.Path, err)
	}
	size := f.Size()
	ra := fsys.NewReadAhead(ctx, f, size, fsys.ReadAheadOptions{Limiter: s.limiter, Counter: s.read, Name: in.Path})
	closeFn := func() { ra.Stop(); f.Close() }
	r, err := hfile.Open(ra, size, in.Path)
	if err != nil {
		closeFn()
		return nil, storeread.FileAge{}, false, nil, err
	}
	age, bulk := storeread.AgeOf(r.Info(), size, in.Path, in.Reference)
	opts := hfile.ScanOptions{StartRow: nonEmpty(rng.Start), StopRow: nonEmpty(rng.End)}
	if in.Reference != nil {
		half, err := hfile.NewHalfReader(r, in.Reference)
		if err != nil {
			closeFn()
			return nil, storeread.FileAge{}, false, nil, fmt.Errorf("half of %s: %w", in.Path, err)
		}
		return half.Scanner(opts), age, bulk, closeFn, nil
	}
	return r.Scanner(opts), age, bulk, closeFn, nil
}

func nonEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}
