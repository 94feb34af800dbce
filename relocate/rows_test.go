package relocate

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"rangecopy/catalog"
	"rangecopy/relocation"
)

// TestRelocationStateRoundTrip: a machine state written into the catalog's typed columns
// and windows reads back the same.
func TestRelocationStateRoundTrip(t *testing.T) {
	ctx := context.Background()
	cat, err := catalog.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "c.db"), catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	for _, n := range []string{"a", "b"} {
		if _, err := cat.CreateCluster(ctx, catalog.Cluster{Name: n, ZKQuorum: "zk:2181"}); err != nil {
			t.Fatal(err)
		}
	}
	r := catalog.Relocation{ID: catalog.NewRelocationID(), SourceCluster: "a", TargetCluster: "b", Tables: []catalog.RelocationTable{{Source: "t"}},
		Schedule: "*/5 * * * * *", MarginMs: 1000, MaxLagMs: 60_000, Phase: "copying"}
	if _, err := cat.CreateRelocation(ctx, r, nil); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	want := relocation.State{Phase: relocation.Paused, Resume: relocation.Ready, Why: "paused by op", Watermark: now.UnixMilli(),
		NextTick: now.Add(5 * time.Second), Seq: 3, Verifying: true,
		Running: &relocation.Window{Seq: 3, Kind: relocation.CatchUp, StartTime: 5, EndTime: 9, SnapshotTime: 9, StartedAt: now, Outcome: relocation.Running},
		Last: &relocation.Window{Seq: 2, Kind: relocation.CatchUp, StartTime: 1, EndTime: 5, SnapshotTime: 5, StartedAt: now.Add(-time.Second),
			FinishedAt: now, Outcome: relocation.Ran},
		Verified: &relocation.Verification{Until: 5, At: now, Passed: true}}
	_, err = cat.UpdateRelocation(ctx, r.ID, func(x *catalog.Relocation, tx catalog.RelocationTx) error {
		for _, w := range []*relocation.Window{want.Last, want.Running} {
			if err := tx.PutWindow(windowRow(*w, []string{"j"})); err != nil {
				return err
			}
		}
		putState(x, want, now)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got relocation.State
	if err := cat.ReadRelocation(ctx, r.ID, func(x catalog.Relocation, tx catalog.RelocationTx) error {
		var err error
		got, err = StateOf(x, tx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
	if w, _ := cat.RelocationWindow(ctx, r.ID, 2); w.LagMs != now.UnixMilli()-5 || w.DurationMs != 1000 || len(w.JobIDs) != 1 {
		t.Errorf("window 2: %+v", w)
	}
}
