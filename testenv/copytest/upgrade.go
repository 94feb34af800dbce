package copytest

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
	"rangecopy/cluster"
	"rangecopy/fsys"
	"rangecopy/job"
	"rangecopy/registry"
	"rangecopy/snapshot"
	"rangecopy/testenv"
)

// Upgrade fixtures (master/testdata/v2-*): the ZooKeeper nodes of a job as
// an earlier release wrote them, loaded under a root of the test's own with
// every name the job holds mapped onto the test's, so that this release can
// resume the job.

// FixtureTS0 is the first timestamp of the fixtures' source cells: fixed, so
// that a later test writes the same cells into a table of its own.
const FixtureTS0 = 1_780_000_000_000

// FixtureRows and FixtureRounds are the source data of the fixtures:
// writeRounds(binaryRows(FixtureRows), FixtureRounds, FixtureTS0, deletes).
const (
	FixtureRows   = 200
	FixtureRounds = 2
)

// FixtureMeta is what a fixture's nodes refer to, so a later test can make
// the same things under names of its own.
type FixtureMeta struct {
	// Release names the code that wrote the nodes (a commit).
	Release string `json:"release"`
	// JobID and Table are the job's id and its source (and target) table.
	JobID string `json:"jobId"`
	Table string `json:"table"`
	// Regions are the source table's regions: encoded name and start key.
	Regions []FixtureRegion `json:"regions"`
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

type FixtureRegion struct {
	Encoded string `json:"encoded"`
	Start   []byte `json:"start"`
}

func readMeta(t *testing.T, dir string) FixtureMeta {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m FixtureMeta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s/meta.json: %v", dir, err)
	}
	return m
}

// sourceRegions lists a table's regions as a fixture names them.
func sourceRegions(t *testing.T, env *testenv.Env, table string) []FixtureRegion {
	t.Helper()
	regs, err := env.Source.Regions(t.Context(), table)
	if err != nil {
		t.Fatal(err)
	}
	var out []FixtureRegion
	for _, r := range regs {
		out = append(out, FixtureRegion{Encoded: r.EncodedName, Start: r.StartKey})
	}
	return out
}

// upgraded is a fixture's job loaded under a registry root of the test's own.
// Upgraded is a fixture's job loaded under a registry root of the test's
// own.
type Upgraded struct {
	Meta  FixtureMeta
	ID    string // the job's id here
	Reg   *registry.Registry
	Table string
	// Preloaded is how many files its checkpoints say were loaded before
	// the upgrade.
	Preloaded int64
	// OldReport is the fixture's report node, if it has one.
	OldReport []byte
}

// Setup is where a test loads a fixture's job: the clusters, its registry
// root and work root, and how the job's id derives from its table.
type Setup struct {
	Source, Target   cluster.Config
	ZKRoot, WorkRoot string
	JobID            func(table string) string
}

// LoadFixture makes what a fixture's job names under names of the test's
// own: a source table with the fixture's cells, the job's snapshot of it, the
// target table holding what the checkpoints say was loaded, and the job's
// nodes with every name mapped (the nodes' formats kept byte for byte).
func LoadFixture(t *testing.T, env *testenv.Env, dir string, s Setup) Upgraded {
	t.Helper()
	ctx := t.Context()
	name := filepath.Base(dir)
	u := Upgraded{Meta: readMeta(t, dir)}
	u.Table = CreateSource(t, env, "up")
	WriteRounds(t, env.Source, u.Table, BinaryRows(FixtureRows), FixtureRounds, FixtureTS0, true)
	DropTargetLater(t, env, u.Table)
	u.ID = s.JobID(u.Table)

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
	pairs := []string{u.Meta.JobID, u.ID, u.Meta.Table, u.Table}
	regs := sourceRegions(t, env, u.Table)
	byStart := map[string]string{}
	for _, r := range regs {
		byStart[string(r.Start)] = r.Encoded
	}
	regionOf := map[string]string{}
	for _, r := range u.Meta.Regions {
		enc, ok := byStart[string(r.Start)]
		if !ok {
			t.Fatalf("fixture region %s starts at %x; the test's table has no such region", r.Encoded, r.Start)
		}
		regionOf[r.Encoded] = enc
		pairs = append(pairs, r.Encoded, enc)
	}
	snap := strings.ReplaceAll(string(recordOf(t, nodes["job"]).Snapshot), u.Meta.JobID, u.ID)
	if err := env.Source.CreateSnapshot(ctx, u.Table, snap); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Source.DeleteSnapshot(t.Context(), snap) })
	srcFS, err := fsys.NewHDFS(env.Source.HDFS(t, env.Source.User), fsys.HDFSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := snapshot.Read(ctx, srcFS, s.Source.RootDir, snap, snapshot.Options{})
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
	pairs = append(pairs, u.Meta.SourceRootDir, s.Source.RootDir, u.Meta.TargetRootDir, s.Target.RootDir,
		u.Meta.SourceZK, s.Source.ZKQuorum[0], u.Meta.TargetZK, s.Target.ZKQuorum[0],
		u.Meta.SourceNameNode, s.Source.NameNodes[0], u.Meta.TargetNameNode, s.Target.NameNodes[0],
		u.Meta.WorkRoot, s.WorkRoot)
	rename := strings.NewReplacer(pairs...)

	// The nodes, under a root of the test's own.
	u.Reg = OpenRegistry(t, env, s.ZKRoot)
	jobNode := []byte(rename.Replace(string(nodes["job"])))
	rec := recordOf(t, jobNode)
	if _, err := u.Reg.CreateJob(ctx, u.ID, jobNode[bytes.IndexByte(jobNode, '{'):]); err != nil {
		t.Fatal(err)
	}
	if rec.Snapshot != snap || rec.Spec.Table != u.Table || rec.Options.WorkRoot != s.WorkRoot {
		t.Fatalf("mapped record: %+v", rec)
	}
	conn, _, err := zk.Connect([]string{env.Target.ZKQuorum}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	base := s.ZKRoot + "/jobs/" + u.ID
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
		for _, old := range []string{u.Meta.JobID, u.Meta.Table, u.Meta.WorkRoot} {
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
			u.OldReport = b
		}
	}

	// The target, holding what the checkpoints say was loaded: every cell
	// of a family in the task's rows below its mark (all of them, once the
	// family is done).
	if err := env.Target.CreateTable(ctx, u.Table, SampleFamilies, SampleSplits); err != nil {
		t.Fatal(err)
	}
	tasks, err := u.Reg.CheckpointedTasks(ctx, u.ID)
	if err != nil || len(tasks) == 0 {
		t.Fatalf("checkpointed tasks of the loaded job: %v, %v", tasks, err)
	}
	for _, task := range tasks {
		b, err := u.Reg.TaskCheckpoint(ctx, u.ID, task)
		if err != nil {
			t.Fatal(err)
		}
		cp, err := checkpoint.Decode(task, b)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := u.Reg.TaskSpec(ctx, u.ID, task)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := job.DecodeTaskSpec(sb)
		if err != nil {
			t.Fatal(err)
		}
		u.Preloaded += cp.Files
		for fam, fp := range cp.Families {
			stop := fp.Mark
			if fp.Done {
				stop = ts.Task.Rows.End
			}
			if !fp.Done && fp.Mark == nil {
				continue
			}
			cells, err := env.Source.Scan(ctx, u.Table, testenv.ScanSpec{Raw: true, StartRow: ts.Task.Rows.Start, StopRow: stop})
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
				if err := env.Target.Mutate(ctx, u.Table, batch); err != nil {
					t.Fatal(err)
				}
				if err := env.Target.Flush(ctx, u.Table); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	c, err := u.Reg.Count(ctx, u.ID)
	if err != nil || u.Preloaded == 0 || c.Done == 0 || c.Done == c.Tasks || c.Tasks != u.Meta.Tasks {
		t.Fatalf("fixture %s loaded: %+v, %v; %d files loaded; want %d tasks, some done, some not, some files loaded",
			name, c, err, u.Preloaded, u.Meta.Tasks)
	}
	return u
}

// LoadedFiles sums the files the job's checkpoints count.
func LoadedFiles(t *testing.T, u Upgraded) int64 {
	t.Helper()
	tasks, err := u.Reg.CheckpointedTasks(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, task := range tasks {
		b, err := u.Reg.TaskCheckpoint(t.Context(), u.ID, task)
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
