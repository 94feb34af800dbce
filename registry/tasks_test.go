package registry

import (
	"errors"
	"fmt"
	"sort"
	"testing"
)

func makeTasks(n int, prefix string) []Task {
	tasks := make([]Task, n)
	for i := range tasks {
		id := fmt.Sprintf("%s%08x-%03d", prefix, i*2654435761%(1<<32), i%1000)
		tasks[i] = Task{ID: id, Spec: []byte("spec of " + id)}
	}
	return tasks
}

func TestTasks(t *testing.T) {
	server, root := testZK(t)
	r := open(t, server, root)
	ctx := t.Context()
	if _, err := r.CreateJob(ctx, "j", nil); err != nil {
		t.Fatal(err)
	}
	tasks := makeTasks(1500, "r")
	if err := r.AddTasks(ctx, "j", tasks); err != nil {
		t.Fatal(err)
	}
	// Adding again is harmless: a master re-planning after a crash.
	if err := r.AddTasks(ctx, "j", append(tasks[:10:10], Task{ID: "extra-000", Spec: []byte("x")})); err != nil {
		t.Fatalf("re-adding: %v", err)
	}
	if err := r.AddTasks(ctx, "j", []Task{{ID: tasks[3].ID, Spec: []byte("other")}}); !errors.Is(err, ErrExists) {
		t.Fatalf("same id, other spec: %v, want ErrExists", err)
	}
	for _, bad := range [][]Task{
		{{ID: "a/b"}},
		{{ID: "dup"}, {ID: "dup"}},
		{{ID: "big", Spec: make([]byte, MaxSpec+1)}},
	} {
		if err := r.AddTasks(ctx, "j", bad); err == nil {
			t.Errorf("AddTasks(%.30v) accepted", bad)
		}
	}
	if err := r.AddTasks(ctx, "nojob", tasks[:1]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("tasks of a missing job: %v", err)
	}

	all, err := r.Tasks(ctx, "j")
	if err != nil || len(all) != len(tasks)+1 {
		t.Fatalf("Tasks: %d, %v", len(all), err)
	}
	want := []string{"extra-000"}
	for _, tk := range tasks {
		want = append(want, tk.ID)
	}
	sort.Strings(want)
	sort.Strings(all)
	for i := range want {
		if all[i] != want[i] {
			t.Fatalf("Tasks[%d] = %s, want %s", i, all[i], want[i])
		}
	}
	page, err := r.BucketTasks(ctx, "j", Bucket(tasks[7].ID))
	found := false
	for _, id := range page {
		found = found || id == tasks[7].ID
		if Bucket(id) != Bucket(tasks[7].ID) {
			t.Errorf("task %s in bucket page %d", id, Bucket(tasks[7].ID))
		}
	}
	if err != nil || !found {
		t.Fatalf("bucket page: %v, %v", page, err)
	}
	if _, err := r.BucketTasks(ctx, "j", Buckets); err == nil {
		t.Error("bucket out of range accepted")
	}
	spec, err := r.TaskSpec(ctx, "j", tasks[7].ID)
	if err != nil || string(spec) != "spec of "+tasks[7].ID {
		t.Fatalf("TaskSpec = %q, %v", spec, err)
	}
	if _, err := r.TaskSpec(ctx, "j", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing task: %v", err)
	}
	c, err := r.Count(ctx, "j")
	if err != nil || c != (Counts{Tasks: 1501, Pending: 1501}) {
		t.Fatalf("Count = %+v, %v", c, err)
	}
	if s, err := r.TaskStatus(ctx, "j", tasks[0].ID); err != nil || s != StatusPending {
		t.Fatalf("TaskStatus = %v, %v", s, err)
	}
}

func TestCountBucket(t *testing.T) {
	for _, tc := range []struct {
		name                        string
		tasks, claims, done, failed []string
		want                        Counts
	}{
		{"empty", nil, nil, nil, nil, Counts{}},
		{"pending", []string{"a", "b"}, nil, nil, nil, Counts{Tasks: 2, Pending: 2}},
		{"each", []string{"a", "b", "c", "d"}, []string{"b"}, []string{"c"}, []string{"d"}, Counts{Tasks: 4, Pending: 1, Claimed: 1, Done: 1, Failed: 1}},
		{"result wins over claim", []string{"a", "b"}, []string{"a", "b"}, []string{"a"}, []string{"b"}, Counts{Tasks: 2, Done: 1, Failed: 1}},
		{"unknown ids ignored", []string{"a"}, []string{"x"}, []string{"y"}, []string{"z"}, Counts{Tasks: 1, Pending: 1}},
	} {
		if got := countBucket(tc.tasks, tc.claims, tc.done, tc.failed); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestSplitBatches(t *testing.T) {
	for _, tc := range []struct {
		name          string
		sizes         []int
		maxBytes, ops int
		want          []int
	}{
		{"none", nil, 100, 10, nil},
		{"one batch", []int{10, 10, 10}, 100, 10, []int{3}},
		{"by bytes", []int{40, 40, 40, 40}, 100, 10, []int{2, 4}},
		{"exactly full", []int{50, 50, 50}, 100, 10, []int{2, 3}},
		{"by ops", []int{1, 1, 1, 1, 1}, 100, 2, []int{2, 4, 5}},
		{"oversized alone", []int{10, 500, 10}, 100, 10, []int{1, 2, 3}},
	} {
		got := splitBatches(tc.sizes, tc.maxBytes, tc.ops)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
