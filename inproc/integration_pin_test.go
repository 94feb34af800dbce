package inproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"sync"
	"testing"
	"time"

	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/testenv"
)

// TestCopyPinSurvivesRegionServerStop crashes a source region server that
// holds a region of the table in the middle of the copy's snapshot (every
// flush of the table is held for a while, so the snapshot is still flushing
// when the server dies): the pin must not fail the job (HBase's snapshot
// procedure snapshots the region again where it reopens, or the copy takes
// the snapshot again under a new name), must not wait out the master's
// snapshot timeout, and the copy then equals the source raw (compaction is
// off on both tables), cells recovered from the dead server's WAL included.
func TestCopyPinSurvivesRegionServerStop(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	table := testenv.UniqueName(t, "pinrs")
	if err := env.Source.CreateTableWith(ctx, table, sampleFamilies, sampleSplits, testenv.TableOptions{SlowFlushable: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Source.DeleteTable(context.Background(), table) })
	rows := binaryRows(120)
	writeRounds(t, env.Source, table, rows, 2, time.Now().UnixMilli()-100_000, true)

	rs, err := env.Source.StartRegionServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			if err := env.Source.StopRegionServer(context.Background(), rs); err != nil {
				t.Logf("stop region server %s: %v", rs, err)
			}
		}
	})
	regions, err := env.Source.Regions(ctx, table)
	if err != nil || len(regions) != 4 {
		t.Fatalf("source regions %v, %v; want 4", regions, err)
	}
	if _, err := env.Source.Move(ctx, regions[1].EncodedName, rs); err != nil {
		t.Fatal(err)
	}
	// Unflushed cells in the region on the doomed server: after the crash
	// only its WAL has them.
	var cells []testenv.Cell
	for i := 0; i < 200; i++ {
		cells = append(cells, testenv.Cell{Row: []byte{0x40, byte(i >> 8), byte(i)}, Family: []byte("cf1"), Qualifier: []byte("big"),
			Timestamp: time.Now().UnixMilli() - 50_000, Type: "Put", Value: bytes.Repeat([]byte{byte(i)}, 1024)})
	}
	if err := env.Source.Mutate(ctx, table, cells); err != nil {
		t.Fatal(err)
	}
	const hold = 8 * time.Second
	if err := env.Source.SetFlushDelay(ctx, table, hold); err != nil {
		t.Fatal(err)
	}

	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	dropTargetLater(t, env, table)
	crashed := make(chan error, 1)
	var crashedAt, pinnedAt time.Time
	var mu sync.Mutex
	var once sync.Once
	fs := env.Source.HDFS(t, "")
	errNoCrash := errors.New("no crash")
	trigger := &onMessage{Handler: o.Logger.Handler(), on: map[string]func(slog.Record){
		master.MsgTakingSnapshot: func(r slog.Record) {
			// The first snapshot is asked for right after this line; its
			// flushes are held for 8 s. Crash the server once the master
			// has begun the snapshot (its working folder is there) and
			// the region on the server is not in it yet (no manifest of
			// it): its flush is what holds the snapshot up.
			name := ""
			r.Attrs(func(a slog.Attr) bool {
				if a.Key == "snapshot" {
					name = a.Value.String()
				}
				return name == ""
			})
			once.Do(func() {
				go func() {
					work := path.Join(env.Source.RootDirPath(), ".hbase-snapshot/.tmp", name)
					for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
						_, infoErr := fs.Stat(path.Join(work, ".snapshotinfo"))
						_, regionErr := fs.Stat(path.Join(work, "region-manifest."+regions[1].EncodedName))
						if infoErr == nil && errors.Is(regionErr, os.ErrNotExist) {
							break
						}
						if regionErr == nil || time.Now().After(deadline) {
							crashed <- fmt.Errorf("%w: snapshot %q never caught in %s with region %s still to snapshot (%v, %v)",
								errNoCrash, name, work, regions[1].EncodedName, infoErr, regionErr)
							return
						}
					}
					// The crash begins when the abort is asked for: the call
					// returns once the server is down, and on a busy machine
					// the copy may have pinned again by then.
					at := time.Now()
					err := env.Source.AbortRegionServer(context.WithoutCancel(ctx), rs)
					mu.Lock()
					crashedAt = at
					mu.Unlock()
					crashed <- err
				}()
			})
		},
		master.MsgPinned: func(slog.Record) {
			mu.Lock()
			pinnedAt = time.Now()
			mu.Unlock()
		},
	}}
	o.Logger = slog.New(trigger)
	start := time.Now()
	rep, err := Copy(ctx, o)
	var cerr error
	select {
	case cerr = <-crashed:
		stopped = !errors.Is(cerr, errNoCrash)
	case <-time.After(2 * time.Minute):
		t.Fatalf("the copy never logged %q, or the region server was not crashed within 2 minutes", master.MsgTakingSnapshot)
	}
	if cerr != nil {
		t.Fatalf("crash region server %s while the copy pinned: %v", rs, cerr)
	}
	if err := env.Source.SetFlushDelay(ctx, table, 0); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("copy with a region server crashed while it pinned: %v (report %+v)", err, rep)
	}
	mu.Lock()
	defer mu.Unlock()
	if pinnedAt.IsZero() || !crashedAt.Before(pinnedAt) {
		t.Fatalf("the region server crashed at %s, the pin ended at %s: the crash was not in the middle of the pin",
			crashedAt.Format(time.StampMilli), pinnedAt.Format(time.StampMilli))
	}
	t.Logf("region server %s crashed %.1f s into the copy, the pin ended %.1f s in; the copy took %.1f s; snapshots taken again: %d",
		rs, crashedAt.Sub(start).Seconds(), pinnedAt.Sub(start).Seconds(), time.Since(start).Seconds(), rep.PinRetries)
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw}).Cells
	assertFinished(t, env, o, rep)
	t.Logf("%d cells equal", n)
}

// onMessage is a slog handler that calls on[msg], synchronously, each time
// a record with message msg is logged, and passes records on to Handler.
type onMessage struct {
	slog.Handler
	on map[string]func(slog.Record)
}

func (h *onMessage) Enabled(context.Context, slog.Level) bool { return true }

func (h *onMessage) Handle(ctx context.Context, r slog.Record) error {
	if fn := h.on[r.Message]; fn != nil {
		fn(r)
	}
	if h.Handler.Enabled(ctx, r.Level) {
		return h.Handler.Handle(ctx, r)
	}
	return nil
}

func (h *onMessage) WithAttrs(as []slog.Attr) slog.Handler {
	return &onMessage{Handler: h.Handler.WithAttrs(as), on: h.on}
}

func (h *onMessage) WithGroup(name string) slog.Handler {
	return &onMessage{Handler: h.Handler.WithGroup(name), on: h.on}
}
