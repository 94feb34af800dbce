package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"rangecopy/cluster"
)

// zkReachWait bounds how long a registration waits for the cluster's ZooKeeper to answer.
const zkReachWait = 5 * time.Second

// quietZK drops go-zookeeper's log lines: a probe's failures are in its answer.
type quietZK struct{}

func (quietZK) Printf(string, ...any) {}

// zkAnswers opens a ZooKeeper session with one of quorum's servers and closes it, waiting at
// most wait; an error when none gave a session in that time. It is what a registration
// checks, so a quorum nobody answers at is refused when it is registered rather than at
// each job's first step.
func zkAnswers(ctx context.Context, quorum []string, wait time.Duration) error {
	conn, events, err := zk.Connect(quorum, 10*time.Second, zk.WithLogger(quietZK{}), zk.WithLogInfo(false))
	if err != nil {
		return err
	}
	defer conn.Close()
	t := time.NewTimer(wait)
	defer t.Stop()
	last := ""
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return nil
			}
			if ev.Err != nil {
				last = " (" + ev.Err.Error() + ")"
			}
		case <-t.C:
			return fmt.Errorf("no session within %s%s", wait, last)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// checkReachable refuses, as a 400 naming zkQuorum, a cluster whose ZooKeeper quorum gives no
// session within zkReachWait, unless the caller asked to register it unchecked.
func checkReachable(ctx context.Context, cfg cluster.Config, unchecked bool) error {
	if unchecked {
		return nil
	}
	q := strings.Join(cfg.ZKQuorum, ",")
	if err := zkAnswers(ctx, cfg.ZKQuorum, zkReachWait); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fieldProblem("zkQuorum", fmt.Sprintf("ZooKeeper %s does not answer: %v; check the quorum, or register it anyway with ?unchecked=true (rangecopy cluster add --unchecked)", q, err), q)
	}
	return nil
}
