package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/testenv"
)

// noRedirects is a client that shows redirects instead of following them.
func noRedirects(tr http.RoundTripper) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// signInCookie signs in on the rig's dashboard with a token secret, as the login form does,
// and returns the session cookie the server set.
func (r *rig) signInCookie(secret string) *http.Cookie {
	r.t.Helper()
	return signIn(r.t, http.DefaultTransport, r.url, secret)
}

func signIn(t *testing.T, tr http.RoundTripper, base, secret string) *http.Cookie {
	t.Helper()
	resp, err := noRedirects(tr).PostForm(base+"/login", url.Values{"secret": {secret}})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("sign in: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	return resp.Cookies()[0]
}

// pageWith gets a dashboard page with a cookie and returns the status (redirects not
// followed).
func pageWith(t *testing.T, tr http.RoundTripper, base, path string, c *http.Cookie) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	req.AddCookie(c)
	resp, err := noRedirects(tr).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// browserCookies returns the cookies the browser holds for its page.
func (b *browser) browserCookies() []*network.Cookie {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		b.t.Fatalf("browser: cookies: %v", err)
	}
	return res.Cookies
}

// sessionCookie returns the browser's session cookie, to send it from the test.
func (b *browser) sessionCookie() *http.Cookie {
	b.t.Helper()
	for _, c := range b.browserCookies() {
		if c.Name == "rangecopy_session" || c.Name == "__Host-rangecopy_session" {
			return &http.Cookie{Name: c.Name, Value: c.Value}
		}
	}
	b.t.Fatal("the browser holds no session cookie")
	return nil
}

// checkSessionCookie checks the browser's session cookie once signed in with secret: it is
// not the secret, it is HttpOnly and SameSite=Strict, and page scripts cannot read it.
func (b *browser) checkSessionCookie(secret string) {
	b.t.Helper()
	found := false
	for _, c := range b.browserCookies() {
		if strings.Contains(c.Value, secret) {
			b.t.Errorf("browser cookie %s holds the token's secret", c.Name)
		}
		if c.Name == "rangecopy_session" || c.Name == "__Host-rangecopy_session" {
			found = true
			if !c.HTTPOnly || c.SameSite != network.CookieSameSiteStrict || !strings.HasPrefix(c.Value, "rcs_") {
				b.t.Errorf("browser session cookie %+v: want a session id (rcs_...), HttpOnly, SameSite=Strict", c)
			}
		}
	}
	if !found {
		b.t.Error("signed in, the browser holds no session cookie")
	}
	if js := eval[string](b, "document.cookie"); strings.Contains(js, "rcs_") || strings.Contains(js, secret) {
		b.t.Errorf("page scripts read the session cookie: %q", js)
	}
}

// TestDashboardSessions signs in to a real server's dashboard: the cookie holds a session
// id, not the token; the catalog keeps only its hash; sign-out and revoking the token end
// the session; behind a TLS proxy the cookie is Secure and __Host-.
func TestDashboardSessions(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 0)
	tr := http.DefaultTransport
	c := r.signInCookie(r.oper)
	if c.Value == r.oper || strings.Contains(c.Value, r.oper) || !strings.HasPrefix(c.Value, "rcs_") {
		t.Fatalf("session cookie %q: want a session id, not the token's secret", c.Value)
	}
	if c.Name != "rangecopy_session" || c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie over plain HTTP on loopback: %+v; want rangecopy_session, HttpOnly, SameSite=Strict, not Secure", c)
	}
	if st := pageWith(t, tr, r.url, "/jobs", c); st != http.StatusOK {
		t.Fatalf("jobs page with the session: %d", st)
	}
	// The token's secret as a cookie opens nothing any more.
	if st := pageWith(t, tr, r.url, "/jobs", &http.Cookie{Name: "rangecopy_session", Value: r.oper}); st != http.StatusSeeOther {
		t.Errorf("jobs page with the token's secret as the cookie: %d; want a redirect to sign in", st)
	}

	// Sign-out ends the session on the server: the old cookie opens nothing.
	req, _ := http.NewRequest(http.MethodGet, r.url+"/jobs", nil)
	req.AddCookie(c)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, rest, _ := strings.Cut(string(body), `name="csrf" value="`)
	csrf, _, _ := strings.Cut(rest, `"`)
	req, _ = http.NewRequest(http.MethodPost, r.url+"/logout", strings.NewReader(url.Values{"csrf": {csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(c)
	if resp, err = noRedirects(tr).Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if st := pageWith(t, tr, r.url, "/jobs", c); st != http.StatusSeeOther {
		t.Errorf("jobs page with a signed-out session's cookie: %d; want a redirect to sign in", st)
	}

	// Revoking the token ends its sessions.
	c2 := r.signInCookie(r.viewer)
	tok, err := r.s.Catalog().Authenticate(t.Context(), r.viewer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.s.Catalog().RevokeToken(t.Context(), tok.ID); err != nil {
		t.Fatal(err)
	}
	if st := pageWith(t, tr, r.url, "/jobs", c2); st != http.StatusSeeOther {
		t.Errorf("jobs page with a revoked token's session: %d; want a redirect to sign in", st)
	}

	// Behind a TLS-terminating proxy (plain HTTP to the server): Secure, __Host-.
	rp := newRigWith(t, env, 0, t.TempDir(), "/"+testenv.UniqueName(t, "proxy"), "", func(c *Config) { c.BehindTLSProxy = true })
	pc := rp.signInCookie(rp.oper)
	if pc.Name != "__Host-rangecopy_session" || !pc.Secure || pc.Path != "/" || pc.Domain != "" || pc.Value == rp.oper {
		t.Errorf("cookie behind a TLS proxy: %+v; want __Host-rangecopy_session, Secure, Path=/, no Domain", pc)
	}
	if st := pageWith(t, tr, rp.url, "/jobs", pc); st != http.StatusOK {
		t.Errorf("jobs page with the __Host- cookie: %d", st)
	}
}

// TestDashboardSessionOverTLS signs in over HTTPS: the cookie is Secure and __Host-.
func TestDashboardSessionOverTLS(t *testing.T) {
	env := testenv.Get(t)
	cert, key, pool := selfSigned(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s, err := New(ctx, Config{Listen: "127.0.0.1:0", Catalog: "sqlite://" + filepath.Join(t.TempDir(), "c.db"),
		ZK: []string{env.Target.ZKQuorum}, ZKRoot: "/" + testenv.UniqueName(t, "tls"), TLSCert: cert, TLSKey: key})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	_, secret, err := s.Catalog().CreateToken(ctx, "tls operator", catalog.RoleOperator)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	c := signIn(t, tr, s.URL(), secret)
	if c.Name != "__Host-rangecopy_session" || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Value == secret {
		t.Errorf("cookie over TLS: %+v; want __Host-rangecopy_session, Secure, HttpOnly, SameSite=Strict, a session id", c)
	}
	if st := pageWith(t, tr, s.URL(), "/jobs", c); st != http.StatusOK {
		t.Errorf("jobs page over TLS with the session: %d", st)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

// TestReadyzSaysNoErrors makes the catalog of a real server unreachable: /readyz (no token
// needed) answers 503 naming the dependency, without its error, which goes to the log.
func TestReadyzSaysNoErrors(t *testing.T) {
	env := testenv.Get(t)
	var logs lockedLog
	r := newRigWith(t, env, 0, t.TempDir(), "/"+testenv.UniqueName(t, "ready"), "", func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	get := func() (int, string) {
		resp, err := http.Get(r.url + api.APIPrefix + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, body := get(); st != http.StatusOK || !strings.Contains(body, `"catalog":"ok"`) {
		t.Fatalf("readyz: %d %s", st, body)
	}
	r.s.cat.Close()
	st, body := get()
	if st != http.StatusServiceUnavailable || !strings.Contains(body, "catalog: unavailable") {
		t.Errorf("readyz with the catalog closed: %d %s; want 503 saying catalog: unavailable", st, body)
	}
	for _, leak := range []string{"sql", "closed", "catalog.db", "ping"} {
		if strings.Contains(body, leak) {
			t.Errorf("readyz tells anyone the error (%q): %s", leak, body)
		}
	}
	if l := logs.String(); !strings.Contains(l, "readyz: the catalog does not answer") || !strings.Contains(l, "closed") {
		t.Errorf("the catalog's error is not in the log:\n%s", l)
	}
	t.Logf("readyz: %d %s", st, strings.TrimSpace(body))
}

// lockedLog is a bytes.Buffer for a logger written from many goroutines.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *lockedLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *lockedLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDashboardSessionSharedByServers runs two servers on one catalog, as a deployment
// behind a load balancer does: a session opened on one works on the other, and signing out
// on the other (with the form token the first served) ends it on both.
func TestDashboardSessionSharedByServers(t *testing.T) {
	env := testenv.Get(t)
	dir, root := t.TempDir(), "/"+testenv.UniqueName(t, "shared")
	r1 := newRigWith(t, env, 0, dir, root, "", nil)
	r2 := newRigWith(t, env, 0, dir, root, "", nil)
	tr := http.DefaultTransport
	c := r1.signInCookie(r1.oper)
	if st := pageWith(t, tr, r2.url, "/jobs", c); st != http.StatusOK {
		t.Fatalf("the other server's jobs page with the session: %d", st)
	}
	req, _ := http.NewRequest(http.MethodGet, r1.url+"/jobs", nil)
	req.AddCookie(c)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, rest, _ := strings.Cut(string(body), `name="csrf" value="`)
	csrf, _, _ := strings.Cut(rest, `"`)
	// The first server's form token is good on the second: an operator's pause of a job that
	// does not exist gets past the CSRF check (403) to the job's 404.
	post := func(path string) int {
		req, _ := http.NewRequest(http.MethodPost, r2.url+path, strings.NewReader(url.Values{"csrf": {csrf}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(c)
		resp, err := noRedirects(tr).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := post("/jobs/no-such-job/pause"); st != http.StatusNotFound {
		t.Errorf("pause on the other server with the first one's form token: %d; want 404 (not 403)", st)
	}
	req, _ = http.NewRequest(http.MethodPost, r2.url+"/logout", strings.NewReader(url.Values{"csrf": {csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(c)
	if resp, err = noRedirects(tr).Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, r := range []*rig{r1, r2} {
		if st := pageWith(t, tr, r.url, "/jobs", c); st != http.StatusSeeOther {
			t.Errorf("%s: jobs page after sign-out on the other server: %d; want a redirect to sign in", r.url, st)
		}
	}
}
