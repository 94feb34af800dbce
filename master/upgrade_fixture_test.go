package master

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"rangecopy/testenv"
)

// Upgrade fixtures: the ZooKeeper nodes of a job as one release wrote them,
// kept under testdata/<name>/ so that a later release can load them under a
// fresh registry root and resume the job (TestUpgradeResumes...).
//
// A fixture holds meta.json (fixtureMeta) and nodes/<path>: every node with
// data below the job's node (the job node itself is nodes/job), at the path
// it had under the job. Claims are left out: they are ephemeral, and an
// upgrade stops the processes that held them.

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

// dumpJob writes every node with data below a job's node into dir/nodes.
func dumpJob(t *testing.T, servers []string, root, id, dir string) {
	t.Helper()
	conn, _, err := zk.Connect(servers, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	base := root + "/jobs/" + id
	var walk func(p, rel string)
	walk = func(p, rel string) {
		b, _, err := conn.Get(p)
		if err != nil {
			t.Fatalf("get %s: %v", p, err)
		}
		if len(b) > 0 && !strings.HasPrefix(rel, "claims/") {
			name := rel
			if name == "" {
				name = "job"
			}
			f := filepath.Join(dir, "nodes", filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		kids, _, err := conn.Children(p)
		if err != nil {
			t.Fatalf("children of %s: %v", p, err)
		}
		slices.Sort(kids)
		for _, k := range kids {
			r := k
			if rel != "" {
				r = rel + "/" + k
			}
			walk(p+"/"+k, r)
		}
	}
	walk(base, "")
}

func writeMeta(t *testing.T, dir string, m fixtureMeta) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
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

// waitFor polls cond every 200 ms until it holds or limit passes.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	var err error
	for time.Now().Before(deadline) {
		var ok bool
		if ok, err = cond(); ok {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s (%v)", what, limit, errors.Join(err, fmt.Errorf("timed out")))
}
