package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"rangecopy/testenv"
	"rangecopy/verify"
)

// BudgetBytes is a worker's default memory budget (rangecopy --memory):
// the verifier's peak resident set is judged against it.
const BudgetBytes = 512 << 20

// copyForVerify copies the whole source table into a fresh target table
// with rangecopy, outside any measured span, for the verifiers to compare
// against. It returns the target table's name.
func (e *Env) copyForVerify(ctx context.Context, t *Table) (string, error) {
	target := sanitize(e.Prefix + "_verified")
	e.Logger.Info("copying the table for the verifiers (not timed)", "target_table", target)
	if _, err := e.rangecopy(ctx, t, target, RangecopyFull, nil); err != nil {
		return target, fmt.Errorf("copy for the verifiers: %w", err)
	}
	return target, nil
}

// verifyWhole runs rangecopy verify of the whole table (visible mode, its
// defaults; with VerifyReadAll, --read-all) against target and fails
// unless it finds the tables equal.
func (e *Env) verifyWhole(ctx context.Context, t *Table, target string, m Method) (copied, error) {
	c := copied{bytes: t.Bytes}
	args := []string{e.Rangecopy, "verify", "--source", e.Source.ConfDir, "--target", e.Target.ConfDir,
		"--table", t.Table, "--target-table", target, "--json", "--parallelism", strconv.Itoa(e.Workers)}
	if m == VerifyReadAll {
		args = append(args, "--read-all")
	}
	var rep verify.Report
	p, err := e.runJSON(ctx, args, m.String(), &rep)
	c.peakRSS, c.cpuSeconds = p.PeakRSS, p.CPUSeconds
	c.copySeconds = float64(rep.ElapsedMs) / 1000
	c.note = fmt.Sprintf("visible mode, %d regions read at once; %d batches, %d of them matched by file checksums (not read); HFiles read, both sides: %s; %d + %d cells hashed, %d mismatched, %d differences; verifier peak RSS %s against a worker's %s budget",
		e.Workers, rep.Batches, rep.BatchesProven, humanBytes(rep.BytesRead), rep.SourceCells, rep.TargetCells, rep.BatchesMismatched, rep.DifferenceCount,
		humanBytes(p.PeakRSS), humanBytes(BudgetBytes))
	if err != nil {
		return c, fmt.Errorf("rangecopy verify: %w", err)
	}
	hashed := rep.Batches - rep.BatchesProven
	if rep.DifferenceCount != 0 || rep.BatchesMismatched != 0 || rep.Batches == 0 || rep.SourceCells != rep.TargetCells ||
		(hashed > 0) != (rep.SourceCells > 0) || (m == VerifyReadAll && rep.BatchesProven != 0) {
		return c, fmt.Errorf("rangecopy verify: a copy of the table reported %d differences in %d mismatched batches (%d of %d batches proven by checksums, %d source cells, %d target cells)",
			rep.DifferenceCount, rep.BatchesMismatched, rep.BatchesProven, rep.Batches, rep.SourceCells, rep.TargetCells)
	}
	return c, nil
}

// hashSync runs HBase's HashTable of the source (its default batch size
// and hash-file count) into a local folder, then SyncTable --dryrun of that
// against target, both as local MapReduce in the harness JVM with Workers
// map slots, and fails unless SyncTable matched every batch.
func (e *Env) hashSync(ctx context.Context, t *Table, target string) (copied, error) {
	c := copied{bytes: t.Bytes}
	dir, err := os.MkdirTemp(e.LogDir, "hashtable-")
	if err != nil {
		return c, fmt.Errorf("hashtable: output folder: %w", err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "hashes")
	slots := "mapreduce.local.map.tasks.maximum=" + strconv.Itoa(e.Workers)
	exit, err := e.Source.HashTable(ctx, []string{"-D", slots, t.Table, "file://" + out})
	if err != nil {
		return c, fmt.Errorf("hashtable: %w", err)
	}
	if exit != 0 {
		return c, fmt.Errorf("hashtable: exit %d", exit)
	}
	res, err := e.Target.SyncTable(ctx, e.Source, []string{"-D", slots, "--dryrun=true", "file://" + out, t.Table, target})
	if err != nil {
		return c, fmt.Errorf("synctable: %w", err)
	}
	k := res.Counters
	c.note = fmt.Sprintf("HashTable (default batch size and hash files) then SyncTable --dryrun=true, local MapReduce in the harness JVM, %s; counters BATCHES %d, HASHES_MATCHED %d, HASHES_NOT_MATCHED %d",
		slots, k["BATCHES"], k["HASHES_MATCHED"], k["HASHES_NOT_MATCHED"])
	if res.ExitCode != 0 {
		return c, fmt.Errorf("synctable: exit %d, counters %v", res.ExitCode, k)
	}
	if k["BATCHES"] == 0 || k["HASHES_NOT_MATCHED"] != 0 || k["HASHES_MATCHED"] != k["BATCHES"] {
		return c, fmt.Errorf("synctable --dryrun on a copy of the table: counters %v, want every batch matched", k)
	}
	return c, nil
}

// ManyFilesChunks is how many flushes write the many-files table: each
// store ends up with that many files, each over all of its region's rows.
const ManyFilesChunks = 30

// loadManyFiles creates the many-files table beside t, an eighth of its
// rows, compaction off, written in ManyFilesChunks flushes (row keys
// spread over the key space, so every flush writes a file into every
// store), and pins it. Outside any measured span.
func (e *Env) loadManyFiles(ctx context.Context, t *Table) (*Table, error) {
	name := sanitize(e.Prefix + "_many")
	d := Dataset{Table: name, Rows: max(t.Rows/8, ManyFilesChunks), Regions: len(SplitKeys()) + 1, Families: Families,
		KeyBytes: KeyBytes, DValueBytes: DValueBytes, MValueBytes: MValueBytes, SpanMs: t.SpanMs, StartMs: t.StartMs}
	e.Logger.Info("loading the many-files table (not timed)", "table", name, "rows", d.Rows, "flushes", ManyFilesChunks)
	start := time.Now()
	if err := e.Source.DeleteTable(ctx, name); err != nil {
		return nil, fmt.Errorf("many-files table %s: drop the old one: %w", name, err)
	}
	fams := []testenv.Family{{Name: "d"}, {Name: "m"}}
	if err := e.Source.CreateTableWith(ctx, name, fams, SplitKeys(), testenv.TableOptions{}); err != nil {
		return nil, fmt.Errorf("many-files table %s: %w", name, err)
	}
	chunk := (d.Rows + ManyFilesChunks - 1) / ManyFilesChunks
	for from := int64(0); from < d.Rows; from += chunk {
		if err := e.load(ctx, d, from, min(from+chunk, d.Rows)); err != nil {
			return nil, err
		}
	}
	d.LoadSeconds = time.Since(start).Seconds()
	many, err := e.pinTable(ctx, d, e.Prefix+"_many_raw")
	if err != nil {
		return nil, fmt.Errorf("many-files table %s: %w", name, err)
	}
	return many, nil
}

// manyFiles copies the many-files table with rangecopy's defaults (the
// 512 MiB memory budget), sampled rows compared after.
func (e *Env) manyFiles(ctx context.Context, many *Table, target string) (copied, error) {
	if many == nil {
		return copied{}, fmt.Errorf("the many-files table was not loaded")
	}
	c, err := e.rangecopy(ctx, many, target, RangecopyManyFiles, nil)
	c.source = many
	c.note = fmt.Sprintf("%d rows in %d files (%s), %d flushes a store, compaction off, loaded in %.0f s (not timed); ", many.Rows, many.Files, humanBytes(many.Bytes), ManyFilesChunks, many.LoadSeconds) + c.note
	return c, err
}
