package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/bulkload"
	"rangecopy/checkpoint"
	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/testenv"
)

// These tests run the pipeline on the real clusters: a source table written
// through HBase's own client and flushed, read as store files from the source
// HDFS, copied into the target HDFS for a table split differently, bulk
// loaded with our client and compared cell for cell with HBase's own scans.

func hdfsClient(t *testing.T, cl *testenv.Cluster) *hdfs.Client {
	t.Helper()
	return cl.HDFS(t, "")
}

func createTable(t *testing.T, cl *testenv.Cluster, prefix string, fams []testenv.Family, splits [][]byte) string {
	t.Helper()
	return cl.NewTable(t, prefix, fams, splits)
}

// rowName is the row key of row i.
func rowName(i int) []byte { return fmt.Appendf(nil, "r%03d", i) }

// sourceCells is the first batch of writes: rows lo..hi-1, each with a few
// versions of two qualifiers in both families.
func sourceCells(lo, hi int, value string) []testenv.Cell {
	var cells []testenv.Cell
	for i := lo; i < hi; i++ {
		for _, fam := range []string{"f", "g"} {
			for _, q := range []string{"a", "b"} {
				for ts := int64(1000); ts < 1003; ts++ {
					cells = append(cells, testenv.Cell{Row: rowName(i), Family: []byte(fam), Qualifier: []byte(q),
						Timestamp: ts, Type: "Put", Value: fmt.Appendf(nil, "%s-%d-%s%s-%d", value, i, fam, q, ts)})
				}
			}
		}
	}
	return cells
}

// storeFiles lists the store files of every region and family of a table
// on the cluster's HDFS.
func storeFiles(t *testing.T, c *hdfs.Client, cl *testenv.Cluster, table string, regions []testenv.Region) map[string][]Input {
	t.Helper()
	out := map[string][]Input{} // by encoded region
	for _, r := range regions {
		for _, fam := range []string{"f", "g"} {
			dir := path.Join(cl.RootDirPath(), "data", "default", table, r.EncodedName, fam)
			infos, err := c.ReadDir(dir)
			if err != nil {
				t.Fatalf("list %s: %v", dir, err)
			}
			for _, fi := range infos {
				if fi.IsDir() || strings.HasPrefix(fi.Name(), ".") {
					continue
				}
				out[r.EncodedName] = append(out[r.EncodedName], Input{
					File: job.StoreFile{Region: r.EncodedName, Family: fam, Name: fi.Name(), Size: fi.Size()},
					Path: path.Join(dir, fi.Name()),
				})
			}
		}
	}
	return out
}

var errCrash = errors.New("simulated crash")

func TestIntegrationCopyAndBulkLoad(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	src := env.Source

	// Source: three regions, two flushes with overlapping rows, rewrites of
	// identical keys, every delete kind. Region [r400, ) gets two files
	// with disjoint rows: both qualify for the fast path.
	srcFams := []testenv.Family{{Name: "f", MaxVersions: 10, Compression: "SNAPPY", Encoding: "FAST_DIFF"}, {Name: "g", MaxVersions: 10}}
	srcTable := createTable(t, src, "wsrc", srcFams, [][]byte{rowName(200), rowName(400)})
	first := sourceCells(100, 426, "one")
	if err := src.Mutate(ctx, srcTable, first); err != nil {
		t.Fatal(err)
	}
	if err := src.Flush(ctx, srcTable); err != nil {
		t.Fatal(err)
	}
	second := sourceCells(140, 360, "two") // identical keys rewritten: the newer value wins
	second = append(second, sourceCells(430, 441, "three")...)
	for i := 150; i < 360; i += 7 {
		for _, fam := range []string{"f", "g"} {
			f := []byte(fam)
			second = append(second,
				testenv.Cell{Row: rowName(i), Family: f, Qualifier: []byte("a"), Timestamp: 1001, Type: "Delete"},
				testenv.Cell{Row: rowName(i + 1), Family: f, Qualifier: []byte("b"), Timestamp: 1002, Type: "DeleteColumn"},
				testenv.Cell{Row: rowName(i + 2), Family: f, Timestamp: 1001, Type: "DeleteFamily"},
				testenv.Cell{Row: rowName(i + 3), Family: f, Timestamp: 1000, Type: "DeleteFamilyVersion"},
				testenv.Cell{Row: rowName(i + 4), Family: f, Qualifier: []byte("c"), Timestamp: 999, Type: "Put", Value: []byte("late")})
		}
	}
	if err := src.Mutate(ctx, srcTable, second); err != nil {
		t.Fatal(err)
	}
	if err := src.Flush(ctx, srcTable); err != nil {
		t.Fatal(err)
	}
	srcRegions, err := src.Regions(ctx, srcTable)
	if err != nil || len(srcRegions) != 3 {
		t.Fatalf("source regions %v, %v", srcRegions, err)
	}
	srcFS := hdfsClient(t, src)
	inputs := storeFiles(t, srcFS, src, srcTable, srcRegions)

	t.Run("all time", func(t *testing.T) {
		kinds := copyAndCompare(t, env, srcTable, srcFS, srcRegions, inputs, job.AllTime(), true, 4)
		if len(kinds) != 5 {
			t.Errorf("source scan lacks some cell types: %v", kinds)
		}
	})
	// An incremental copy: only cells of timestamps in [1001, 1002),
	// delete markers included, as HBase's time-range scans select them.
	t.Run("time range", func(t *testing.T) {
		kinds := copyAndCompare(t, env, srcTable, srcFS, srcRegions, inputs, job.TimeRange{Min: 1001, Max: 1002}, false, 0)
		if kinds["Delete"] == 0 || kinds["DeleteFamily"] == 0 || kinds["Put"] == 0 || len(kinds) != 3 {
			t.Errorf("source scan in the time range has types %v, want Put, Delete and DeleteFamily", kinds)
		}
	})
}

// copyAndCompare copies rows from r150 on of the source table for the time
// range into a new target table split differently, loads every output file
// and compares raw scans of both. With crash, the task over the middle region
// stops before loading its second file of f and resumes from its stored
// checkpoint. It returns the source's cells counted by type.
func copyAndCompare(t *testing.T, env *testenv.Env, srcTable string, srcFS *hdfs.Client, srcRegions []testenv.Region,
	inputs map[string][]Input, times job.TimeRange, crashOne bool, wantFast int) map[string]int {
	ctx := t.Context()
	dst := env.Target
	// Target: split differently, other settings for f.
	dstFams := []testenv.Family{{Name: "f", MaxVersions: 10, Compression: "GZ", Encoding: "PREFIX", Bloom: "ROWCOL"}, {Name: "g", MaxVersions: 10}}
	// The harness creates both tables with compaction off, so raw scans
	// of them stay comparable however many files reach a store.
	// Both target regions of the source's last region [r400, ) lie inside
	// its task, so its files (flush files, whose cells carry MVCC values)
	// may be copied byte for byte: no other task loads into those regions.
	dstTable := createTable(t, dst, "wdst", dstFams, [][]byte{rowName(100), rowName(300), rowName(350), rowName(400), rowName(428)})
	hc := testsupport.Dial(t, dst)
	hRegions, err := hc.Regions(ctx, dstTable)
	if err != nil || len(hRegions) != 6 {
		t.Fatalf("target regions %v, %v", hRegions, err)
	}
	var regions []job.Region
	byName := map[string]*hbase.Region{}
	for _, r := range hRegions {
		regions = append(regions, job.Region{EncodedName: r.EncodedName, Rows: job.KeyRange{Start: r.StartKey, End: r.EndKey}})
		byName[r.EncodedName] = r
	}
	dstFS := hdfsClient(t, dst)
	outDir := path.Join("/user", dst.User, ".rangecopy", testenv.UniqueName(t, "wout"))
	t.Cleanup(func() { dstFS.RemoveAll(outDir) })
	// The output settings come from the target's descriptor.
	td, err := hc.TableDescriptor(ctx, dstTable)
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]FamilySettings{}
	for _, fd := range td.Families {
		if families[fd.Name], err = bulkload.SettingsFor(fd, ""); err != nil {
			t.Fatal(err)
		}
	}
	if want := (FamilySettings{Compression: hfile.CompressionGZ, Encoding: hfile.EncodingPrefix, Bloom: hfile.BloomRowCol, BlockSize: 64 << 10}); families["f"] != want {
		t.Fatalf("settings of f from %+v: %+v, want %+v", td.Family("f"), families["f"], want)
	}

	rows := job.KeyRange{Start: rowName(150)}
	var ctr Counters
	var mu sync.Mutex
	var fastFiles, files int
	for _, sr := range srcRegions {
		taskRows, ok := rows.Intersect(job.KeyRange{Start: sr.StartKey, End: sr.EndKey})
		if !ok {
			continue
		}
		task := Task{
			Task:       job.Task{ID: "t-" + sr.EncodedName, Region: sr.EncodedName, Rows: taskRows},
			Inputs:     inputs[sr.EncodedName],
			Time:       times,
			Regions:    regions,
			Families:   families,
			Checkpoint: checkpoint.New("t-" + sr.EncodedName),
			OutputDir:  path.Join(outDir, sr.EncodedName),
		}
		cp := task.Checkpoint
		// The task over the middle region "crashes" before loading its
		// second file of f, then runs again from its stored checkpoint.
		crash := crashOne && bytes.Equal(sr.StartKey, rowName(200))
		loadedF := 0
		emit := func(ctx context.Context, f OutputFile) error {
			mu.Lock()
			defer mu.Unlock()
			if crash && f.Family == "f" && !f.Last && loadedF == 1 {
				crash = false
				if err := dstFS.Remove(f.Path); err != nil {
					return err
				}
				return errCrash
			}
			if f.Family == "f" && !f.Last {
				loadedF++
			}
			if !f.Last {
				full := dst.FSDefaultFS + f.Path
				res, err := dst.RunTool(ctx, "org.apache.hadoop.hbase.io.hfile.HFilePrettyPrinter", []string{"-k", "-m", "-f", full}, nil)
				if err != nil || res.ExitCode != 0 || strings.Contains(res.Output, "ERROR") {
					return fmt.Errorf("HFilePrettyPrinter %s: %v exit %d:\n%s", full, err, res.ExitCode, res.Output)
				}
				if !f.FastPath && (!strings.Contains(res.Output, "PREFIX") && f.Family == "f") {
					return fmt.Errorf("HFilePrettyPrinter %s: no PREFIX encoding in:\n%s", full, res.Output)
				}
				r := byName[f.TargetRegion]
				err = hc.BulkLoad(ctx, r, []hbase.BulkLoadFile{{Family: f.Family, Path: full, FirstRow: f.FirstRow, LastRow: f.LastRow}}, hbase.BulkLoadOptions{})
				if err != nil {
					return err
				}
				files++
				if f.FastPath {
					fastFiles++
				}
			}
			next, err := cp.Advance(taskRows.End, checkpoint.Loaded{Family: f.Family, Mark: f.NextRow, Last: f.Last, Files: 1, Cells: f.Cells, Bytes: f.Bytes})
			if err != nil {
				return err
			}
			cp = next
			return nil
		}
		opts := Options{Source: wrapHDFS(t, srcFS), Target: wrapHDFS(t, dstFS), Counters: &ctr}
		err := Run(ctx, task, opts, emit)
		if errors.Is(err, errCrash) {
			stored, encErr := cp.Encode()
			if encErr != nil {
				t.Fatal(encErr)
			}
			var decErr error
			if task.Checkpoint, decErr = checkpoint.Decode(task.Task.ID, stored); decErr != nil {
				t.Fatal(decErr)
			}
			t.Logf("task %s crashed, resuming from %s", task.Task.ID, task.Checkpoint)
			if task.Checkpoint.Families["f"].Mark == nil {
				t.Fatalf("no mark after one loaded file: %s", task.Checkpoint)
			}
			err = Run(ctx, task, opts, emit)
		}
		if err != nil {
			t.Fatalf("task %s: %v", task.Task.ID, err)
		}
		if !cp.Done([]string{"f", "g"}) {
			t.Fatalf("task %s: checkpoint not done: %s", task.Task.ID, cp)
		}
	}
	t.Logf("copied %d files (%d fast path), %d bytes read, %d cells read, %d written, %d bytes written",
		files, fastFiles, ctr.BytesRead.Load(), ctr.CellsRead.Load(), ctr.CellsWritten.Load(), ctr.BytesWritten.Load())
	if fastFiles != wantFast {
		t.Errorf("%d fast-path files, want %d", fastFiles, wantFast)
	}

	// Raw: every version and delete marker of the selection, and nothing
	// else in the target (rows outside the range were not copied).
	spec := testsupport.CompareSpec{SourceTable: srcTable, TargetTable: dstTable, StartRow: rows.Start, StopRow: rows.End, Mode: testsupport.Raw}
	if !times.IsAll() {
		spec.TimeRange = hbase.TimeRange{Min: uint64(times.Min), Max: uint64(times.Max)}
	}
	sum := testsupport.Compare(t, env, spec)
	kinds := sum.Types
	t.Logf("compared %d cells, by type %v", sum.Cells, kinds)
	// Loaded files were moved out of the output folder; no temporary is left.
	err = dstFS.Walk(outDir, func(p string, fi fs.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			t.Errorf("left in the output folder: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	return kinds
}

// wrapHDFS is the fsys.FS of an HDFS client.
func wrapHDFS(t testing.TB, c *hdfs.Client) *fsys.HDFS {
	t.Helper()
	fs, err := fsys.NewHDFS(c, fsys.HDFSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}
