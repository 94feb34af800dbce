package dashboard

import (
	"context"
	"fmt"
	"slices"
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
	relocs  []Relocation
	samples map[string][]Sample
	refused []Refusal
	// The admin pages' reads (admin_test.go).
	clusters  []Cluster
	tokenList []Token
	audit     []AuditEntry // newest first
}

func (m *memSource) RecordSamples(_ context.Context, ss []JobSample) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.samples == nil {
		m.samples = map[string][]Sample{}
	}
	for _, s := range ss {
		m.samples[s.Job] = append(m.samples[s.Job], s.Sample)
	}
	return nil
}

func (m *memSource) Samples(_ context.Context, id string) ([]Sample, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Sample(nil), m.samples[id]...), nil
}

func (m *memSource) Refused(_ context.Context, r Refusal) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refused = append(m.refused, r)
	return nil
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
		if len(f.States) == 0 || slices.Contains(f.States, j.State) {
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

func (m *memSource) Relocations(context.Context) ([]Relocation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Relocation
	for _, r := range m.relocs {
		r.Windows = nil
		out = append(out, r)
	}
	return out, nil
}

func (m *memSource) Relocation(_ context.Context, id string) (Relocation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.relocs {
		if r.ID == id {
			return r, nil
		}
	}
	return Relocation{}, ErrNotFound
}

func (m *memSource) RelocationAction(ctx context.Context, p Principal, id string, act RelocationAct) (CutoverPlan, error) {
	r, err := m.Relocation(ctx, id)
	if err != nil {
		return CutoverPlan{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if act == RelocationResume && r.Phase != "paused" {
		return CutoverPlan{}, &UserError{Status: 409, Message: "only a paused relocation can be resumed"}
	}
	m.acts = append(m.acts, fmt.Sprintf("%s %s %s", p.Name, act, id))
	if act == RelocationDryRun {
		return CutoverPlan{Blocked: "verification", Gates: r.Gates, Steps: []string{"final window", "verification", "report"}}, nil
	}
	return CutoverPlan{}, nil
}

// fakeRelocations are a relocation catching up, with a full copy, windows that ran, one
// skipped and one failed, and one that is done with its report.
func fakeRelocations(t0 time.Time) []Relocation {
	var ws []Window
	for i := range 6 {
		at := t0.Add(time.Duration(i) * time.Minute)
		w := Window{Seq: i + 1, Kind: "catch-up", Outcome: "ran", From: at.Add(-11 * time.Minute), Until: at.Add(-time.Second),
			Snapshot: at, StartedAt: at, FinishedAt: at.Add(time.Duration(20+i*5) * time.Second),
			Duration: time.Duration(20+i*5) * time.Second, Lag: time.Duration(20+i*5) * time.Second,
			Bytes: int64(i+1) << 20, FilesLoaded: 2, JobIDs: []string{fmt.Sprintf("reloc-job-%d", i+1)}}
		switch i {
		case 0:
			w.Kind, w.From, w.Until, w.Duration, w.Bytes = "full", time.Time{}, time.Time{}, 3*time.Minute, 5<<30
		case 3:
			w.Outcome, w.Why, w.JobIDs, w.Bytes, w.Duration, w.Lag = "skipped", "the window before still ran", nil, 0, 0, 0
		case 4:
			w.Outcome, w.Why, w.Lag = "failed", "job reloc-job-5 failed", 0
		}
		ws = append(ws, w)
	}
	ready := Relocation{ID: "reloc-aaaa", Source: "dc1", Target: "dc2", Tables: []TableMap{{"ns:a", "ns:a"}, {"ns:b", "ns:b2"}},
		Schedule: "*/10 * * * *", Margin: "10m0s", MaxLag: "5m0s", Phase: "catching-up", Watermark: t0.Add(5 * time.Minute),
		NextTick: t0.Add(10 * time.Minute), Lag: 45 * time.Second, HasLag: true, CreatedBy: "ops", CreatedAt: t0, UpdatedAt: t0,
		Gates: []Gate{{Name: "phase", OK: true, Detail: "catching-up"}, {Name: "lag", OK: true, Detail: "45s under 5m0s", Forcible: true},
			{Name: "verification", Detail: "no verification passed yet", Forcible: true}},
		Windows: ws}
	done := Relocation{ID: "reloc-bbbb", Source: "dc1", Target: "dc3", Tables: []TableMap{{"ns:c", "ns:c"}}, Schedule: "@every 5m",
		Margin: "10m0s", MaxLag: "5m0s", Phase: "done", Final: true, CreatedAt: t0, FinishedAt: t0.Add(time.Hour),
		Verification: &Verification{Until: t0.Add(time.Hour), At: t0.Add(time.Hour), Passed: true, Final: true},
		Report: &Report{CellsCompared: 123456, Differences: 7, Remaining: 0, RangesRecopied: 2, BytesCopied: 3 << 30,
			BytesVerified: 6 << 30, Duration: time.Hour, VerifyTime: 5 * time.Minute,
			Tables: []ReportTable{{Source: "ns:c", Target: "ns:c", CellsCompared: 123456, Differences: 7, RangesRecopied: 2}}},
		Windows: ws[:1]}
	return []Relocation{ready, done}
}

// fakeJobs makes n jobs, every fifth one running, and tasks tasks for the first.
func fakeSource(n, tasks int) *memSource {
	m := &memSource{tokens: map[string]Principal{
		"sv": {TokenID: "tok_v", Name: "ann", Role: RoleViewer},
		"so": {TokenID: "tok_o", Name: "bob", Role: RoleOperator},
	}, tasks: map[string][]Task{}}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	m.relocs = fakeRelocations(t0)
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
