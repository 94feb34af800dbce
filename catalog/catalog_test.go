package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rangecopy/job"
)

func ptr[T any](v T) *T { return &v }

func testJob(id string) Job {
	return Job{
		ID:            id,
		Spec:          JSONText(fmt.Sprintf(`{"table": "t1", "id": %q}`, id)),
		Table:         "ns:t1",
		TargetTable:   "ns:t1",
		SourceCluster: "dc1",
		TargetCluster: "dc2",
		SubmittedBy:   "ops",
	}
}

func TestClusters(t *testing.T) {
	eachCatalog(t, Options{}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		dc1 := Cluster{Name: "dc1", ZKQuorum: "zk1:2181,zk2:2181", ZNodeParent: "/hbase", HDFSRoot: "hdfs://nn1:8020", User: "hbase",
			SiteFiles: map[string]string{"hbase-site.xml": "<configuration/>\n"}}
		got, err := c.CreateCluster(ctx, dc1)
		if err != nil {
			t.Fatal(err)
		}
		if got.CreatedAt.IsZero() || !got.CreatedAt.Equal(got.UpdatedAt) {
			t.Errorf("times %v %v", got.CreatedAt, got.UpdatedAt)
		}
		_, err = c.CreateCluster(ctx, dc1)
		var ce *ConflictError
		if !errors.Is(err, ErrConflict) || !errors.As(err, &ce) || ce.What != "name" || ce.Key != "dc1" {
			t.Fatalf("second CreateCluster = %v, want a conflict on the name dc1", err)
		}
		if _, err := c.CreateCluster(ctx, Cluster{Name: "DC1", ZKQuorum: "zk9:2181"}); err != nil {
			t.Fatalf("names are case-sensitive: %v", err)
		}
		if _, err := c.CreateCluster(ctx, Cluster{Name: "dc3"}); !errors.Is(err, ErrInvalid) {
			t.Errorf("a cluster without a quorum: %v, want ErrInvalid", err)
		}
		back, err := c.GetCluster(ctx, "dc1")
		if err != nil {
			t.Fatal(err)
		}
		if back.ZKQuorum != dc1.ZKQuorum || back.HDFSRoot != dc1.HDFSRoot || back.User != "hbase" || back.SiteFiles["hbase-site.xml"] != "<configuration/>\n" || !back.CreatedAt.Equal(got.CreatedAt) {
			t.Errorf("GetCluster = %+v", back)
		}
		if _, err := c.GetCluster(ctx, "nope"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf("GetCluster(nope) = %v", err)
		}

		dc1.ZKQuorum, dc1.SiteFiles = "zk3:2181", nil
		upd, err := c.UpdateCluster(ctx, dc1)
		if err != nil {
			t.Fatal(err)
		}
		back, _ = c.GetCluster(ctx, "dc1")
		if back.ZKQuorum != "zk3:2181" || back.SiteFiles != nil || !back.CreatedAt.Equal(got.CreatedAt) || !back.UpdatedAt.Equal(upd.UpdatedAt) {
			t.Errorf("after UpdateCluster: %+v", back)
		}
		if _, err := c.UpdateCluster(ctx, Cluster{Name: "nope", ZKQuorum: "x:1"}); !errors.Is(err, ErrNotFound) {
			t.Errorf("UpdateCluster(nope) = %v", err)
		}
		list, err := c.ListClusters(ctx)
		if err != nil || len(list) != 2 || list[0].Name != "DC1" || list[1].Name != "dc1" {
			t.Fatalf("ListClusters = %+v, %v", list, err)
		}

		// A job that has not ended keeps its clusters.
		j := testJob("copy-a")
		j.SourceCluster, j.TargetCluster = "dc1", "dc2"
		if _, _, err := c.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		err = c.DeleteCluster(ctx, "dc1")
		var iu *InUseError
		if !errors.Is(err, ErrInUse) || !errors.As(err, &iu) || !slices.Equal(iu.Jobs, []string{"copy-a"}) {
			t.Fatalf("DeleteCluster(dc1) with a running job = %v, want in use by copy-a", err)
		}
		if _, err := c.UpdateJob(ctx, "copy-a", JobUpdate{State: StateOf(job.StateDone)}); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteCluster(ctx, "dc1"); err != nil {
			t.Fatalf("DeleteCluster(dc1) after its job ended: %v", err)
		}
		if _, err := c.GetCluster(ctx, "dc1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted cluster: %v", err)
		}
		if err := c.DeleteCluster(ctx, "dc1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("DeleteCluster twice: %v", err)
		}
		// A job naming the cluster as its target counts too.
		j = testJob("copy-b")
		j.SourceCluster, j.TargetCluster = "dc2", "DC1"
		c.CreateJob(ctx, j)
		if err := c.DeleteCluster(ctx, "DC1"); !errors.Is(err, ErrInUse) {
			t.Errorf("DeleteCluster of a job's target: %v, want ErrInUse", err)
		}
	})
}

func TestJobCreateIdempotent(t *testing.T) {
	clk := newClock()
	eachCatalog(t, Options{Now: clk.Now}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		j := testJob("copy-ns.t1-0123456789abcdef")
		j.IdempotencyKey = ptr("key-1")
		first, created, err := c.CreateJob(ctx, j)
		if err != nil || !created {
			t.Fatalf("CreateJob = %v, %v", created, err)
		}
		if first.State != StateOf(job.StatePending) || first.Spec != `{"table":"t1","id":"copy-ns.t1-0123456789abcdef"}` || !first.SubmittedAt.Equal(clk.Now().Truncate(time.Microsecond)) {
			t.Errorf("created %+v", first)
		}
		got, err := c.GetJob(ctx, j.ID)
		if err != nil || !got.SubmittedAt.Equal(first.SubmittedAt) || got.Spec != first.Spec || *got.IdempotencyKey != "key-1" || got.SubmittedBy != "ops" || got.SourceCluster != "dc1" {
			t.Fatalf("GetJob = %+v, %v", got, err)
		}

		// The same id again: the job as it is.
		clk.Add(time.Second)
		again := testJob(j.ID)
		again.Spec = `{"table":"t1","bandwidth":5}`
		got, created, err = c.CreateJob(ctx, again)
		if err != nil || created || got.Spec != first.Spec || !got.SubmittedAt.Equal(first.SubmittedAt) {
			t.Fatalf("CreateJob of the same id = %+v, %v, %v; want the first job", got, created, err)
		}
		// The same key with the same spec (white space aside): the first job.
		other := testJob("copy-other")
		other.Spec = "{ \"table\" : \"t1\",\n \"id\": \"copy-ns.t1-0123456789abcdef\" }"
		other.IdempotencyKey = ptr("key-1")
		got, created, err = c.CreateJob(ctx, other)
		if err != nil || created || got.ID != j.ID {
			t.Fatalf("CreateJob with the key of the same spec = %s, %v, %v; want %s", got.ID, created, err, j.ID)
		}
		// The same key for another spec: a conflict naming the key.
		other.Spec = `{"table":"t2"}`
		_, _, err = c.CreateJob(ctx, other)
		var ce *ConflictError
		if !errors.Is(err, ErrConflict) || !errors.As(err, &ce) || ce.What != "idempotency key" || ce.Key != j.ID || !strings.Contains(err.Error(), "key-1") {
			t.Fatalf("CreateJob reusing the key = %v, want a conflict on the idempotency key", err)
		}
		if _, err := c.GetJob(ctx, "copy-other"); !errors.Is(err, ErrNotFound) {
			t.Errorf("the refused job was stored: %v", err)
		}
		// Jobs without keys never conflict on them.
		for _, id := range []string{"k-less-1", "k-less-2"} {
			if _, created, err := c.CreateJob(ctx, testJob(id)); err != nil || !created {
				t.Fatalf("CreateJob(%s) = %v, %v", id, created, err)
			}
		}
		bad := testJob("bad")
		bad.Spec = "{"
		if _, _, err := c.CreateJob(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("a spec that is not JSON: %v", err)
		}
		bad.Spec, bad.State = "{}", JobState{State: 99}
		if _, _, err := c.CreateJob(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("an unknown state: %v", err)
		}
		bad.State, bad.ID = JobState{}, strings.Repeat("x", 192)
		if _, _, err := c.CreateJob(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("a long id: %v", err)
		}
		evs, err := c.JobEvents(ctx, j.ID, 0, 0)
		if err != nil || len(evs) != 1 || evs[0].State != StateOf(job.StatePending) || evs[0].Message != "submitted by ops" {
			t.Fatalf("events of a new job = %+v, %v", evs, err)
		}
	})
}

func TestJobUpdate(t *testing.T) {
	clk := newClock()
	eachCatalog(t, Options{Now: clk.Now}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		j, _, err := c.CreateJob(ctx, testJob("copy-u"))
		if err != nil {
			t.Fatal(err)
		}
		clk.Add(time.Second)
		if _, err := c.UpdateJob(ctx, j.ID, JobUpdate{State: StateOf(job.StateRunning), Message: "planned 12 tasks"}); err != nil {
			t.Fatal(err)
		}
		clk.Add(time.Second)
		got, err := c.UpdateJob(ctx, j.ID, JobUpdate{LastError: ptr("region moved"), Message: "task retried"})
		if err != nil || got.State != StateOf(job.StateRunning) || got.LastError != "region moved" {
			t.Fatalf("UpdateJob(error) = %+v, %v", got, err)
		}
		clk.Add(time.Second)
		got, err = c.UpdateJob(ctx, j.ID, JobUpdate{State: StateOf(job.StateDone), FinalReport: ptr(JSONText(`{"bytes": 1024, "files": 3}`)), Message: "done"})
		if err != nil || got.State != StateOf(job.StateDone) || got.FinalReport != `{"bytes":1024,"files":3}` || !got.UpdatedAt.Equal(clk.Now().Truncate(time.Microsecond)) {
			t.Fatalf("UpdateJob(done) = %+v, %v", got, err)
		}
		back, _ := c.GetJob(ctx, j.ID)
		if back.State != StateOf(job.StateDone) || back.LastError != "region moved" || back.FinalReport != got.FinalReport || !back.UpdatedAt.Equal(got.UpdatedAt) || !back.SubmittedAt.Equal(j.SubmittedAt) {
			t.Errorf("GetJob after updates = %+v", back)
		}
		evs, err := c.JobEvents(ctx, j.ID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var states []JobState
		var msgs []string
		for _, e := range evs {
			states, msgs = append(states, e.State), append(msgs, e.Message)
		}
		if !slices.Equal(states, []JobState{StateOf(job.StatePending), StateOf(job.StateRunning), StateOf(job.StateRunning), StateOf(job.StateDone)}) || msgs[3] != "done" || !evs[3].Time.Equal(got.UpdatedAt) {
			t.Errorf("events = %+v", evs)
		}
		rest, _ := c.JobEvents(ctx, j.ID, evs[1].ID, 0)
		if len(rest) != 2 || rest[0].ID != evs[2].ID {
			t.Errorf("events after the second = %+v", rest)
		}
		if _, err := c.UpdateJob(ctx, "nope", JobUpdate{State: StateOf(job.StateDone)}); !errors.Is(err, ErrNotFound) {
			t.Errorf("UpdateJob(nope) = %v", err)
		}
		if _, err := c.UpdateJob(ctx, j.ID, JobUpdate{State: JobState{State: 99}}); !errors.Is(err, ErrInvalid) {
			t.Errorf("UpdateJob to an unknown state = %v", err)
		}
		if _, err := c.UpdateJob(ctx, j.ID, JobUpdate{FinalReport: ptr(JSONText("{"))}); !errors.Is(err, ErrInvalid) {
			t.Errorf("UpdateJob with a report that is not JSON = %v", err)
		}
		if _, err := c.JobEvents(ctx, "nope", 0, 0); !errors.Is(err, ErrNotFound) {
			t.Errorf("JobEvents(nope) = %v", err)
		}
	})
}

func TestListJobsPaging(t *testing.T) {
	clk := newClock()
	eachCatalog(t, Options{Now: clk.Now}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		// 23 jobs; groups of three share a submission time, so the id breaks ties. Ids
		// are made so that id order differs from creation order.
		var want []string
		base := clk.Now()
		for i := range 23 {
			j := testJob(fmt.Sprintf("copy-%02d", (i*7)%23))
			j.SubmittedAt = base.Add(time.Duration(i/3) * time.Millisecond)
			if i%2 == 1 {
				j.Table, j.SourceCluster = "ns:t2", "dc3"
			}
			if _, _, err := c.CreateJob(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
		all, err := c.ListJobs(ctx, JobFilter{Limit: MaxPageSize})
		if err != nil || len(all.Jobs) != 23 || all.Next != "" {
			t.Fatalf("ListJobs = %d jobs, next %q, %v", len(all.Jobs), all.Next, err)
		}
		for i := 1; i < len(all.Jobs); i++ {
			a, b := all.Jobs[i-1], all.Jobs[i]
			if a.SubmittedAt.Before(b.SubmittedAt) || (a.SubmittedAt.Equal(b.SubmittedAt) && a.ID <= b.ID) {
				t.Fatalf("order: %s@%v before %s@%v", a.ID, a.SubmittedAt, b.ID, b.SubmittedAt)
			}
			want = append(want, a.ID)
		}
		want = append(want, all.Jobs[22].ID)

		for _, size := range []int{1, 2, 3, 5, 7, 22, 23} {
			var got []string
			cur, pages := "", 0
			for {
				p, err := c.ListJobs(ctx, JobFilter{Cursor: cur, Limit: size})
				if err != nil {
					t.Fatalf("page %d of size %d: %v", pages, size, err)
				}
				if len(p.Jobs) > size {
					t.Fatalf("page of %d jobs, limit %d", len(p.Jobs), size)
				}
				for _, j := range p.Jobs {
					got = append(got, j.ID)
				}
				pages++
				if p.Next == "" {
					break
				}
				cur = p.Next
			}
			if !slices.Equal(got, want) {
				t.Errorf("paging by %d: %v, want %v", size, got, want)
			}
			if wantPages := (23 + size - 1) / size; pages != wantPages {
				t.Errorf("paging by %d took %d pages, want %d", size, pages, wantPages)
			}
		}

		// Jobs submitted while a client pages come before its first page: the pages it
		// reads on still hold every older job once.
		first, err := c.ListJobs(ctx, JobFilter{Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			j := testJob(fmt.Sprintf("late-%d", i))
			j.SubmittedAt = base.Add(time.Second)
			if _, _, err := c.CreateJob(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
		got := []string{}
		for _, j := range first.Jobs {
			got = append(got, j.ID)
		}
		for cur := first.Next; cur != ""; {
			p, err := c.ListJobs(ctx, JobFilter{Cursor: cur, Limit: 4})
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range p.Jobs {
				got = append(got, j.ID)
			}
			cur = p.Next
		}
		if !slices.Equal(got, want) {
			t.Errorf("paging while jobs arrive: %v, want %v", got, want)
		}
		if p, _ := c.ListJobs(ctx, JobFilter{Limit: 1}); len(p.Jobs) != 1 || p.Jobs[0].ID != "late-2" {
			t.Errorf("first page after the late jobs: %+v, want late-2 first", p.Jobs)
		}
		for _, id := range []string{"late-0", "late-1", "late-2"} {
			if err := c.db.Exec("DELETE FROM jobs WHERE id = ?", id).Error; err != nil {
				t.Fatal(err)
			}
		}

		count := func(f JobFilter) int {
			f.Limit = MaxPageSize
			p, err := c.ListJobs(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			return len(p.Jobs)
		}
		c.UpdateJob(ctx, "copy-00", JobUpdate{State: StateOf(job.StateRunning)})
		c.UpdateJob(ctx, "copy-01", JobUpdate{State: StateOf(job.StateFailed)})
		for name, tt := range map[string]struct {
			f    JobFilter
			want int
		}{
			"table t2":          {JobFilter{Table: "ns:t2"}, 11},
			"table t1":          {JobFilter{Table: "ns:t1"}, 12},
			"cluster dc3":       {JobFilter{Cluster: "dc3"}, 11},
			"cluster dc2":       {JobFilter{Cluster: "dc2"}, 23},
			"running or failed": {JobFilter{States: []JobState{StateOf(job.StateRunning), StateOf(job.StateFailed)}}, 2},
			"pending in t1":     {JobFilter{States: []JobState{StateOf(job.StatePending)}, Table: "ns:t1"}, 10}, // copy-00 and copy-01 are in t1
			"unknown table":     {JobFilter{Table: "x"}, 0},
		} {
			if got := count(tt.f); got != tt.want {
				t.Errorf("%s: %d jobs, want %d", name, got, tt.want)
			}
		}
		// A filtered listing pages too.
		p, _ := c.ListJobs(ctx, JobFilter{Table: "ns:t2", Limit: 4})
		p2, _ := c.ListJobs(ctx, JobFilter{Table: "ns:t2", Limit: 10, Cursor: p.Next})
		if len(p.Jobs) != 4 || len(p2.Jobs) != 7 || p2.Next != "" {
			t.Errorf("filtered pages: %d then %d (next %q)", len(p.Jobs), len(p2.Jobs), p2.Next)
		}
		def, _ := c.ListJobs(ctx, JobFilter{})
		if len(def.Jobs) != 23 {
			t.Errorf("default page: %d jobs", len(def.Jobs))
		}
		for _, bad := range []JobFilter{{Cursor: "garbage!"}, {Cursor: cursor{kind: cursorAudit, micros: 3}.encode()},
			{Cursor: cursor{kind: 'j', micros: base.UnixMicro(), key: "copy-00"}.encode()}, {States: []JobState{{State: 99}}}} {
			if _, err := c.ListJobs(ctx, bad); !errors.Is(err, ErrInvalid) {
				t.Errorf("ListJobs(%+v) = %v, want ErrInvalid", bad, err)
			}
		}
	})
}

// Many goroutines create jobs and append events at once, and race to create the same job.
func TestConcurrentJobs(t *testing.T) {
	eachCatalog(t, Options{}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		const workers, jobs, updates = 12, 6, 3
		var wg sync.WaitGroup
		errs := make(chan error, workers*jobs*(updates+1)+workers*2)
		var createdMu sync.Mutex
		created := map[string]int{}
		for w := range workers {
			wg.Go(func() {
				for i := range jobs {
					id := fmt.Sprintf("copy-w%02d-%02d", w, i)
					if _, _, err := c.CreateJob(ctx, testJob(id)); err != nil {
						errs <- err
						continue
					}
					for u := range updates {
						if _, err := c.UpdateJob(ctx, id, JobUpdate{State: StateOf(job.StateRunning), Message: fmt.Sprintf("update %d", u)}); err != nil {
							errs <- err
						}
					}
				}
				// Everyone creates the same job, and the same key with its own id.
				shared := testJob("copy-shared")
				j, ok, err := c.CreateJob(ctx, shared)
				if err != nil {
					errs <- fmt.Errorf("shared: %w", err)
				} else if j.ID != "copy-shared" {
					errs <- fmt.Errorf("shared: got %s", j.ID)
				}
				keyed := testJob(fmt.Sprintf("copy-keyed-%02d", w))
				keyed.Spec, keyed.IdempotencyKey = `{"same":true}`, ptr("shared-key")
				k, kok, err := c.CreateJob(ctx, keyed)
				if err != nil {
					errs <- fmt.Errorf("keyed: %w", err)
				}
				createdMu.Lock()
				if ok {
					created["copy-shared"]++
				}
				if kok {
					created["keyed"]++
				}
				created["keyed:"+k.ID] += 0
				createdMu.Unlock()
				// The shared job gets an event from everyone too.
				if _, err := c.UpdateJob(ctx, "copy-shared", JobUpdate{Message: fmt.Sprintf("worker %d", w)}); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if created["copy-shared"] != 1 || created["keyed"] != 1 {
			t.Errorf("created the shared job %d times and the keyed one %d times, want once each", created["copy-shared"], created["keyed"])
		}
		keyedIDs := 0
		for k := range created {
			if strings.HasPrefix(k, "keyed:") {
				keyedIDs++
			}
		}
		if keyedIDs != 1 {
			t.Errorf("the idempotency key answered with %d different jobs, want 1", keyedIDs)
		}
		p, err := c.ListJobs(ctx, JobFilter{Limit: MaxPageSize})
		if err != nil || len(p.Jobs) != workers*jobs+2 {
			t.Fatalf("ListJobs: %d jobs, %v; want %d", len(p.Jobs), err, workers*jobs+2)
		}
		var events int64
		c.db.WithContext(ctx).Model(&JobEvent{}).Count(&events)
		if want := int64(workers*jobs*(1+updates) + 1 + workers + 1); events != want {
			t.Errorf("%d events, want %d", events, want)
		}
		evs, _ := c.JobEvents(ctx, "copy-shared", 0, 0)
		if len(evs) != 1+workers {
			t.Errorf("the shared job has %d events, want %d", len(evs), 1+workers)
		}
	})
}

var secretForm = regexp.MustCompile(`^rc_[a-z2-7]{52}$`)

func TestTokens(t *testing.T) {
	clk := newClock()
	eachCatalog(t, Options{Now: clk.Now}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		tok, secret, err := c.CreateToken(ctx, "ci", RoleOperator)
		if err != nil {
			t.Fatal(err)
		}
		if !secretForm.MatchString(secret) || tok.Role != RoleOperator || tok.Name != "ci" || tok.LastUsedAt != nil || tok.RevokedAt != nil {
			t.Fatalf("CreateToken = %+v, %q", tok, secret)
		}
		clk.Add(time.Millisecond)
		_, secret2, _ := c.CreateToken(ctx, "admin", RoleAdmin)
		if secret2 == secret {
			t.Fatal("two tokens with one secret")
		}
		// Only the hash is stored, and it is never shown.
		var stored []string
		c.db.WithContext(ctx).Model(&Token{}).Pluck("secret_hash", &stored)
		for _, h := range stored {
			if strings.Contains(h, secret[3:]) || len(h) != 64 {
				t.Errorf("stored %q", h)
			}
		}
		if b, _ := json.Marshal(tok); strings.Contains(string(b), tok.SecretHash) {
			t.Errorf("JSON shows the hash: %s", b)
		}

		got, err := c.Authenticate(ctx, secret)
		if err != nil || got.ID != tok.ID || got.Role != RoleOperator || got.LastUsedAt == nil || !got.LastUsedAt.Equal(clk.Now().Truncate(time.Microsecond)) {
			t.Fatalf("Authenticate = %+v, %v", got, err)
		}
		first := *got.LastUsedAt
		// Within a minute lastUsed stays; after a minute it moves.
		clk.Add(59 * time.Second)
		got, _ = c.Authenticate(ctx, secret)
		if back, _ := c.GetToken(ctx, tok.ID); !back.LastUsedAt.Equal(first) || !got.LastUsedAt.Equal(first) {
			t.Errorf("lastUsed moved within a minute: %v", back.LastUsedAt)
		}
		clk.Add(time.Second)
		c.Authenticate(ctx, secret)
		if back, _ := c.GetToken(ctx, tok.ID); !back.LastUsedAt.Equal(first.Add(time.Minute)) {
			t.Errorf("lastUsed after a minute = %v, want %v", back.LastUsedAt, first.Add(time.Minute))
		}

		// One character changed to the next of the secret's alphabet: still well-formed, not
		// the secret. (Flipping a bit and falling back to 'a' gave the secret back when its
		// character was 'a', one run in 32.)
		const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
		wrong := []byte(secret)
		wrong[10] = alphabet[(strings.IndexByte(alphabet, wrong[10])+1)%len(alphabet)]
		if string(wrong) == secret {
			t.Fatal("the changed secret is the secret")
		}
		for name, s := range map[string]string{
			"wrong secret":  "rc_" + strings.Repeat("a", 52),
			"flipped":       string(wrong),
			"empty":         "",
			"no prefix":     secret[3:],
			"hash itself":   tok.SecretHash,
			"secret + more": secret + "a",
		} {
			if _, err := c.Authenticate(ctx, s); !errors.Is(err, ErrUnauthenticated) {
				t.Errorf("%s: Authenticate = %v, want ErrUnauthenticated", name, err)
			}
		}

		clk.Add(time.Second)
		rev, err := c.RevokeToken(ctx, tok.ID)
		if err != nil || rev.RevokedAt == nil {
			t.Fatalf("RevokeToken = %+v, %v", rev, err)
		}
		_, err = c.Authenticate(ctx, secret)
		if !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "revoked") {
			t.Errorf("a revoked token: %v", err)
		}
		clk.Add(time.Second)
		again, _ := c.RevokeToken(ctx, tok.ID)
		if !again.RevokedAt.Equal(*rev.RevokedAt) {
			t.Errorf("revoking twice moved the time: %v then %v", rev.RevokedAt, again.RevokedAt)
		}
		if _, err := c.Authenticate(ctx, secret2); err != nil {
			t.Errorf("another token after a revoke: %v", err)
		}
		if _, err := c.RevokeToken(ctx, "tok_nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("RevokeToken(nope) = %v", err)
		}
		list, err := c.ListTokens(ctx)
		if err != nil || len(list) != 2 || list[0].ID != tok.ID || list[0].RevokedAt == nil || list[1].RevokedAt != nil {
			t.Errorf("ListTokens = %+v, %v", list, err)
		}
		if _, _, err := c.CreateToken(ctx, "x", "root"); !errors.Is(err, ErrInvalid) {
			t.Errorf("a token of an unknown role: %v", err)
		}
	})
}

func TestAudit(t *testing.T) {
	clk := newClock()
	eachCatalog(t, Options{Now: clk.Now}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		var ids []int64
		for i := range 12 {
			clk.Add(time.Second)
			e := AuditEntry{TokenID: "tok_a", TokenName: "ci", Role: RoleOperator, Method: "POST", Path: fmt.Sprintf("/api/v1/jobs/%d/pause", i), RemoteAddr: "127.0.0.1:5000", Status: 200, Message: "paused"}
			if i%3 == 0 {
				e.TokenID, e.TokenName, e.Role, e.Status = "", "", "", 401
			}
			got, err := c.AppendAudit(ctx, e)
			if err != nil || got.ID == 0 || !got.Time.Equal(clk.Now().Truncate(time.Microsecond)) {
				t.Fatalf("AppendAudit = %+v, %v", got, err)
			}
			ids = append(ids, got.ID)
		}
		slices.Reverse(ids)
		var got []int64
		cur := ""
		for {
			p, err := c.ListAudit(ctx, "", cur, 5)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entries {
				got = append(got, e.ID)
			}
			if p.Next == "" {
				break
			}
			cur = p.Next
		}
		if !slices.Equal(got, ids) {
			t.Errorf("audit pages = %v, want %v (newest first)", got, ids)
		}
		p, err := c.ListAudit(ctx, "tok_a", "", 0)
		if err != nil || len(p.Entries) != 8 || p.Entries[0].Path != "/api/v1/jobs/11/pause" || p.Entries[0].Status != 200 || p.Entries[0].RemoteAddr != "127.0.0.1:5000" {
			t.Errorf("the token's entries: %+v, %v", p.Entries, err)
		}
		if _, err := c.ListAudit(ctx, "", cursor{kind: cursorJobs, micros: 1, key: "x"}.encode(), 0); !errors.Is(err, ErrInvalid) {
			t.Errorf("a job cursor for the audit log: %v", err)
		}
		if _, err := c.AppendAudit(ctx, AuditEntry{Path: "/"}); !errors.Is(err, ErrInvalid) {
			t.Errorf("an entry without a method: %v", err)
		}
	})
}

func TestJSONNames(t *testing.T) {
	b, err := json.Marshal(Job{ID: "j", Spec: `{"a":1}`, Table: "t", IdempotencyKey: ptr("k"), FinalReport: `{"bytes":1}`})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"id":"j"`, `"spec":{"a":1}`, `"targetTable":`, `"sourceCluster":`, `"submittedAt":`, `"submittedBy":`, `"idempotencyKey":"k"`, `"finalReport":{"bytes":1}`, `"state":`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("job JSON %s lacks %s", b, k)
		}
	}
	var back Job
	if err := json.Unmarshal(b, &back); err != nil || back.Spec != `{"a":1}` || back.FinalReport != `{"bytes":1}` {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	b, _ = json.Marshal(Cluster{Name: "dc1", ZKQuorum: "zk:2181"})
	for _, k := range []string{`"zkQuorum":"zk:2181"`, `"znodeParent":`, `"hdfsRoot":`, `"createdAt":`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("cluster JSON %s lacks %s", b, k)
		}
	}
}

func TestAttachSubmission(t *testing.T) {
	eachCatalog(t, Options{}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		const adopted = "registry (adopted)"
		row := Job{ID: "copy-adopted-1", Spec: "{}", Table: "t1", SubmittedBy: adopted}
		if _, _, err := c.CreateJob(ctx, row); err != nil {
			t.Fatal(err)
		}
		sub := testJob("copy-adopted-1")
		sub.IdempotencyKey = ptr("key-a")
		got, err := c.AttachSubmission(ctx, sub, adopted)
		if err != nil || got.SubmittedBy != "ops" || got.SourceCluster != "dc1" || got.Spec != `{"table":"t1","id":"copy-adopted-1"}` || *got.IdempotencyKey != "key-a" {
			t.Fatalf("AttachSubmission = %+v, %v", got, err)
		}
		if held, err := c.JobByIdempotencyKey(ctx, "key-a"); err != nil || held.ID != sub.ID {
			t.Fatalf("the key after attaching: %+v, %v", held, err)
		}
		// A row with a submitter of its own is left as it is.
		other := testJob("copy-adopted-1")
		other.SubmittedBy = "someone else"
		if got, err := c.AttachSubmission(ctx, other, adopted); err != nil || got.SubmittedBy != "ops" {
			t.Fatalf("attach to a submitted row = %+v, %v; want it unchanged", got, err)
		}
		// A key another job holds is a conflict.
		if _, _, err := c.CreateJob(ctx, Job{ID: "copy-adopted-2", Spec: "{}", SubmittedBy: adopted}); err != nil {
			t.Fatal(err)
		}
		clash := testJob("copy-adopted-2")
		clash.IdempotencyKey = ptr("key-a")
		if _, err := c.AttachSubmission(ctx, clash, adopted); !errors.Is(err, ErrConflict) {
			t.Fatalf("attach with a held key: %v; want ErrConflict", err)
		}
		if _, err := c.AttachSubmission(ctx, testJob("copy-nosuch"), adopted); !errors.Is(err, ErrNotFound) {
			t.Fatalf("attach to no job: %v; want ErrNotFound", err)
		}
	})
}
