package dashboard

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
)

// sessionCookie holds the signed-in token's secret. It is HttpOnly (scripts cannot read it),
// SameSite=Strict (other sites' pages do not send it) and Secure over TLS.
const sessionCookie = "rangecopy_session"

// csrfField is the form field of the CSRF token on every POST form.
const csrfField = "csrf"

// csrfFor is the CSRF token of a session: a hash of its secret, which only a page of ours
// (given it in the HTML) knows, since the cookie is HttpOnly and never leaves for another
// site. The same on every server of a deployment, so a form served by one is accepted by
// another. Without sign-in (--insecure-no-auth) the session is this process's random key.
func csrfFor(secret string, key []byte) string {
	var sum []byte
	if secret == "" {
		m := hmac.New(sha256.New, key)
		m.Write([]byte("rangecopy dashboard anonymous"))
		sum = m.Sum(nil)
	} else {
		s := sha256.Sum256([]byte("rangecopy dashboard csrf\x00" + secret))
		sum = s[:]
	}
	return base64.RawURLEncoding.EncodeToString(sum[:24])
}

// validCSRF reports whether a form's token is the session's.
func validCSRF(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// session is who sends a request, and the CSRF token their forms carry.
type session struct {
	who    Principal
	secret string
	csrf   string
}

type sessionKey struct{}

func sessionOf(ctx context.Context) *session {
	s, _ := ctx.Value(sessionKey{}).(*session)
	return s
}

// errNoSession says a request carries no (valid) session.
var errNoSession = errors.New("dashboard: not signed in")

// authenticate finds the session of a request from its cookie.
func (d *Dashboard) authenticate(r *http.Request) (*session, error) {
	if d.cfg.InsecureNoAuth {
		return &session{who: Principal{Name: "anonymous (--insecure-no-auth)", Role: RoleAdmin}, csrf: csrfFor("", d.key)}, nil
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return nil, errNoSession
	}
	p, err := d.cfg.Source.Authenticate(r.Context(), c.Value)
	if err != nil {
		return nil, err
	}
	return &session{who: p, secret: c.Value, csrf: csrfFor(c.Value, nil)}, nil
}

// setSession sets (secret non-empty) or clears the session cookie.
func setSession(w http.ResponseWriter, r *http.Request, secret string) {
	c := &http.Cookie{Name: sessionCookie, Value: secret, Path: "/", HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode}
	if secret == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// safeNext is where to go after sign-in: a path of this site only, else the jobs page.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.HasPrefix(next, "/login") {
		return "/jobs"
	}
	return next
}
