package job

import (
	"bytes"
	"fmt"
	"sort"
)

// DefaultTaskBytes is the input size a task aims at when PlanOptions leaves it
// unset: big enough that per-task overhead is small, small enough that four
// workers on a skewed table finish close together.
const DefaultTaskBytes int64 = 512 << 20

// Region is a region of the pinned source table.
type Region struct {
	// EncodedName is the region's encoded name, as in its folder name.
	EncodedName string
	// Rows is [start key, end key) of the region.
	Rows KeyRange
}

// IndexEntry is one entry of an HFile's data block index: the row of the first
// cell of a block and where the block starts in the file.
type IndexEntry struct {
	Row    []byte
	Offset int64
}

// StoreFile is an input file of a region, as the snapshot manifest names it,
// with what its trailer and file info say.
type StoreFile struct {
	// Region is the encoded name of the region whose store holds the file.
	Region string
	// Family is the column family.
	Family string
	// Name is the file's name in the manifest (a plain HFile, an HFileLink or
	// a reference); the worker resolves it.
	Name string
	// Size is the file's length in bytes.
	Size int64
	// FirstRow and LastRow are the rows of the file's first and last cells
	// (inclusive); nil means not known, and the file is taken to span its
	// region.
	FirstRow, LastRow []byte
	// HasTime says whether MinTime and MaxTime (inclusive, the file info's
	// TIMERANGE) are known; without them the file is never pruned by time.
	HasTime          bool
	MinTime, MaxTime int64
	// Index is the file's data block index (or a sample of it) in key order;
	// it places task cuts and estimates the bytes of a partial range.
	Index []IndexEntry
}

// PruneReason says why a file was left out of a plan unread.
type PruneReason int

// Reasons a file is pruned.
const (
	// PrunedByTime: the file's TIMERANGE lies outside the job's time range.
	PrunedByTime PruneReason = iota + 1
	// PrunedByRows: the file's rows lie outside the job's row range.
	PrunedByRows
)

// String names the reason.
func (r PruneReason) String() string {
	switch r {
	case PrunedByTime:
		return "outside the time range"
	case PrunedByRows:
		return "outside the row range"
	}
	return fmt.Sprintf("PruneReason(%d)", int(r))
}

// Pruned is a file that a plan leaves out unread.
type Pruned struct {
	File   StoreFile
	Reason PruneReason
}

// Task is one unit of work: a part of one source region's key range and the
// store files to read for it.
type Task struct {
	// ID is unique within the job: the region's encoded name and a sequence.
	ID string
	// Region is the encoded name of the source region.
	Region string
	// Rows is the task's key range, inside the region and the job's range.
	Rows KeyRange
	// Files are the inputs, ordered by family then name.
	Files []StoreFile
	// Bytes is the estimated input bytes within Rows.
	Bytes int64
}

// PlanOptions tune planning.
type PlanOptions struct {
	// TaskBytes is the input size a task aims at; a region with 1.5× that
	// input in range or more is cut into several tasks. Zero means DefaultTaskBytes, or
	// less for a small job when Slots is set (see AutoTaskBytes).
	TaskBytes int64
	// Slots is how many tasks will run at once (the workers' capacity);
	// with TaskBytes zero it lowers the task size of a small job so that
	// every slot gets several tasks and none is left with a long tail.
	Slots int
	// SkipEmpty leaves out the regions (or pieces of them) that no input file can hold a
	// wanted cell of: such a task would read nothing and load nothing. A catch-up window
	// whose files are all pruned by time is then a job of no tasks, done once planned.
	SkipEmpty bool
}

// TasksPerSlot and MinAutoTaskBytes bound AutoTaskBytes.
const (
	TasksPerSlot     = 4
	MinAutoTaskBytes = 64 << 20
)

// AutoTaskBytes is the task size of a job of total input bytes run by slots
// tasks at once: total over slots × TasksPerSlot, within [MinAutoTaskBytes,
// DefaultTaskBytes]. Taking tasks as they come, a slot finishes at most one
// task's time after the ideal (total over slots), so TasksPerSlot tasks per
// slot keep the tail within a quarter of the ideal time.
func AutoTaskBytes(total int64, slots int) int64 {
	if slots <= 0 {
		return DefaultTaskBytes
	}
	return min(max(total/int64(slots*TasksPerSlot), MinAutoTaskBytes), DefaultTaskBytes)
}

// Plan is a job planned into tasks.
type Plan struct {
	// Tasks in key order.
	Tasks []Task
	// Pruned are the files left out unread, with the reason.
	Pruned []Pruned
	// Bytes is the estimated input bytes of all tasks.
	Bytes int64
}

// Make plans a job: every region that overlaps the spec's row range becomes
// one or more tasks over the intersection, with the files of the wanted
// families whose rows and TIMERANGE can hold wanted cells. regions must
// cover the table without gaps or overlaps (any order); files must name
// regions among them.
func Make(spec Spec, regions []Region, files []StoreFile, opts PlanOptions) (Plan, error) {
	if err := spec.Validate(); err != nil {
		return Plan{}, err
	}
	target := opts.TaskBytes
	if target <= 0 && opts.Slots > 0 {
		p, err := Make(spec, regions, files, PlanOptions{TaskBytes: DefaultTaskBytes, SkipEmpty: opts.SkipEmpty})
		if err != nil || AutoTaskBytes(p.Bytes, opts.Slots) >= DefaultTaskBytes {
			return p, err
		}
		target = AutoTaskBytes(p.Bytes, opts.Slots)
	}
	if target <= 0 {
		target = DefaultTaskBytes
	}
	regions = append([]Region(nil), regions...)
	sort.Slice(regions, func(i, j int) bool { return bytes.Compare(regions[i].Rows.Start, regions[j].Rows.Start) < 0 })
	if err := checkCover(regions); err != nil {
		return Plan{}, err
	}
	// The files of each region, in the order given: a slot per region name,
	// then the files' indexes grouped by slot (a counting sort, so that no
	// StoreFile is copied before it is taken).
	slot := make(map[string]int32, len(regions))
	for _, r := range regions {
		if _, ok := slot[r.EncodedName]; !ok {
			slot[r.EncodedName] = int32(len(slot))
		}
	}
	fileSlot := make([]int32, len(files))
	starts := make([]int32, len(slot)+1)
	for i, f := range files {
		s, ok := slot[f.Region]
		if !ok {
			return Plan{}, fmt.Errorf("store file %s of family %s names region %s, which is not among the table's regions", f.Name, f.Family, f.Region)
		}
		fileSlot[i] = s
		starts[s+1]++
	}
	for s := 1; s < len(starts); s++ {
		starts[s] += starts[s-1]
	}
	grouped := make([]int32, len(files))
	next := append([]int32(nil), starts[:len(slot)]...)
	for i, s := range fileSlot {
		grouped[next[s]] = int32(i)
		next[s]++
	}

	var p Plan
	var keep []int32
	times := spec.Times()
	for _, r := range regions {
		rows, ok := r.Rows.Intersect(spec.Rows)
		if !ok {
			continue
		}
		s := slot[r.EncodedName]
		mine := grouped[starts[s]:starts[s+1]]
		// The files kept, sorted by family then name as indexes (a
		// StoreFile is large to swap), then copied in that order.
		keep = keep[:0]
		for _, fi := range mine {
			f := &files[fi]
			switch {
			case !spec.WantsFamily(f.Family):
				continue
			case f.HasTime && !times.Overlaps(f.MinTime, f.MaxTime):
				p.Pruned = append(p.Pruned, Pruned{File: *f, Reason: PrunedByTime})
			case f.FirstRow != nil && f.LastRow != nil && !rows.OverlapsRows(f.FirstRow, f.LastRow):
				p.Pruned = append(p.Pruned, Pruned{File: *f, Reason: PrunedByRows})
			default:
				keep = append(keep, fi)
			}
		}
		sort.Slice(keep, func(i, j int) bool {
			a, b := &files[keep[i]], &files[keep[j]]
			if a.Family != b.Family {
				return a.Family < b.Family
			}
			return a.Name < b.Name
		})
		var in []StoreFile
		if len(keep) > 0 {
			in = make([]StoreFile, len(keep))
			for k, fi := range keep {
				in[k] = files[fi]
			}
		}
		pieces := cut(rows, in, target)
		for i, piece := range pieces {
			t := Task{
				ID:     fmt.Sprintf("%s-%03d", r.EncodedName, i),
				Region: r.EncodedName,
				Rows:   piece,
				Bytes:  estimate(in, piece),
			}
			if len(pieces) == 1 {
				// The region's one task reads every file kept, each of
				// which overlaps its rows: the task owns them.
				if len(in) > 0 {
					t.Files = in
				} else if opts.SkipEmpty {
					continue
				}
				p.Tasks = append(p.Tasks, t)
				p.Bytes += t.Bytes
				continue
			}
			n := 0
			for k := range in {
				if taskReads(&in[k], piece) {
					n++
				}
			}
			if n > 0 {
				t.Files = make([]StoreFile, 0, n)
			}
			for k := range in {
				if taskReads(&in[k], piece) {
					t.Files = append(t.Files, in[k])
				}
			}
			if opts.SkipEmpty && len(t.Files) == 0 {
				continue
			}
			p.Tasks = append(p.Tasks, t)
			p.Bytes += t.Bytes
		}
	}
	return p, nil
}

// taskReads says whether a task over piece reads f: f's rows, when known,
// overlap piece.
func taskReads(f *StoreFile, piece KeyRange) bool {
	return f.FirstRow == nil || f.LastRow == nil || piece.OverlapsRows(f.FirstRow, f.LastRow)
}

// checkCover checks that sorted regions tile the key space: the first starts
// at the beginning, each starts where the previous ended, the last ends at
// the end.
func checkCover(regions []Region) error {
	if len(regions) == 0 {
		return fmt.Errorf("table has no regions")
	}
	if len(regions[0].Rows.Start) != 0 {
		return fmt.Errorf("regions leave a gap before %s: the first region %s starts there", FormatKey(regions[0].Rows.Start), regions[0].EncodedName)
	}
	for i := 1; i < len(regions); i++ {
		prev, r := regions[i-1], regions[i]
		if len(prev.Rows.End) == 0 || !bytes.Equal(prev.Rows.End, r.Rows.Start) {
			return fmt.Errorf("regions %s %s and %s %s do not meet: a gap or an overlap (a split or merge not yet finished?)",
				prev.EncodedName, prev.Rows, r.EncodedName, r.Rows)
		}
	}
	if last := regions[len(regions)-1]; len(last.Rows.End) != 0 {
		return fmt.Errorf("regions leave a gap after %s: the last region %s ends there", FormatKey(last.Rows.End), last.EncodedName)
	}
	return nil
}

// bytesBefore estimates how many bytes of an indexed file hold rows before
// key: the offset of the first indexed block at or after key.
func bytesBefore(f StoreFile, key []byte) int64 {
	i := sort.Search(len(f.Index), func(i int) bool { return bytes.Compare(f.Index[i].Row, key) >= 0 })
	if i == len(f.Index) {
		return f.Size
	}
	return f.Index[i].Offset
}

// bytesIn estimates the bytes of f with rows in r. A file without an index
// counts whole when it may hold rows of r.
func bytesIn(f StoreFile, r KeyRange) int64 {
	if len(f.Index) == 0 {
		if f.FirstRow != nil && f.LastRow != nil && !r.OverlapsRows(f.FirstRow, f.LastRow) {
			return 0
		}
		return f.Size
	}
	end := f.Size
	if len(r.End) > 0 {
		end = bytesBefore(f, r.End)
	}
	return max(end-bytesBefore(f, r.Start), 0)
}

func estimate(files []StoreFile, r KeyRange) int64 {
	var n int64
	for _, f := range files {
		n += bytesIn(f, r)
	}
	return n
}

// cut splits rows into pieces of about target input bytes each, at rows
// taken from the files' block indexes. A range of less than 1.5× target
// bytes, or without index rows inside it, stays whole.
func cut(rows KeyRange, files []StoreFile, target int64) []KeyRange {
	total := estimate(files, rows)
	// The nearest whole number of pieces: a region a little over the
	// target stays one task (cutting it would rewrite files a whole task
	// could copy byte for byte), each piece within 1.5× the target.
	n := (total + target/2) / target
	if n <= 1 {
		return []KeyRange{rows}
	}
	var keys [][]byte
	for _, f := range files {
		for _, e := range f.Index {
			if bytes.Compare(e.Row, rows.Start) > 0 && (len(rows.End) == 0 || bytes.Compare(e.Row, rows.End) < 0) {
				keys = append(keys, e.Row)
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 })
	step := total / n
	var out []KeyRange
	start := rows.Start
	var done int64
	for i, k := range keys {
		if i > 0 && bytes.Equal(k, keys[i-1]) {
			continue
		}
		size := estimate(files, KeyRange{Start: start, End: k})
		if size >= step && int64(len(out)) < n-1 && total-done-size > 0 {
			out = append(out, KeyRange{Start: start, End: k})
			done += size
			start = k
		}
	}
	return append(out, KeyRange{Start: start, End: rows.End})
}

// FastPathCandidate reports whether input f of the task may be copied byte
// for byte rather than decoded: it lies wholly inside the task's rows and
// the time range, and every other input of its family in the task that
// overlaps its rows holds none of its timestamps (two such files cannot hold
// the same key). The target's regions, and whether the overlapping inputs
// are copied too, decide at run time.
func (t Task) FastPathCandidate(f StoreFile, times TimeRange) bool {
	if f.FirstRow == nil || f.LastRow == nil || !t.Rows.Contains(f.FirstRow) || !t.Rows.Contains(f.LastRow) ||
		!f.HasTime || !times.Covers(f.MinTime, f.MaxTime) {
		return false
	}
	for _, g := range t.Files {
		if g.Family != f.Family || g.Name == f.Name {
			continue
		}
		overlaps := g.FirstRow == nil || g.LastRow == nil ||
			bytes.Compare(g.FirstRow, f.LastRow) <= 0 && bytes.Compare(f.FirstRow, g.LastRow) <= 0
		apart := g.HasTime && (g.MaxTime < f.MinTime || f.MaxTime < g.MinTime)
		if overlaps && !apart {
			return false
		}
	}
	return true
}

// Cost estimates a task's work, to run the costliest first: its input bytes
// in range, with the inputs that may take the fast path (FastPathCandidate:
// streamed, not decoded) counted at a quarter of their size.
func (t Task) Cost(times TimeRange) int64 {
	c := t.Bytes
	for _, f := range t.Files {
		if t.FastPathCandidate(f, times) {
			c -= f.Size * 3 / 4
		}
	}
	return max(c, 0)
}

// CostOrder returns the ids of the plan's tasks, costliest first (ties in
// key order), at most limit of them (0: all).
func (p Plan) CostOrder(times TimeRange, limit int) []string {
	type tc struct {
		i    int
		cost int64
	}
	all := make([]tc, len(p.Tasks))
	for i, t := range p.Tasks {
		all[i] = tc{i, t.Cost(times)}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].cost > all[b].cost })
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	ids := make([]string, len(all))
	for k, x := range all {
		ids[k] = p.Tasks[x.i].ID
	}
	return ids
}
