package bulkload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/retry"
)

// File is one finished HFile in the target HDFS, ready to be loaded into one
// family of the target table.
type File struct {
	Family string
	// Path is the file's absolute path in the target HDFS, plain
	// (/a/b) or fully qualified (hdfs://namenode:port/a/b).
	Path string
	// FirstRow and LastRow are the rows of the file's first and last cells.
	// When nil, the Loader reads them from the file; when set, they must
	// match the file.
	FirstRow, LastRow []byte
	// Size, when set with FirstRow and LastRow, is the file's length: the
	// file is described by its writer (a worker's own output), and the
	// Loader takes it as described instead of opening it to check it
	// (unless LoaderConfig.VerifyCells asks for every cell to be checked).
	// A wrong description is refused by the region server, which checks
	// that the file's keys lie in the region.
	Size int64
	// Fence, if set, is asked right before each bulk load request of the
	// file (and of its parts, if it is re-split): an error means the caller
	// may no longer load (ErrFenced, nothing sent); else the returned
	// context carries the request (e.g. with hbase.WithSendBy).
	Fence func(ctx context.Context) (context.Context, error)
}

// ErrFenced reports a load stopped by its File.Fence: nothing was sent.
var ErrFenced = errors.New("bulk load fenced off")

// ErrFileGone reports a file that vanished while the Loader was loading it.
// Most likely a region server loaded it in an attempt whose answer was lost
// (a broken connection, a server that died after the move) and the retry
// found nothing to load; it may also have been moved or removed by someone
// else. Either way the Loader cannot tell whether its cells are in the table:
// load the task's range again from its checkpoint (a repeated load only adds
// identical cells).
var ErrFileGone = errors.New("file gone during its load (loaded by an attempt whose answer was lost, or moved away)")

// errBadFile marks errors about the file itself: loading it again will not
// help.
var errBadFile = errors.New("bad HFile")

// LoadError reports a file that could not be loaded: which file, which
// region (when one was involved), and why.
type LoadError struct {
	File   File
	Region string // region name, or "" when no region was involved
	Reason string
	Err    error
}

// Error names the file, its family and rows, the region and the reason.
func (e *LoadError) Error() string {
	s := fmt.Sprintf("bulk load %s (family %s", e.File.Path, e.File.Family)
	if e.File.FirstRow != nil {
		s += fmt.Sprintf(", rows %q..%q", e.File.FirstRow, e.File.LastRow)
	}
	s += ")"
	if e.Region != "" {
		s += " into region " + e.Region
	}
	s += ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *LoadError) Unwrap() error { return e.Err }

// Counters count a Loader's work, for progress reports. They are safe for
// concurrent use.
type Counters struct {
	Files    atomic.Int64 // files loaded (re-split parts count one each)
	Bytes    atomic.Int64 // bytes of the files loaded
	Retries  atomic.Int64 // attempts repeated after a failure
	Resplits atomic.Int64 // files re-split at new region boundaries
}

// CounterValues is a snapshot of Counters.
type CounterValues struct {
	Files, Bytes, Retries, Resplits int64
}

// Values returns the current counts.
func (c *Counters) Values() CounterValues {
	return CounterValues{Files: c.Files.Load(), Bytes: c.Bytes.Load(), Retries: c.Retries.Load(), Resplits: c.Resplits.Load()}
}

// DefaultRetryFor is LoaderConfig.RetryFor's default.
const DefaultRetryFor = 5 * time.Minute

// LoaderConfig configures a Loader.
type LoaderConfig struct {
	// Client talks to the target cluster.
	Client *hbase.Client
	// FS is the target cluster's HDFS, to read files that must be re-split
	// and to write their parts (next to the file).
	FS fsys.FS
	// Table is the target table.
	Table string
	// Logger receives progress and warnings; default discards.
	Logger *slog.Logger
	// MaxAttempts bounds the failed attempts to load one file (re-splits
	// included); default 30. The context's deadline bounds it too.
	MaxAttempts int
	// RetryFor bounds how long the loads of one file may keep failing in a
	// row; default DefaultRetryFor. Each attempt's calls retry on their own
	// too (the hbase client's attempts), so the attempts alone would let a
	// region that stays offline (stuck in transition, say) hold a load for
	// a quarter of an hour; past RetryFor the load fails, naming the region,
	// and the task with it (resumable).
	RetryFor time.Duration
	// Backoff is the wait between attempts; default 200ms doubling to 5s,
	// each wait cut to a random point of its later half.
	Backoff retry.Backoff
	// ZstdCodec is the target's hbase.io.compress.zstd.codec; empty means
	// HBase's default (ZstdHadoopCodec). The parts of a re-split file are
	// written with the settings SettingsFor gives the table's family (with
	// this codec), and with the tags, MVCC and source task of the file.
	ZstdCodec string
	// VerifyCells reads every cell of a file before loading it and checks
	// that the cells are in order and all of the file's family. The region
	// server checks neither.
	VerifyCells bool
	// Counters receives the counts; default a new set (see Loader.Counters).
	Counters *Counters
}

// Loader bulk loads files into one target table. It is safe for concurrent
// use. Close it to release its bulk load token.
type Loader struct {
	cfg      LoaderConfig
	log      *slog.Logger
	counters *Counters

	mu       sync.Mutex
	regions  []*hbase.Region
	families map[string]bool
	// settings are the output settings of each family, for re-split parts;
	// refused holds why a family has none.
	settings map[string]FamilySettings
	refused  map[string]error
	token    string
	// loading holds a lock per region (by encoded name): one load into a
	// region at a time. A region server flushes the region before each load
	// to give it a sequence id, and a load that finds another's flush running
	// gets none (HRegion.bulkLoadHFiles); a file loaded so keeps the MVCC
	// values of its cells, and those past the region's read point stay
	// hidden from reads until the region reopens.
	loading map[string]*sync.Mutex
}

// NewLoader checks that the table exists and reads its families and regions.
func NewLoader(ctx context.Context, cfg LoaderConfig) (*Loader, error) {
	if cfg.Client == nil || cfg.FS == nil || cfg.Table == "" {
		return nil, errors.New("bulkload: loader needs a client, a file system and a table")
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 30
	}
	if cfg.RetryFor <= 0 {
		cfg.RetryFor = DefaultRetryFor
	}
	if cfg.Backoff.Initial <= 0 {
		cfg.Backoff = retry.Backoff{Initial: 200 * time.Millisecond, Max: 5 * time.Second, Jitter: 0.5}
	}
	l := &Loader{cfg: cfg, log: cfg.Logger, counters: cfg.Counters, loading: map[string]*sync.Mutex{}}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if l.counters == nil {
		l.counters = &Counters{}
	}
	d, err := cfg.Client.TableDescriptor(ctx, cfg.Table)
	if err != nil {
		return nil, fmt.Errorf("bulk load into %s: %w", cfg.Table, err)
	}
	l.families = map[string]bool{}
	l.settings = map[string]FamilySettings{}
	l.refused = map[string]error{}
	for _, f := range d.Families {
		l.families[f.Name] = true
		s, err := SettingsFor(f, cfg.ZstdCodec)
		if err != nil {
			// Such a family's files may still load; they cannot be re-split.
			l.refused[f.Name] = err
			continue
		}
		l.settings[f.Name] = s
	}
	if err := l.refresh(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// Counters returns the Loader's counters.
func (l *Loader) Counters() *Counters { return l.counters }

// refresh re-reads the table's regions from hbase:meta.
func (l *Loader) refresh(ctx context.Context) error {
	regions, err := l.cfg.Client.Regions(ctx, l.cfg.Table)
	if err != nil {
		return fmt.Errorf("bulk load into %s: list regions: %w", l.cfg.Table, err)
	}
	l.mu.Lock()
	l.regions = regions
	l.mu.Unlock()
	return nil
}

// locate returns the regions that hold rows [first, last] in the current
// view.
func (l *Loader) locate(first, last []byte) ([]*hbase.Region, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return regionsFor(l.regions, first, last)
}

// Load loads one file into the table: into the region that holds its rows,
// or, when the file spans several regions (the region split or merged since
// the file was written), as one new file per region, written next to it.
// The file (and every part) is moved into the table by the region server;
// a re-split file is removed once all its parts are loaded.
func (l *Loader) Load(ctx context.Context, f File) error {
	if !l.families[f.Family] {
		return &LoadError{File: f, Reason: "unknown column family of table " + l.cfg.Table,
			Err: &hbase.NotFoundError{Kind: hbase.KindNoSuchColumnFamily, What: "column family", Name: l.cfg.Table + ":" + f.Family}}
	}
	size, err := l.inspect(ctx, &f)
	if err != nil {
		return err
	}
	return l.loadInspected(ctx, f, size)
}

// loadInspected is Load of a file inspect has read (its rows set, size its
// length).
func (l *Loader) loadInspected(ctx context.Context, f File, size int64) error {
	type item struct {
		file File
		size int64
	}
	queue := []item{{f, size}}
	var parents []string // re-split files, removed when all their parts are loaded
	failures, notLoaded := 0, 0
	var failingSince time.Time
	for len(queue) > 0 {
		cur := queue[0]
		regions, err := l.locate(cur.file.FirstRow, cur.file.LastRow)
		var region *hbase.Region
		if err == nil && len(regions) > 1 {
			parts, err := l.resplit(ctx, cur.file, regions)
			if err != nil {
				return &LoadError{File: cur.file, Reason: fmt.Sprintf("re-split at the boundaries of %d regions", len(regions)), Err: err}
			}
			l.counters.Resplits.Add(1)
			l.log.Info("bulkload: re-split file at new region boundaries", "file", cur.file.Path, "regions", len(regions), "parts", len(parts))
			next := make([]item, 0, len(parts)+len(queue)-1)
			for _, p := range parts {
				p.file.Fence = cur.file.Fence
				next = append(next, item{p.file, p.size})
			}
			queue = append(next, queue[1:]...)
			parents = append(parents, cur.file.Path)
			continue
		}
		if err == nil {
			region = regions[0]
			err = l.loadInto(ctx, region, cur.file)
			if err == nil {
				l.counters.Files.Add(1)
				l.counters.Bytes.Add(cur.size)
				queue = queue[1:]
				failures, notLoaded = 0, 0
				failingSince = time.Time{}
				continue
			}
		}
		regionName := ""
		if region != nil {
			regionName = string(region.Name)
		}
		if errors.Is(err, ErrFenced) {
			return &LoadError{File: cur.file, Region: regionName, Reason: "no longer allowed to load", Err: err}
		}
		act := ClassifyLoadError(err)
		failures++
		if failingSince.IsZero() {
			failingSince = time.Now()
		}
		if act == ActionDiagnose {
			notLoaded++
			if reason, cause := l.diagnose(ctx, cur.file); reason != "" {
				return &LoadError{File: cur.file, Region: regionName, Reason: reason, Err: cause}
			}
			if notLoaded >= maxNotLoaded {
				return &LoadError{File: cur.file, Region: regionName, Reason: l.refusedReason(ctx, cur.file, notLoaded), Err: err}
			}
			l.dropToken(ctx) // a staging folder that vanished would refuse every load
		}
		if act == ActionGiveUp {
			return &LoadError{File: cur.file, Region: regionName, Reason: "cannot load", Err: err}
		}
		if failures >= l.cfg.MaxAttempts {
			return &LoadError{File: cur.file, Region: regionName, Reason: fmt.Sprintf("giving up after %d attempts", failures), Err: err}
		}
		if d := time.Since(failingSince); d >= l.cfg.RetryFor {
			return &LoadError{File: cur.file, Region: regionName,
				Reason: fmt.Sprintf("giving up after %d attempts in %s (the region may be offline or stuck in transition)", failures, d.Round(time.Second)), Err: err}
		}
		l.counters.Retries.Add(1)
		l.log.Warn("bulkload: load failed, trying again", "file", cur.file.Path, "region", regionName, "action", act.String(), "attempt", failures, "err", err)
		if err := retry.Sleep(ctx, l.cfg.Backoff.Delay(failures-1)); err != nil {
			return &LoadError{File: cur.file, Region: regionName, Reason: "cancelled while waiting to retry", Err: err}
		}
		if act != ActionRetry {
			if err := l.refresh(ctx); err != nil && ClassifyLoadError(err) == ActionGiveUp {
				return &LoadError{File: cur.file, Region: regionName, Reason: "cannot look up regions", Err: err}
			}
		}
	}
	for _, p := range parents {
		if err := l.cfg.FS.Remove(ctx, fsPath(p)); err != nil {
			l.log.Warn("bulkload: cannot remove a re-split file after loading its parts", "file", p, "err", err)
		}
	}
	return nil
}

// LoadTogether loads files as Load does, except that the files that fall in
// one region go in one request: one flush of the region, one sequence id for
// all of them, and the region's exclusive lock when they are of several
// families (HRegion.bulkLoadHFiles), so the families land together. The files
// must come from one caller: the first file's Fence guards every request.
// A file that spans several regions, a region of a single file, and the
// files of a request that fails (those still in place; a file no longer
// there was moved in by the region server) go through Load one by one.
func (l *Loader) LoadTogether(ctx context.Context, files []File) error {
	if len(files) == 0 {
		return nil
	}
	type group struct {
		region *hbase.Region
		files  []File
		sizes  []int64
	}
	var groups []*group
	byRegion := map[string]*group{}
	alone := &group{} // loaded one by one, each inspected already
	for _, f := range files {
		if !l.families[f.Family] {
			return l.Load(ctx, f) // the error Load gives
		}
		size, err := l.inspect(ctx, &f)
		if err != nil {
			return err
		}
		regions, err := l.locate(f.FirstRow, f.LastRow)
		if err != nil || len(regions) != 1 {
			alone.files, alone.sizes = append(alone.files, f), append(alone.sizes, size)
			continue
		}
		g := byRegion[regions[0].EncodedName]
		if g == nil {
			g = &group{region: regions[0]}
			byRegion[regions[0].EncodedName] = g
			groups = append(groups, g)
		}
		g.files, g.sizes = append(g.files, f), append(g.sizes, size)
	}
	fence := files[0].Fence
	for _, g := range groups {
		if len(g.files) == 1 {
			alone.files, alone.sizes = append(alone.files, g.files[0]), append(alone.sizes, g.sizes[0])
			continue
		}
		err := l.loadGroup(ctx, g.region, g.files, fence)
		if err == nil {
			for _, s := range g.sizes {
				l.counters.Files.Add(1)
				l.counters.Bytes.Add(s)
			}
			continue
		}
		if errors.Is(err, ErrFenced) {
			return &LoadError{File: g.files[0], Region: string(g.region.Name), Reason: "no longer allowed to load", Err: err}
		}
		l.log.Warn("bulkload: loading a region's files together failed; loading them one by one", "region", string(g.region.Name), "files", len(g.files), "err", err)
		for i, f := range g.files {
			if _, serr := l.cfg.FS.Stat(ctx, fsPath(f.Path)); errors.Is(serr, fs.ErrNotExist) {
				l.counters.Files.Add(1) // moved into the region by the failed request
				l.counters.Bytes.Add(g.sizes[i])
				continue
			}
			alone.files, alone.sizes = append(alone.files, f), append(alone.sizes, g.sizes[i])
		}
	}
	for i, f := range alone.files {
		if err := l.loadInspected(ctx, f, alone.sizes[i]); err != nil {
			return err
		}
	}
	return nil
}

// loadGroup loads files, all inside region r, in one request with the
// Loader's bulk load token, fenced by fence.
func (l *Loader) loadGroup(ctx context.Context, r *hbase.Region, files []File, fence func(context.Context) (context.Context, error)) error {
	bf := make([]hbase.BulkLoadFile, len(files))
	for i, f := range files {
		bf[i] = hbase.BulkLoadFile{Family: f.Family, Path: f.Path, FirstRow: f.FirstRow, LastRow: f.LastRow}
	}
	if err := hbase.CheckBulkLoadFiles(r, bf); err != nil {
		return &errStaleRegion{msg: err.Error()}
	}
	token, err := l.tokenFor(ctx, r)
	if err != nil {
		return err
	}
	// The lock first: the fence's window is for sending the request.
	unlock := l.lockRegion(r.EncodedName)
	defer unlock()
	if fence != nil {
		fctx, err := fence(ctx)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrFenced, err)
		}
		ctx = fctx
	}
	return l.cfg.Client.BulkLoadHFiles(ctx, r, token, bf, hbase.BulkLoadOptions{})
}

// maxNotLoaded is how many times in a row a region server may answer
// loaded=false for a file, without a cause the Loader can find, before the
// Loader gives up on it.
const maxNotLoaded = 3

// refusedReason describes a file the region server keeps refusing, with the
// facts that most often explain it.
func (l *Loader) refusedReason(ctx context.Context, f File, times int) string {
	reason := fmt.Sprintf("region server refused the file %d times (loaded=false), with the table, family, file and region all fine as far as the client can tell", times)
	if fi, err := l.cfg.FS.Stat(ctx, fsPath(f.Path)); err == nil {
		if owner, group, ok := fsys.Owner(fi); ok {
			reason += fmt.Sprintf("; the file is owned by %s:%s with mode %v and the bulk load's user must be able to read and write it", owner, group, fi.Mode().Perm())
		}
	}
	return reason + "; the region server's log has the cause"
}

// loadInto loads f into region r with the Loader's bulk load token.
func (l *Loader) loadInto(ctx context.Context, r *hbase.Region, f File) error {
	return l.loadGroup(ctx, r, []File{f}, f.Fence)
}

// lockRegion takes the Loader's lock of one region (Loader.loading) and
// returns its release.
func (l *Loader) lockRegion(encoded string) func() {
	l.mu.Lock()
	m := l.loading[encoded]
	if m == nil {
		m = &sync.Mutex{}
		l.loading[encoded] = m
	}
	l.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// tokenFor returns the Loader's bulk load token, asking region r's server
// for one the first time. HBase's token is a staging folder for the table in
// the cluster's HDFS, usable through any region server, as
// BulkLoadHFilesTool uses it.
func (l *Loader) tokenFor(ctx context.Context, r *hbase.Region) (string, error) {
	l.mu.Lock()
	token := l.token
	l.mu.Unlock()
	if token != "" {
		return token, nil
	}
	token, err := l.cfg.Client.PrepareBulkLoad(ctx, r)
	if err != nil {
		return "", fmt.Errorf("prepare bulk load into %s: %w", l.cfg.Table, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.token == "" {
		l.token = token
		return token, nil
	}
	// Another goroutine was faster: use its token, release ours.
	mine := token
	token = l.token
	l.mu.Unlock()
	l.cleanup(context.WithoutCancel(ctx), r, mine)
	l.mu.Lock()
	return token, nil
}

// dropToken releases the current token so the next load prepares a new one.
func (l *Loader) dropToken(ctx context.Context) {
	l.mu.Lock()
	token := l.token
	l.token = ""
	var r *hbase.Region
	if len(l.regions) > 0 {
		r = l.regions[0]
	}
	l.mu.Unlock()
	if token != "" && r != nil {
		l.cleanup(ctx, r, token)
	}
}

func (l *Loader) cleanup(ctx context.Context, r *hbase.Region, token string) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := l.cfg.Client.CleanupBulkLoad(ctx, r, token); err != nil {
		l.log.Warn("bulkload: cannot release bulk load token", "table", l.cfg.Table, "token", token, "err", err)
	}
}

// Close releases the bulk load token (HBase deletes its staging folder).
func (l *Loader) Close(ctx context.Context) error {
	l.mu.Lock()
	token := l.token
	l.token = ""
	regions := l.regions
	l.mu.Unlock()
	if token == "" {
		return nil
	}
	err := errors.New("no open region")
	for _, r := range regions {
		if r.Server.IsZero() {
			continue
		}
		if err = l.cfg.Client.CleanupBulkLoad(ctx, r, token); err == nil {
			return nil
		}
	}
	return fmt.Errorf("release bulk load token %s of %s: %w", token, l.cfg.Table, err)
}

// diagnose looks for the cause of loaded=false that makes trying again
// useless: a family that no longer exists, a file that is gone or no longer
// readable. It returns "" when it finds none (the region may have split).
func (l *Loader) diagnose(ctx context.Context, f File) (string, error) {
	d, err := l.cfg.Client.TableDescriptor(ctx, l.cfg.Table)
	if err != nil {
		if ClassifyLoadError(err) == ActionGiveUp {
			return "table gone", err
		}
		return "", nil
	}
	if d.Family(f.Family) == nil {
		return "region server refused the file: family no longer in the table",
			&hbase.NotFoundError{Kind: hbase.KindNoSuchColumnFamily, What: "column family", Name: l.cfg.Table + ":" + f.Family}
	}
	g := f
	if _, err := l.inspect(ctx, &g); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "the file is gone", fmt.Errorf("%w: %w", ErrFileGone, err)
		}
		return "region server refused the file, and it is no longer what was written", err
	}
	return "", nil
}

// inspect opens f, checks that it is a readable HFile whose rows are those
// f claims (filling them in when f has none), optionally checks every cell,
// and returns its size. A file its writer described (File.Size) is not
// opened.
func (l *Loader) inspect(ctx context.Context, f *File) (int64, error) {
	bad := func(reason string, err error) error {
		return &LoadError{File: *f, Reason: reason, Err: fmt.Errorf("%w: %w", errBadFile, err)}
	}
	if err := ctx.Err(); err != nil {
		return 0, &LoadError{File: *f, Reason: "cancelled", Err: err}
	}
	if f.Size > 0 && f.FirstRow != nil && f.LastRow != nil && !l.cfg.VerifyCells {
		if bytes.Compare(f.FirstRow, f.LastRow) > 0 {
			return 0, bad("rows out of order", fmt.Errorf("first row %q sorts after last row %q", f.FirstRow, f.LastRow))
		}
		return f.Size, nil
	}
	fr, err := l.cfg.FS.Open(ctx, fsPath(f.Path))
	if err != nil {
		return 0, bad("cannot open", err)
	}
	defer fr.Close()
	size := fr.Size()
	ra := fsys.NewReadAhead(ctx, fr, size, fsys.ReadAheadOptions{Name: f.Path})
	defer ra.Stop()
	r, err := hfile.Open(ra, size, f.Path)
	if err != nil {
		return 0, bad("not a readable HFile", err)
	}
	first, last := r.FirstKey(), r.LastKey()
	if first == nil || last == nil || r.EntryCount() == 0 {
		return 0, bad("empty HFile", errors.New("no cells"))
	}
	if f.FirstRow == nil && f.LastRow == nil {
		f.FirstRow, f.LastRow = bytes.Clone(first.Row), bytes.Clone(last.Row)
	} else if !bytes.Equal(f.FirstRow, first.Row) || !bytes.Equal(f.LastRow, last.Row) {
		return 0, bad("rows differ from the file's", fmt.Errorf("file holds rows %q..%q", first.Row, last.Row))
	}
	if !bytes.Equal(first.Family, []byte(f.Family)) {
		return 0, bad("family differs from the file's", fmt.Errorf("file's cells are of family %q", first.Family))
	}
	if bytes.Compare(first.Row, last.Row) > 0 {
		return 0, bad("rows out of order", fmt.Errorf("first row %q sorts after last row %q", first.Row, last.Row))
	}
	if l.cfg.VerifyCells {
		if err := verifyCells(ctx, r, f.Family); err != nil {
			return 0, bad("cells do not verify", err)
		}
	}
	return size, nil
}

// verifyCells scans every cell of r and checks that they come in key order,
// all of one family, and that the file's first and last keys are right.
func verifyCells(ctx context.Context, r *hfile.Reader, family string) error {
	sc := r.Scanner(hfile.ScanOptions{})
	var prev *hfile.Cell
	var n uint64
	for sc.Next() {
		c := sc.Cell()
		if !bytes.Equal(c.Family, []byte(family)) {
			return fmt.Errorf("cell %d (%s) is of family %q", n, c, c.Family)
		}
		if prev != nil && hfile.CompareKeys(prev, c) > 0 {
			return fmt.Errorf("cell %d (%s) sorts before the cell ahead of it (%s)", n, c, prev)
		}
		prev = c.Clone()
		n++
		if n%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if n != r.EntryCount() {
		return fmt.Errorf("%d cells, the trailer says %d", n, r.EntryCount())
	}
	if last := r.LastKey(); prev == nil || last == nil || hfile.CompareKeys(prev, last) != 0 {
		return fmt.Errorf("last cell %v is not the file's last key %s", prev, r.LastKey())
	}
	return nil
}

type part struct {
	file File
	size int64
}

// resplit writes one new file per region with the cells of f inside that
// region, next to f, with the same writer settings. Regions without cells get
// no file.
func (l *Loader) resplit(ctx context.Context, f File, regions []*hbase.Region) (parts []part, err error) {
	fr, err := l.cfg.FS.Open(ctx, fsPath(f.Path))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", f.Path, err)
	}
	defer fr.Close()
	ra := fsys.NewReadAhead(ctx, fr, fr.Size(), fsys.ReadAheadOptions{Name: f.Path})
	defer ra.Stop()
	r, err := hfile.Open(ra, fr.Size(), f.Path)
	if err != nil {
		return nil, err
	}
	opts, err := l.partOptions(f.Family, r)
	if err != nil {
		return nil, fmt.Errorf("re-split %s: %w", f.Path, err)
	}
	defer func() {
		if err != nil {
			for _, p := range parts {
				_ = l.cfg.FS.Remove(context.WithoutCancel(ctx), p.file.Path)
			}
			parts = nil
		}
	}()
	for _, reg := range regions {
		p, err := l.writePart(ctx, r, f, reg, opts)
		if err != nil {
			return parts, fmt.Errorf("part for region %s: %w", reg, err)
		}
		if p != nil {
			parts = append(parts, *p)
		}
	}
	return parts, nil
}

// partOptions returns the writer settings for the parts of r, a file of
// family: the family's settings, and what r's cells carry (tags, MVCC) and
// its source task.
func (l *Loader) partOptions(family string, r *hfile.Reader) (hfile.WriterOptions, error) {
	if err := l.refused[family]; err != nil {
		return hfile.WriterOptions{}, err
	}
	s, ok := l.settings[family]
	if !ok {
		return hfile.WriterOptions{}, fmt.Errorf("table %s has no family %s", l.cfg.Table, family)
	}
	of := WriterOptionsOf(r)
	o := s.WriterOptions(of.IncludeTags, string(r.Info().Raw[hfile.FileInfoBulkLoadSourceTask]))
	o.IncludeMVCC = of.IncludeMVCC
	return o, nil
}

// writePart writes the cells of r inside region reg into a new file next to
// f; it returns nil (and leaves no file) when there are none.
func (l *Loader) writePart(ctx context.Context, r *hfile.Reader, f File, reg *hbase.Region, opts hfile.WriterOptions) (*part, error) {
	so := hfile.ScanOptions{}
	if len(reg.StartKey) > 0 {
		so.StartRow = reg.StartKey
	}
	if len(reg.EndKey) > 0 {
		so.StopRow = reg.EndKey
	}
	w, err := CreateHFile(ctx, l.cfg.FS, path.Dir(fsPath(f.Path)), opts, fsys.CreateOptions{Perm: DefaultFilePerm})
	if err != nil {
		return nil, err
	}
	defer w.Abort(ctx)
	sc := r.Scanner(so)
	var first, last []byte
	n := 0
	for sc.Next() {
		c := sc.Cell()
		if first == nil {
			first = bytes.Clone(c.Row)
		}
		last = append(last[:0], c.Row...)
		if err := w.Append(c); err != nil {
			return nil, err
		}
		n++
		if n%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("write %s: %w", w.Path(), err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("write %s: read %s: %w", w.Path(), f.Path, err)
	}
	if n == 0 {
		return nil, nil
	}
	if err := w.Close(ctx); err != nil {
		return nil, err
	}
	return &part{file: File{Family: f.Family, Path: w.Path(), FirstRow: first, LastRow: bytes.Clone(last)}, size: w.Written()}, nil
}

// WriterOptionsOf returns writer settings that reproduce the file behind r:
// its compression, data block encoding, tags, MVCC and bloom type. What a
// file does not record (block size, checksum chunk, ZSTD framing) is left at
// the writer's defaults.
func WriterOptionsOf(r *hfile.Reader) hfile.WriterOptions {
	info := r.Info()
	o := hfile.WriterOptions{
		Compression: r.Trailer().Compression,
		Encoding:    info.Encoding,
		IncludeTags: info.IncludesTags,
		IncludeMVCC: info.IncludesMVCC,
	}
	if info.BloomType == hfile.BloomRow || info.BloomType == hfile.BloomRowCol {
		o.Bloom = info.BloomType
	}
	return o
}

// fsPath strips the scheme and authority of a fully qualified HDFS path:
// the HDFS client names files by their path alone.
func fsPath(p string) string {
	if u, err := url.Parse(p); err == nil && u.Scheme != "" {
		return u.Path
	}
	return p
}
