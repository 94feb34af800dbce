package registry

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestAddMode(t *testing.T) {
	d := tasksDigest([]Task{{ID: "a", Spec: []byte("x")}})
	for _, tt := range []struct {
		name   string
		stored []byte
		want   addPlan
	}{
		{"same list: trusted", d, addPlan{trust: true}},
		{"fresh job: names the list", digestFresh, addPlan{trust: true, set: d}},
		{"older release (no data): unknown, compared", nil, addPlan{set: digestUnknown}},
		{"another list: unknown, compared", tasksDigest([]Task{{ID: "a", Spec: []byte("y")}}), addPlan{set: digestUnknown}},
		{"unknown already: compared", digestUnknown, addPlan{}},
	} {
		got := addMode(tt.stored, d)
		if got.trust != tt.want.trust || !bytes.Equal(got.set, tt.want.set) {
			t.Errorf("%s: addMode = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestTasksDigest(t *testing.T) {
	base := []Task{{ID: "a", Spec: []byte("bc")}, {ID: "d", Spec: []byte("e")}}
	seen := map[string]string{}
	for name, l := range map[string][]Task{
		"base":          base,
		"spec changed":  {{ID: "a", Spec: []byte("bd")}, {ID: "d", Spec: []byte("e")}},
		"bytes shifted": {{ID: "ab", Spec: []byte("c")}, {ID: "d", Spec: []byte("e")}},
		"order":         {base[1], base[0]},
		"one less":      base[:1],
		"empty":         nil,
	} {
		d := string(tasksDigest(l))
		if other, ok := seen[d]; ok {
			t.Errorf("lists %q and %q have the same digest", name, other)
		}
		seen[d] = name
		if again := string(tasksDigest(l)); again != d {
			t.Errorf("%s: digest not stable", name)
		}
	}
}

func TestBucketSizes(t *testing.T) {
	for _, tt := range []struct {
		s            bucketSizes
		open, orphan bool
	}{
		{bucketSizes{}, false, false},
		{bucketSizes{tasks: 5}, true, false},
		{bucketSizes{tasks: 5, claims: 2, done: 2, failed: 1}, false, false},
		{bucketSizes{tasks: 5, claims: 1, done: 2, checkpoints: 2}, true, false},
		{bucketSizes{tasks: 5, claims: 1, done: 2, checkpoints: 3}, true, true},
		{bucketSizes{tasks: 5, claims: 3, done: 2, checkpoints: 5}, false, false}, // all held or done
	} {
		if got := bucketOpen(tt.s); got != tt.open {
			t.Errorf("bucketOpen(%+v) = %v, want %v", tt.s, got, tt.open)
		}
		if got := mayHoldOrphans(tt.s); got != tt.orphan {
			t.Errorf("mayHoldOrphans(%+v) = %v, want %v", tt.s, got, tt.orphan)
		}
	}
}

func TestOrphansOf(t *testing.T) {
	got := orphansOf([]string{"e", "a", "b", "c", "d"}, []string{"a"}, []string{"b"}, []string{"c"})
	if want := []string{"d", "e"}; !slices.Equal(got, want) {
		t.Errorf("orphansOf = %v, want %v", got, want)
	}
}

// A re-add of the same list trusts the registered ids (a spec changed behind
// the registry's back is not read); another list, or a job whose folder names
// no list, compares each registered spec.
func TestAddTasksDigest(t *testing.T) {
	server, root := testZK(t)
	r := open(t, server, root)
	ctx := t.Context()
	if _, err := r.CreateJob(ctx, "j", nil); err != nil {
		t.Fatal(err)
	}
	folder := func() []byte {
		b, _, err := r.conn.Get(r.p.dir("j", kindTasks))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got := folder(); !bytes.Equal(got, digestFresh) {
		t.Fatalf("a new job's tasks folder holds %q, want %q", got, digestFresh)
	}
	var tasks []Task
	for i := 0; i < 1500; i++ { // two batches
		tasks = append(tasks, Task{ID: fmt.Sprintf("t%04d", i), Spec: []byte(fmt.Sprintf("spec %d", i))})
	}
	// Half first, as a planner that died part way.
	if err := r.AddTasks(ctx, "j", tasks[:700]); err != nil {
		t.Fatal(err)
	}
	if got, want := folder(), tasksDigest(tasks[:700]); !bytes.Equal(got, want) {
		t.Fatalf("folder %q, want the list's digest %q", got, want)
	}
	// Another list (the whole one): every registered spec is compared.
	if _, err := r.conn.Set(r.p.task("j", "t0003"), []byte("tampered"), -1); err != nil {
		t.Fatal(err)
	}
	if err := r.AddTasks(ctx, "j", tasks); !errors.Is(err, ErrExists) {
		t.Fatalf("another list over a changed spec: %v, want ErrExists", err)
	}
	if got := folder(); !bytes.Equal(got, digestUnknown) {
		t.Fatalf("after a failed add of another list the folder holds %q, want %q", got, digestUnknown)
	}
	if _, err := r.conn.Set(r.p.task("j", "t0003"), tasks[3].Spec, -1); err != nil {
		t.Fatal(err)
	}
	if err := r.AddTasks(ctx, "j", tasks); err != nil {
		t.Fatal(err)
	}
	if got, want := folder(), tasksDigest(tasks); !bytes.Equal(got, want) {
		t.Fatalf("folder %q, want the whole list's digest %q", got, want)
	}
	ids, err := r.Tasks(ctx, "j")
	if err != nil || len(ids) != len(tasks) {
		t.Fatalf("Tasks: %d, %v; want %d", len(ids), err, len(tasks))
	}
	// The same list again: registered ids are trusted, specs not read.
	if _, err := r.conn.Set(r.p.task("j", "t0005"), []byte("tampered"), -1); err != nil {
		t.Fatal(err)
	}
	if err := r.AddTasks(ctx, "j", tasks); err != nil {
		t.Fatalf("the same list again: %v", err)
	}
	// A folder of an older release (no data): compared, then named.
	if _, err := r.conn.Set(r.p.dir("j", kindTasks), nil, -1); err != nil {
		t.Fatal(err)
	}
	if err := r.AddTasks(ctx, "j", tasks); !errors.Is(err, ErrExists) {
		t.Fatalf("a folder naming no list over a changed spec: %v, want ErrExists", err)
	}
	if _, err := r.conn.Set(r.p.task("j", "t0005"), tasks[5].Spec, -1); err != nil {
		t.Fatal(err)
	}
	if err := r.AddTasks(ctx, "j", tasks); err != nil {
		t.Fatal(err)
	}
	if got, want := folder(), tasksDigest(tasks); !bytes.Equal(got, want) {
		t.Fatalf("folder %q, want %q", got, want)
	}
}

// A checkpointed task whose holder went away is claimed before pending ones,
// wherever its bucket lies; a task given back in a bucket ClaimAny found
// empty is found again; an empty job is ErrNotFound.
func TestClaimAnyOrphansFirstAndNearEmpty(t *testing.T) {
	server, root := testZK(t)
	r := open(t, server, root)
	ctx := t.Context()
	if _, err := r.CreateJob(ctx, "j", nil); err != nil {
		t.Fatal(err)
	}
	var tasks []Task
	for i := 0; i < 600; i++ {
		tasks = append(tasks, Task{ID: fmt.Sprintf("t%04d", i), Spec: []byte("s")})
	}
	if err := r.AddTasks(ctx, "j", tasks); err != nil {
		t.Fatal(err)
	}
	// The orphan: a task of a bucket far from where the claimer starts,
	// checkpointed by a holder whose session then ends.
	start := 0
	var orphan string
	for _, tk := range tasks {
		if Bucket(tk.ID) >= Buckets/2 {
			orphan = tk.ID
			break
		}
	}
	other := open(t, server, root)
	c, err := other.ClaimTask(ctx, "j", orphan, "dead")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SaveCheckpoint(ctx, []byte("half")); err != nil {
		t.Fatal(err)
	}
	other.Close()
	waitFor(t, 30*time.Second, "the dead holder's claim to vanish", func() bool {
		s, err := r.TaskStatus(ctx, "j", orphan)
		return err == nil && s == StatusPending
	})
	c, err = r.ClaimAny(ctx, "j", "w", start)
	if err != nil {
		t.Fatal(err)
	}
	if c.Task() != orphan {
		t.Fatalf("ClaimAny took %s (bucket %d), want the orphan %s (bucket %d)", c.Task(), Bucket(c.Task()), orphan, Bucket(orphan))
	}
	if err := c.Done(ctx); err != nil {
		t.Fatal(err)
	}
	// Drain all but one, holding the last claimed back.
	var held *Claim
	for n := 1; n < len(tasks); n++ {
		c, err := r.ClaimAny(ctx, "j", "w", start)
		if err != nil {
			t.Fatalf("claim %d of %d: %v", n+1, len(tasks), err)
		}
		if n == len(tasks)-1 {
			held = c
			continue
		}
		if err := c.Done(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.ClaimAny(ctx, "j", "w", start); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ClaimAny with every task held or done: %v, want ErrNotFound", err)
	}
	// Given back: its bucket was closed by the claims; a later sweep finds it.
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	var again *Claim
	waitFor(t, 30*time.Second, "the released task to be claimed again", func() bool {
		c, err := r.ClaimAny(ctx, "j", "w", start)
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		again = c
		return c != nil
	})
	if again.Task() != held.Task() {
		t.Fatalf("claimed %s, want the released %s", again.Task(), held.Task())
	}
	if err := again.Done(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ClaimAny(ctx, "j", "w", start); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ClaimAny on a finished job: %v, want ErrNotFound", err)
	}
	cnt, err := r.Count(ctx, "j")
	if err != nil || cnt != (Counts{Tasks: len(tasks), Done: len(tasks)}) {
		t.Fatalf("Count = %+v, %v", cnt, err)
	}
}
