package master

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"rangecopy/cluster"
	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/testenv"
)

// testOptions returns options for a copy between the test clusters, with a
// registry root and work folder of the test's own.
func testOptions(t *testing.T, env *testenv.Env, spec job.Spec) Options {
	t.Helper()
	src, err := cluster.Load("source", env.Source.ConfDir)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := cluster.Load("target", env.Target.ConfDir)
	if err != nil {
		t.Fatal(err)
	}
	u := testenv.UniqueName(t, "m")
	return Options{Source: src, Target: tgt, Spec: spec, Workers: 2, ZKRoot: "/rangecopy-test/" + u,
		WorkRoot: "/tmp/rangecopy-test/" + u, User: env.Target.User,
		Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// openRegistry opens the registry a test's copies use.
func openRegistry(t *testing.T, env *testenv.Env, root string) *registry.Registry {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	reg, err := registry.Open(ctx, registry.Config{Servers: []string{env.Target.ZKQuorum}, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	return reg
}

// binaryRows are the sample's row keys: binary, with 0x00 and 0xFF bytes.
func binaryRows(n int) [][]byte {
	var rows [][]byte
	for i := 0; i < n; i++ {
		switch i % 4 {
		case 0:
			rows = append(rows, []byte{0x00, byte(i), 'a'})
		case 1:
			rows = append(rows, []byte{0x40, byte(i), 0x00})
		case 2:
			rows = append(rows, []byte{0x80, byte(i), 0xff})
		default:
			rows = append(rows, []byte{0xff, 0xff, byte(i)})
		}
	}
	return rows
}

// sampleSplits cut the binary rows into four regions.
var sampleSplits = [][]byte{{0x40}, {0x80}, {0xff}}

var sampleFamilies = []testenv.Family{{Name: "cf1", MaxVersions: 3}, {Name: "cf2", MaxVersions: 3, Compression: "GZ", Bloom: "ROWCOL"}}

// writeRounds writes rounds of puts (three versions over the rounds) and,
// in the last round, every delete kind, through HBase's client; each round
// is flushed into its own store files. Timestamps are ts0 + round*1000 (+ a
// few ms).
func writeRounds(t *testing.T, c *testenv.Cluster, table string, rows [][]byte, rounds int, ts0 int64, deletes bool) {
	t.Helper()
	ctx := t.Context()
	for round := 0; round < rounds; round++ {
		var cells []testenv.Cell
		ts := ts0 + int64(round)*1000
		for i, row := range rows {
			for _, fam := range []string{"cf1", "cf2"} {
				cells = append(cells, testenv.Cell{Row: row, Family: []byte(fam), Qualifier: []byte("q1"), Timestamp: ts, Type: "Put",
					Value: []byte(fmt.Sprintf("%x-%s-%d", row, fam, round))})
				if i%3 == 0 {
					cells = append(cells, testenv.Cell{Row: row, Family: []byte(fam), Qualifier: []byte{0x00, 0xff}, Timestamp: ts + 1, Type: "Put",
						Value: bytes.Repeat([]byte{byte(i), byte(round)}, 40)})
				}
			}
			if deletes && round == rounds-1 {
				switch i % 8 {
				case 1:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf1"), Qualifier: []byte("q1"), Timestamp: ts0, Type: "Delete"})
				case 2:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf2"), Qualifier: []byte("q1"), Timestamp: ts, Type: "DeleteColumn"})
				case 3:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf1"), Timestamp: ts + 2, Type: "DeleteFamily"})
				case 5:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf2"), Timestamp: ts0, Type: "DeleteFamilyVersion"})
				}
			}
		}
		if err := c.Mutate(ctx, table, cells); err != nil {
			t.Fatalf("write round %d to %s: %v", round, table, err)
		}
		if err := c.Flush(ctx, table); err != nil {
			t.Fatalf("flush %s: %v", table, err)
		}
	}
}

// createSource creates a source table of the test with the sample's regions
// and families.
func createSource(t *testing.T, env *testenv.Env, prefix string) string {
	t.Helper()
	return createSourceWith(t, env, prefix, testenv.TableOptions{})
}

// createSourceWith is createSource with table options: compaction on, for a
// test that compacts (and so compares visible cells, not raw scans).
func createSourceWith(t *testing.T, env *testenv.Env, prefix string, opts testenv.TableOptions) string {
	t.Helper()
	table := testenv.UniqueName(t, prefix)
	if err := env.Source.CreateTableWith(t.Context(), table, sampleFamilies, sampleSplits, opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Source.DeleteTable(context.Background(), table) })
	return table
}

// dropTargetLater removes a target table when the test ends.
func dropTargetLater(t *testing.T, env *testenv.Env, table string) {
	t.Cleanup(func() { env.Target.DeleteTable(context.Background(), table) })
}

// assertFinished checks a done job left no snapshot and no work folder.
func assertFinished(t *testing.T, env *testenv.Env, o Options, rep progress.Report) {
	t.Helper()
	if rep.Status != "done" || rep.TasksDone != rep.Tasks || rep.TasksFailed != 0 {
		t.Fatalf("report: %+v", rep)
	}
	snaps, err := testsupport.Dial(t, env.Source).ListSnapshots(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		if strings.HasPrefix(s.Name, SnapshotName(rep.Job)+"-") {
			t.Errorf("snapshot %s of the done job is still there", s.Name)
		}
	}
	reg := openRegistry(t, env, o.ZKRoot)
	j, err := reg.Job(t.Context(), rep.Job)
	if err != nil || j.State != registry.JobDone {
		t.Errorf("job %s in the registry: %+v, %v", rep.Job, j, err)
	}
}
