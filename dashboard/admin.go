package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// auditPerPage is how many audit entries a page of the audit log shows.
const auditPerPage = 100

// Cluster is a registered cluster as the admin pages show it: its site files already
// redacted (no secret-bearing value, for anyone).
type Cluster struct {
	Name, ZKQuorum, ZNodeParent, HDFSRoot, User string
	SiteFiles                                   []SiteFile // by name
	CreatedAt, UpdatedAt                        time.Time
}

// SiteFile is one redacted site file of a cluster.
type SiteFile struct {
	Name, Text string
}

// Token is an API token as the tokens page shows it; never its secret.
type Token struct {
	ID, Name   string
	Role       Role
	CreatedAt  time.Time
	LastUsedAt time.Time // zero: never used
	RevokedAt  time.Time // zero: valid
}

// AuditEntry is one entry of the audit log.
type AuditEntry struct {
	ID                    int64
	Time                  time.Time
	TokenID, TokenName    string
	Role                  Role
	Method, Path, Address string
	Status                int
	Message               string
}

// AuditPage is one page of the audit log, newest first, and the cursor of the page of
// older entries ("" on the last).
type AuditPage struct {
	Entries []AuditEntry
	Next    string
}

// AdminSource is the part of Source the admin pages read: clusters, tokens and the audit
// log. Only admins' sessions reach it.
type AdminSource interface {
	// Clusters lists the registered clusters by name, their site files redacted.
	Clusters(ctx context.Context) ([]Cluster, error)
	// Cluster returns one registered cluster, its site files redacted; ErrNotFound if none.
	Cluster(ctx context.Context, name string) (Cluster, error)
	// Tokens lists the API tokens.
	Tokens(ctx context.Context) ([]Token, error)
	// Audit returns a page of the audit log, newest first, from cursor ("": the newest).
	// A cursor that is not one it gave out is a *UserError.
	Audit(ctx context.Context, cursor string, limit int) (AuditPage, error)
}

// admin lets through signed-in admins; others signed in get a 403 page (recorded in the
// audit log), the signed-out the sign-in page.
func (d *Dashboard) admin(h http.HandlerFunc) http.Handler {
	return d.viewer(func(w http.ResponseWriter, r *http.Request) {
		s := sessionOf(r.Context())
		if s.who.Role != RoleAdmin {
			s.who.Addr = r.RemoteAddr
			d.refuse(r, s.who, http.StatusForbidden, fmt.Sprintf("role %s; this page needs admin", s.who.Role))
			d.fail(w, r, http.StatusForbidden, fmt.Sprintf("Token %s has role %s; this page is for admins.", s.who.Name, s.who.Role))
			return
		}
		h(w, r)
	})
}

func (d *Dashboard) clustersPage(w http.ResponseWriter, r *http.Request) {
	cs, err := d.cfg.Source.Clusters(r.Context())
	if err != nil {
		d.sourceFail(w, r, "The clusters", err)
		return
	}
	d.render(w, r, http.StatusOK, "clusters", "Clusters", struct{ Clusters []Cluster }{cs})
}

func (d *Dashboard) clusterPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	c, err := d.cfg.Source.Cluster(r.Context(), name)
	if err != nil {
		d.sourceFail(w, r, "Cluster "+name, err)
		return
	}
	d.render(w, r, http.StatusOK, "cluster", "Cluster "+c.Name, c)
}

func (d *Dashboard) tokensPage(w http.ResponseWriter, r *http.Request) {
	ts, err := d.cfg.Source.Tokens(r.Context())
	if err != nil {
		d.sourceFail(w, r, "The tokens", err)
		return
	}
	valid := 0
	for _, t := range ts {
		if t.RevokedAt.IsZero() {
			valid++
		}
	}
	d.render(w, r, http.StatusOK, "tokens", "Tokens", struct {
		Tokens []Token
		Valid  int
	}{ts, valid})
}

func (d *Dashboard) auditPage(w http.ResponseWriter, r *http.Request) {
	cursor := r.URL.Query().Get("cursor")
	pg, err := d.cfg.Source.Audit(r.Context(), cursor, auditPerPage)
	if err != nil {
		d.sourceFail(w, r, "The audit log", err)
		return
	}
	b := struct {
		Entries     []AuditEntry
		Next, First string
		Cursor      string
	}{Entries: pg.Entries, Cursor: cursor}
	if pg.Next != "" {
		b.Next = "/audit?" + url.Values{"cursor": {pg.Next}}.Encode()
	}
	if cursor != "" {
		b.First = "/audit"
	}
	d.render(w, r, http.StatusOK, "audit", "Audit log", b)
}
