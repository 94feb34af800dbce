package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"rangecopy/api"
	"rangecopy/cluster"
	"rangecopy/testenv"
)

// lockedBuffer is a log sink the server writes from many goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// secretProps are secret-bearing properties a real core-site.xml holds, and their values.
func secretProps() map[string]string {
	return map[string]string{
		"fs.s3a.access.key":                   "AKIAREDACTTESTACCESS1",
		"fs.s3a.secret.key":                   "s3-secret-redact-test-value-2",
		"fs.azure.account.key.acct.blob.core": "azure-key-redact-test-value-3",
		"ssl.server.keystore.password":        "keystore-pw-redact-test-4",
		"hadoop.security.credstore.java-keystore-provider.password-file": "credstore-redact-test-5",
		"javax.jdo.option.ConnectionURL":                                 "jdbc:mysql://hive:dbpass-redact-test-6@db/meta",
	}
}

// withSecrets is a site file with the secret properties added.
func withSecrets(text string) string {
	var b strings.Builder
	for name, v := range secretProps() {
		b.WriteString("<property><name>" + name + "</name><value>" + v + "</value></property>\n")
	}
	b.WriteString("<property><name>hbase.regionserver.keytab.file</name><value>/etc/security/hbase.keytab</value></property>\n")
	return strings.Replace(text, "</configuration>", b.String()+"</configuration>", 1)
}

// TestSiteFileSecretsNeverAnswered: a cluster registered with secret-bearing properties in
// its core-site.xml; every role reads it (list and get, and the dashboard's cluster pages
// for admins): no answer body holds a secret's value, nor does any line the server logs.
// Admins read every other value (a keytab path among them), viewers and operators only
// where the cluster is. Registering again the files as read keeps the stored secrets; a
// new registration with the marker is refused.
func TestSiteFileSecretsNeverAnswered(t *testing.T) {
	env := testenv.Get(t)
	var logs lockedBuffer
	r := newRigWith(t, env, 0, t.TempDir(), "/"+testenv.UniqueName(t, "srv"), "", func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	files := siteFiles(t, env.Source)
	files["core-site.xml"] = withSecrets(files["core-site.xml"])
	if a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/clusters", map[string]any{"name": "dc1", "siteFiles": files}); a.status != http.StatusCreated {
		t.Fatalf("register: %d %s", a.status, a.body)
	}
	var bodies []string
	noSecret := func(what, body string) {
		t.Helper()
		bodies = append(bodies, body)
		for name, v := range secretProps() {
			if strings.Contains(body, v) || (name == "javax.jdo.option.ConnectionURL" && strings.Contains(body, "dbpass-redact")) {
				t.Errorf("%s holds the value of %s", what, name)
			}
		}
	}
	for _, who := range []struct {
		role, secret string
		redaction    cluster.Redaction
	}{{"admin", r.admin, cluster.RedactSecrets}, {"operator", r.oper, cluster.RedactAllButLayout}, {"viewer", r.viewer, cluster.RedactAllButLayout}} {
		var list api.ClusterList
		a := r.do(who.secret, http.MethodGet, api.APIPrefix+"/clusters", nil)
		if a.status != http.StatusOK {
			t.Fatalf("%s lists: %d %s", who.role, a.status, a.body)
		}
		noSecret(who.role+"'s list", string(a.body))
		a.decode(t, &list)
		var one api.ClusterOut
		a = r.do(who.secret, http.MethodGet, api.APIPrefix+"/clusters/dc1", nil)
		if a.status != http.StatusOK {
			t.Fatalf("%s gets: %d %s", who.role, a.status, a.body)
		}
		noSecret(who.role+"'s get", string(a.body))
		a.decode(t, &one)
		core := one.SiteFiles["core-site.xml"]
		if !strings.Contains(core, "<name>fs.s3a.secret.key</name>\n    <value>"+cluster.Redacted+"</value>") {
			t.Errorf("%s reads core-site.xml without the marker for fs.s3a.secret.key:\n%s", who.role, core)
		}
		keytab := strings.Contains(core, "/etc/security/hbase.keytab")
		if keytab != (who.redaction == cluster.RedactSecrets) {
			t.Errorf("%s reads the keytab path: %v", who.role, keytab)
		}
		if !strings.Contains(one.SiteFiles["hbase-site.xml"], "hbase.zookeeper.quorum") || one.ZKQuorum == "" {
			t.Errorf("%s cannot read where the cluster is: %+v", who.role, one)
		}
		if len(list.Clusters) != 1 || list.Clusters[0].SiteFiles["core-site.xml"] != core {
			t.Errorf("%s: the list and the get disagree", who.role)
		}
	}
	for _, page := range []string{"/clusters", "/clusters/dc1"} {
		body := dashboardPage(t, r, r.admin, page)
		noSecret("the dashboard's "+page, body)
		if page == "/clusters/dc1" && !strings.Contains(body, cluster.Redacted) {
			t.Errorf("the dashboard's %s shows no redacted value", page)
		}
	}

	// The files as read, registered again with one value changed: the secrets stay.
	var one api.ClusterOut
	r.do(r.admin, http.MethodGet, api.APIPrefix+"/clusters/dc1", nil).decode(t, &one)
	back := map[string]string{}
	for n, text := range one.SiteFiles {
		back[n] = text
	}
	back["core-site.xml"] = strings.Replace(back["core-site.xml"], "/etc/security/hbase.keytab", "/etc/security/hbase2.keytab", 1)
	a := r.do(r.admin, http.MethodPut, api.APIPrefix+"/clusters/dc1", map[string]any{"siteFiles": back})
	if a.status != http.StatusOK {
		t.Fatalf("register the files as read again: %d %s", a.status, a.body)
	}
	noSecret("the answer to PUT", string(a.body))
	stored, err := r.s.Catalog().GetCluster(t.Context(), "dc1")
	if err != nil {
		t.Fatal(err)
	}
	site, err := cluster.ParseSite(stored.SiteFiles)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range secretProps() {
		if site[name] != v {
			t.Errorf("after registering the files as read, %s = %q, want the stored %q", name, site[name], v)
		}
	}
	if site["hbase.regionserver.keytab.file"] != "/etc/security/hbase2.keytab" {
		t.Errorf("the changed value was not kept: %q", site["hbase.regionserver.keytab.file"])
	}
	// A new cluster cannot be registered with the marker: there is nothing to keep.
	a = r.do(r.admin, http.MethodPost, api.APIPrefix+"/clusters", map[string]any{"name": "dc9", "siteFiles": back})
	if a.status != http.StatusBadRequest || !strings.Contains(string(a.body), "siteFiles") {
		t.Errorf("register a new cluster with the marker: %d %s; want 400 naming siteFiles", a.status, a.body)
	}
	noSecret("the answer to the refused POST", string(a.body))

	r.stop()
	out := logs.String()
	noSecret("the server's log", out)
	if !strings.Contains(out, "level=") {
		t.Logf("the server logged nothing at debug level")
	}
	t.Logf("%d answers and %d bytes of log checked", len(bodies), len(out))
}
