package registry

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// 20,000 small tasks (RANGECOPY_REGISTRY_TASKS=n for more): batch add, list, count by status; logs the times and
// the largest children list and node, which must stay far below ZooKeeper's
// 1 MB packet limit (extrapolated to 100,000 tasks).
func TestScale20k(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 tasks: skipped with -short")
	}
	server, root := testZK(t)
	r := open(t, server, root)
	ctx := t.Context()
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("RANGECOPY_REGISTRY_TASKS")); err == nil && v >= 1000 {
		n = v // measure a bigger job by hand
	}
	start := time.Now()
	if _, err := r.CreateJob(ctx, "big", []byte(strings.Repeat("s", 1000))); err != nil {
		t.Fatal(err)
	}
	t.Logf("create job with %d bucket folders: %v", len(kinds)*Buckets, time.Since(start))

	tasks := make([]Task, n)
	maxSpec := 0
	for i := range tasks {
		// A realistic id: 32-hex encoded region name and a sequence; a
		// spec of about 200 bytes (range and a few file names).
		id := fmt.Sprintf("%032x-%03d", uint64(i)*0x9e3779b97f4a7c15, i%7)
		spec := fmt.Sprintf("rows=[%08d,%08d) files=f/%s.1,f/%s.2,g/%s.1", i, i+1, id[:32], id[:32], id[:32])
		tasks[i] = Task{ID: id, Spec: []byte(spec)}
		maxSpec = max(maxSpec, len(spec))
	}
	start = time.Now()
	if err := r.AddTasks(ctx, "big", tasks); err != nil {
		t.Fatal(err)
	}
	add := time.Since(start)

	start = time.Now()
	if err := r.AddTasks(ctx, "big", tasks); err != nil {
		t.Fatal(err)
	}
	readd := time.Since(start)

	start = time.Now()
	all, err := r.Tasks(ctx, "big")
	if err != nil || len(all) != n {
		t.Fatalf("Tasks: %d, %v", len(all), err)
	}
	list := time.Since(start)

	// Work on some: 300 done, 100 failed, 200 held.
	start = time.Now()
	for i := 0; i < 600; i++ {
		c, err := r.ClaimTask(ctx, "big", tasks[i].ID, "w")
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case i < 300:
			err = c.Done(ctx)
		case i < 400:
			err = c.Fail(ctx, fmt.Errorf("task %d failed", i))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	work := time.Since(start)

	start = time.Now()
	c, err := r.Count(ctx, "big")
	count := time.Since(start)
	if err != nil || c != (Counts{Tasks: n, Pending: n - 600, Claimed: 200, Done: 300, Failed: 100}) {
		t.Fatalf("Count = %+v, %v", c, err)
	}

	// The largest children list of a bucket, as it travels (4-byte length
	// and the name per child).
	largest, largestAt := 0, 0
	for b := 0; b < Buckets; b++ {
		ids, err := r.BucketTasks(ctx, "big", b)
		if err != nil {
			t.Fatal(err)
		}
		size := 4
		for _, id := range ids {
			size += 4 + len(id)
		}
		if size > largest {
			largest, largestAt = size, len(ids)
		}
	}
	// The largest transaction: CreateJob's, one create per bucket folder. A
	// create in a transaction costs about 48 bytes besides its path (op
	// header, data and ACL lengths, the world:anyone ACL, flags).
	createJob := len(kinds)*Buckets*(len(r.p.bucketDir("big", kindCheckpoints, 0))+48) + 1000
	t.Logf("add %d tasks (%d-byte specs, batches of <= %d KiB or %d ops): %v (%.0f tasks/s)",
		n, maxSpec, batchBytes>>10, batchOps, add, float64(n)/add.Seconds())
	t.Logf("add them all again (a re-plan of the same list: ids trusted by the digest): %v", readd)
	t.Logf("list all task ids (%d children listings): %v", Buckets, list)
	t.Logf("claim 600, finish 400: %v (%.1f ms per claim+result)", work, float64(work.Milliseconds())/600)
	t.Logf("count by status (%d children listings): %v: %+v", len(kindsByStatus)*Buckets, count, c)
	scale := max(1, 100000/n)
	t.Logf("largest bucket: %d tasks, children list %d bytes (x%d for 100,000 tasks: %d bytes); largest task node %d bytes; CreateJob transaction ~%d bytes",
		largestAt, largest, scale, scale*largest, maxSpec, createJob)
	if scale*largest > 256<<10 {
		t.Errorf("a bucket of a 100,000-task job would list %d bytes", scale*largest)
	}

	start = time.Now()
	if err := r.DeleteJob(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	t.Logf("delete the job: %v", time.Since(start))
}
