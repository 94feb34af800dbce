package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func (m *memSource) Clusters(context.Context) ([]Cluster, error) { return m.clusters, nil }

func (m *memSource) Cluster(_ context.Context, name string) (Cluster, error) {
	for _, c := range m.clusters {
		if c.Name == name {
			return c, nil
		}
	}
	return Cluster{}, ErrNotFound
}

func (m *memSource) Tokens(context.Context) ([]Token, error) { return m.tokenList, nil }

// Audit pages m.audit (newest first) by the id of the last entry shown.
func (m *memSource) Audit(_ context.Context, cursor string, limit int) (AuditPage, error) {
	i := 0
	if cursor != "" {
		id, err := strconv.ParseInt(cursor, 10, 64)
		if err != nil {
			return AuditPage{}, &UserError{Status: http.StatusBadRequest, Message: "cursor: not one this server gave out"}
		}
		for i < len(m.audit) && m.audit[i].ID >= id {
			i++
		}
	}
	end := min(len(m.audit), i+limit)
	p := AuditPage{Entries: m.audit[i:end]}
	if end < len(m.audit) {
		p.Next = strconv.FormatInt(m.audit[end-1].ID, 10)
	}
	return p, nil
}

// adminSource is fakeSource with an admin token, two clusters, three tokens and 150 audit
// entries.
func adminSource() *memSource {
	m := fakeSource(3, 0)
	m.tokens["sa"] = Principal{TokenID: "tok_a", Name: "root", Role: RoleAdmin}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	m.clusters = []Cluster{
		{Name: "dc1", ZKQuorum: "zk1:2181", ZNodeParent: "/hbase", HDFSRoot: "hdfs://nn1:8020/hbase", CreatedAt: t0, UpdatedAt: t0,
			SiteFiles: []SiteFile{{"core-site.xml", "<configuration>\n  <property>\n    <name>fs.s3a.secret.key</name>\n    <value>(redacted)</value>\n  </property>\n</configuration>\n"}}},
		{Name: "dc2", ZKQuorum: "zk2:2181", ZNodeParent: "/hbase", HDFSRoot: "hdfs://nn2:8020/hbase", User: "hbase", CreatedAt: t0, UpdatedAt: t0},
	}
	m.tokenList = []Token{
		{ID: "tok_a", Name: "root", Role: RoleAdmin, CreatedAt: t0, LastUsedAt: t0.Add(time.Hour)},
		{ID: "tok_v", Name: "ann", Role: RoleViewer, CreatedAt: t0},
		{ID: "tok_x", Name: "old <b>", Role: RoleOperator, CreatedAt: t0, RevokedAt: t0.Add(2 * time.Hour)},
	}
	for i := 150; i >= 1; i-- {
		m.audit = append(m.audit, AuditEntry{ID: int64(i), Time: t0.Add(time.Duration(i) * time.Minute), TokenID: "tok_a", TokenName: "root",
			Role: RoleAdmin, Method: "POST", Path: fmt.Sprintf("/api/v1/jobs/j%d/pause", i), Address: "127.0.0.1:5555", Status: 200,
			Message: "pause-job"})
	}
	return m
}

// TestAdminPages: the clusters, cluster, tokens and audit pages show an admin what the
// Source holds, newest audit entries first with paging; the navigation offers them to
// admins only; viewers and operators get a 403 page (recorded), the signed-out the sign-in.
func TestAdminPages(t *testing.T) {
	src := adminSource()
	d, err := New(Config{Source: src, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	defer srv.Close()

	anon := &client{t: t, url: srv.URL}
	for _, p := range []string{"/clusters", "/clusters/dc1", "/tokens", "/audit"} {
		if resp, _ := anon.do("GET", p, nil); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login?next=") {
			t.Errorf("signed out, %s: %d %s; want the sign-in page", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	for _, secret := range []string{"sv", "so"} {
		c := &client{t: t, url: srv.URL}
		c.do("POST", "/login", url.Values{"secret": {secret}})
		_, body := c.do("GET", "/jobs", nil)
		if strings.Contains(body, `href="/clusters"`) || strings.Contains(body, `href="/audit"`) {
			t.Errorf("%s's navigation offers the admin pages", secret)
		}
		for _, p := range []string{"/clusters", "/clusters/dc1", "/tokens", "/audit"} {
			resp, body := c.do("GET", p, nil)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "this page is for admins") || strings.Contains(body, "(redacted)") {
				t.Errorf("%s, %s: %d; want a 403 page", secret, p, resp.StatusCode)
			}
		}
	}
	if n := len(src.refused); n != 8 || src.refused[0].Why != "role viewer; this page needs admin" || src.refused[0].Path != "/clusters" || src.refused[0].Who.Addr == "" {
		t.Errorf("refusals recorded: %d, first %+v", n, src.refused)
	}

	c := &client{t: t, url: srv.URL}
	c.do("POST", "/login", url.Values{"secret": {"sa"}})
	_, body := c.do("GET", "/jobs", nil)
	for _, want := range []string{`<a href="/clusters">Clusters</a>`, `<a href="/tokens">Tokens</a>`, `<a href="/audit">Audit log</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("an admin's navigation lacks %s", want)
		}
	}
	_, older := c.do("GET", "/audit", nil)
	next := ""
	if _, rest, ok := strings.Cut(older, `<a href="/audit?cursor=`); ok {
		next, _, _ = strings.Cut(rest, `"`)
	}
	for _, p := range []struct {
		path   string
		status int
		want   []string
		not    []string
	}{
		{"/clusters", 200, []string{`<a href="/clusters/dc1">dc1</a>`, "hdfs://nn2:8020/hbase", "core-site.xml", `aria-current="page">Clusters`}, nil},
		{"/clusters/dc1", 200, []string{"<h1 class=\"id\">dc1</h1>", "&lt;name&gt;fs.s3a.secret.key&lt;/name&gt;", "(redacted)"}, []string{"<name>"}},
		{"/clusters/nope", 404, []string{"no such thing"}, nil},
		{"/tokens", 200, []string{"3 tokens, 2 valid", `data-token="tok_x"`, "old &lt;b&gt;", "revoked", "never", `<time datetime="2026-03-01T13:00:00Z">`}, []string{"old <b>"}},
		{"/audit", 200, []string{`data-audit="150"`, `data-audit="51"`, "POST /api/v1/jobs/j150/pause", `rel="next">Older entries`}, []string{`data-audit="50"`, "Newest entries"}},
		{"/audit?cursor=" + next, 200, []string{`data-audit="50"`, `data-audit="1"`, `href="/audit">Newest entries`}, []string{`data-audit="51"`, "Older entries"}},
		{"/audit?cursor=nonsense", 400, []string{"not one this server gave out"}, nil},
	} {
		resp, body := c.do("GET", p.path, nil)
		if resp.StatusCode != p.status {
			t.Errorf("%s: %d, want %d", p.path, resp.StatusCode, p.status)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("%s: CSP %q", p.path, csp)
		}
		for _, w := range p.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q", p.path, w)
			}
		}
		for _, w := range p.not {
			if strings.Contains(body, w) {
				t.Errorf("%s holds %q", p.path, w)
			}
		}
	}
	if strings.Index(older, `data-audit="150"`) > strings.Index(older, `data-audit="149"`) {
		t.Error("the audit log is not newest first")
	}
}
