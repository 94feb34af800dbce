package server

import (
	"context"
	"sort"
	"time"

	"rangecopy/catalog"
	"rangecopy/dashboard"
)

// The dashboard's admin pages read what the API's admin operations read, through the same
// catalog calls and the same redaction of site files.

// dashCluster is a registered cluster in the dashboard's terms, its site files redacted as
// the API redacts them for admins (the only readers of the admin pages).
func dashCluster(c catalog.Cluster) dashboard.Cluster {
	out := clusterOut(c, catalog.RoleAdmin)
	dc := dashboard.Cluster{Name: out.Name, ZKQuorum: out.ZKQuorum, ZNodeParent: out.ZNodeParent, HDFSRoot: out.HDFSRoot,
		User: out.User, CreatedAt: out.CreatedAt, UpdatedAt: out.UpdatedAt}
	for name, text := range out.SiteFiles {
		dc.SiteFiles = append(dc.SiteFiles, dashboard.SiteFile{Name: name, Text: text})
	}
	sort.Slice(dc.SiteFiles, func(i, j int) bool { return dc.SiteFiles[i].Name < dc.SiteFiles[j].Name })
	return dc
}

func (d dashSource) Clusters(ctx context.Context) ([]dashboard.Cluster, error) {
	cs, err := d.a.s.cat.ListClusters(ctx)
	if err != nil {
		return nil, dashErr(d.a.problem(err, "clusters"))
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	out := make([]dashboard.Cluster, 0, len(cs))
	for _, c := range cs {
		out = append(out, dashCluster(c))
	}
	return out, nil
}

func (d dashSource) Cluster(ctx context.Context, name string) (dashboard.Cluster, error) {
	c, err := d.a.s.cat.GetCluster(ctx, name)
	if err != nil {
		return dashboard.Cluster{}, dashErr(d.a.problem(err, "cluster "+name))
	}
	return dashCluster(c), nil
}

func (d dashSource) Tokens(ctx context.Context) ([]dashboard.Token, error) {
	ts, err := d.a.s.cat.ListTokens(ctx)
	if err != nil {
		return nil, dashErr(d.a.problem(err, "tokens"))
	}
	out := make([]dashboard.Token, 0, len(ts))
	for _, t := range ts {
		out = append(out, dashboard.Token{ID: t.ID, Name: t.Name, Role: dashboard.Role(t.Role), CreatedAt: t.CreatedAt,
			LastUsedAt: timeOr(t.LastUsedAt), RevokedAt: timeOr(t.RevokedAt)})
	}
	return out, nil
}

func (d dashSource) Audit(ctx context.Context, cursor string, limit int) (dashboard.AuditPage, error) {
	page, err := d.a.s.cat.ListAudit(ctx, "", cursor, limit)
	if err != nil {
		return dashboard.AuditPage{}, dashErr(d.a.problem(err, "audit log"))
	}
	out := dashboard.AuditPage{Entries: make([]dashboard.AuditEntry, 0, len(page.Entries)), Next: page.Next}
	for _, e := range page.Entries {
		out.Entries = append(out.Entries, dashboard.AuditEntry{ID: e.ID, Time: e.Time.In(time.UTC), TokenID: e.TokenID,
			TokenName: e.TokenName, Role: dashboard.Role(e.Role), Method: e.Method, Path: e.Path, Address: e.RemoteAddr,
			Status: e.Status, Message: e.Message})
	}
	return out, nil
}
