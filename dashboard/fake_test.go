package dashboard

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// memSource is a Source held in memory, for the handler tests and the benchmarks: the pages'
// rendering and the dashboard's own checks are what they test, not the server's reads.
type memSource struct {
	mu      sync.Mutex
	tokens  map[string]Principal
	jobs    []Job
	tasks   map[string][]Task
	workers []Worker
	acts    []string
	pageAll bool // serve every job on one page, whatever the limit
}

func (m *memSource) Authenticate(_ context.Context, secret string) (Principal, error) {
	p, ok := m.tokens[secret]
	if !ok {
		return Principal{}, ErrUnauthenticated
	}
	return p, nil
}

func (m *memSource) Jobs(_ context.Context, f JobFilter) (JobPage, error) {
	var keep []Job
	for _, j := range m.jobs {
		if len(f.States) == 0 || j.State == f.States[0] {
			keep = append(keep, j)
		}
	}
	i := 0
	if f.Cursor != "" {
		i = sort.Search(len(keep), func(k int) bool { return keep[k].ID > f.Cursor })
	}
	limit := f.Limit
	if m.pageAll {
		limit = len(keep)
	}
	end := min(len(keep), i+limit)
	p := JobPage{Jobs: keep[i:end]}
	if end < len(keep) {
		p.Next = keep[end-1].ID
	}
	return p, nil
}

func (m *memSource) Job(_ context.Context, id string) (Job, error) {
	for _, j := range m.jobs {
		if j.ID == id {
			return j, nil
		}
	}
	return Job{}, ErrNotFound
}

func (m *memSource) Tasks(_ context.Context, id string, f TaskFilter) (TaskPage, error) {
	all, ok := m.tasks[id]
	if !ok {
		return TaskPage{}, ErrNotFound
	}
	i := sort.Search(len(all), func(k int) bool { return all[k].ID > f.Cursor })
	var p TaskPage
	for ; i < len(all); i++ {
		if f.State != "" && all[i].State != f.State {
			continue
		}
		if len(p.Tasks) == f.Limit {
			p.Next = p.Tasks[len(p.Tasks)-1].ID
			break
		}
		p.Tasks = append(p.Tasks, all[i])
	}
	return p, nil
}

func (m *memSource) Workers(context.Context) ([]Worker, error) { return m.workers, nil }

func (m *memSource) Act(_ context.Context, p Principal, id string, act Action, arg string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if act == ActionBandwidth && arg == "fast" {
		return &UserError{Status: 400, Message: "bandwidth: \"fast\" is not a rate"}
	}
	m.acts = append(m.acts, fmt.Sprintf("%s %s %s %s", p.Name, act, id, arg))
	return nil
}

// fakeJobs makes n jobs, every fifth one running, and tasks tasks for the first.
func fakeSource(n, tasks int) *memSource {
	m := &memSource{tokens: map[string]Principal{
		"sv": {TokenID: "tok_v", Name: "ann", Role: RoleViewer},
		"so": {TokenID: "tok_o", Name: "bob", Role: RoleOperator},
	}, tasks: map[string][]Task{}}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range n {
		j := Job{ID: fmt.Sprintf("copy-t%04d-%016x", i, i), State: "done", Final: true, Source: "dc1", Target: "dc2",
			Table: fmt.Sprintf("ns:t%d", i), TargetTable: fmt.Sprintf("ns:t%d", i), SubmittedBy: "ops",
			SubmittedAt: t0.Add(time.Duration(i) * time.Minute), UpdatedAt: t0.Add(time.Duration(i)*time.Minute + time.Hour),
			BytesDone: 40 << 30, BytesTotal: 40 << 30, Fraction: 1, BytesPerSecond: 210e6,
			Tasks:       TaskCounts{Total: 80, Done: 80},
			Spec:        []Field{{"Start row", `row\x00\xff`}, {"Stop row", "(table end)"}},
			FilesLoaded: 160, BytesLoaded: 38 << 30}
		if i%5 == 0 {
			j.State, j.Final, j.BytesDone, j.Fraction, j.ETA = "running", false, 10<<30, 0.25, 200*time.Second
			j.Tasks = TaskCounts{Total: 80, Done: 20, Running: 8, Pending: 52}
		}
		m.jobs = append(m.jobs, j)
	}
	if n > 0 && tasks > 0 {
		id := m.jobs[0].ID
		m.jobs[0].Tasks = TaskCounts{Total: tasks, Running: 64, Done: tasks / 2, Pending: tasks - tasks/2 - 64}
		for i := range tasks {
			st := "pending"
			switch {
			case i%2 == 0:
				st = "done"
			case i < 129:
				st = "running"
			}
			m.tasks[id] = append(m.tasks[id], Task{ID: fmt.Sprintf("%06d", i), State: st,
				StartRow: fmt.Sprintf(`r\x%02x%d`, i%256, i), StopRow: fmt.Sprintf(`r\x%02x%d`, (i+1)%256, i+1),
				Bytes: 512 << 20, Worker: fmt.Sprintf("w%d", i%8)})
		}
	}
	m.workers = []Worker{{ID: "w0", Capacity: 4, Info: "host a", Running: []TaskRef{{Job: "copy-t0000-0000000000000000", Task: "000001"}}},
		{ID: "w1", Capacity: 4, Info: "host b"}}
	return m
}
