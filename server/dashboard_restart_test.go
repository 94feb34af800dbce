package server

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// TestThroughputChartSurvivesRestart copies a table at a capped rate while the leading
// server samples the job, stops that server and starts another on the same catalog and
// registry (with no workers: the job copies nothing more), and checks that the catalog still
// holds every sample the first one took and that the new server's job page at once draws
// them: a line with a rate only the first server's samples have.
func TestThroughputChartSurvivesRestart(t *testing.T) {
	env := testenv.Get(t)
	dir, root := t.TempDir(), "/"+testenv.UniqueName(t, "srv")
	r := newRigAt(t, env, 2, dir, root)
	r.registerClusters(env)
	table := copytest.CreateSource(t, env, "chart")
	writeBulk(t, env, table, 2000, 1000)
	copytest.DropTargetLater(t, env, table)
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", map[string]any{"source": "src", "target": "dst", "table": table,
		"createTable": true, "bandwidth": "40KB/s", "taskSize": "1MiB"})
	if a.status != http.StatusCreated {
		t.Fatalf("submit: %d %s", a.status, a.body)
	}
	var j api.JobOut
	a.decode(t, &j)
	ctx := t.Context()

	// The leader samples the job every 5 s: wait for four samples, the bytes done rising.
	var before []catalog.JobSample
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(time.Second) {
		ss, err := r.s.Catalog().JobSamples(ctx, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(ss); n >= 4 && ss[n-1].BytesDone > ss[0].BytesDone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s has %d samples after 3 minutes (%+v); want 4, rising", j.ID, len(ss), ss)
		}
	}
	r.stop()
	stopped := time.Now()
	r2 := newRigAt(t, env, 0, dir, root)
	t.Cleanup(func() { r2.do(r2.oper, http.MethodPost, api.APIPrefix+"/jobs/"+j.ID+"/cancel", nil) })
	after, err := r2.s.Catalog().JobSamples(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range after {
		if s.Time.Before(stopped) {
			before = append(before, s)
		}
	}
	if len(before) < 4 || before[len(before)-1].BytesDone <= before[0].BytesDone {
		t.Fatalf("after the restart the catalog holds %d samples of the first server: %+v", len(before), before)
	}
	t.Logf("%d samples taken before the restart, %d bytes to %d over %s", len(before), before[0].BytesDone,
		before[len(before)-1].BytesDone, before[len(before)-1].Time.Sub(before[0].Time))

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r2.url+"/jobs/"+j.ID, nil)
	req.AddCookie(r2.signInCookie(r2.viewer))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("job page after the restart: %d", resp.StatusCode)
	}
	m := regexp.MustCompile(`<title id="chart-title">([^<]*)</title>.*<polyline class="line" points="([^"]*)"`).FindStringSubmatch(string(body))
	if m == nil {
		t.Fatalf("the job page after the restart draws no throughput chart:\n%s", body)
	}
	points := len(strings.Fields(m[2]))
	t.Logf("chart after the restart: %q, %d points", m[1], points)
	if points < len(before)-1 {
		t.Errorf("the chart has %d points; the %d samples from before the restart make %d", points, len(before), len(before)-1)
	}
	// The second server copies nothing: every sample of its own is of the same bytes, and
	// alone they would draw a line at most 1 B/s high.
	if strings.HasSuffix(m[1], "at most 1 B/s") {
		t.Errorf("the chart %q shows none of the first server's rising samples", m[1])
	}
}
