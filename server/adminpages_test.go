package server

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"rangecopy/testenv"
)

// dashboardClient is a browser-like client signed in to the rig's dashboard with secret,
// through the sign-in form.
func dashboardClient(t *testing.T, r *rig, secret string) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	resp, err := c.PostForm(r.url+"/login", url.Values{"secret": {secret}, "next": {"/jobs"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("sign in: %d", resp.StatusCode)
	}
	return c
}

// dashboardGet reads a dashboard page as the client: its status and HTML.
func dashboardGet(t *testing.T, c *http.Client, r *rig, path string) (int, string) {
	t.Helper()
	resp, err := c.Get(r.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// dashboardPage reads a dashboard page signed in with secret; anything but 200 fails.
func dashboardPage(t *testing.T, r *rig, secret, path string) string {
	t.Helper()
	status, body := dashboardGet(t, dashboardClient(t, r, secret), r, path)
	if status != http.StatusOK {
		t.Fatalf("dashboard %s: %d %s", path, status, body)
	}
	if !strings.Contains(body, "</html>") {
		t.Fatalf("dashboard %s: not a page: %s", path, body)
	}
	return body
}

// TestAdminPagesOnServer: on a real server, an admin's dashboard lists the clusters, the
// tokens (never a secret) and the audit log newest first; a viewer and an operator are
// refused each page with 403, and each refusal is in the audit log.
func TestAdminPagesOnServer(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 0)
	r.registerClusters(env)
	admin := dashboardClient(t, r, r.admin)
	for _, p := range []struct {
		path string
		want []string
	}{
		{"/clusters", []string{`<a href="/clusters/dst">dst</a>`, `<a href="/clusters/src">src</a>`, "hbase-site.xml"}},
		{"/clusters/src", []string{"hbase.zookeeper.quorum", "Site files"}},
		{"/tokens", []string{"test admin", "test viewer", "test operator", "3 tokens, 3 valid"}},
		{"/audit", []string{"POST /api/v1/clusters", "create-cluster"}},
	} {
		status, body := dashboardGet(t, admin, r, p.path)
		if status != http.StatusOK {
			t.Fatalf("admin, %s: %d %s", p.path, status, body)
		}
		for _, w := range p.want {
			if !strings.Contains(body, w) {
				t.Errorf("admin, %s lacks %q", p.path, w)
			}
		}
		for _, s := range []string{r.admin, r.viewer, r.oper} {
			if strings.Contains(body, s) {
				t.Errorf("admin, %s holds a token secret", p.path)
			}
		}
	}
	if status, _ := dashboardGet(t, admin, r, "/audit?cursor=nonsense"); status != http.StatusBadRequest {
		t.Errorf("the audit log at a cursor never given out: %d; want 400", status)
	}
	for _, who := range []struct{ role, secret string }{{"viewer", r.viewer}, {"operator", r.oper}} {
		c := dashboardClient(t, r, who.secret)
		for _, p := range []string{"/clusters", "/clusters/src", "/tokens", "/audit"} {
			status, body := dashboardGet(t, c, r, p)
			if status != http.StatusForbidden || !strings.Contains(body, "this page is for admins") || strings.Contains(body, "hbase.zookeeper.quorum") {
				t.Errorf("%s, %s: %d; want the 403 page", who.role, p, status)
			}
		}
	}
	page, err := r.s.Catalog().ListAudit(t.Context(), "", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, e := range page.Entries {
		if e.Status == http.StatusForbidden && strings.Contains(e.Message, "this page needs admin") {
			refused++
		}
	}
	if refused != 8 {
		t.Errorf("%d refusals of admin pages in the audit log, want 8", refused)
	}
}
