package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

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
// defaults) against target and fails unless it finds the tables equal.
func (e *Env) verifyWhole(ctx context.Context, t *Table, target string) (copied, error) {
	c := copied{bytes: t.Bytes}
	args := []string{e.Rangecopy, "verify", "--source", e.Source.ConfDir, "--target", e.Target.ConfDir,
		"--table", t.Table, "--target-table", target, "--json", "--parallelism", strconv.Itoa(e.Workers)}
	logf, err := e.logFile(VerifyWhole.String())
	if err != nil {
		return c, err
	}
	defer logf.Close()
	p, err := RunProc(ctx, args, nil, nil, logf)
	c.peakRSS, c.cpuSeconds = p.PeakRSS, p.CPUSeconds
	var rep verify.Report
	if jerr := json.Unmarshal(bytes.TrimSpace(p.Stdout), &rep); jerr != nil && err == nil {
		err = fmt.Errorf("decode the --json report %q: %w", p.Stdout, jerr)
	}
	c.copySeconds = float64(rep.ElapsedMs) / 1000
	c.note = fmt.Sprintf("visible mode, %d regions read at once; both sides' HFiles read: %s; %d + %d cells, %d batches, %d mismatched, %d differences; verifier peak RSS %s against a worker's %s budget",
		e.Workers, humanBytes(rep.BytesRead), rep.SourceCells, rep.TargetCells, rep.Batches, rep.BatchesMismatched, rep.DifferenceCount,
		humanBytes(p.PeakRSS), humanBytes(BudgetBytes))
	if err != nil {
		return c, fmt.Errorf("rangecopy verify: %w", err)
	}
	if rep.DifferenceCount != 0 || rep.BatchesMismatched != 0 || rep.SourceCells == 0 || rep.SourceCells != rep.TargetCells {
		return c, fmt.Errorf("rangecopy verify: a copy of the table reported %d differences in %d mismatched batches (%d source cells, %d target cells)",
			rep.DifferenceCount, rep.BatchesMismatched, rep.SourceCells, rep.TargetCells)
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
