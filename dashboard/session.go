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

// The session cookie holds the id of a server-side session (Sessions), never a token's
// secret. It is HttpOnly (scripts cannot read it) and SameSite=Strict (other sites' pages do
// not send it). When Secure (the request came over TLS, or Config.SecureCookies says a proxy
// in front terminates TLS) it is named with the __Host- prefix, so that it was set by this
// host over HTTPS, for the whole site, and no subdomain can plant one.
const (
	sessionCookie       = "rangecopy_session"
	secureSessionCookie = "__Host-rangecopy_session"
)

// csrfField is the form field of the CSRF token on every POST form.
const csrfField = "csrf"

// csrfFor is the CSRF token of a session: a hash of its id, which only a page of ours
// (given it in the HTML) knows, since the cookie is HttpOnly and never leaves for another
// site. The same on every server of a deployment, so a form served by one is accepted by
// another. Without sign-in (--insecure-no-auth) the session is this process's random key.
func csrfFor(id string, key []byte) string {
	var sum []byte
	if id == "" {
		m := hmac.New(sha256.New, key)
		m.Write([]byte("rangecopy dashboard anonymous"))
		sum = m.Sum(nil)
	} else {
		s := sha256.Sum256([]byte("rangecopy dashboard csrf\x00" + id))
		sum = s[:]
	}
	return base64.RawURLEncoding.EncodeToString(sum[:24])
}

// validCSRF reports whether a form's token is the session's.
func validCSRF(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// session is who sends a request, the id of their session (empty without sign-in) and the
// CSRF token their forms carry.
type session struct {
	who  Principal
	id   string
	csrf string
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
	c, err := r.Cookie(d.cookieName(r))
	if err != nil || c.Value == "" {
		return nil, errNoSession
	}
	p, err := d.sessions.Session(r.Context(), c.Value)
	if err != nil {
		return nil, err
	}
	return &session{who: p, id: c.Value, csrf: csrfFor(c.Value, nil)}, nil
}

// secure reports whether the session cookie of a request is Secure: it came over TLS, or
// the operator says a proxy in front terminates TLS.
func (d *Dashboard) secure(r *http.Request) bool { return r.TLS != nil || d.cfg.SecureCookies }

// cookieName is the name of the session cookie of a request.
func (d *Dashboard) cookieName(r *http.Request) string {
	if d.secure(r) {
		return secureSessionCookie
	}
	return sessionCookie
}

// setSession sets (id non-empty) or clears the session cookie.
func (d *Dashboard) setSession(w http.ResponseWriter, r *http.Request, id string) {
	c := &http.Cookie{Name: d.cookieName(r), Value: id, Path: "/", HttpOnly: true,
		Secure: d.secure(r), SameSite: http.SameSiteStrictMode}
	if id == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// sessionID is the session id a request's cookie holds, empty if none.
func (d *Dashboard) sessionID(r *http.Request) string {
	c, err := r.Cookie(d.cookieName(r))
	if err != nil {
		return ""
	}
	return c.Value
}

// safeNext is where to go after sign-in: a path of this site only, else the jobs page.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.HasPrefix(next, "/login") {
		return "/jobs"
	}
	return next
}
