package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/go-zookeeper/zk"
)

// Task is a task to register: its id (ValidateID, unique in the job; e.g.
// "<region-encoded-name>-000") and the caller's encoded spec.
type Task struct {
	ID   string
	Spec []byte
}

// Limits of one AddTasks transaction: well under the 1 MB packet limit.
const (
	batchBytes = 256 << 10
	batchOps   = 1000
)

// AddTasks registers tasks of a job in transactions of at most 256 KiB and
// 1000 nodes. It is idempotent: a task already registered with the same spec
// is left alone (a master that re-plans after a crash adds the same tasks
// again); with another spec it is ErrExists. Tasks of a batch appear together.
//
// Re-adding is cheap when nothing changed: the job's tasks folder holds the
// digest of the task list being registered (see tasksDigest), and a task
// created while it holds that digest was created from that list. A re-add of
// the same list skips the ids registered already without reading their
// specs; another list reads the spec of every id registered already, once.
func (r *Registry) AddTasks(ctx context.Context, job string, tasks []Task) error {
	if err := ValidateJobID(job); err != nil {
		return fmt.Errorf("registry: job: %w", err)
	}
	seen := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		if err := ValidateID(t.ID); err != nil {
			return fmt.Errorf("registry: job %s: task: %w", job, err)
		}
		if seen[t.ID] {
			return fmt.Errorf("registry: job %s: task %s listed twice", job, t.ID)
		}
		seen[t.ID] = true
		if len(t.Spec) > MaxSpec {
			return fmt.Errorf("registry: job %s: task %s: spec of %d bytes: %w (max %d)", job, t.ID, len(t.Spec), ErrTooLarge, MaxSpec)
		}
	}
	sizes := make([]int, len(tasks))
	for i, t := range tasks {
		// The create's path and data, and about 48 bytes of framing.
		sizes[i] = len(r.p.task(job, t.ID)) + len(t.Spec) + 48
	}
	ends := splitBatches(sizes, batchBytes, batchOps)
	digest := tasksDigest(tasks)
	dir := r.p.dir(job, kindTasks)
	for attempt := 0; ; attempt++ {
		if err := r.alive(ctx); err != nil {
			return err
		}
		// The folder's digest says whether ids registered can be trusted;
		// every batch is checked against the version read here, so that a
		// planner adding another list meanwhile is noticed.
		stored, st, err := r.conn.Get(dir)
		if err != nil {
			return notFound(err, "add tasks: job %s", job)
		}
		mode := addMode(stored, digest)
		version := st.Version
		if mode.set != nil {
			if st, err = r.conn.Set(dir, mode.set, version); err != nil {
				if errors.Is(err, zk.ErrBadVersion) && attempt < 5 {
					continue
				}
				return fmt.Errorf("registry: job %s: mark the tasks being added: %w", job, err)
			}
			version = st.Version
		}
		// The ids registered already, loaded at the first conflict (a re-plan
		// adds tasks that are there) and then used to leave them out up front.
		var registered map[string]bool
		start := 0
		for _, end := range ends {
			if err = r.addBatch(ctx, job, tasks[start:end], &registered, mode.trust, version); err != nil {
				break
			}
			start = end
		}
		if errors.Is(err, errDigestMoved) && attempt < 5 {
			continue
		}
		if err != nil {
			return err
		}
		if !mode.trust {
			// Every task of the list is registered with its spec: the list's
			// digest may now vouch for them.
			if _, err := r.conn.Set(dir, digest, version); err != nil && !errors.Is(err, zk.ErrBadVersion) {
				return fmt.Errorf("registry: job %s: store the digest of the tasks: %w", job, err)
			}
		}
		return nil
	}
}

// digestFresh is the tasks folder's data of a job that CreateJob made: no
// task was added yet. digestUnknown marks a folder whose tasks may come from
// several lists (an AddTasks of a list other than the one the folder named
// is under way, or ended part way).
var (
	digestFresh   = []byte("fresh")
	digestUnknown = []byte("unknown")
)

// tasksDigest is "sha256:" and the hex SHA-256 of a task list: each id and
// spec with its length.
func tasksDigest(tasks []Task) []byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, t := range tasks {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(t.ID)))])
		h.Write([]byte(t.ID))
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(t.Spec)))])
		h.Write(t.Spec)
	}
	return []byte("sha256:" + hex.EncodeToString(h.Sum(nil)))
}

// addPlan is how AddTasks goes about a list: whether registered ids are
// trusted to hold the list's specs, and what to write into the tasks folder
// first (nil: nothing).
type addPlan struct {
	trust bool
	set   []byte
}

// addMode decides from the tasks folder's data how to add a list of the given
// digest. The folder's data keeps one promise: while it holds a list's
// digest, every registered task whose id is in that list has that list's
// spec. A fresh job has no task, so it may name the list at once; a folder
// naming the same list is trusted; anything else is marked unknown while the
// list is added with every registered spec compared, and names the list once
// it is all in.
func addMode(stored, digest []byte) addPlan {
	switch {
	case bytes.Equal(stored, digest):
		return addPlan{trust: true}
	case bytes.Equal(stored, digestFresh):
		return addPlan{trust: true, set: digest}
	case bytes.Equal(stored, digestUnknown):
		return addPlan{}
	}
	return addPlan{set: digestUnknown}
}

// errDigestMoved says the tasks folder changed under a batch: another
// AddTasks runs; AddTasks starts over.
var errDigestMoved = errors.New("registry: the job's task list changed meanwhile")

// splitBatches cuts items of the given sizes into consecutive batches of at
// most maxBytes and maxOps, and returns the end of each batch. An item larger
// than maxBytes is a batch of its own.
func splitBatches(sizes []int, maxBytes, maxOps int) []int {
	var ends []int
	for start := 0; start < len(sizes); {
		end, size := start, 0
		for end < len(sizes) && end-start < maxOps {
			if end > start && size+sizes[end] > maxBytes {
				break
			}
			size += sizes[end]
			end++
		}
		ends = append(ends, end)
		start = end
	}
	return ends
}

// addBatch creates a batch's tasks, checked against the tasks folder's
// version. Tasks registered already are left out: trusted, or compared with
// their stored spec.
func (r *Registry) addBatch(ctx context.Context, job string, batch []Task, registered *map[string]bool, trust bool, version int32) error {
	for attempt := 0; len(batch) > 0; attempt++ {
		if *registered != nil {
			var err error
			if batch, err = r.leaveOutRegistered(ctx, job, batch, *registered, trust); err != nil || len(batch) == 0 {
				return err
			}
		}
		if err := r.alive(ctx); err != nil {
			return err
		}
		ops := make([]any, 0, len(batch)+2)
		ops = append(ops, &zk.CheckVersionRequest{Path: r.p.dir(job, kindTasks), Version: version})
		for _, t := range batch {
			ops = append(ops, &zk.CreateRequest{Path: r.p.task(job, t.ID), Data: t.Spec, Acl: openACL})
		}
		ops = append(ops, &zk.SetDataRequest{Path: r.p.events(job), Version: -1})
		i, err := multiErr(r.conn.Multi(ops...))
		switch {
		case err == nil:
			return nil
		case i == 0 && errors.Is(err, zk.ErrBadVersion):
			return errDigestMoved
		case errors.Is(err, zk.ErrNoNode):
			return fmt.Errorf("registry: add tasks: job %s: %w", job, ErrNotFound)
		case errors.Is(err, zk.ErrNodeExists) && i >= 1 && i <= len(batch) && attempt < 5:
			// Some are registered already: load (again) which ones.
			lists, err := r.listAll(ctx, job, kindTasks)
			if err != nil {
				return err
			}
			*registered = map[string]bool{}
			for _, ids := range lists {
				for _, id := range ids {
					(*registered)[id] = true
				}
			}
		default:
			return fmt.Errorf("registry: job %s: add %d tasks from %s: %w", job, len(batch), batch[0].ID, err)
		}
	}
	return nil
}

// leaveOutRegistered returns the tasks of a batch that are not registered
// yet; a registered one is left out if trusted, else compared with its
// stored spec (another spec is ErrExists).
func (r *Registry) leaveOutRegistered(ctx context.Context, job string, batch []Task, registered map[string]bool, trust bool) ([]Task, error) {
	var keep, check []Task
	for _, t := range batch {
		if registered[t.ID] {
			check = append(check, t)
		} else {
			keep = append(keep, t)
		}
	}
	if trust {
		return keep, nil
	}
	err := parallel(ctx, len(check), 16, func(i int) error {
		t := check[i]
		old, _, err := r.conn.Get(r.p.task(job, t.ID))
		if err != nil {
			return notFound(err, "job %s: task %s", job, t.ID)
		}
		if !bytes.Equal(old, t.Spec) {
			return fmt.Errorf("registry: job %s: task %s with another spec: %w", job, t.ID, ErrExists)
		}
		return nil
	})
	return keep, err
}

// TaskSpec reads a task's spec.
func (r *Registry) TaskSpec(ctx context.Context, job, task string) ([]byte, error) {
	if err := validateTask(job, task); err != nil {
		return nil, err
	}
	if err := r.alive(ctx); err != nil {
		return nil, err
	}
	b, _, err := r.conn.Get(r.p.task(job, task))
	if err != nil {
		return nil, notFound(err, "job %s: task %s", job, task)
	}
	return b, nil
}

// BucketTasks lists the task ids of one bucket (0 to Buckets-1), sorted: a
// page of a job's tasks.
func (r *Registry) BucketTasks(ctx context.Context, job string, bucket int) ([]string, error) {
	return r.list(ctx, job, kindTasks, bucket)
}

// Tasks lists all task ids of a job, bucket by bucket (not sorted across
// buckets).
func (r *Registry) Tasks(ctx context.Context, job string) ([]string, error) {
	lists, err := r.listAll(ctx, job, kindTasks)
	if err != nil {
		return nil, err
	}
	return slices.Concat(lists...), nil
}

// Claimable lists the tasks of one bucket that are neither claimed nor
// finished, sorted: where a worker looks for work.
func (r *Registry) Claimable(ctx context.Context, job string, bucket int) ([]string, error) {
	lists, err := r.listKinds(ctx, job, bucket, kindsByStatus)
	if err != nil {
		return nil, err
	}
	busy := map[string]bool{}
	for _, l := range lists[1:] {
		for _, id := range l {
			busy[id] = true
		}
	}
	var out []string
	for _, id := range lists[0] {
		if !busy[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// kindsByStatus are the folders that tell a task's status.
var kindsByStatus = [...]string{kindTasks, kindClaims, kindDone, kindFailed}

// listKinds lists the folders kinds of one bucket of a job, in that order.
func (r *Registry) listKinds(ctx context.Context, job string, bucket int, kinds [len(kindsByStatus)]string) ([len(kindsByStatus)][]string, error) {
	var lists [len(kindsByStatus)][]string
	for i, k := range kinds {
		l, err := r.list(ctx, job, k, bucket)
		if err != nil {
			return lists, err
		}
		lists[i] = l
	}
	return lists, nil
}

// Counts are a job's tasks by status.
type Counts struct {
	Tasks, Pending, Claimed, Done, Failed int
}

// Count counts a job's tasks by status from four children listings per
// bucket (1,024 calls, pipelined on the connection), whatever the number of
// tasks. A claim or result of a task that is not registered is not counted.
func (r *Registry) Count(ctx context.Context, job string) (Counts, error) {
	return r.CountBuckets(ctx, job, allBuckets())
}

// TaskBuckets returns the buckets that hold the given tasks, sorted, each
// once: what CountBuckets lists to count a job of those tasks.
func TaskBuckets(tasks []string) []int {
	seen := make(map[int]bool, len(tasks))
	var out []int
	for _, t := range tasks {
		if b := Bucket(t); !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	sort.Ints(out)
	return out
}

// CountBuckets counts a job's tasks by status as Count does, listing only
// the given buckets (four calls each): a job whose tasks all lie in them
// (TaskBuckets of its task ids) is counted whole. A catch-up window of 16
// tasks costs 64 calls instead of 1,024, which took 0.2 to 0.8 s a look on
// a busy machine while the workers waited on the same ZooKeeper.
func (r *Registry) CountBuckets(ctx context.Context, job string, buckets []int) (Counts, error) {
	if err := ValidateJobID(job); err != nil {
		return Counts{}, fmt.Errorf("registry: job: %w", err)
	}
	per := make([]Counts, len(buckets))
	err := parallel(ctx, len(buckets), 16, func(i int) error {
		lists, err := r.listKinds(ctx, job, buckets[i], kindsByStatus)
		if err != nil {
			return err
		}
		per[i] = countBucket(lists[0], lists[1], lists[2], lists[3])
		return nil
	})
	if err != nil {
		return Counts{}, err
	}
	var c Counts
	for _, p := range per {
		c.Tasks += p.Tasks
		c.Pending += p.Pending
		c.Claimed += p.Claimed
		c.Done += p.Done
		c.Failed += p.Failed
	}
	return c, nil
}

// countBucket decides the status of each task of a bucket from the bucket's
// listings. A result wins over a claim (a claim cannot outlive its result,
// but a listing is not a snapshot).
func countBucket(tasks, claims, done, failed []string) Counts {
	status := make(map[string]Status, len(tasks))
	for _, id := range tasks {
		status[id] = StatusPending
	}
	mark := func(ids []string, s Status) {
		for _, id := range ids {
			if old, ok := status[id]; ok && old < s {
				status[id] = s
			}
		}
	}
	mark(claims, StatusClaimed)
	mark(done, StatusDone)
	mark(failed, StatusFailed)
	c := Counts{Tasks: len(status)}
	for _, s := range status {
		switch s {
		case StatusPending:
			c.Pending++
		case StatusClaimed:
			c.Claimed++
		case StatusDone:
			c.Done++
		case StatusFailed:
			c.Failed++
		}
	}
	return c
}

// TaskStatus reads one task's status.
func (r *Registry) TaskStatus(ctx context.Context, job, task string) (Status, error) {
	if err := validateTask(job, task); err != nil {
		return 0, err
	}
	for _, s := range []struct {
		path   string
		status Status
	}{
		{r.p.result(job, task, StatusDone), StatusDone},
		{r.p.result(job, task, StatusFailed), StatusFailed},
		{r.p.claim(job, task), StatusClaimed},
		{r.p.task(job, task), StatusPending},
	} {
		if err := r.alive(ctx); err != nil {
			return 0, err
		}
		ok, _, err := r.conn.Exists(s.path)
		if err != nil {
			return 0, fmt.Errorf("registry: job %s: task %s: %w", job, task, err)
		}
		if ok {
			return s.status, nil
		}
	}
	return 0, fmt.Errorf("registry: job %s: task %s: %w", job, task, ErrNotFound)
}

// TaskResult reads how a task ended; ErrNotFound when it has not.
func (r *Registry) TaskResult(ctx context.Context, job, task string) (Result, error) {
	if err := validateTask(job, task); err != nil {
		return Result{}, err
	}
	for _, s := range []Status{StatusDone, StatusFailed} {
		if err := r.alive(ctx); err != nil {
			return Result{}, err
		}
		b, _, err := r.conn.Get(r.p.result(job, task, s))
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return Result{}, fmt.Errorf("registry: job %s: task %s: result: %w", job, task, err)
		}
		res, err := decodeResult(b)
		if err != nil {
			return Result{}, fmt.Errorf("registry: job %s: task %s: result: %w", job, task, err)
		}
		if res.Status != s {
			return Result{}, fmt.Errorf("registry: job %s: task %s: %w: %v result in the %v folder", job, task, ErrFormat, res.Status, s)
		}
		return res, nil
	}
	return Result{}, fmt.Errorf("registry: job %s: task %s: no result: %w", job, task, ErrNotFound)
}

// TaskCheckpoint reads a task's checkpoint bytes; nil when none was saved.
func (r *Registry) TaskCheckpoint(ctx context.Context, job, task string) ([]byte, error) {
	if err := validateTask(job, task); err != nil {
		return nil, err
	}
	if err := r.alive(ctx); err != nil {
		return nil, err
	}
	b, _, err := r.conn.Get(r.p.checkpoint(job, task))
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("registry: job %s: task %s: checkpoint: %w", job, task, err)
	}
	if len(b) > MaxCheckpoint {
		return nil, fmt.Errorf("registry: job %s: task %s: checkpoint of %d bytes: %w (max %d)", job, task, len(b), ErrTooLarge, MaxCheckpoint)
	}
	return b, nil
}

// ResetTask makes a failed task claimable again: it removes the failed
// result and moves the task's epoch. A task that is not failed is left alone
// and reported (ErrFinished for a done task, nil for a pending or claimed one).
func (r *Registry) ResetTask(ctx context.Context, job, task string) error {
	if err := validateTask(job, task); err != nil {
		return err
	}
	if err := r.alive(ctx); err != nil {
		return err
	}
	spec, st, err := r.conn.Get(r.p.task(job, task))
	if err != nil {
		return notFound(err, "job %s: task %s", job, task)
	}
	_, err = multiErr(r.conn.Multi(
		&zk.DeleteRequest{Path: r.p.result(job, task, StatusFailed), Version: -1},
		&zk.SetDataRequest{Path: r.p.task(job, task), Data: spec, Version: st.Version},
		&zk.SetDataRequest{Path: r.p.events(job), Version: -1},
	))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, zk.ErrBadVersion):
		return fmt.Errorf("registry: reset job %s: task %s: %w", job, task, ErrConflict)
	case errors.Is(err, zk.ErrNoNode):
		if s, serr := r.TaskStatus(ctx, job, task); serr == nil && s == StatusDone {
			return fmt.Errorf("registry: reset job %s: task %s: %w", job, task, ErrFinished)
		}
		return nil
	}
	return fmt.Errorf("registry: reset job %s: task %s: %w", job, task, err)
}

func (r *Registry) list(ctx context.Context, job, kind string, bucket int) ([]string, error) {
	if err := ValidateJobID(job); err != nil {
		return nil, fmt.Errorf("registry: job: %w", err)
	}
	if bucket < 0 || bucket >= Buckets {
		return nil, fmt.Errorf("registry: bucket %d out of [0, %d)", bucket, Buckets)
	}
	if err := r.alive(ctx); err != nil {
		return nil, err
	}
	ids, _, err := r.conn.Children(r.p.bucketDir(job, kind, bucket))
	if err != nil {
		return nil, notFound(err, "job %s: list %s/%s", job, kind, bucketName(bucket))
	}
	sort.Strings(ids)
	return ids, nil
}

func (r *Registry) listAll(ctx context.Context, job, kind string) ([][]string, error) {
	return r.listIn(ctx, job, kind, allBuckets())
}

// listIn lists one kind in each of the given buckets, 16 at a time.
func (r *Registry) listIn(ctx context.Context, job, kind string, buckets []int) ([][]string, error) {
	lists := make([][]string, len(buckets))
	err := parallel(ctx, len(buckets), 16, func(i int) error {
		l, err := r.list(ctx, job, kind, buckets[i])
		lists[i] = l
		return err
	})
	return lists, err
}

// allBuckets is every bucket, in order.
func allBuckets() []int {
	all := make([]int, Buckets)
	for b := range all {
		all[b] = b
	}
	return all
}

func validateTask(job, task string) error {
	if err := ValidateJobID(job); err != nil {
		return fmt.Errorf("registry: job: %w", err)
	}
	if err := ValidateID(task); err != nil {
		return fmt.Errorf("registry: job %s: task: %w", job, err)
	}
	return nil
}

// notFound wraps a ZooKeeper error, turning ErrNoNode into ErrNotFound.
func notFound(err error, format string, args ...any) error {
	what := fmt.Sprintf(format, args...)
	if errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("registry: %s: %w", what, ErrNotFound)
	}
	return fmt.Errorf("registry: %s: %w", what, err)
}
