package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"sync"
	"sync/atomic"

	"rangecopy/checkpoint"
	"rangecopy/fsys"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/memory"
	"rangecopy/storeread"
)

// DefaultMaxFileBytes is the default size cap of an output file.
const DefaultMaxFileBytes int64 = 1 << 30

// Task is everything one run of a task needs to know.
type Task struct {
	// Task is the planned task: its id and key range (Files is not read;
	// Inputs says how to open them).
	Task job.Task
	// Inputs are the task's input files, every family.
	Inputs []Input
	// Time is the job's time range; the zero value means every timestamp
	// (as in job.Spec).
	Time job.TimeRange
	// Regions are the target table's regions in key order, as seen when the
	// task starts; they must cover the task's range.
	Regions []job.Region
	// Families are the families to copy with the target's settings for each.
	// Every input's family must be listed.
	Families map[string]FamilySettings
	// Checkpoint is the task's progress so far.
	Checkpoint checkpoint.Checkpoint
	// OutputDir is the folder on the target that receives the output files,
	// in a subfolder per family.
	OutputDir string
}

// Options are how a task runs.
type Options struct {
	// Source opens input files; Target receives output files. Required.
	// When both are fsys.Checksummers, fast-path copies are verified by
	// comparing the file checksums they compute where the files are stored.
	Source fsys.Reader
	Target fsys.FS
	// Limiter, if set, limits the bytes read from the source.
	Limiter fsys.Limiter
	// Counters, if set, receives progress.
	Counters *Counters
	// Logger receives a line per output file; nil discards.
	Logger *slog.Logger
	// MaxFileBytes caps an output file: it ends at the first row boundary
	// once the writer has written the cap (so a file may exceed it by about
	// a block and a row); 0 means DefaultMaxFileBytes.
	MaxFileBytes int64
	// ReadAhead caps the read-ahead chunk size; 0 means fsys.DefaultReadAhead.
	// The memory plan may choose less.
	ReadAhead int
	// Memory is the worker's memory budget, shared by every task it runs at
	// once; nil means a budget of memory.Default for this task alone.
	Memory *memory.Budget
	// MemorySlots is how many tasks share Memory at once: each plans its
	// buffers in Memory's share for one slot; 0 means 1.
	MemorySlots int
	// NoFastPath decodes every file.
	NoFastPath bool
	// ParallelFamilies lets a small task (SmallTaskBytes of input at most, every family's
	// buffers planned within an equal part of the slot's share) copy its families at once
	// rather than one after the other: a catch-up window's tasks are a few small files per
	// family, whose time is the round trips of writing and loading them. emit is then
	// called from one goroutine per family (in key order within each) and must be safe for
	// that.
	ParallelFamilies bool
}

// SmallTaskBytes bounds the estimated input of a task whose families are copied at once
// (Options.ParallelFamilies).
const SmallTaskBytes = 32 << 20

// TogetherTaskBytes bounds the estimated input of a task whose files are
// loaded together once all are written (worker.Serve), rather than one by
// one as each is written with a checkpoint after each: at the copy's usual
// 100 MB/s, writing 4 MiB again after a stop costs about one bulk load round
// trip, which loading together saves per region.
const TogetherTaskBytes = 4 << 20

// Run copies the task: for each family in name order (or all at once, see
// Options.ParallelFamilies) that the checkpoint does not mark done, it merges
// the family's inputs from the resume row on and writes output files into OutputDir/<family>/, calling emit for each in key
// order and once more with Last set at the end of the family. Run returns
// when every family is done, or at the first error (output files of the
// failed family that were not emitted are removed).
func Run(ctx context.Context, t Task, o Options, emit EmitFunc) error {
	if o.Source == nil || o.Target == nil || emit == nil {
		return errors.New("worker: Run needs a source, a target and an emit function")
	}
	if o.Counters == nil {
		o.Counters = new(Counters)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if t.Time == (job.TimeRange{}) {
		t.Time = job.AllTime()
	}
	if o.Memory == nil {
		o.Memory = memory.New(memory.Default)
	}
	if err := checkRegions(t.Regions, t.Task.Rows); err != nil {
		return fmt.Errorf("task %s: %w", t.Task.ID, err)
	}
	byFamily := map[string][]Input{}
	for _, in := range t.Inputs {
		if _, ok := t.Families[in.File.Family]; !ok {
			return fmt.Errorf("task %s: input %s of family %q: the family has no target settings", t.Task.ID, in.Path, in.File.Family)
		}
		byFamily[in.File.Family] = append(byFamily[in.File.Family], in)
	}
	families := make([]string, 0, len(t.Families))
	for f := range t.Families {
		families = append(families, f)
	}
	slices.Sort(families)
	share := o.Memory.Share(o.MemorySlots)
	var runs []*familyRun
	for _, fam := range families {
		resume, ok := t.Checkpoint.ResumeFrom(t.Task.Rows.Start, fam)
		if !ok {
			continue
		}
		runs = append(runs, &familyRun{t: &t, o: &o, family: fam, settings: t.Families[fam], resume: resume, emit: emit, share: share})
	}
	if o.ParallelFamilies && parallelFamilies(t.Task.Bytes, runs, byFamily, share) {
		return runFamiliesAtOnce(ctx, t.Task.ID, runs, byFamily, share/int64(len(runs)))
	}
	for _, fr := range runs {
		if err := fr.run(ctx, byFamily[fr.family]); err != nil {
			return fmt.Errorf("task %s family %s: %w", t.Task.ID, fr.family, err)
		}
	}
	return nil
}

// parallelFamilies decides whether a task's families run at once: more than one to run,
// the task small (SmallTaskBytes of estimated input at most), and every family's buffers
// planned within an equal part of share, so that together they hold no more of the budget
// than one family at a time would.
func parallelFamilies(taskBytes int64, runs []*familyRun, byFamily map[string][]Input, share int64) bool {
	if len(runs) < 2 || taskBytes > SmallTaskBytes {
		return false
	}
	part := share / int64(len(runs))
	for _, fr := range runs {
		if _, err := memory.PlanTask(part, len(byFamily[fr.family]), 0, fr.settings.BlockSize); err != nil {
			return false
		}
	}
	return true
}

// runFamiliesAtOnce runs every family of runs in a goroutine of its own, each planned in
// part of the share; the first error cancels the others and is returned.
func runFamiliesAtOnce(ctx context.Context, task string, runs []*familyRun, byFamily map[string][]Input, part int64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for _, fr := range runs {
		fr.share = part
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fr.run(ctx, byFamily[fr.family]); err != nil {
				mu.Lock()
				if first == nil {
					first = fmt.Errorf("task %s family %s: %w", task, fr.family, err)
				}
				mu.Unlock()
				cancel()
			}
		}()
	}
	wg.Wait()
	return first
}

// checkRegions checks that regions are in key order without gaps and cover
// the task's rows.
func checkRegions(regions []job.Region, rows job.KeyRange) error {
	if len(regions) == 0 {
		return errors.New("no target regions")
	}
	for i := 1; i < len(regions); i++ {
		if !bytes.Equal(regions[i-1].Rows.End, regions[i].Rows.Start) || len(regions[i-1].Rows.End) == 0 {
			return fmt.Errorf("target regions %s %s and %s %s are not adjacent", regions[i-1].EncodedName, regions[i-1].Rows, regions[i].EncodedName, regions[i].Rows)
		}
	}
	all := job.KeyRange{Start: regions[0].Rows.Start, End: regions[len(regions)-1].Rows.End}
	if !all.Covers(rows) {
		return fmt.Errorf("target regions %s do not cover the task's rows %s", all, rows)
	}
	return nil
}

// familyRun is the copy of one family.
type familyRun struct {
	t        *Task
	o        *Options
	family   string
	settings FamilySettings
	resume   []byte
	emit     EmitFunc
	// share is the part of the budget the family plans its buffers in.
	share int64
	// plan sizes the family's buffers; mem accounts for what grows past it.
	plan memory.Plan
	mem  *taskMemory
}

// scanOptions is the scan of every input: from the resume row (or the
// task's start) to the task's end.
func (fr *familyRun) scanOptions() hfile.ScanOptions {
	start := fr.resume
	if bytes.Compare(start, fr.t.Task.Rows.Start) < 0 {
		start = fr.t.Task.Rows.Start
	}
	return hfile.ScanOptions{StartRow: start, StopRow: fr.t.Task.Rows.End}
}

// taskMemory is what a family's buffers took from the budget beyond its
// plan: blocks and batches of cells larger than planned, an output writer's
// blocks for such cells. It is released when the family ends.
type taskMemory struct {
	b     *memory.Budget
	extra atomic.Int64
}

func (m *taskMemory) grow(n int64) error {
	if err := m.b.Reserve(n); err != nil {
		return err
	}
	m.extra.Add(n)
	return nil
}

func (m *taskMemory) shrink(n int64) {
	m.b.Release(n)
	m.extra.Add(-n)
}

// reserveBlocks returns a scanner's ScanOptions.Reserve: growth within the
// plan's block buffers is free, beyond them it is taken from the budget.
func (m *taskMemory) reserveBlocks(planned int) func(int) error {
	free := planned
	return func(n int) error {
		take := min(free, n)
		free -= take
		return m.grow(int64(n - take))
	}
}

// run copies one family, step by step: it plans and reserves the family's
// buffers, opens its inputs, chooses each one's path (copied whole or
// decoded), reads and merges the decoded ones, and writes the merged cells
// with the copied files among them in key order, emitting each output file.
func (fr *familyRun) run(ctx context.Context, inputs []Input) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := fr.reserve(len(inputs)); err != nil {
		return err
	}
	defer fr.release()
	ops, err := fr.openInputs(ctx, inputs)
	defer func() {
		cancel()
		for _, op := range ops {
			op.close()
		}
	}()
	if err != nil {
		return err
	}
	fast, slow := fr.choosePaths(ops)
	dir := path.Join(fr.t.OutputDir, fr.family)
	if err := fr.o.Target.MkdirAll(ctx, dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	rd := fr.readInputs(ctx, cancel, slow)
	out := &outputs{fr: fr, dir: dir, fast: fast, wopts: fr.settings.WriterOptions(rd.includeTags, fr.t.Task.ID)}
	defer out.abort(ctx)
	err = out.write(ctx, rd.merged)
	cancel()
	return rd.end(err)
}

// reserve plans the family's buffers for its n inputs in its share of the
// budget and reserves them; release gives back what reserve and the
// family's growth past the plan took.
func (fr *familyRun) reserve(n int) error {
	var err error
	if fr.plan, err = memory.PlanTask(fr.share, n, 0, fr.settings.BlockSize); err != nil {
		return err
	}
	if fr.o.ReadAhead > 0 {
		fr.plan.ReadAhead = min(fr.plan.ReadAhead, fr.o.ReadAhead)
	}
	if err := fr.o.Memory.Reserve(fr.plan.Total); err != nil {
		return fmt.Errorf("%d input files: %w", n, err)
	}
	fr.mem = &taskMemory{b: fr.o.Memory}
	return nil
}

func (fr *familyRun) release() {
	fr.o.Memory.Release(fr.plan.Total)
	fr.o.Memory.Release(fr.mem.extra.Load())
}

// opened is an input file, open.
type opened struct {
	in    Input
	file  fsys.File
	ra    *fsys.ReadAhead
	r     *hfile.Reader
	half  *hfile.HalfReader
	facts fileFacts
	age   storeread.FileAge
	// bulk says HBase treats the file as bulk loaded: its cells carry the
	// file's sequence id (HStoreFile.isBulkLoadResult).
	bulk bool
}

// openInputs opens the family's inputs; on an error it returns those it
// opened before it, for the caller to close.
func (fr *familyRun) openInputs(ctx context.Context, inputs []Input) ([]*opened, error) {
	ops := make([]*opened, 0, len(inputs))
	for _, in := range inputs {
		op, err := fr.open(ctx, in)
		if err != nil {
			return ops, err
		}
		ops = append(ops, op)
	}
	return ops, nil
}

func (fr *familyRun) open(ctx context.Context, in Input) (*opened, error) {
	f, err := fr.o.Source.Open(ctx, in.Path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", in.Path, err)
	}
	size := f.Size()
	op := &opened{in: in, file: f}
	op.ra = fsys.NewReadAhead(ctx, f, size, fsys.ReadAheadOptions{Chunk: fr.plan.ReadAhead, Limiter: fr.o.Limiter, Counter: &fr.o.Counters.BytesRead, Name: in.Path})
	// Until the scan's extent is known every read reads what it asks: the
	// trailer, the load-on-open section, index blocks.
	op.ra.SetWindow(0, 0)
	if op.r, err = hfile.Open(op.ra, size, in.Path); err != nil {
		op.close()
		return nil, err
	}
	info := op.r.Info()
	op.facts = fileFacts{Reference: in.Reference != nil, HasTime: info.HasTimeRange, MinTime: info.TimeRangeMin, MaxTime: info.TimeRangeMax,
		NeedsSeqID: needsSeqID(info)}
	op.age, op.bulk = storeread.AgeOf(info, size, in.Path, in.Reference)
	var first, last *hfile.Cell
	if in.Reference != nil {
		if op.half, err = hfile.NewHalfReader(op.r, in.Reference); err != nil {
			op.close()
			return nil, fmt.Errorf("half of %s: %w", in.Path, err)
		}
		if first, err = op.half.FirstKey(); err == nil {
			last, err = op.half.LastKey()
		}
		if err != nil {
			op.close()
			return nil, fmt.Errorf("half of %s: %w", in.Path, err)
		}
	} else {
		first, last = op.r.FirstKey(), op.r.LastKey()
	}
	if first != nil && last != nil {
		op.facts.FirstRow = slices.Clone(first.Row)
		op.facts.LastRow = slices.Clone(last.Row)
	}
	// Read ahead only over the data blocks the task's rows need.
	var ext hfile.Extent
	if op.half != nil {
		ext, err = op.half.Extent(fr.scanOptions())
	} else {
		ext, err = op.r.Extent(fr.scanOptions())
	}
	if err != nil {
		op.close()
		return nil, err
	}
	op.ra.SetWindow(ext.From, ext.To)
	return op, nil
}

func (op *opened) close() {
	op.ra.Stop()
	op.file.Close()
}

// choosePaths splits the family's inputs by the fast-path rule: fast are
// copied whole, in the order of their first rows; slow are decoded, newest
// first (storeread.CompareAge). An empty input is neither.
func (fr *familyRun) choosePaths(ops []*opened) (fast, slow []*opened) {
	facts := make([]fileFacts, len(ops))
	for i, op := range ops {
		facts[i] = op.facts
	}
	var rules []FastPathRule
	if !fr.o.NoFastPath {
		rules = fastPathDecisions(facts, fr.t.Task.Rows, fr.resume, fr.t.Time, fr.t.Regions)
	}
	for i, op := range ops {
		rule := FastPathDisabled
		if rules != nil {
			rule = rules[i]
		}
		fr.o.Logger.Debug("input", "family", fr.family, "file", op.in.Path, "path", rule.String())
		if rule == FastPathOK {
			op.ra.Stop() // its bytes are copied, not decoded: free the buffers
			fast = append(fast, op)
		} else if op.facts.FirstRow != nil {
			slow = append(slow, op)
		}
	}
	slices.SortFunc(fast, func(a, b *opened) int { return bytes.Compare(a.facts.FirstRow, b.facts.FirstRow) })
	// Newest first: rank 0 wins identical keys.
	slices.SortFunc(slow, func(a, b *opened) int { return storeread.CompareAge(b.age, a.age) })
	return fast, slow
}

// reading is the decoded inputs of a family, each scanned into batches by
// a goroutine of its own, and their merge.
type reading struct {
	srcs   []*source
	merged *storeread.Merged
	// includeTags says an input's cells carry tags.
	includeTags bool
	wg          sync.WaitGroup
}

// readInputs starts scanning the slow inputs (newest first) and returns
// their merge; an input that fails cancels the family's ctx.
func (fr *familyRun) readInputs(ctx context.Context, cancel context.CancelFunc, slow []*opened) *reading {
	rd := &reading{srcs: make([]*source, len(slow))}
	inputs := make([]*storeread.Input, len(slow))
	for i, op := range slow {
		rd.includeTags = rd.includeTags || op.r.Info().IncludesTags
		s := &source{ctx: ctx, name: op.in.Path, out: make(chan *batch, 1), free: make(chan *batch, memory.Batches)}
		for range memory.Batches {
			s.free <- &batch{buf: make([]byte, 0, fr.plan.Batch), size: fr.plan.Batch, mem: fr.mem}
		}
		rd.srcs[i] = s
		// The source's errors name the file already.
		inputs[i] = &storeread.Input{Cells: s, Rank: i, Stamped: op.bulk, Stamp: op.age.Stamp()}
		opts := fr.scanOptions()
		opts.Reserve = fr.mem.reserveBlocks(memory.BlockBuffers * memory.DefaultBlock)
		var sc storeread.CellIter
		if op.half != nil {
			sc = op.half.Scanner(opts)
		} else {
			sc = op.r.Scanner(opts)
		}
		rd.wg.Add(1)
		go func() {
			defer rd.wg.Done()
			runInput(ctx, sc, fr.t.Time, s, fr.o.Counters)
			if s.err != nil {
				cancel()
			}
		}()
	}
	rd.merged = storeread.NewMerged(inputs)
	return rd
}

// end waits for the input goroutines (the caller has cancelled them) and
// returns the error that explains the family's end: an input's own error
// explains a cancelled merge better than err.
func (rd *reading) end(err error) error {
	rd.wg.Wait()
	for _, s := range rd.srcs {
		if s.err != nil && !errors.Is(s.err, context.Canceled) {
			return s.err
		}
	}
	return err
}
