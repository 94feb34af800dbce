package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"rangecopy/catalog"
	"rangecopy/dashboard"
)

// dashSessions keeps the dashboard's sign-ins in the catalog, so that every server of a
// deployment knows them and they outlive a restart. The cookie holds a session's id; the
// catalog its hash; a lookup checks the session's token too.
type dashSessions struct{ s *Server }

var _ dashboard.Sessions = dashSessions{}

func (d dashSessions) SignIn(ctx context.Context, secret string) (string, dashboard.Principal, error) {
	p, err := dashSource{d.s.api}.Authenticate(ctx, secret)
	if err != nil {
		return "", dashboard.Principal{}, err
	}
	id, _, err := d.s.cat.CreateSession(ctx, p.TokenID, d.s.cfg.Sessions)
	if errors.Is(err, catalog.ErrUnauthenticated) {
		// Revoked between the two reads.
		return "", dashboard.Principal{}, fmt.Errorf("%w: %v", dashboard.ErrUnauthenticated, err)
	}
	if err != nil {
		d.s.metrics.catalogErrors.Inc()
		return "", dashboard.Principal{}, fmt.Errorf("sign in: %w", err)
	}
	return id, p, nil
}

func (d dashSessions) Session(ctx context.Context, id string) (dashboard.Principal, error) {
	_, t, err := d.s.cat.LookupSession(ctx, id, d.s.cfg.Sessions)
	if errors.Is(err, catalog.ErrUnauthenticated) {
		return dashboard.Principal{}, fmt.Errorf("%w: %v", dashboard.ErrUnauthenticated, err)
	}
	if err != nil {
		d.s.metrics.catalogErrors.Inc()
		return dashboard.Principal{}, fmt.Errorf("session: %w", err)
	}
	return dashboard.Principal{TokenID: t.ID, Name: t.Name, Role: dashboard.Role(t.Role)}, nil
}

func (d dashSessions) SignOut(ctx context.Context, id string) error {
	if err := d.s.cat.DeleteSession(ctx, id); err != nil {
		d.s.metrics.catalogErrors.Inc()
		return err
	}
	return nil
}

// runTransport starts, under wg, what keeps the server's transport fresh until ctx ends:
// certificate reloads on SIGHUP and the sweep of ended dashboard sessions.
func (s *Server) runTransport(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.reloadCertsOnHangup(ctx)
	}()
	go func() {
		defer wg.Done()
		s.expireSessions(ctx)
	}()
}

// sessionSweep is how often a server deletes the ended sessions from the catalog.
const sessionSweep = 10 * time.Minute

// expireSessions deletes ended dashboard sessions from the catalog every sessionSweep, while
// this server leads, until ctx ends. (A lookup refuses an ended session anyway; this keeps
// the table small.)
func (s *Server) expireSessions(ctx context.Context) {
	t := time.NewTicker(sessionSweep)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !s.leads() {
			continue
		}
		if n, err := s.cat.ExpireSessions(ctx); err != nil && ctx.Err() == nil {
			s.metrics.catalogErrors.Inc()
			s.cfg.Logger.Warn("delete ended dashboard sessions", "err", err)
		} else if n > 0 {
			s.cfg.Logger.Debug("deleted ended dashboard sessions", "sessions", n)
		}
	}
}
