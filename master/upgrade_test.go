package master

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"rangecopy/checkpoint"
	"rangecopy/job"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/snapshot"
	"rangecopy/testenv"
)

// fixtureTS0 is the first timestamp of the fixtures' source cells: fixed, so
// that a later test writes the same cells into a table of its own.
const fixtureTS0 = 1_780_000_000_000

// fixtureRows and fixtureRounds are the source data of the fixtures:
// writeRounds(binaryRows(fixtureRows), fixtureRounds, fixtureTS0, deletes).
const (
	fixtureRows   = 200
	fixtureRounds = 2
)

// fixtureMeta is what a fixture's nodes refer to, so a later test can make
// the same things under names of its own.
type fixtureMeta struct {
	// Release names the code that wrote the nodes (a commit).
	Release string `json:"release"`
	// JobID and Table are the job's id and its source (and target) table.
	JobID string `json:"jobId"`
	Table string `json:"table"`
	// Regions are the source table's regions: encoded name and start key.
	Regions []fixtureRegion `json:"regions"`
	// WorkRoot is the job's work root on the target HDFS.
	WorkRoot string `json:"workRoot"`
	// SourceRootDir, TargetRootDir, SourceZK, TargetZK, SourceNameNode and
	// TargetNameNode are the clusters as the record names them.
	SourceRootDir  string `json:"sourceRootDir"`
	TargetRootDir  string `json:"targetRootDir"`
	SourceZK       string `json:"sourceZk"`
	TargetZK       string `json:"targetZk"`
	SourceNameNode string `json:"sourceNameNode"`
	TargetNameNode string `json:"targetNameNode"`
	// Tasks, Bytes and Pruned are the plan's totals as the planner logged
	// them.
	Tasks  int   `json:"tasks"`
	Bytes  int64 `json:"bytes"`
	Pruned int   `json:"pruned"`
}

type fixtureRegion struct {
	Encoded string `json:"encoded"`
	Start   []byte `json:"start"`
}

func readMeta(t *testing.T, dir string) fixtureMeta {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m fixtureMeta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s/meta.json: %v", dir, err)
	}
	return m
}

// sourceRegions lists a table's regions as a fixture names them.
func sourceRegions(t *testing.T, env *testenv.Env, table string) []fixtureRegion {
	t.Helper()
	regs, err := env.Source.Regions(t.Context(), table)
	if err != nil {
		t.Fatal(err)
	}
	var out []fixtureRegion
	for _, r := range regs {
		out = append(out, fixtureRegion{Encoded: r.EncodedName, Start: r.StartKey})
	}
	return out
}

// upgraded is a fixture's job loaded under a registry root of the test's own.
type upgraded struct {
	meta  fixtureMeta
	o     Options // the copy the job is, on the test's table
	id    string  // the job's id here
	reg   *registry.Registry
	table string
	// preloaded is how many files its checkpoints say were loaded before
	// the upgrade.
	preloaded int64
	// oldReport is the fixture's report node, if it has one.
	oldReport []byte
}

// loadFixture makes what a fixture's job names under names of the test's
// own: a source table with the fixture's cells, the job's snapshot of it, the
// target table holding what the checkpoints say was loaded, and the job's
// nodes with every name mapped (the nodes' formats kept byte for byte).
func loadFixture(t *testing.T, env *testenv.Env, name string) upgraded {
	t.Helper()
	ctx := t.Context()
	dir := filepath.Join("testdata", name)
	u := upgraded{meta: readMeta(t, dir)}
	u.table = createSource(t, env, "up")
	writeRounds(t, env.Source, u.table, binaryRows(fixtureRows), fixtureRounds, fixtureTS0, true)
	dropTargetLater(t, env, u.table)
	u.o = testOptions(t, env, job.Spec{Table: u.table})
	u.o.CreateTable = true
	u.id = JobID(u.o.Source, u.o.Target, u.o.Spec)

	nodes := map[string][]byte{}
	root := filepath.Join(dir, "nodes")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		nodes[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// Names: the job, the table, the regions (by start key), the files (by
	// region and facts), the clusters and the work root.
	pairs := []string{u.meta.JobID, u.id, u.meta.Table, u.table}
	regs := sourceRegions(t, env, u.table)
	byStart := map[string]string{}
	for _, r := range regs {
		byStart[string(r.Start)] = r.Encoded
	}
	regionOf := map[string]string{}
	for _, r := range u.meta.Regions {
		enc, ok := byStart[string(r.Start)]
		if !ok {
			t.Fatalf("fixture region %s starts at %x; the test's table has no such region", r.Encoded, r.Start)
		}
		regionOf[r.Encoded] = enc
		pairs = append(pairs, r.Encoded, enc)
	}
	snap := strings.ReplaceAll(string(recordOf(t, nodes["job"]).Snapshot), u.meta.JobID, u.id)
	if err := env.Source.CreateSnapshot(ctx, u.table, snap); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Source.DeleteSnapshot(t.Context(), snap) })
	pinned, err := snapshot.Read(ctx, snapshot.HDFS(env.Source.HDFS(t, env.Source.User)), u.o.Source.RootDir, snap, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	factsOf := func(f job.StoreFile) string {
		return fmt.Sprintf("%s/%s/%x/%x/%v/%d/%d", f.Region, f.Family, f.FirstRow, f.LastRow, f.HasTime, f.MinTime, f.MaxTime)
	}
	fileOf := map[string]string{}
	for _, f := range pinned.Files {
		fileOf[factsOf(f)] = f.Name
	}
	for rel, b := range nodes {
		if !strings.HasPrefix(rel, "tasks/") {
			continue
		}
		ts, err := job.DecodeTaskSpec(b)
		if err != nil {
			t.Fatalf("fixture %s: %v", rel, err)
		}
		for _, in := range ts.Inputs {
			f := in.File
			f.Region = regionOf[f.Region]
			n, ok := fileOf[factsOf(f)]
			if !ok {
				t.Fatalf("fixture %s: input %s (%s) has no file of the same facts in the test's snapshot", rel, in.File.Name, factsOf(f))
			}
			pairs = append(pairs, in.File.Name, n)
		}
	}
	pairs = append(pairs, u.meta.SourceRootDir, u.o.Source.RootDir, u.meta.TargetRootDir, u.o.Target.RootDir,
		u.meta.SourceZK, u.o.Source.ZKQuorum[0], u.meta.TargetZK, u.o.Target.ZKQuorum[0],
		u.meta.SourceNameNode, u.o.Source.NameNodes[0], u.meta.TargetNameNode, u.o.Target.NameNodes[0],
		u.meta.WorkRoot, u.o.WorkRoot)
	rename := strings.NewReplacer(pairs...)

	// The nodes, under a root of the test's own.
	u.reg = openRegistry(t, env, u.o.ZKRoot)
	jobNode := []byte(rename.Replace(string(nodes["job"])))
	rec := recordOf(t, jobNode)
	if _, err := u.reg.CreateJob(ctx, u.id, jobNode[bytes.IndexByte(jobNode, '{'):]); err != nil {
		t.Fatal(err)
	}
	if rec.Snapshot != snap || rec.Spec.Table != u.table || rec.Options.WorkRoot != u.o.WorkRoot {
		t.Fatalf("mapped record: %+v", rec)
	}
	conn, _, err := zk.Connect([]string{env.Target.ZKQuorum}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	base := u.o.ZKRoot + "/jobs/" + u.id
	if _, err := conn.Set(base, jobNode, -1); err != nil {
		t.Fatal(err)
	}
	rels := slices.Sorted(func(yield func(string) bool) {
		for rel := range nodes {
			if !yield(rel) {
				return
			}
		}
	})
	for _, rel := range rels {
		if rel == "job" {
			continue
		}
		b := []byte(rename.Replace(string(nodes[rel])))
		for _, old := range []string{u.meta.JobID, u.meta.Table, u.meta.WorkRoot} {
			if bytes.Contains(b, []byte(old)) {
				t.Fatalf("fixture %s still names %s after mapping", rel, old)
			}
		}
		p := base + "/" + rel
		if parts := strings.Split(rel, "/"); len(parts) == 3 {
			task := rename.Replace(parts[2])
			p = fmt.Sprintf("%s/%s/%02x/%s", base, parts[0], registry.Bucket(task), task)
		}
		if _, err := conn.Create(p, b, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
		if rel == registry.NodeReport {
			u.oldReport = b
		}
	}

	// The target, holding what the checkpoints say was loaded: every cell
	// of a family in the task's rows below its mark (all of them, once the
	// family is done).
	if err := env.Target.CreateTable(ctx, u.table, sampleFamilies, sampleSplits); err != nil {
		t.Fatal(err)
	}
	tasks, err := u.reg.CheckpointedTasks(ctx, u.id)
	if err != nil || len(tasks) == 0 {
		t.Fatalf("checkpointed tasks of the loaded job: %v, %v", tasks, err)
	}
	for _, task := range tasks {
		b, err := u.reg.TaskCheckpoint(ctx, u.id, task)
		if err != nil {
			t.Fatal(err)
		}
		cp, err := checkpoint.Decode(task, b)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := u.reg.TaskSpec(ctx, u.id, task)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := job.DecodeTaskSpec(sb)
		if err != nil {
			t.Fatal(err)
		}
		u.preloaded += cp.Files
		for fam, fp := range cp.Families {
			stop := fp.Mark
			if fp.Done {
				stop = ts.Task.Rows.End
			}
			if !fp.Done && fp.Mark == nil {
				continue
			}
			cells, err := env.Source.Scan(ctx, u.table, testenv.ScanSpec{Raw: true, StartRow: ts.Task.Rows.Start, StopRow: stop})
			if err != nil {
				t.Fatal(err)
			}
			cells = slices.DeleteFunc(cells, func(c testenv.Cell) bool { return string(c.Family) != fam })
			// Puts and markers in files of their own, as the source has
			// them: a flush drops the puts a marker in the same memstore
			// masks.
			markers := slices.DeleteFunc(slices.Clone(cells), func(c testenv.Cell) bool { return c.Type == "Put" })
			puts := slices.DeleteFunc(cells, func(c testenv.Cell) bool { return c.Type != "Put" })
			for _, batch := range [][]testenv.Cell{puts, markers} {
				if len(batch) == 0 {
					continue
				}
				if err := env.Target.Mutate(ctx, u.table, batch); err != nil {
					t.Fatal(err)
				}
				if err := env.Target.Flush(ctx, u.table); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	c, err := u.reg.Count(ctx, u.id)
	if err != nil || u.preloaded == 0 || c.Done == 0 || c.Done == c.Tasks || c.Tasks != u.meta.Tasks {
		t.Fatalf("fixture %s loaded: %+v, %v; %d files loaded; want %d tasks, some done, some not, some files loaded",
			name, c, err, u.preloaded, u.meta.Tasks)
	}
	return u
}

// loadedFiles sums the files the job's checkpoints count.
func loadedFiles(t *testing.T, u upgraded) int64 {
	t.Helper()
	tasks, err := u.reg.CheckpointedTasks(t.Context(), u.id)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, task := range tasks {
		b, err := u.reg.TaskCheckpoint(t.Context(), u.id, task)
		if err != nil {
			t.Fatal(err)
		}
		cp, err := checkpoint.Decode(task, b)
		if err != nil {
			t.Fatal(err)
		}
		n += cp.Files
	}
	return n
}

// recordOf reads the job record of a job node's data: the JSON after the
// node's state and message.
func recordOf(t *testing.T, node []byte) job.Record {
	t.Helper()
	i := bytes.IndexByte(node, '{')
	if i < 0 {
		t.Fatalf("job node %q holds no record", node)
	}
	rec, err := job.DecodeRecord(node[i:])
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestUpgradeResumesDetachedJob loads a detached job part way as release
// 02d71e2 left it (testdata/v2-detached) and lets this release's master and
// worker finish it: the target equals the source, the snapshot is released,
// and the report counts the time run before the upgrade.
func TestUpgradeResumesDetachedJob(t *testing.T) {
	env := testenv.Get(t)
	u := loadFixture(t, env, "v2-detached")
	if len(u.oldReport) == 0 {
		t.Fatal("the fixture has no report node")
	}
	f := newFleet(t, env, u.o.ZKRoot)
	f.master("m1")
	f.worker("w1", 2)
	waitState(t, u.reg, u.id, 3*time.Minute, registry.JobDone)
	assertSame(t, env, u.table, u.table, nil, nil)
	if hasSnapshot(t, env, SnapshotName(u.id)+"-") {
		t.Error("the job's snapshot is still there")
	}
	rep, ok, err := LoadReport(t.Context(), u.reg, u.id)
	if err != nil || !ok {
		t.Fatalf("report: %v, %v", ok, err)
	}
	t.Logf("report: %+v", rep)
	if files := loadedFiles(t, u); rep.Status != "done" || rep.Tasks != int64(u.meta.Tasks) || rep.TasksDone != rep.Tasks || rep.FilesLoaded != files {
		t.Errorf("report %+v; want done, %d tasks, %d files (as the checkpoints count)", rep, u.meta.Tasks, files)
	}
	checkOldTimeCounted(t, u, rep)
}

// TestUpgradeResumesCopyJob loads a rangecopy copy job interrupted part way
// by release 02d71e2 (testdata/v2-copy) and runs the same copy again with
// this release: it resumes the job, loads only what was not loaded, and
// reports the plan's totals.
func TestUpgradeResumesCopyJob(t *testing.T) {
	env := testenv.Get(t)
	u := loadFixture(t, env, "v2-copy")
	o := u.o
	o.CreateTable = false
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("copy: %v (%+v)", err, rep)
	}
	t.Logf("report: %+v", rep)
	files := loadedFiles(t, u)
	if rep.Job != u.id || rep.Tasks != int64(u.meta.Tasks) || rep.FilesLoaded != files-u.preloaded {
		t.Errorf("report %+v; want job %s, %d tasks, %d files loaded (%d less the %d before)", rep, u.id, u.meta.Tasks,
			files-u.preloaded, files, u.preloaded)
	}
	checkPlanTotals(t, u, rep)
	assertSame(t, env, u.table, u.table, nil, nil)
	assertFinished(t, env, o, rep)
}

// checkOldTimeCounted checks the final report counts the time the job ran
// before the upgrade, as the fixture's report says.
func checkOldTimeCounted(t *testing.T, u upgraded, rep progress.Report) {
	t.Helper()
	var old progress.Report
	if err := json.Unmarshal(u.oldReport, &old); err != nil {
		t.Fatal(err)
	}
	if old.Seconds <= 0 || rep.Seconds < old.Seconds {
		t.Errorf("report's %.1f s do not count the %.1f s run before the upgrade", rep.Seconds, old.Seconds)
	}
}

// checkPlanTotals checks the report's plan totals are the fixture's.
func checkPlanTotals(t *testing.T, u upgraded, rep progress.Report) {
	t.Helper()
	if rep.FilesPruned != u.meta.Pruned {
		t.Errorf("report: %d files pruned, want %d", rep.FilesPruned, u.meta.Pruned)
	}
}
