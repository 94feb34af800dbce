package dashboard

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{rateText(0), "0 B/s"},
		{rateText(512), "512 B/s"},
		{rateText(20e3), "20.0 kB/s"},
		{rateText(1.5e6), "1.5 MB/s"},
		{rateText(2.25e9), "2.2 GB/s"},
		{limitText(0), "no limit"},
		{etaText(0), "—"},
		{etaText(45 * time.Second), "45 s left"},
		{etaText(200 * time.Second), "3 m 20 s left"},
		{etaText(3 * time.Minute), "3 m left"},
		{etaText(2*time.Hour + 5*time.Minute + 10*time.Second), "2 h 5 m left"},
		{etaText(76 * time.Hour), "3 d 4 h left"},
		{percentText(0.4251), "42.5 %"},
		{percentText(1.2), "100.0 %"},
		{bytesText(3 << 20), "3.0 MiB"},
		{tasksText(TaskCounts{}), "not planned yet"},
		{tasksText(TaskCounts{Total: 12, Done: 3, Running: 2, Failed: 1}), "3 of 12 done, 2 running, 1 failed"},
		{string(timeHTML(time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)))),
			`<time datetime="2026-01-02T02:04:05Z">2026-01-02T02:04:05Z</time>`},
		{rowText("", true), "first row"},
		{rowText("", false), "last row"},
		{rowText(`a\x00`, true), `"a\x00"`},
		{lagText(3638 * time.Millisecond), "3.6 s"},
		{lagText(0), "0.0 s"},
		{lagText(95 * time.Second), "1 m 35 s"},
		{goDurationText("5m0s"), "5 m"},
		{goDurationText("1h30m0s"), "1 h 30 m"},
		{goDurationText("soon"), "soon"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestThroughput(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for _, c := range []struct {
		name   string
		in     []Sample
		window time.Duration
		want   []float64
	}{
		{"none", nil, time.Minute, nil},
		{"one", []Sample{{at(0), 0}}, time.Minute, nil},
		{"steady", []Sample{{at(0), 0}, {at(5), 500}, {at(10), 1000}}, time.Minute, []float64{100, 100}},
		{"window drops old samples", []Sample{{at(0), 0}, {at(10), 0}, {at(20), 1000}, {at(30), 2000}}, 10 * time.Second,
			[]float64{0, 100, 100}},
		{"at least the sample before", []Sample{{at(0), 0}, {at(60), 600}}, 10 * time.Second, []float64{10}},
		{"no step back in time", []Sample{{at(5), 0}, {at(5), 10}, {at(10), 510}}, time.Minute, []float64{102}},
		{"never negative", []Sample{{at(0), 100}, {at(10), 0}}, time.Minute, []float64{0}},
	} {
		got := throughput(c.in, c.window)
		var rates []float64
		for _, p := range got {
			rates = append(rates, p.BPS)
		}
		if len(rates) != len(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, rates, c.want)
			continue
		}
		for i := range rates {
			if rates[i] != c.want[i] {
				t.Errorf("%s: got %v, want %v", c.name, rates, c.want)
				break
			}
		}
	}
}

func TestNiceCeil(t *testing.T) {
	for in, want := range map[float64]float64{0: 1, 1: 1, 3: 5, 7: 10, 10: 10, 11: 20, 150: 200, 2.1e6: 5e6, 5e6: 5e6} {
		if got := niceCeil(in); got != want {
			t.Errorf("niceCeil(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestChart(t *testing.T) {
	now := time.Unix(2000, 0)
	if got := string(chartSVG(nil, now)); !strings.Contains(got, "after a few samples") {
		t.Errorf("empty chart: %s", got)
	}
	svg := string(chartSVG([]Point{{now.Add(-60 * time.Second), 1e6}, {now.Add(-30 * time.Second), 3e6}, {now, 2e6}}, now))
	for _, want := range []string{`<svg class="chart"`, `role="img"`, "now 2.0 MB/s, at most 5.0 MB/s", "1 m ago", `points="70.0,`, "5.0 MB/s</text>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q: %s", want, svg)
		}
	}
}

// TestRunSamples runs the sampler: it records the jobs that have not ended (not the done
// ones) through the Source, and nothing while Sampling says no; the job page draws its chart
// from the Source's samples.
func TestRunSamples(t *testing.T) {
	src := fakeSource(10, 0)
	var sampling atomic.Bool
	var asked atomic.Int64
	d, err := New(Config{Source: src, Version: "test", Sample: time.Millisecond,
		Sampling: func() bool { asked.Add(1); return sampling.Load() }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	count := func() (jobs, samples int) {
		src.mu.Lock()
		defer src.mu.Unlock()
		for _, ss := range src.samples {
			jobs, samples = jobs+1, samples+len(ss)
		}
		return
	}
	// Not sampling: nothing after many ticks.
	for deadline := time.Now().Add(30 * time.Second); asked.Load() < 20; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the sampler asked Sampling %d times in 30 s", asked.Load())
		}
	}
	if j, n := count(); n != 0 {
		t.Fatalf("while Sampling says no, %d samples of %d jobs were recorded", n, j)
	}
	sampling.Store(true)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, n := count(); n >= 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sampler recorded under 6 samples in 30 s")
		}
	}
	cancel()
	<-done
	src.mu.Lock()
	for id := range src.samples {
		if j, _ := src.Job(t.Context(), id); j.Final {
			t.Errorf("job %s (%s) was sampled; it has ended", id, j.State)
		}
	}
	if len(src.samples) != 2 { // jobs 0 and 5 run
		t.Errorf("sampled %d jobs, want the 2 running ones", len(src.samples))
	}
	src.mu.Unlock()

	// The chart of a job is drawn from what the Source keeps.
	id := src.jobs[0].ID
	t0 := time.Now().Add(-time.Minute)
	src.samples[id] = []Sample{{t0, 0}, {t0.Add(20 * time.Second), 2e6}, {t0.Add(40 * time.Second), 4e6}}
	srv := httptest.NewServer(d)
	defer srv.Close()
	c := &client{t: t, url: srv.URL}
	c.do("POST", "/login", url.Values{"secret": {"sv"}})
	if _, body := c.do("GET", "/jobs/"+id, nil); !strings.Contains(body, `<polyline class="line"`) || !strings.Contains(body, "now 100.0 kB/s") {
		t.Errorf("the job page's chart is not drawn from the three samples kept")
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{"": "/jobs", "/jobs/x?y=1": "/jobs/x?y=1", "//evil.example": "/jobs",
		"https://evil.example": "/jobs", `/\evil`: "/jobs", "/login": "/jobs", "/workers": "/workers"} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

// client is a browser without JavaScript: it keeps cookies, does not follow redirects.
type client struct {
	t   *testing.T
	url string
	jar []*http.Cookie
}

func (c *client) do(method, path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, c.url+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, k := range c.jar {
		req.AddCookie(k)
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, k := range resp.Cookies() {
		c.jar = []*http.Cookie{k}
		if k.MaxAge < 0 {
			c.jar = nil
		}
	}
	return resp, string(b)
}

func csrfOf(t *testing.T, html string) string {
	t.Helper()
	_, rest, ok := strings.Cut(html, `name="csrf" value="`)
	if !ok {
		t.Fatalf("no CSRF field in the page")
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

func TestSignInAndActions(t *testing.T) {
	src := fakeSource(3, 200)
	d, err := New(Config{Source: src, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	defer srv.Close()
	c := &client{t: t, url: srv.URL}
	job := src.jobs[0].ID

	resp, _ := c.do("GET", "/jobs/"+job, nil)
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login?next=%2Fjobs%2F") {
		t.Fatalf("signed out: %d %s; want a redirect to sign in", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, body := c.do("POST", "/login", url.Values{"secret": {"wrong"}}); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not a valid token") {
		t.Errorf("wrong secret: %d", resp.StatusCode)
	}
	resp, _ = c.do("POST", "/login", url.Values{"secret": {"sv"}, "next": {"/jobs/" + job}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/jobs/"+job || len(c.jar) != 1 {
		t.Fatalf("sign in: %d %s %v", resp.StatusCode, resp.Header.Get("Location"), c.jar)
	}
	if k := c.jar[0]; !k.HttpOnly || k.SameSite != http.SameSiteStrictMode || k.Secure || k.Name != sessionCookie {
		t.Errorf("session cookie: %+v; want HttpOnly, SameSite=Strict, not Secure over plain HTTP", k)
	}
	resp, body := c.do("GET", "/jobs/"+job, nil)
	if resp.StatusCode != http.StatusOK || strings.Contains(body, `action="/jobs/`+job+`/pause"`) || !strings.Contains(body, "ann") {
		t.Fatalf("viewer's job page: %d, has a pause form or lacks the name", resp.StatusCode)
	}
	token := csrfOf(t, body) // the sign-out form's
	if resp, _ := c.do("POST", "/jobs/"+job+"/pause", url.Values{"csrf": {token}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer's pause: %d; want 403", resp.StatusCode)
	}
	viewerToken := token

	c.do("POST", "/logout", url.Values{"csrf": {token}})
	if len(c.jar) != 0 {
		t.Fatalf("signed out, still a cookie: %v", c.jar)
	}
	c.do("POST", "/login", url.Values{"secret": {"so"}})
	_, body = c.do("GET", "/jobs/"+job, nil)
	if !strings.Contains(body, `action="/jobs/`+job+`/pause"`) || !strings.Contains(body, `name="bandwidth"`) {
		t.Fatal("an operator's job page has no pause form or bandwidth field")
	}
	token = csrfOf(t, body)
	for _, forged := range []url.Values{{}, {"csrf": {"x" + token}}, {"csrf": {csrfFor("sv", nil)}}} {
		if resp, _ := c.do("POST", "/jobs/"+job+"/pause", forged); resp.StatusCode != http.StatusForbidden {
			t.Errorf("pause with csrf %v: %d; want 403", forged, resp.StatusCode)
		}
	}
	if resp, _ := c.do("POST", "/jobs/"+job+"/pause", url.Values{"csrf": {token}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("pause: %d; want 303", resp.StatusCode)
	}
	if resp, body := c.do("POST", "/jobs/"+job+"/bandwidth", url.Values{"csrf": {token}, "bandwidth": {"fast"}}); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "is not a rate") {
		t.Errorf("bad bandwidth: %d", resp.StatusCode)
	}
	c.do("POST", "/jobs/"+job+"/bandwidth", url.Values{"csrf": {token}, "bandwidth": {"50MB/s"}})
	if got := strings.Join(src.acts, "; "); got != "bob pause "+job+" ; bob bandwidth "+job+" 50MB/s" {
		t.Errorf("actions done: %s", got)
	}
	c.jar = nil
	if resp, _ := c.do("POST", "/jobs/"+job+"/resume", url.Values{"csrf": {viewerToken}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a resume with no session: %d; want 403", resp.StatusCode)
	}

	// Every refusal went to the Source's audit log: who, what, why.
	var got []string
	for _, r := range src.refused {
		if r.Who.Addr == "" || r.Method != "POST" {
			t.Errorf("refusal %+v: no address or not the POST", r)
		}
		got = append(got, fmt.Sprintf("%d %s %s %s: %s", r.Status, r.Who.TokenID, r.Who.Role, r.Path, r.Why))
	}
	want := []string{
		"401   /login: sign-in with a secret that is no valid token's",
		"403 tok_v viewer /jobs/" + job + "/pause: role viewer; this needs operator",
		"403 tok_o operator /jobs/" + job + "/pause: the form's CSRF token is missing or wrong (forged)",
		"403 tok_o operator /jobs/" + job + "/pause: the form's CSRF token is missing or wrong (forged)",
		"403 tok_o operator /jobs/" + job + "/pause: the form's CSRF token is missing or wrong (forged)",
		"403   /jobs/" + job + "/resume: not signed in",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("refusals recorded:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPages(t *testing.T) {
	src := fakeSource(250, 300)
	d, err := New(Config{Source: src, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	defer srv.Close()
	c := &client{t: t, url: srv.URL}
	c.do("POST", "/login", url.Values{"secret": {"sv"}})
	job := src.jobs[0].ID
	for _, p := range []struct {
		path   string
		status int
		want   []string
	}{
		{"/jobs", 200, []string{`data-job="` + job + `"`, "3 m 20 s left", "210.0 MB/s", `<time datetime="2026-03-01T12:00:00Z">`, `rel="next"`, "dc1 → dc2"}},
		{"/jobs?state=running", 200, []string{"copy-t0005-", `<option value="running" selected>`}},
		{"/jobs?state=sideways", 400, []string{"no job state sideways"}},
		{"/jobs/" + job, 200, []string{`row\x00\xff`, "Throughput", `<td class="id">w1</td>`, `r\x01`, "running <strong>64</strong>", `rel="next"`}},
		{"/jobs/" + job + "?tasks=failed", 200, []string{"No task is failed"}},
		{"/jobs/nope", 404, []string{"no such thing"}},
		{"/workers", 200, []string{"2 live workers, running 1 tasks in 8 slots", "task 000001"}},
		{"/static/style.css", 200, []string{"--accent"}},
		{"/nowhere", 404, []string{"There is no page /nowhere"}},
	} {
		resp, body := c.do("GET", p.path, nil)
		if resp.StatusCode != p.status {
			t.Errorf("%s: %d, want %d", p.path, resp.StatusCode, p.status)
		}
		for _, w := range p.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q", p.path, w)
			}
		}
	}
	// A running job's stream goes on: read until both jobs were told of, then hang up.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/live?job="+job+"&job="+src.jobs[1].ID, nil)
	req.AddCookie(c.jar[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("live: %s", resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	var seen []string
	for len(seen) < 2 && sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			seen = append(seen, line)
		}
	}
	if len(seen) != 2 || !strings.Contains(seen[0], `"eta":"3 m 20 s left"`) || !strings.Contains(seen[1], `"id":"`+src.jobs[1].ID+`"`) ||
		!strings.Contains(seen[1], `"final":true`) {
		t.Errorf("live events: %q", seen)
	}
}
