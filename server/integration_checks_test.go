package server

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// burst sends n copies of one POST /jobs at once (each with the Idempotency-Key when key is
// set) and returns the answers.
func (r *rig) burst(n int, body map[string]any, key string) []answer {
	r.t.Helper()
	var header []string
	if key != "" {
		header = []string{"Idempotency-Key", key}
	}
	out := make([]answer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", body, header...)
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// statusCount counts the answers by status and fails the test on any 5xx; it returns the
// counts and the ids of the jobs the 2xx answers name.
func statusCount(t *testing.T, what string, as []answer) (map[int]int, map[string]int) {
	t.Helper()
	counts, ids := map[int]int{}, map[string]int{}
	for _, a := range as {
		counts[a.status]++
		if a.status >= 500 {
			t.Errorf("%s: a %d: %s", what, a.status, a.body)
		}
		if a.status/100 == 2 {
			var j api.JobOut
			a.decode(t, &j)
			ids[j.ID]++
		}
	}
	t.Logf("%s: statuses %v, jobs %v", what, counts, ids)
	return counts, ids
}

// TestServerConcurrentSubmissions sends ten identical submissions at once, with one
// Idempotency-Key and without, the target table missing (created by the job) and there:
// one key makes one job, whose id every caller gets, the creator with 201 and the others
// with 200; without a key no caller gets a 5xx.
func TestServerConcurrentSubmissions(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 0)
	r.registerClusters(env)
	table := copytest.CreateSource(t, env, "race")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(100), 1, time.Now().UnixMilli()-100_000, false)
	targetA, targetB := table+"_a", table+"_b"
	copytest.DropTargetLater(t, env, targetA)
	copytest.DropTargetLater(t, env, targetB)
	sub := func(target string, extra ...any) map[string]any {
		m := map[string]any{"source": "src", "target": "dst", "table": table, "targetTable": target, "createTable": true}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return m
	}
	var all []string
	oneJob := func(what string, as []answer) {
		t.Helper()
		counts, ids := statusCount(t, what, as)
		if counts[http.StatusCreated] != 1 || counts[http.StatusOK] != len(as)-1 || len(ids) != 1 {
			t.Errorf("%s: statuses %v, jobs %v; want one 201, %d×200, one job", what, counts, ids, len(as)-1)
		}
		for id := range ids {
			all = append(all, id)
		}
	}

	// One key, the target table missing: all ten race to create it.
	oneJob("one key, table missing", r.burst(10, sub(targetA), "race-a-"+table))
	// No key, another target table missing: no 5xx; identical copies are one job anyway.
	counts, ids := statusCount(t, "no key, table missing", r.burst(10, sub(targetB), ""))
	if counts[http.StatusCreated] < 1 || len(ids) != 1 {
		t.Errorf("no key: statuses %v, jobs %v; want one job, made once", counts, ids)
	}
	for id := range ids {
		all = append(all, id)
	}
	// One key, the target table there now (a new copy: other rows).
	oneJob("one key, table there", r.burst(10, sub(targetB, "startRow", "\\x40"), "race-b-"+table))

	page, err := r.s.Catalog().ListJobs(t.Context(), catalog.JobFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Jobs) != 3 {
		t.Errorf("the catalog holds %d jobs; want 3 (one per copy)", len(page.Jobs))
	}
	for _, id := range all {
		if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs/"+id+"/cancel", nil); a.status != http.StatusOK {
			t.Errorf("cancel %s: %d %s", id, a.status, a.body)
		}
	}
}

// registerAlias registers the harness's source cluster again as name, spelt with other
// addresses (localhost for 127.0.0.1 in its ZooKeeper quorum, 127.0.0.1 for localhost in
// its HDFS root), so that only HBase's cluster id tells it is the same cluster.
func (r *rig) registerAlias(env *testenv.Env, name string) {
	r.t.Helper()
	zk := strings.Replace(env.Source.ZKQuorum, "127.0.0.1", "localhost", 1)
	root := strings.Replace(env.Source.HBaseRootDir, "localhost", "127.0.0.1", 1)
	if zk == env.Source.ZKQuorum || root == env.Source.HBaseRootDir {
		r.t.Fatalf("the harness's addresses %s, %s: cannot spell them otherwise", env.Source.ZKQuorum, env.Source.HBaseRootDir)
	}
	a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/clusters", map[string]any{"name": name, "zkQuorum": zk,
		"znodeParent": env.Source.ZNodeParent, "hdfsRoot": root, "user": env.Source.User})
	if a.status != http.StatusCreated {
		r.t.Fatalf("register %s: %d %s", name, a.status, a.body)
	}
}

// wantProblem fails the test unless a is a 400 whose body holds every one of texts.
func wantProblem(t *testing.T, what string, a answer, texts ...string) {
	t.Helper()
	if a.status != http.StatusBadRequest {
		t.Errorf("%s: %d %s; want 400", what, a.status, a.body)
		return
	}
	for _, s := range texts {
		if !strings.Contains(string(a.body), s) {
			t.Errorf("%s: %s; want it to name %q", what, a.body, s)
		}
	}
}

// TestServerRefusesCopyOntoItself submits copies of a table onto itself, by one cluster name
// and by two names of one cluster, as jobs and as a relocation: each is a 400 naming the
// target, nothing is registered and the source table is unchanged; a copy into another
// table of the same cluster runs.
func TestServerRefusesCopyOntoItself(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 2)
	r.registerClusters(env)
	r.registerAlias(env, "src-again")
	table := copytest.CreateSource(t, env, "self")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(150), 2, time.Now().UnixMilli()-100_000, true)
	before := countRaw(t, env.Source, table)

	for _, c := range []struct {
		what string
		body map[string]any
		want []string
	}{
		{"one name", map[string]any{"source": "src", "target": "src", "table": table}, []string{"target", "never writes into its source"}},
		{"namespace spelt", map[string]any{"source": "src", "target": "src", "table": table, "targetTable": "default:" + table},
			[]string{"target", "never writes into its source"}},
		{"two names", map[string]any{"source": "src", "target": "src-again", "table": table},
			[]string{"target", "src and src-again are one: the same HBase cluster id"}},
		{"two names, reversed", map[string]any{"source": "src-again", "target": "src", "table": table, "createTable": true},
			[]string{"target", "the same HBase cluster id"}},
	} {
		wantProblem(t, "job, "+c.what, r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", c.body), c.want...)
	}
	rel := map[string]any{"source": "src", "target": "src-again", "tables": []string{table}, "schedule": "@every 1h"}
	wantProblem(t, "relocation, two names", r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations", rel),
		"tables[0]", "the same HBase cluster id")
	rel["target"] = "src"
	wantProblem(t, "relocation, one name", r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations", rel), "tables[0]", "never writes into its source")
	if page, _ := r.s.Catalog().ListJobs(t.Context(), catalog.JobFilter{}); len(page.Jobs) != 0 {
		t.Errorf("refused copies made jobs: %+v", page.Jobs)
	}
	if rs, _ := r.s.Catalog().ListRelocations(t.Context(), false); len(rs) != 0 {
		t.Errorf("refused relocations were made: %+v", rs)
	}
	if after := countRaw(t, env.Source, table); after != before {
		t.Errorf("the source table's raw cells: %d before, %d after", before, after)
	}

	// Another table of the same cluster, through the second name: allowed, and it copies.
	other := table + "_copy"
	t.Cleanup(func() { env.Source.DeleteTable(t.Context(), other) })
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", map[string]any{"source": "src", "target": "src-again",
		"table": table, "targetTable": other, "createTable": true})
	if a.status != http.StatusCreated {
		t.Fatalf("a copy into another table of the same cluster: %d %s; want 201", a.status, a.body)
	}
	var j api.JobOut
	a.decode(t, &j)
	r.waitJob(j.ID, 4*time.Minute, "done", func(v api.JobOut) bool {
		if v.State == api.JobFailed {
			t.Fatalf("job %s failed: %s", v.ID, v.LastError)
		}
		return v.State == api.JobDone
	})
	if after := countRaw(t, env.Source, table); after != before {
		t.Errorf("the source table's raw cells: %d before, %d after a copy into another table", before, after)
	}
	if got := countRaw(t, env.Source, other); got != before {
		t.Errorf("the copy holds %d raw cells; want %d", got, before)
	}
}

// countRaw is the number of raw cells (delete markers and masked versions included) of a
// table.
func countRaw(t *testing.T, c *testenv.Cluster, table string) int {
	t.Helper()
	cells, err := c.Scan(t.Context(), table, testenv.ScanSpec{Raw: true})
	if err != nil {
		t.Fatalf("raw scan of %s: %v", table, err)
	}
	return len(cells)
}

// TestServerCreateChecks refuses, with a 400 naming the field, a relocation of a table the
// source does not have, one naming a table twice, one asking for a family the table lacks,
// empty family names, and bandwidths past 1TB/s in every place a bandwidth is taken
// (submission, a job's PATCH, relocation create and PATCH); nothing is made.
func TestServerCreateChecks(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 0)
	r.registerClusters(env)
	table := copytest.CreateSource(t, env, "chk")
	copytest.DropTargetLater(t, env, table)
	missing := table + "_nowhere"

	rel := func(k string, v any) map[string]any {
		m := map[string]any{"source": "src", "target": "dst", "tables": []string{table}, "schedule": "@every 1h"}
		if k != "" {
			m[k] = v
		}
		return m
	}
	for _, c := range []struct {
		what string
		body map[string]any
		want []string
	}{
		{"missing table", rel("tables", []string{table, missing}), []string{"tables[1]", "source table " + missing + " does not exist"}},
		{"table twice", rel("tables", []string{table, "default:" + table}), []string{"tables[1]", "named twice"}},
		{"table twice, renamed", rel("tables", []string{table + "→a", table + "→b"}), []string{"tables[1]", "named twice"}},
		{"one target for two", rel("tables", []string{table, missing + "→" + table}), []string{"tables[1]", "target of tables[0]"}},
		{"family missing", rel("families", []string{"cf1", "nope"}), []string{"tables[0]", "no column family nope"}},
		{"empty family", rel("families", []string{"cf1", "", "cf2"}), []string{"families", "empty"}},
		{"blank family", rel("families", []string{" "}), []string{"families", "empty"}},
		{"a list as one family", rel("families", []string{"cf1,,cf2"}), []string{"families", "comma"}},
		{"bandwidth", rel("bandwidth", "1e21GB/s"), []string{"bandwidth", "1TB/s"}},
	} {
		wantProblem(t, "relocation, "+c.what, r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations", c.body), c.want...)
	}
	if rs, _ := r.s.Catalog().ListRelocations(t.Context(), false); len(rs) != 0 {
		t.Fatalf("refused relocations were made: %+v", rs)
	}

	job := func(k string, v any) map[string]any {
		m := map[string]any{"source": "src", "target": "dst", "table": table, "createTable": true}
		m[k] = v
		return m
	}
	for _, c := range []struct {
		what string
		body map[string]any
		want []string
	}{
		{"bandwidth", job("bandwidth", "1e21GB/s"), []string{"bandwidth", "1TB/s"}},
		{"bandwidth in digits", job("bandwidth", "1000000000000000000000GB/s"), []string{"bandwidth", "1TB/s"}},
		{"empty family", job("families", []string{"cf1", "", "cf2"}), []string{"families", "empty"}},
		{"only a blank family", job("families", []string{" "}), []string{"families", "empty"}},
		{"a list as one family", job("families", []string{","}), []string{"families", "comma"}},
		{"missing table", job("table", missing), []string{missing, "does not exist"}},
	} {
		wantProblem(t, "job, "+c.what, r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", c.body), c.want...)
	}
	if page, _ := r.s.Catalog().ListJobs(t.Context(), catalog.JobFilter{}); len(page.Jobs) != 0 {
		t.Fatalf("refused submissions made jobs: %+v", page.Jobs)
	}

	// A job and a relocation that are right, then their bandwidths changed past the limit.
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", job("bandwidth", "1TB/s"))
	if a.status != http.StatusCreated {
		t.Fatalf("submit at 1TB/s: %d %s", a.status, a.body)
	}
	var j api.JobOut
	a.decode(t, &j)
	defer r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs/"+j.ID+"/cancel", nil)
	for _, bw := range []string{"1e21GB/s", "2TB/s"} {
		wantProblem(t, "job PATCH "+bw, r.do(r.oper, http.MethodPatch, api.APIPrefix+"/jobs/"+j.ID, map[string]any{"bandwidth": bw}),
			"bandwidth", "1TB/s")
	}
	if err := r.s.Jobs().SetBandwidth(t.Context(), j.ID, 1e21, "test"); err == nil || !strings.Contains(err.Error(), "1TB/s") {
		t.Errorf("SetBandwidth(1e21): %v; want a refusal naming 1TB/s", err)
	}
	a = r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations", rel("", nil))
	if a.status != http.StatusCreated {
		t.Fatalf("create a relocation: %d %s", a.status, a.body)
	}
	var rl api.RelocationOut
	a.decode(t, &rl)
	defer r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations/"+url.PathEscape(rl.ID)+"/cancel", nil)
	wantProblem(t, "relocation PATCH", r.do(r.oper, http.MethodPatch, api.APIPrefix+"/relocations/"+rl.ID,
		map[string]any{"bandwidth": "1e21GB/s"}), "bandwidth", "1TB/s")
}
