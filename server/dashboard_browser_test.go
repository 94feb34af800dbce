package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// The browser tests drive Debian's chromium with chromedp (scripts/test.sh installs it) and
// check accessibility with axe-core (npm, server/testdata/axe). With CI=true a missing
// browser or npm fails the test; elsewhere it skips.

// needTool finds a program, or skips (fails in CI) the test.
func needTool(t *testing.T, env string, names ...string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if testenv.InCI() {
		t.Fatalf("%s not found (set %s or install it: scripts/test.sh does)", names[0], env)
	}
	t.Skipf("skipped outside CI: %s not found (apt-get install %s, or set %s)", names[0], names[0], env)
	return ""
}

// axeSource installs axe-core with npm ci from the committed package-lock.json into a cache
// folder named for the lock's hash (once), and returns axe.min.js.
func axeSource(t *testing.T) string {
	t.Helper()
	npm := needTool(t, "RANGECOPY_TEST_NPM", "npm")
	lock, err := os.ReadFile("testdata/axe/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := os.ReadFile("testdata/axe/package.json")
	if err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(append(pkg, lock...))
	dir := filepath.Join(cache, "rangecopy", "axe-"+hex.EncodeToString(sum[:6]))
	js := filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
	if _, err := os.Stat(js); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.CommandContext(t.Context(), npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci of axe-core in %s: %v\n%s", dir, err, out)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// browser is one headless Chromium tab.
type browser struct {
	t     *testing.T
	ctx   context.Context
	axe   string
	shots string
}

func newBrowser(t *testing.T, axe string) *browser {
	t.Helper()
	exe := needTool(t, "RANGECOPY_TEST_CHROMIUM", "chromium", "chromium-browser", "google-chrome")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("lang", "en-GB"))
	actx, acancel := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); acancel() })
	shots := os.Getenv("RANGECOPY_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	b := &browser{t: t, ctx: ctx, axe: axe, shots: shots}
	// The first action starts the browser, on the tab's own context: a deadline's context
	// would close the browser when it is cancelled.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	return b
}

func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		where, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.href + " " + document.title`))
		b.t.Fatalf("browser, at %s: %v", where, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](b *browser, js string, opts ...chromedp.EvaluateOption) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, opts...))
	if err != nil {
		b.t.Fatalf("browser: evaluate %.80s: %v", js, err)
	}
	return v
}

// shot writes a PNG of the whole page to the screenshot folder.
func (b *browser) shot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		b.t.Fatalf("screenshot %s is no PNG", name)
	}
	if err := os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// axeViolation is a rule axe-core found broken, with the elements it found.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// accessible runs axe-core on the page (WCAG 2 A and AA rules) and fails the test on any
// serious or critical violation.
func (b *browser) accessible(page string) {
	b.t.Helper()
	if !eval[bool](b, "typeof axe !== 'undefined'") {
		eval[bool](b, b.axe+"\n;true")
	}
	raw := eval[string](b, `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}}).then(r => JSON.stringify({violations: r.violations, passes: r.passes.length}))`,
		chromedp.EvalAwaitPromise)
	var res struct {
		Violations []axeViolation `json:"violations"`
		Passes     int            `json:"passes"`
	}
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		b.t.Fatalf("axe on %s: %v", page, err)
	}
	if res.Passes == 0 {
		b.t.Fatalf("axe on %s checked nothing", page)
	}
	b.t.Logf("axe on %s: %d rules passed, %d violated", page, res.Passes, len(res.Violations))
	for _, v := range res.Violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			b.t.Errorf("axe on %s: %s (%s): %s, at %v", page, v.ID, v.Impact, v.Help, v.Nodes)
		} else {
			b.t.Logf("axe on %s, %s: %s (%s)", page, v.Impact, v.ID, v.Help)
		}
	}
}

// signIn signs in on the login page with a token secret.
func (b *browser) signIn(base, secret string) {
	b.t.Helper()
	b.do(chromedp.Navigate(base+"/login"), chromedp.WaitVisible("#secret"),
		chromedp.SendKeys("#secret", secret), chromedp.Submit("#secret"), chromedp.WaitVisible(".who"))
	if got := eval[string](b, "location.pathname"); got != "/jobs" {
		b.t.Fatalf("after sign-in the browser is at %s", got)
	}
}

// writeBulk writes rows of incompressible values into cf1 of a table, spread over the
// sample's four regions, and flushes them.
func writeBulk(t *testing.T, env *testenv.Env, table string, rows, size int) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(1, 2))
	var cells []testenv.Cell
	ts := time.Now().UnixMilli() - 60_000
	for i := range rows {
		v := make([]byte, size)
		for k := range v {
			v[k] = byte(rnd.Uint32())
		}
		row := []byte{byte(i * 256 / rows), byte(i >> 8), byte(i)}
		cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf1"), Qualifier: []byte("v"), Timestamp: ts, Type: "Put", Value: v})
		if len(cells) == 500 || i == rows-1 {
			if err := env.Source.Mutate(t.Context(), table, cells); err != nil {
				t.Fatalf("write %s: %v", table, err)
			}
			cells = cells[:0]
		}
	}
	if err := env.Source.Flush(t.Context(), table); err != nil {
		t.Fatal(err)
	}
}

// TestDashboardInBrowser drives the dashboard in headless Chromium against a server on the
// real clusters: a slow job's progress bar moves without a reload, pausing from the page
// pauses it (the API agrees), a relocation's page shows its windows, a viewer sees no
// actions and forged POSTs are refused (and found in the audit log), the admin pages refuse
// a viewer and show an admin the clusters, tokens and audit log, and every page passes axe-core with no serious or critical violation. It takes screenshots of
// each page (RANGECOPY_SCREENSHOTS=docs/screenshots writes them where the README shows them).
func TestDashboardInBrowser(t *testing.T) {
	env := testenv.Get(t)
	axe := axeSource(t)
	b := newBrowser(t, axe)
	r := newRig(t, env, 2)
	r.registerClusters(env)
	table := copytest.CreateSource(t, env, "dash")
	writeBulk(t, env, table, 4000, 1500)
	copytest.DropTargetLater(t, env, table)

	sub := map[string]any{"source": "src", "target": "dst", "table": table, "createTable": true,
		"bandwidth": "150KB/s", "taskSize": "1MiB", "startRow": `\x00`}
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", sub)
	if a.status != http.StatusCreated {
		t.Fatalf("submit: %d %s", a.status, a.body)
	}
	var j api.JobOut
	a.decode(t, &j)
	t.Cleanup(func() { r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs/"+j.ID+"/cancel", nil) })
	r.waitJob(j.ID, 2*time.Minute, "running", func(v api.JobOut) bool { return v.State == "running" && v.Progress.Tasks.Total > 2 })

	// Signed out, the dashboard asks for a token; the login page itself.
	b.do(chromedp.Navigate(r.url + "/jobs"))
	if got := eval[string](b, "location.pathname"); got != "/login" {
		t.Fatalf("signed out, /jobs shows %s", got)
	}
	b.accessible("login")
	b.shot("login")

	b.signIn(r.url, r.oper)
	b.checkSessionCookie(r.oper)
	row := `tr[data-job="` + j.ID + `"]`
	bar := `document.querySelector('` + row + ` progress').value`
	b.do(chromedp.WaitVisible(row))
	first := eval[float64](b, bar)
	if eval[string](b, `document.querySelector('`+row+` time').getAttribute('datetime')`) == "" {
		t.Error("the started time has no datetime")
	}
	// The bar moves with no reload: the page's script follows /live.
	eval[bool](b, "window.notReloaded = true; true")
	moved := first
	for deadline := time.Now().Add(3 * time.Minute); moved <= first; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the progress bar stayed at %v for 3 minutes", first)
		}
		moved = eval[float64](b, bar)
	}
	if !eval[bool](b, "window.notReloaded === true") {
		t.Fatal("the page reloaded; the bar should move in place")
	}
	rate := eval[string](b, `document.querySelector('`+row+` [data-f=rate]').textContent`)
	t.Logf("progress bar moved from %.1f to %.1f %%; rate %s", first, moved, rate)
	if !strings.HasSuffix(rate, "B/s") {
		t.Errorf("rate %q is not in human units", rate)
	}
	b.accessible("jobs")
	b.shot("jobs")
	b.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	b.do(chromedp.Reload(), chromedp.WaitVisible(row))
	b.shot("jobs-phone")
	b.do(chromedp.EmulateViewport(1280, 900))

	// The job page, then pause from it.
	b.do(chromedp.Navigate(r.url+"/jobs/"+j.ID), chromedp.WaitVisible("button.act-pause"))
	if eval[int](b, `document.querySelectorAll('input[name=bandwidth]').length`) != 1 {
		t.Error("an operator's job page has no bandwidth field")
	}
	b.accessible("job")
	b.shot("job")
	b.do(chromedp.Click("button.act-pause"), chromedp.WaitVisible("p.notice"))
	if n := eval[string](b, `document.querySelector('p.notice').textContent`); !strings.Contains(n, "Pause asked") {
		t.Errorf("after pause the page says %q", n)
	}
	paused := r.waitJob(j.ID, 30*time.Second, "paused", func(v api.JobOut) bool { return v.State == "paused" })
	t.Logf("paused from the page: %s (%s)", paused.State, paused.Message)
	b.do(chromedp.WaitVisible("button.act-resume"))
	b.shot("job-paused")

	b.do(chromedp.Navigate(r.url+"/workers"), chromedp.WaitVisible("h1"))
	if got := eval[string](b, `document.querySelector('main').textContent`); !strings.Contains(got, r.s.cfg.ID+"-w") {
		t.Errorf("the workers page does not list the embedded workers %s-w", r.s.cfg.ID)
	}
	b.accessible("workers")
	b.shot("workers")

	rel := relocationInBrowser(t, env, r, b)

	// A viewer: no action buttons, and a POST of theirs is refused.
	eval[bool](b, `document.querySelector('form[action="/logout"] button').click(); true`)
	b.do(chromedp.WaitVisible("#secret"))
	b.signIn(r.url, r.viewer)
	b.do(chromedp.Navigate(r.url+"/jobs/"+j.ID), chromedp.WaitVisible("h1"))
	if n := eval[int](b, `document.querySelectorAll('.actions, button[class^=act-], input[name=bandwidth]').length`); n != 0 {
		t.Errorf("a viewer's job page has %d action controls", n)
	}
	b.accessible("job (viewer)")
	b.shot("job-viewer")
	b.do(chromedp.Navigate(r.url+"/relocations/"+rel), chromedp.WaitVisible("table.windows"))
	if n := eval[int](b, `document.querySelectorAll('.actions, button[class^=act-], form[action^="/relocations/"]').length`); n != 0 {
		t.Errorf("a viewer's relocation page has %d action controls", n)
	}

	// Forged POSTs, as another site's page or a script would send them.
	viewerCSRF := eval[string](b, `document.querySelector('input[name=csrf]').value`)
	// A form's CSRF token is its session's: the viewer's browser session, an operator's own.
	sessions := map[string]*http.Cookie{r.viewer: b.sessionCookie(), r.oper: r.signInCookie(r.oper)}
	post := func(secret, csrf, action string) int {
		t.Helper()
		form := url.Values{}
		if csrf != "" {
			form.Set("csrf", csrf)
		}
		req, _ := http.NewRequest(http.MethodPost, r.url+"/jobs/"+j.ID+"/"+action, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if secret != "" {
			req.AddCookie(sessions[secret])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	operCSRF := ""
	{
		// The operator's token as the operator's page carries it, read with a cookie of theirs.
		req, _ := http.NewRequest(http.MethodGet, r.url+"/jobs/"+j.ID, nil)
		req.AddCookie(sessions[r.oper])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_, rest, _ := strings.Cut(string(body), `name="csrf" value="`)
		operCSRF, _, _ = strings.Cut(rest, `"`)
	}
	for _, c := range []struct {
		name, secret, csrf string
	}{
		{"a viewer's cookie and CSRF token", r.viewer, viewerCSRF},
		{"an operator's cookie, no CSRF token", r.oper, ""},
		{"an operator's cookie, the viewer's CSRF token", r.oper, viewerCSRF},
		{"no cookie, the operator's CSRF token", "", operCSRF},
	} {
		if st := post(c.secret, c.csrf, "resume"); st != http.StatusForbidden {
			t.Errorf("resume with %s: %d; want 403", c.name, st)
		}
	}
	// Each refusal is in the audit log, as the API's are: who, the path, 403, and why.
	tokenOf := func(secret string) string {
		tok, err := r.s.Catalog().Authenticate(t.Context(), secret)
		if err != nil {
			t.Fatal(err)
		}
		return tok.ID
	}
	wantAudit := []string{
		tokenOf(r.viewer) + " viewer: dashboard: role viewer; this needs operator",
		tokenOf(r.oper) + " operator: dashboard: the form's CSRF token is missing or wrong (forged)",
		tokenOf(r.oper) + " operator: dashboard: the form's CSRF token is missing or wrong (forged)",
		" : dashboard: not signed in",
	}
	page, err := r.s.Catalog().ListAudit(t.Context(), "", "", catalog.MaxPageSize)
	if err != nil {
		t.Fatal(err)
	}
	var gotAudit []string
	for i := len(page.Entries) - 1; i >= 0; i-- { // oldest first
		e := page.Entries[i]
		if e.Path == "/jobs/"+j.ID+"/resume" {
			if e.Method != http.MethodPost || e.Status != http.StatusForbidden || e.RemoteAddr == "" {
				t.Errorf("audit entry %+v: want a POST refused with 403, with the caller's address", e)
			}
			gotAudit = append(gotAudit, e.TokenID+" "+string(e.Role)+": "+e.Message)
		}
	}
	if strings.Join(gotAudit, "\n") != strings.Join(wantAudit, "\n") {
		t.Errorf("audit log of the forged resumes:\n%s\nwant:\n%s", strings.Join(gotAudit, "\n"), strings.Join(wantAudit, "\n"))
	}
	if operCSRF == "" || post(r.oper, operCSRF, "bandwidth") != http.StatusBadRequest {
		t.Error("the operator's own form token is not accepted (an empty bandwidth should be a 400)")
	}
	if v := r.waitJob(j.ID, time.Second, "still paused", func(v api.JobOut) bool { return true }); v.State != "paused" {
		t.Errorf("after the forged resumes the job is %s; want paused", v.State)
	}
	adminPagesInBrowser(t, r, b)
}

// adminPagesInBrowser visits the admin pages signed in as the viewer the browser holds
// (each refused with the 403 page, none offered in the navigation), then as an admin: the
// clusters, a cluster with its redacted site files, the tokens and the audit log, each
// passing axe-core.
func adminPagesInBrowser(t *testing.T, r *rig, b *browser) {
	t.Helper()
	pages := []string{"/clusters", "/clusters/src", "/tokens", "/audit"}
	if n := eval[int](b, `document.querySelectorAll('nav a[href="/clusters"], nav a[href="/tokens"], nav a[href="/audit"]').length`); n != 0 {
		t.Errorf("a viewer's navigation offers %d admin pages", n)
	}
	for _, p := range pages {
		b.do(chromedp.Navigate(r.url+p), chromedp.WaitVisible("h1"))
		if h := eval[string](b, `document.querySelector('h1').textContent`); h != "403 Forbidden" {
			t.Errorf("a viewer at %s sees %q; want 403 Forbidden", p, h)
		}
	}
	b.shot("admin-refused-viewer")
	eval[bool](b, `document.querySelector('form[action="/logout"] button').click(); true`)
	b.do(chromedp.WaitVisible("#secret"))
	b.signIn(r.url, r.admin)
	for _, p := range pages {
		b.do(chromedp.Navigate(r.url+p), chromedp.WaitVisible("h1"))
		main := eval[string](b, `document.querySelector('main').textContent`)
		want := map[string]string{"/clusters": "dst", "/clusters/src": "hbase.zookeeper.quorum", "/tokens": "test viewer", "/audit": "create-cluster"}[p]
		if h := eval[string](b, `document.querySelector('h1').textContent`); strings.HasPrefix(h, "403") || !strings.Contains(main, want) {
			t.Errorf("an admin at %s sees %q without %q", p, h, want)
		}
		for _, s := range []string{r.admin, r.viewer, r.oper} {
			if strings.Contains(main, s) {
				t.Errorf("the page %s shows a token secret", p)
			}
		}
		name := strings.ReplaceAll(strings.Trim(p, "/"), "/", "-")
		b.accessible(name)
		b.shot(name)
	}
	if n := eval[int](b, `document.querySelectorAll('nav a[href="/clusters"], nav a[href="/tokens"], nav a[href="/audit"]').length`); n != 3 {
		t.Errorf("an admin's navigation offers %d admin pages, want 3", n)
	}
}

// relocationInBrowser creates a relocation of a small table on a schedule of seconds, waits
// until its full copy and two catch-ups ran, and checks the relocations list and the
// relocation's page as an operator sees them: a row for every window the API lists, the lag
// chart, the gates and the dry-run button; both pages pass axe-core. It returns the
// relocation's id; the test's end cancels it.
func relocationInBrowser(t *testing.T, env *testenv.Env, r *rig, b *browser) string {
	t.Helper()
	table := copytest.CreateSource(t, env, "dashrel")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(100), 2, time.Now().UnixMilli()-3_600_000, true)
	copytest.DropTargetLater(t, env, table)
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations", map[string]any{"source": "src", "target": "dst",
		"tables": []string{table}, "schedule": "*/3 * * * * *", "margin": "30s"})
	if a.status != http.StatusCreated {
		t.Fatalf("create relocation: %d %s", a.status, a.body)
	}
	var rel api.RelocationOut
	a.decode(t, &rel)
	t.Cleanup(func() { r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations/"+rel.ID+"/cancel", nil) })
	rel = r.waitRelocation(rel.ID, 4*time.Minute, "past the full copy with two catch-ups run", func(v api.RelocationOut) bool {
		return countOutcomes(v.Windows)["ran"] >= 3 && v.LagMs != nil
	})

	b.do(chromedp.Navigate(r.url+"/relocations"), chromedp.WaitVisible(`tr[data-relocation="`+rel.ID+`"]`))
	if got := eval[string](b, `document.querySelector('tr[data-relocation="`+rel.ID+`"]').textContent`); !strings.Contains(got, table) ||
		!strings.Contains(got, "src → dst") {
		t.Errorf("the relocations list's row reads %q", got)
	}
	b.accessible("relocations")

	b.do(chromedp.Navigate(r.url+"/relocations/"+rel.ID), chromedp.WaitVisible("table.windows"))
	type row struct {
		Seq     string `json:"seq"`
		Outcome string `json:"outcome"`
		Text    string `json:"text"`
	}
	var rows []row
	raw := eval[string](b, `JSON.stringify([...document.querySelectorAll('table.windows tbody tr')].map(tr => ({seq: tr.dataset.seq, outcome: tr.dataset.outcome, text: tr.textContent})))`)
	if err := json.Unmarshal([]byte(raw), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < len(rel.Windows) {
		t.Fatalf("the page shows %d windows; the API listed %d before it loaded", len(rows), len(rel.Windows))
	}
	for i, w := range rel.Windows {
		got := rows[i]
		if got.Seq != strconv.Itoa(w.Seq) || (w.Outcome != "running" && got.Outcome != string(w.Outcome)) || !strings.Contains(got.Text, string(w.Kind)) {
			t.Errorf("window row %d: seq %s, %s, %q; the API says %d %s %s", i, got.Seq, got.Outcome, got.Text, w.Seq, w.Kind, w.Outcome)
		}
		for _, j := range w.JobIDs {
			if !strings.Contains(got.Text, j) {
				t.Errorf("window %d's row does not name its job %s", w.Seq, j)
			}
		}
	}
	if n := eval[int](b, `document.querySelectorAll('svg.chart circle.dot').length`); n < 2 {
		t.Errorf("the lag chart has %d points; two catch-ups ran", n)
	}
	if n := eval[int](b, `document.querySelectorAll('svg.strip rect').length`); n < len(rel.Windows) {
		t.Errorf("the window strip has %d cells for %d windows", n, len(rel.Windows))
	}
	if eval[string](b, `document.querySelector('table.windows time').getAttribute('datetime')`) == "" {
		t.Error("a window's time has no datetime")
	}
	if n := eval[int](b, `document.querySelectorAll('ul.gates li').length`); n != len(rel.Gates) {
		t.Errorf("the page shows %d gates; the API %d", n, len(rel.Gates))
	}
	b.do(chromedp.WaitVisible("button.act-dry-run"))
	t.Logf("relocation %s: %s, lag %d ms, %d windows %v on the page", rel.ID, rel.Phase, *rel.LagMs, len(rows), countOutcomes(rel.Windows))
	// The page follows the relocation: new windows appear without a reload (a mark set on
	// the window object survives only if the page was not loaded again).
	eval[bool](b, `window.rangecopyMark = true`)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
		n := eval[int](b, `document.querySelectorAll('table.windows tbody tr').length`)
		if n > len(rows) {
			if !eval[bool](b, `window.rangecopyMark === true`) {
				t.Error("the relocation page was reloaded to show a new window; it should update in place")
			}
			t.Logf("the page grew from %d to %d windows without a reload", len(rows), n)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relocation page still shows %d windows after a minute of windows every 3 s", n)
		}
	}
	b.accessible("relocation")
	b.shot("relocation")

	// The dry run answers on the page and changes nothing.
	b.do(chromedp.Click("button.act-dry-run"), chromedp.WaitVisible("#h-plan"))
	if n := eval[string](b, `document.querySelector('p.notice').textContent`); !strings.Contains(n, "Dry run") {
		t.Errorf("after the dry run the page says %q", n)
	}
	if v := r.waitRelocation(rel.ID, time.Second, "unchanged", func(api.RelocationOut) bool { return true }); v.Phase == "cutting-over" || v.Phase == "done" {
		t.Errorf("a dry run started the cut-over: %s", v.Phase)
	}
	b.accessible("relocation (dry run)")
	return rel.ID
}
