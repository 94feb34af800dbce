package registry

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestElectionOrder(t *testing.T) {
	names := []string{
		"_c_bb-n_0000000003", "_c_aa-n_0000000001", "junk", "_c_cc-n_0000000002", "_c_dd-n_12",
	}
	sorted := sortElection(names)
	want := []string{"_c_aa-n_0000000001", "_c_cc-n_0000000002", "_c_bb-n_0000000003"}
	if !reflect.DeepEqual(sorted, want) {
		t.Fatalf("sortElection = %v", sorted)
	}
	for _, tc := range []struct {
		mine        string
		prev        string
		leading, ok bool
	}{
		{"_c_aa-n_0000000001", "", true, true},
		{"_c_cc-n_0000000002", "_c_aa-n_0000000001", false, true},
		{"_c_bb-n_0000000003", "_c_cc-n_0000000002", false, true},
		{"_c_zz-n_0000000009", "", false, false},
	} {
		prev, leading, ok := predecessor(sorted, tc.mine)
		if prev != tc.prev || leading != tc.leading || ok != tc.ok {
			t.Errorf("predecessor(%s) = %q %v %v", tc.mine, prev, leading, ok)
		}
	}
}

// Three candidates: one leads; when its process goes, the next one leads.
func TestLeaderElection(t *testing.T) {
	server, root := testZK(t)
	ctx := t.Context()
	const n = 3
	regs := make([]*Registry, n)
	type won struct {
		i int
		l *Leadership
	}
	wins := make(chan won, n)
	for i := range regs {
		regs[i] = open(t, server, root)
		go func() {
			l, err := regs[i].Campaign(ctx, fmt.Sprintf("master-%d", i))
			if err != nil {
				if ctx.Err() == nil {
					t.Errorf("campaign %d: %v", i, err)
				}
				return
			}
			wins <- won{i, l}
		}()
	}
	var first won
	select {
	case first = <-wins:
	case <-time.After(time.Minute):
		t.Fatal("no leader after a minute")
	}
	if id, err := regs[first.i].Leader(ctx); err != nil || id != first.l.ID() {
		t.Fatalf("Leader = %q, %v, want %s", id, err, first.l.ID())
	}
	// Nobody else leads meanwhile (checked once all three are in the race).
	waitFor(t, 30*time.Second, "three candidates", func() bool {
		names, _, err := regs[0].conn.Children(regs[0].p.leaderDir())
		return err == nil && len(sortElection(names)) == n
	})
	select {
	case w := <-wins:
		t.Fatalf("candidate %d leads while %d does", w.i, first.i)
	default:
	}

	// The leader's process ends: its session closes, the next one leads.
	regs[first.i].Close()
	closedWithin(t, first.l.Done(), 10*time.Second, "the closed leader's Done")
	var second won
	select {
	case second = <-wins:
	case <-time.After(time.Minute):
		t.Fatal("no second leader")
	}
	if second.i == first.i {
		t.Fatal("same leader twice")
	}
	if id, err := regs[second.i].Leader(ctx); err != nil || id != second.l.ID() {
		t.Fatalf("Leader = %q, %v, want %s", id, err, second.l.ID())
	}

	// Resign hands over to the third.
	if err := second.l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	closedWithin(t, second.l.Done(), time.Second, "Done after Resign")
	var third won
	select {
	case third = <-wins:
	case <-time.After(time.Minute):
		t.Fatal("no third leader")
	}
	if third.i == first.i || third.i == second.i {
		t.Fatalf("third leader is %d", third.i)
	}
	if err := third.l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := regs[third.i].Leader(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Leader with no candidates: %v", err)
	}
}

// A leader whose session expires loses leadership at once; campaigning again
// in the new session works.
func TestLeadershipLostWithSession(t *testing.T) {
	server, root := testZK(t)
	ctx := t.Context()
	r, proxy := openVia(t, server, root)
	l, err := r.Campaign(ctx, "m1")
	if err != nil {
		t.Fatal(err)
	}
	expire(t, r, proxy)
	closedWithin(t, l.Done(), 10*time.Second, "Done after the session expired")
	l2, err := r.Campaign(ctx, "m1")
	if err != nil {
		t.Fatal(err)
	}
	if id, err := r.Leader(ctx); err != nil || id != "m1" {
		t.Fatalf("Leader = %q, %v", id, err)
	}
	if err := l2.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}

// A campaign that waits ends with its context and leaves no node behind.
func TestCampaignCancel(t *testing.T) {
	server, root := testZK(t)
	ctx := t.Context()
	r1 := open(t, server, root)
	r2 := open(t, server, root)
	l, err := r1.Campaign(ctx, "m1")
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := r2.Campaign(cctx, "m2")
		errc <- err
	}()
	waitFor(t, 30*time.Second, "the second candidate to enter", func() bool {
		names, _, err := r1.conn.Children(r1.p.leaderDir())
		return err == nil && len(names) == 2
	})
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled campaign: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cancelled campaign did not return")
	}
	names, _, err := r1.conn.Children(r1.p.leaderDir())
	if err != nil || len(names) != 1 {
		t.Fatalf("election nodes after cancel: %v, %v", names, err)
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}
