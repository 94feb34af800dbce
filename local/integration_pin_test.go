package local

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/testenv"
)

// TestCopyPinSurvivesRegionServerStop stops a source region server that
// holds a region of the table as the copy starts to pin it, so that the
// snapshot is asked for while the master still places the region on a dead
// server: the pin must not fail the job (HBase's snapshot procedure waits for
// the region to open elsewhere, or the copy takes the snapshot again under a
// new name) and must not wait out the master's snapshot timeout. The copy
// then compares raw with the source (compaction is off on both tables).
func TestCopyPinSurvivesRegionServerStop(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	table := createSource(t, env, "pinrs")
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
	// Unflushed cells in the region on the doomed server: the snapshot's
	// flush has work to do there.
	var cells []testenv.Cell
	for i := 0; i < 500; i++ {
		cells = append(cells, testenv.Cell{Row: []byte{0x40, byte(i >> 8), byte(i)}, Family: []byte("cf1"), Qualifier: []byte("big"),
			Timestamp: time.Now().UnixMilli() - 50_000, Type: "Put", Value: make([]byte, 2048)})
	}
	if err := env.Source.Mutate(ctx, table, cells); err != nil {
		t.Fatal(err)
	}

	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	dropTargetLater(t, env, table)
	var stopErr error
	var stoppedAt time.Time
	trigger := &onMessage{Handler: o.Logger.Handler(), msg: master.MsgTakingSnapshot, fn: func() {
		// Before the snapshot is asked for: the region server is gone
		// when it starts, its region not yet open elsewhere.
		stopErr = env.Source.StopRegionServerNoWait(context.WithoutCancel(ctx), rs)
		stoppedAt = time.Now()
	}}
	o.Logger = slog.New(trigger)
	start := time.Now()
	rep, err := Copy(ctx, o)
	if !trigger.fired() {
		t.Fatalf("the copy never logged %q: the region server was not stopped while it pinned", master.MsgTakingSnapshot)
	}
	stopped = true
	if stopErr != nil {
		t.Fatalf("stop region server %s as the copy pinned: %v", rs, stopErr)
	}
	if err != nil {
		t.Fatalf("copy with a region server stopped while it pinned: %v (report %+v)", err, rep)
	}
	t.Logf("region server %s stopped %.1f s into the copy; the copy took %.1f s, snapshots taken again: %d",
		rs, stoppedAt.Sub(start).Seconds(), time.Since(start).Seconds(), rep.PinRetries)
	n := assertSame(t, env, table, table, nil, nil)
	assertFinished(t, env, o, rep)
	t.Logf("%d cells equal", n)
}

// onMessage is a slog handler that calls fn, once and synchronously, when a
// record with message msg is logged, and passes records on to Handler.
type onMessage struct {
	slog.Handler
	msg  string
	fn   func()
	once sync.Once
	done bool
}

func (h *onMessage) Enabled(context.Context, slog.Level) bool { return true }

func (h *onMessage) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { h.fn(); h.done = true })
	}
	if h.Handler.Enabled(ctx, r.Level) {
		return h.Handler.Handle(ctx, r)
	}
	return nil
}

func (h *onMessage) WithAttrs(as []slog.Attr) slog.Handler {
	return &child{parent: h, Handler: h.Handler.WithAttrs(as)}
}

func (h *onMessage) WithGroup(name string) slog.Handler {
	return &child{parent: h, Handler: h.Handler.WithGroup(name)}
}

func (h *onMessage) fired() bool {
	fired := false
	h.once.Do(func() {}) // waits for a call in progress
	fired = h.done
	return fired
}

// child is a derived handler of an onMessage: it triggers the parent.
type child struct {
	parent *onMessage
	slog.Handler
}

func (c *child) Enabled(context.Context, slog.Level) bool { return true }

func (c *child) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == c.parent.msg {
		c.parent.once.Do(func() { c.parent.fn(); c.parent.done = true })
	}
	if c.Handler.Enabled(ctx, r.Level) {
		return c.Handler.Handle(ctx, r)
	}
	return nil
}

func (c *child) WithAttrs(as []slog.Attr) slog.Handler {
	return &child{parent: c.parent, Handler: c.Handler.WithAttrs(as)}
}

func (c *child) WithGroup(name string) slog.Handler {
	return &child{parent: c.parent, Handler: c.Handler.WithGroup(name)}
}
