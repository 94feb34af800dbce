package dashboard

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// TestSessionCookie signs in and out: the cookie holds a session id, not the token's
// secret; after sign-out the old cookie opens nothing; with SecureCookies (a TLS proxy in
// front) the cookie is Secure and named __Host-.
func TestSessionCookie(t *testing.T) {
	for _, secure := range []bool{false, true} {
		src := fakeSource(1, 0)
		d, err := New(Config{Source: src, Version: "test", SecureCookies: secure})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(d)
		c := &client{t: t, url: srv.URL}
		c.do("POST", "/login", url.Values{"secret": {"so"}})
		if len(c.jar) != 1 {
			t.Fatalf("secure %v: signed in, %d cookies", secure, len(c.jar))
		}
		k := c.jar[0]
		wantName := sessionCookie
		if secure {
			wantName = secureSessionCookie
		}
		if k.Value == "" || k.Name != wantName || k.Secure != secure ||
			!k.HttpOnly || k.SameSite != http.SameSiteStrictMode || k.Path != "/" || k.Domain != "" {
			t.Errorf("secure %v: cookie %+v; want %s, a session id, Secure %v, HttpOnly, SameSite=Strict, Path=/", secure, k, wantName, secure)
		}
		if k.Value == "so" {
			t.Fatalf("secure %v: the cookie holds the token's secret", secure)
		}
		old := *k
		resp, body := c.do("GET", "/jobs", nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("secure %v: jobs page signed in: %d", secure, resp.StatusCode)
		}
		c.do("POST", "/logout", url.Values{"csrf": {csrfOf(t, body)}})
		c.jar = []*http.Cookie{&old}
		if resp, _ := c.do("GET", "/jobs", nil); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("secure %v: the cookie of a signed-out session still opens the jobs page: %d", secure, resp.StatusCode)
		}
		srv.Close()
	}
}
