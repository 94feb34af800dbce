package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"math/rand/v2"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"rangecopy/hbase"
	"rangecopy/job"
	"rangecopy/retry"
	"rangecopy/testenv"
)

// copied is what a method's executor reports; Measure adds the rest.
type copied struct {
	bytes                   int64
	peakRSS                 int64
	cpuSeconds              float64
	filesTotal, filesPruned int
	copySeconds             float64
	inputBytes              int64
	// wall, when set, is the span the method times (for the server: one
	// job's submission to its end), in place of the executor's whole run.
	wall float64
	note string
	// scope decides which source rows the target should hold afterwards;
	// source, when set, is the table copied in place of the run's.
	scope  func(i int64) bool
	source *Table
}

// Idle runs the Get workload alone for d: the baseline.
func (e *Env) Idle(ctx context.Context, t *Table, d time.Duration) Latency {
	w := e.workload(t)
	stop := w.Start(ctx, 1)
	_ = retry.Sleep(ctx, d) // ended early with ctx: report what ran
	return stop()
}

func (e *Env) workload(t *Table) *Workload {
	return &Workload{Client: e.SourceClient, Table: t.Table, Rows: t.Rows, Rate: e.GetRate}
}

// Measure runs method m into a fresh target table, with the Get workload
// running on the source throughout, and measures it; then checks a sample of
// rows on the target and drops the target table. bandwidth (bytes/s) applies
// A failed method is a Result with Error set. fullRate (bytes/s) is the
// unthrottled whole-table copy's rate, which the fixed --bandwidth methods
// take their share of.
func (e *Env) Measure(ctx context.Context, t *Table, m Method, fullRate float64) Result {
	r := Result{Method: m, Scope: "whole table", FilesTotal: -1, FilesPruned: -1}
	target := fmt.Sprintf("%s_%s", e.Prefix, m)
	target = sanitize(target)
	e.Logger.Info("method starting", "method", m, "target_table", target)
	if m.Verifies() {
		target = e.verifyTarget
	}
	cpu0, cpuErr := e.Source.CPU(ctx)
	tcpu0, tcpuErr := e.Target.CPU(ctx)
	stopRSS := SampleRSS(e.HarnessPIDs, 250*time.Millisecond)
	stopGets := e.workload(t).Start(ctx, uint64(m)+100)
	start := time.Now()
	var c copied
	var err error
	switch m {
	case RawHDFS:
		c, err = e.rawCopy(ctx, t, target)
	case ExportSnapshot:
		c, err = e.exportSnapshot(ctx, t, target)
	case CopyTable:
		c, err = e.copyTable(ctx, t, target)
	case ScanPut:
		c, err = e.scanPut(ctx, t, target)
	case RangecopyFull:
		c, err = e.rangecopy(ctx, t, target, m, nil)
	case RangecopyRange:
		r.Scope = fmt.Sprintf("rows [%s, %s), %.0f%% of keys", RangeStart, RangeStop, keyShare(RangeStart, RangeStop)*100)
		c, err = e.rangecopy(ctx, t, target, m, []string{"--start-row", string(RangeStart), "--stop-row", string(RangeStop)})
	case RangecopyIncremental:
		from := NewestFrom(t.Rows, 0.01)
		ts := Timestamp(from, t.Rows, t.StartMs, t.SpanMs)
		r.Scope = fmt.Sprintf("cells with time ≥ %d (newest 1%%)", ts)
		c, err = e.rangecopy(ctx, t, target, m, []string{"--start-time", strconv.FormatInt(ts, 10)})
	case RangecopyServerIncremental:
		ts := Timestamp(NewestFrom(t.Rows, 0.01), t.Rows, t.StartMs, t.SpanMs)
		r.Scope = fmt.Sprintf("cells with time ≥ %d (newest 1%%), via the server", ts)
		c, err = e.serverIncremental(ctx, t, target)
	case ServerWindow:
		r.Scope = "a relocation's catch-up window after 1% new rows (after the full copy and a window with none)"
		c, err = e.serverWindow(ctx, t, target)
	case RangecopyBandwidth, RangecopyBandwidthQuarter, RangecopyBandwidthThreeQuarters:
		if fullRate <= 0 {
			err = fmt.Errorf("no bandwidth to set: the whole-table rangecopy rate was not measured")
			break
		}
		r.BandwidthLimit = fullRate * m.BandwidthShare()
		c, err = e.rangecopy(ctx, t, target, m, []string{"--bandwidth", strconv.FormatInt(int64(r.BandwidthLimit), 10)})
	case VerifyWhole, VerifyReadAll:
		c, err = e.verifyWhole(ctx, t, target, m)
	case HashSync:
		c, err = e.hashSync(ctx, t, target)
	case RangecopyManyFiles:
		r.Scope = "a table of its own, 30 files a store"
		c, err = e.manyFiles(ctx, e.manyTable, target)
	case RangecopyProtect:
		c, err = e.rangecopy(ctx, t, target, m, []string{"--protect-source", "2x"})
	default:
		err = fmt.Errorf("unknown method %v", m)
	}
	r.Seconds = time.Since(start).Seconds()
	if c.wall > 0 {
		r.Seconds = c.wall
	}
	r.Latency = stopGets()
	r.HarnessPeakRSS = stopRSS()
	if cpu1, err1 := e.Source.CPU(ctx); cpuErr == nil && err1 == nil {
		r.SourceRSCPUSeconds = float64(cpu1.RegionServerCPUNanos-cpu0.RegionServerCPUNanos) / 1e9
		r.HarnessCPUSeconds = float64(cpu1.ProcessCPUNanos-cpu0.ProcessCPUNanos) / 1e9
	}
	if tcpu1, err1 := e.Target.CPU(ctx); tcpuErr == nil && err1 == nil {
		r.TargetRSCPUSeconds = float64(tcpu1.RegionServerCPUNanos-tcpu0.RegionServerCPUNanos) / 1e9
		if len(e.HarnessPIDs) > 1 { // the target's own JVM
			r.HarnessCPUSeconds += float64(tcpu1.ProcessCPUNanos-tcpu0.ProcessCPUNanos) / 1e9
		}
	}
	r.Bytes, r.WorkerPeakRSS, r.Note = c.bytes, c.peakRSS, c.note
	r.CopySeconds, r.WorkerCPUSeconds, r.InputBytes = c.copySeconds, c.cpuSeconds, c.inputBytes
	if c.filesTotal > 0 {
		r.FilesTotal, r.FilesPruned = c.filesTotal, c.filesPruned
	}
	if err != nil {
		r.Error = err.Error()
		e.Logger.Warn("method failed", "method", m, "err", err)
	} else if c.scope != nil {
		src := t
		if c.source != nil {
			src = c.source
		}
		n, verr := e.verify(ctx, src, target, c.scope, uint64(m))
		r.Verified = n
		if verr != nil {
			r.Error = verr.Error()
		}
	}
	if m != RawHDFS && !m.Verifies() {
		e.dropTarget(context.WithoutCancel(ctx), target, m, t)
	}
	e.Logger.Info("method done", "method", m, "seconds", fmt.Sprintf("%.1f", r.Seconds), "MBps", fmt.Sprintf("%.1f", r.MBps()),
		"p99_ms", r.Latency.P99, "error", r.Error)
	return r
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// keyShare is the share of the 16-bit hex key space in [start, stop).
func keyShare(start, stop []byte) float64 {
	a, _ := strconv.ParseUint(string(start), 16, 64)
	b, _ := strconv.ParseUint(string(stop), 16, 64)
	return float64(b-a) / 65536
}

func all(int64) bool { return true }

// rawCopy copies the pinned snapshot's files to a folder on the target HDFS.
func (e *Env) rawCopy(ctx context.Context, t *Table, target string) (copied, error) {
	spec := RawCopySpec{SourceNameNode: e.Source.NameNode, TargetNameNode: e.Target.NameNode, User: e.Target.User,
		TargetDir: path.Join("/bench", target), Parallel: e.Workers}
	for _, f := range t.Pinned.Files {
		in, ok := t.Pinned.Input(f)
		if !ok || in.Reference != nil {
			return copied{}, fmt.Errorf("raw copy: file %s/%s/%s is not a plain resolved HFile", f.Region, f.Family, f.Name)
		}
		spec.Files = append(spec.Files, RawFile{Path: in.Path, Size: in.Size})
	}
	res, p, err := e.runChild(ctx, "raw-copy", spec, string(RawHDFS.String()))
	c := copied{bytes: res.Bytes, peakRSS: p.PeakRSS, cpuSeconds: p.CPUSeconds, note: fmt.Sprintf("%d files, %d at once, one 4 MiB buffer each", len(spec.Files), e.Workers)}
	if err == nil {
		if rmErr := e.removeTargetDir(spec.TargetDir); rmErr != nil {
			e.Logger.Warn("remove raw copy", "dir", spec.TargetDir, "err", rmErr)
		}
	}
	return c, err
}

func (e *Env) removeTargetDir(dir string) error {
	fs, err := testenvHDFS(e.Target)
	if err != nil {
		return err
	}
	defer fs.Close()
	if err := fs.RemoveAll(dir); err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return err
	}
	return nil
}

// exportSnapshot snapshots the source table, exports the snapshot into the
// target's root folder with HBase's ExportSnapshot (local MapReduce in the
// harness JVM, Workers mappers running at once) and clones it there.
func (e *Env) exportSnapshot(ctx context.Context, t *Table, target string) (copied, error) {
	c := copied{bytes: t.Bytes, scope: all, note: fmt.Sprintf("ExportSnapshot -mappers %d, mapreduce.local.map.tasks.maximum=%d; time includes snapshot, export and clone_snapshot", e.Workers, e.Workers)}
	snap := target + "_snap"
	// ExportSnapshot writes the files into the target's archive folder of
	// the source table's name and skips files already there with the same
	// length and checksum: a rerun would measure skipping. Start from a
	// clean target, as a first export does (one RPC, inside the timed span).
	archive := path.Join(e.Target.RootDirPath(), "archive", "data", "default", t.Table)
	if err := e.removeTargetDir(archive); err != nil {
		return c, fmt.Errorf("exportsnapshot: clear %s on the target: %w", archive, err)
	}
	if err := e.Source.CreateSnapshot(ctx, t.Table, snap); err != nil {
		return c, fmt.Errorf("exportsnapshot: snapshot: %w", err)
	}
	defer e.Source.DeleteSnapshot(context.WithoutCancel(ctx), snap)
	res, err := e.Source.RunTool(ctx, "org.apache.hadoop.hbase.snapshot.ExportSnapshot", []string{
		"-D", "mapreduce.local.map.tasks.maximum=" + strconv.Itoa(e.Workers),
		"-snapshot", snap, "-copy-to", e.Target.HBaseRootDir, "-mappers", strconv.Itoa(e.Workers)}, nil)
	if err != nil {
		return c, fmt.Errorf("exportsnapshot: %w", err)
	}
	if res.ExitCode != 0 {
		return c, fmt.Errorf("exportsnapshot: exit %d: %s", res.ExitCode, tail(res.Output))
	}
	defer e.Target.DeleteSnapshot(context.WithoutCancel(ctx), snap)
	if err := e.Target.CloneSnapshot(ctx, snap, target); err != nil {
		return c, fmt.Errorf("exportsnapshot: clone on the target: %w", err)
	}
	return c, nil
}

// copyTable creates the target table split like the source and copies with
// HBase's CopyTable (local MapReduce in the harness JVM, Workers map tasks
// at once, Puts through the target's region servers).
func (e *Env) copyTable(ctx context.Context, t *Table, target string) (copied, error) {
	c := copied{bytes: t.Bytes, scope: all, note: fmt.Sprintf("CopyTable --peer.adr, one map per region, mapreduce.local.map.tasks.maximum=%d; time includes creating the target table", e.Workers)}
	if err := e.createTarget(ctx, target); err != nil {
		return c, err
	}
	res, err := e.Source.RunTool(ctx, "org.apache.hadoop.hbase.mapreduce.CopyTable", []string{
		"-D", "mapreduce.local.map.tasks.maximum=" + strconv.Itoa(e.Workers),
		"--peer.adr=" + e.Target.ClusterKey, "--new.name=" + target, t.Table}, nil)
	if err != nil {
		return c, fmt.Errorf("copytable: %w", err)
	}
	if res.ExitCode != 0 {
		return c, fmt.Errorf("copytable: exit %d: %s", res.ExitCode, tail(res.Output))
	}
	return c, nil
}

func (e *Env) createTarget(ctx context.Context, target string) error {
	fams := []testenv.Family{{Name: "d"}, {Name: "m"}}
	if err := e.Target.CreateTable(ctx, target, fams, SplitKeys()); err != nil {
		return fmt.Errorf("create target table %s: %w", target, err)
	}
	return nil
}

// scanPut creates the target table and copies cell by cell through our
// client in a child process, one source region per scanner, Workers at once.
func (e *Env) scanPut(ctx context.Context, t *Table, target string) (copied, error) {
	c := copied{bytes: t.Bytes, scope: all}
	if err := e.createTarget(ctx, target); err != nil {
		return c, err
	}
	spec := ScanPutSpec{SourceZK: []string{e.Source.ZKQuorum}, SourceZNode: e.Source.ZNodeParent,
		TargetZK: []string{e.Target.ZKQuorum}, TargetZNode: e.Target.ZNodeParent,
		Table: t.Table, TargetTable: target, Parallel: e.Workers, BatchBytes: 4 << 20}
	for _, r := range t.Pinned.Regions {
		kr := KeyRange{Start: r.Rows.Start, Stop: r.Rows.End}
		// An empty key is the table's end, which the scan spells nil.
		if len(kr.Start) == 0 {
			kr.Start = nil
		}
		if len(kr.Stop) == 0 {
			kr.Stop = nil
		}
		spec.Ranges = append(spec.Ranges, kr)
	}
	res, p, err := e.runChild(ctx, "scan-put", spec, ScanPut.String())
	c.peakRSS, c.cpuSeconds = p.PeakRSS, p.CPUSeconds
	c.note = fmt.Sprintf("%d cells, %d region scanners (%d at once), puts in batches of 4 MiB; time includes creating the target table", res.Cells, len(spec.Ranges), e.Workers)
	return c, err
}

// rangecopy runs bin/rangecopy copy into a new target table.
func (e *Env) rangecopy(ctx context.Context, t *Table, target string, m Method, extra []string) (copied, error) {
	c := copied{filesTotal: t.Files, scope: all}
	switch m {
	case RangecopyRange:
		c.scope = func(i int64) bool { return InRange(RowKey(i), RangeStart, RangeStop) }
		// Regions outside the range are not planned at all: count the
		// files of the regions it overlaps.
		c.filesTotal = 0
		for _, f := range t.Pinned.Files {
			for _, reg := range t.Pinned.Regions {
				if reg.EncodedName == f.Region && overlaps(reg.Rows.Start, reg.Rows.End, RangeStart, RangeStop) {
					c.filesTotal++
				}
			}
		}
	case RangecopyIncremental:
		from := NewestFrom(t.Rows, 0.01)
		c.scope = func(i int64) bool { return i >= from }
	}
	args := []string{e.Rangecopy, "copy", "--source", e.Source.ConfDir, "--target", e.Target.ConfDir,
		"--table", t.Table, "--target-table", target, "--create-table", "--json", "--workers", strconv.Itoa(e.Workers)}
	args = append(args, extra...)
	if e.Profile {
		args = append(args, "--cpuprofile", filepath.Join(e.LogDir, m.String()+".pprof"))
	}
	var rep job.Report
	p, err := e.runJSON(ctx, args, m.String(), &rep)
	c.peakRSS, c.cpuSeconds = p.PeakRSS, p.CPUSeconds
	c.bytes, c.filesPruned, c.copySeconds, c.inputBytes = rep.BytesRead, rep.FilesPruned, rep.Seconds(), rep.InputBytes
	c.note = fmt.Sprintf("flags %q; job %.1f s, %d tasks, %d files loaded, %d retries", extra, rep.Seconds(), rep.Tasks, rep.FilesLoaded, rep.LoadRetries)
	if rep.ProtectSource != "" {
		c.note += fmt.Sprintf("; throttle: idle p99 %.1f ms, target %.1f ms, last p99 %.1f ms of %d probes (%d failed), rate %.1f MB/s, %d cuts",
			rep.ProbeIdleP99Ms, rep.ProbeTargetMs, rep.ProbeP99Ms, rep.Probes, rep.ProbeErrors, rep.ThrottleRate/1e6, rep.ThrottleDecreases)
	}
	if err != nil {
		return c, fmt.Errorf("rangecopy: %w", err)
	}
	if rep.Status != job.ReportDone {
		return c, fmt.Errorf("rangecopy: job %s ended %s: %s", rep.Job, rep.Status, rep.Error)
	}
	return c, nil
}

// verify compares sampled rows of the source and the target: rows in scope
// must be equal cell for cell (for an incremental copy, the target holds the
// source's row as it is, since each row's cells share one timestamp), rows
// out of scope absent. It returns how many rows it compared.
func (e *Env) verify(ctx context.Context, t *Table, target string, inScope func(int64) bool, seed uint64) (int, error) {
	rng := rand.New(rand.NewPCG(seed, 11))
	const wantIn, wantOut = 40, 10
	in, out, n := 0, 0, 0
	for tries := 0; tries < 20000 && (in < wantIn || out < wantOut); tries++ {
		i := rng.Int64N(t.Rows)
		ok := inScope(i)
		if ok && in >= wantIn || !ok && out >= wantOut {
			continue
		}
		row := RowKey(i)
		got, err := e.TargetClient.Get(ctx, target, hbase.Get{Row: row})
		if err != nil {
			return n, fmt.Errorf("verify: get %s from target %s: %w", row[:16], target, err)
		}
		if !ok {
			out++
			n++
			if len(got.Cells) != 0 {
				return n, fmt.Errorf("verify: row %d (%s…) is outside the copy's scope but the target %s has %d cells of it", i, row[:16], target, len(got.Cells))
			}
			continue
		}
		want, err := e.SourceClient.Get(ctx, t.Table, hbase.Get{Row: row})
		if err != nil {
			return n, fmt.Errorf("verify: get %s from source: %w", row[:16], err)
		}
		in++
		n++
		if err := sameCells(want.Cells, got.Cells); err != nil {
			return n, fmt.Errorf("verify: row %d (%s…) in %s: %w", i, row[:16], target, err)
		}
	}
	if in == 0 {
		return n, fmt.Errorf("verify: found no row in the copy's scope to compare")
	}
	return n, nil
}

func sameCells(want, got []hbase.Cell) error {
	if len(want) != len(got) {
		return fmt.Errorf("%d cells, the source has %d", len(got), len(want))
	}
	for k := range want {
		w, g := want[k], got[k]
		if !bytes.Equal(w.Family, g.Family) || !bytes.Equal(w.Qualifier, g.Qualifier) || w.Timestamp != g.Timestamp || !bytes.Equal(w.Value, g.Value) {
			return fmt.Errorf("cell %d differs: %s:%s@%d (%d bytes) vs the source's %s:%s@%d (%d bytes)",
				k, g.Family, g.Qualifier, g.Timestamp, len(g.Value), w.Family, w.Qualifier, w.Timestamp, len(w.Value))
		}
	}
	return nil
}

// overlaps reports whether region [start, end) (an empty end is the table's
// end) overlaps the key range [from, to).
func overlaps(start, end, from, to []byte) bool {
	return (len(end) == 0 || bytes.Compare(end, from) > 0) && bytes.Compare(start, to) < 0
}

// dropTarget drops a method's target table and removes what HBase archived
// of it: a dropped table's files wait in the archive folder for the cleaner's
// TTL (5 minutes), and a run copies the table 7 times, twice replicated, so
// they would fill the disk. ExportSnapshot's files are archived under the
// source table's name.
func (e *Env) dropTarget(ctx context.Context, target string, m Method, t *Table) {
	if err := e.Target.DeleteTable(ctx, target); err != nil {
		e.Logger.Warn("drop target table", "table", target, "err", err)
		return
	}
	dirs := []string{target}
	if m == ExportSnapshot {
		dirs = append(dirs, t.Table)
	}
	for _, d := range dirs {
		archive := path.Join(e.Target.RootDirPath(), "archive", "data", "default", d)
		if err := e.removeTargetDir(archive); err != nil {
			e.Logger.Warn("remove archived files", "dir", archive, "err", err)
		}
	}
}
