package registry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Leadership is won master election. Done is closed when it is lost (session
// lost, election node deleted) or given up (Resign).
type Leadership struct {
	r       *Registry
	id      string
	path    string
	session int64
	done    chan struct{}
	once    sync.Once
	resign  chan struct{}
}

// ID is the candidate id that won.
func (l *Leadership) ID() string { return l.id }

// Done is closed when the leadership ends; the master must stop acting as one.
func (l *Leadership) Done() <-chan struct{} { return l.done }

// Resign gives the leadership up: the election node is deleted and the next
// candidate leads.
func (l *Leadership) Resign(ctx context.Context) error {
	l.once.Do(func() { close(l.resign) })
	<-l.done
	if err := l.r.alive(ctx); err != nil {
		return err
	}
	err := l.r.conn.Delete(l.path, -1)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("registry: resign %s: %w", l.id, err)
	}
	return nil
}

// electionNode is the name prefix of election nodes; go-zookeeper's protected
// create puts "_c_<guid>-" before it and the server a 10-digit sequence after.
const electionNode = "n_"

// seqOf returns the sequence number of an election node name ("" if none).
func seqOf(name string) string {
	i := strings.LastIndex(name, "-"+electionNode)
	if i < 0 {
		return ""
	}
	return name[i+1+len(electionNode):]
}

// sortElection orders election nodes by sequence, leaving out names that are
// not election nodes.
func sortElection(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if s := seqOf(n); len(s) == 10 {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return seqOf(out[i]) < seqOf(out[j]) })
	return out
}

// predecessor decides where a candidate stands: leading, or the node just
// before its own to watch. ok is false when its node is not there.
func predecessor(sorted []string, mine string) (prev string, leading, ok bool) {
	for i, n := range sorted {
		if n == mine {
			if i == 0 {
				return "", true, true
			}
			return sorted[i-1], false, true
		}
	}
	return "", false, false
}

// Campaign blocks until this process leads: it creates an ephemeral
// sequential node under leader/ and watches only the node just before its own
// (no herd effect). If the session is lost while it waits, it enters again in
// the next session. ctx ends the wait; its node is then removed.
func (r *Registry) Campaign(ctx context.Context, id string) (*Leadership, error) {
	if err := ValidateID(id); err != nil {
		return nil, fmt.Errorf("registry: candidate: %w", err)
	}
	for {
		if err := r.waitSession(ctx); err != nil {
			return nil, err
		}
		session, lost := r.session()
		path, err := r.conn.CreateProtectedEphemeralSequential(r.p.leaderDir()+"/"+electionNode, []byte(id), openACL)
		if err != nil {
			if Classify(err) == ActionRetry || Classify(err) == ActionStop {
				r.log.Warn("election: create node", "candidate", id, "err", err)
				if err := r.pause(ctx, retryPause); err != nil {
					return nil, err
				}
				continue
			}
			return nil, fmt.Errorf("registry: campaign %s: %w", id, err)
		}
		mine := path[strings.LastIndex(path, "/")+1:]
		l, err := r.await(ctx, id, mine, session, lost)
		if err != nil {
			_ = r.conn.Delete(path, -1)
			return nil, err
		}
		if l != nil {
			return l, nil
		}
		// The session was lost: the node is gone with it (or is deleted
		// here if the server kept the session); enter again.
		go r.dropIfMine(path, session)
	}
}

// await waits until the node leads (a Leadership), the session is lost (nil,
// nil) or ctx ends.
func (r *Registry) await(ctx context.Context, id, mine string, session int64, lost <-chan struct{}) (*Leadership, error) {
	for {
		if err := r.alive(ctx); err != nil {
			return nil, err
		}
		names, _, err := r.conn.Children(r.p.leaderDir())
		if err != nil {
			if gone, err := r.campaignErr(ctx, id, err, lost); gone || err != nil {
				return nil, err
			}
			continue
		}
		prev, leading, ok := predecessor(sortElection(names), mine)
		if !ok {
			return nil, nil
		}
		if leading {
			return r.lead(id, mine, session, lost), nil
		}
		exists, _, ch, err := r.conn.ExistsW(r.p.leaderDir() + "/" + prev)
		if err != nil {
			if gone, err := r.campaignErr(ctx, id, err, lost); gone || err != nil {
				return nil, err
			}
			continue
		}
		if !exists {
			continue
		}
		select {
		case <-ch:
		case <-lost:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-r.closed:
			return nil, ErrClosed
		}
	}
}

// campaignErr decides what a failed call means to a waiting candidate: its
// session is gone (gone), a passing failure to retry after a pause (false,
// nil), or an error to return.
func (r *Registry) campaignErr(ctx context.Context, id string, err error, lost <-chan struct{}) (bool, error) {
	switch Classify(err) {
	case ActionStop:
		return true, nil
	case ActionRetry:
		if isClosed(lost) {
			return true, nil
		}
		return false, r.pause(ctx, retryPause)
	}
	return true, fmt.Errorf("registry: campaign %s: %w", id, err)
}

// lead returns the Leadership of a node that leads, and watches it.
func (r *Registry) lead(id, mine string, session int64, lost <-chan struct{}) *Leadership {
	l := &Leadership{r: r, id: id, path: r.p.leaderDir() + "/" + mine, session: session,
		done: make(chan struct{}), resign: make(chan struct{})}
	go func() {
		defer close(l.done)
		if why := r.holdNode(l.path, session, lost, l.resign); why != "" {
			r.log.Warn("leadership lost", "candidate", id, "why", why)
		}
	}()
	r.log.Info("leading", "candidate", id, "node", mine)
	return l
}

// Leader returns the id of the current leader; ErrNotFound when none.
func (r *Registry) Leader(ctx context.Context) (string, error) {
	for attempt := 0; attempt < 5; attempt++ {
		if err := r.alive(ctx); err != nil {
			return "", err
		}
		names, _, err := r.conn.Children(r.p.leaderDir())
		if err != nil {
			return "", fmt.Errorf("registry: leader: %w", err)
		}
		sorted := sortElection(names)
		if len(sorted) == 0 {
			return "", fmt.Errorf("registry: leader: %w", ErrNotFound)
		}
		b, _, err := r.conn.Get(r.p.leaderDir() + "/" + sorted[0])
		if errors.Is(err, zk.ErrNoNode) {
			continue // it just left; look again
		}
		if err != nil {
			return "", fmt.Errorf("registry: leader: %w", err)
		}
		if err := ValidateID(string(b)); err != nil {
			return "", fmt.Errorf("registry: leader node %s: %w: %v", sorted[0], ErrFormat, err)
		}
		return string(b), nil
	}
	return "", fmt.Errorf("registry: leader: %w", ErrConflict)
}
