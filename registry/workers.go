package registry

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/go-zookeeper/zk"
)

// RegisterWorker announces a live worker with an ephemeral node and keeps it
// announced: after a session expiry the registry registers it again in the
// new session. An id held by another live session is ErrExists.
func (r *Registry) RegisterWorker(ctx context.Context, w Worker) error {
	if err := ValidateID(w.ID); err != nil {
		return fmt.Errorf("registry: worker: %w", err)
	}
	if w.Capacity < 0 || w.Capacity > 1<<20 {
		return fmt.Errorf("registry: worker %s: capacity %d out of range", w.ID, w.Capacity)
	}
	if len(w.Info) > MaxWorkerInfo {
		return fmt.Errorf("registry: worker %s: info of %d bytes: %w", w.ID, len(w.Info), ErrTooLarge)
	}
	if err := r.putWorker(ctx, w); err != nil {
		return err
	}
	r.mu.Lock()
	r.workers[w.ID] = w
	r.mu.Unlock()
	return nil
}

// putWorker creates the worker's node, or updates it when this session
// already owns it.
func (r *Registry) putWorker(ctx context.Context, w Worker) error {
	if err := r.alive(ctx); err != nil {
		return err
	}
	path := r.p.worker(w.ID)
	_, err := r.conn.Create(path, w.encode(), zk.FlagEphemeral, openACL)
	if !errors.Is(err, zk.ErrNodeExists) {
		if err != nil {
			return fmt.Errorf("registry: register worker %s: %w", w.ID, err)
		}
		return nil
	}
	ok, st, err := r.conn.Exists(path)
	if err != nil {
		return fmt.Errorf("registry: register worker %s: %w", w.ID, err)
	}
	if !ok {
		return r.putWorker(ctx, w)
	}
	if st.EphemeralOwner != r.conn.SessionID() {
		return fmt.Errorf("registry: worker %s registered by session %#x: %w", w.ID, st.EphemeralOwner, ErrExists)
	}
	if _, err := r.conn.Set(path, w.encode(), st.Version); err != nil {
		return fmt.Errorf("registry: update worker %s: %w", w.ID, err)
	}
	return nil
}

// UnregisterWorker removes a worker registered by this registry.
func (r *Registry) UnregisterWorker(ctx context.Context, id string) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("registry: worker: %w", err)
	}
	r.mu.Lock()
	delete(r.workers, id)
	r.mu.Unlock()
	if err := r.alive(ctx); err != nil {
		return err
	}
	ok, st, err := r.conn.Exists(r.p.worker(id))
	if err != nil {
		return fmt.Errorf("registry: unregister worker %s: %w", id, err)
	}
	if !ok || st.EphemeralOwner != r.conn.SessionID() {
		return nil
	}
	if err := r.conn.Delete(r.p.worker(id), st.Version); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("registry: unregister worker %s: %w", id, err)
	}
	return nil
}

// Workers lists the live workers, sorted by id. A worker that goes away while
// it is listed is left out.
func (r *Registry) Workers(ctx context.Context) ([]Worker, error) {
	if err := r.alive(ctx); err != nil {
		return nil, err
	}
	ids, _, err := r.conn.Children(r.p.workersDir())
	if err != nil {
		return nil, fmt.Errorf("registry: list workers: %w", err)
	}
	sort.Strings(ids)
	out := make([]Worker, 0, len(ids))
	for _, id := range ids {
		if err := r.alive(ctx); err != nil {
			return nil, err
		}
		b, _, err := r.conn.Get(r.p.worker(id))
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("registry: read worker %s: %w", id, err)
		}
		w, err := decodeWorker(id, b)
		if err != nil {
			return nil, fmt.Errorf("registry: worker %s: %w", id, err)
		}
		out = append(out, w)
	}
	return out, nil
}
