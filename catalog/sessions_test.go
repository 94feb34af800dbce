package catalog

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSessions opens, looks up, ends and expires dashboard sessions on every database: the
// id is not the token's secret and is not stored; a session ends on sign-out, when idle,
// at its absolute lifetime, and when its token is revoked.
func TestSessions(t *testing.T) {
	eachDB(t, func(t *testing.T, url string) {
		clk := newClock()
		c := openTest(t, url, Options{Now: clk.Now})
		ctx := testContext(t)
		tok, secret, err := c.CreateToken(ctx, "alice", RoleOperator)
		if err != nil {
			t.Fatal(err)
		}
		lim := SessionLimits{Idle: 30 * time.Minute, Lifetime: 2 * time.Hour}
		id, s, err := c.CreateSession(ctx, tok.ID, lim)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(id, SessionPrefix) || len(id) != sessionIDLen || strings.Contains(id, secret) || id == secret {
			t.Fatalf("session id %q: want %s and 43 characters, not the token's secret", id, SessionPrefix)
		}
		var stored []string
		if err := c.db.WithContext(ctx).Raw("SELECT id_hash FROM dashboard_sessions").Scan(&stored).Error; err != nil {
			t.Fatal(err)
		}
		if len(stored) != 1 || stored[0] != s.IDHash || stored[0] == id || strings.Contains(stored[0], secret) {
			t.Fatalf("stored %v: want only the id's hash %s", stored, s.IDHash)
		}
		got, gt, err := c.LookupSession(ctx, id, lim)
		if err != nil || gt.ID != tok.ID || gt.Role != RoleOperator || got.TokenID != tok.ID {
			t.Fatalf("lookup: %+v %+v %v", got, gt, err)
		}
		for _, bad := range []string{"", secret, id + "x", SessionPrefix + strings.Repeat("A", len(id)-len(SessionPrefix))} {
			if _, _, err := c.LookupSession(ctx, bad, lim); !errors.Is(err, ErrUnauthenticated) {
				t.Errorf("lookup %q: %v; want ErrUnauthenticated", bad, err)
			}
		}

		// Used every 20 minutes, it outlives its idle limit, up to its lifetime.
		for range 5 {
			clk.Add(20 * time.Minute)
			if _, _, err := c.LookupSession(ctx, id, lim); err != nil {
				t.Fatalf("lookup at %s: %v", clk.Now(), err)
			}
		}
		clk.Add(21 * time.Minute) // 2h1m after sign-in, 21 min after the last use
		if _, _, err := c.LookupSession(ctx, id, lim); !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "too long ago") {
			t.Errorf("lookup past the lifetime: %v", err)
		}

		// Idle: a fresh session unused for 31 minutes ends.
		id2, _, err := c.CreateSession(ctx, tok.ID, lim)
		if err != nil {
			t.Fatal(err)
		}
		clk.Add(31 * time.Minute)
		if _, _, err := c.LookupSession(ctx, id2, lim); !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "unused") {
			t.Errorf("lookup of an idle session: %v", err)
		}
		if n, err := c.ExpireSessions(ctx); err != nil || n != 2 {
			t.Errorf("expire: %d, %v; want the 2 ended sessions deleted", n, err)
		}

		// Sign-out ends a session.
		id3, _, err := c.CreateSession(ctx, tok.ID, lim)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteSession(ctx, id3); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.LookupSession(ctx, id3, lim); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("lookup after sign-out: %v", err)
		}

		// Revoking the token ends its sessions, and it opens no new one.
		id4, _, err := c.CreateSession(ctx, tok.ID, lim)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.RevokeToken(ctx, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.LookupSession(ctx, id4, lim); !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "revoked") {
			t.Errorf("lookup after the token's revocation: %v", err)
		}
		if _, _, err := c.CreateSession(ctx, tok.ID, lim); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("session of a revoked token: %v", err)
		}
		if _, _, err := c.CreateSession(ctx, "tok_unknown", lim); !errors.Is(err, ErrNotFound) {
			t.Errorf("session of an unknown token: %v", err)
		}
		if n, err := c.DeleteTokenSessions(ctx, tok.ID); err != nil || n != 1 {
			t.Errorf("delete the token's sessions: %d, %v; want 1", n, err)
		}
	})
}

// TestSessionEndsWithItsToken: a session ends when its token expires, and when the token's
// secret is rotated after the session began (the old secret may have leaked).
func TestSessionEndsWithItsToken(t *testing.T) {
	eachDB(t, func(t *testing.T, url string) {
		clk := newClock()
		c := openTest(t, url, Options{Now: clk.Now})
		ctx := testContext(t)
		lim := SessionLimits{Idle: 30 * time.Minute, Lifetime: 2 * time.Hour}
		short, _, err := c.NewToken(ctx, TokenSpec{Name: "short", Role: RoleViewer, Lifetime: 10 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		id, _, err := c.CreateSession(ctx, short.ID, lim)
		if err != nil {
			t.Fatal(err)
		}
		clk.Add(9 * time.Minute)
		if _, _, err := c.LookupSession(ctx, id, lim); err != nil {
			t.Fatalf("lookup before the token expires: %v", err)
		}
		clk.Add(2 * time.Minute)
		if _, _, err := c.LookupSession(ctx, id, lim); !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "expired") {
			t.Errorf("lookup after the token expired: %v; want ErrUnauthenticated naming the expiry", err)
		}
		if _, _, err := c.CreateSession(ctx, short.ID, lim); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("session of an expired token: %v", err)
		}

		tok, _, err := c.CreateToken(ctx, "rotated", RoleOperator)
		if err != nil {
			t.Fatal(err)
		}
		before, _, err := c.CreateSession(ctx, tok.ID, lim)
		if err != nil {
			t.Fatal(err)
		}
		clk.Add(time.Minute)
		if _, _, err := c.RotateToken(ctx, tok.ID, RotateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.LookupSession(ctx, before, lim); !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "rotated") {
			t.Errorf("lookup of a session older than the rotation: %v; want ErrUnauthenticated naming the rotation", err)
		}
		clk.Add(time.Minute)
		after, _, err := c.CreateSession(ctx, tok.ID, lim)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.LookupSession(ctx, after, lim); err != nil {
			t.Errorf("lookup of a session opened after the rotation: %v", err)
		}
	})
}

// TestSessionTimes is the pure part: when a session has ended and when a lookup writes.
func TestSessionTimes(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	lim := SessionLimits{Idle: time.Hour, Lifetime: 3 * time.Hour}
	s := Session{CreatedAt: t0, LastSeenAt: t0, IdleExpiresAt: t0.Add(time.Hour), ExpiresAt: t0.Add(3 * time.Hour)}
	for _, c := range []struct {
		at    time.Duration
		ended bool
	}{{0, false}, {59 * time.Minute, false}, {time.Hour, true}, {3 * time.Hour, true}} {
		if err := sessionState(s, t0.Add(c.at)); (err != nil) != c.ended {
			t.Errorf("at +%s: %v, want ended %v", c.at, err, c.ended)
		}
	}
	if due, _ := touchDue(s, t0.Add(30*time.Second), lim); due {
		t.Error("touched within the resolution")
	}
	due, until := touchDue(s, t0.Add(150*time.Minute), lim)
	if !due || !until.Equal(s.ExpiresAt) {
		t.Errorf("touch at +150m: %v until %s; want due, idle expiry capped at %s", due, until, s.ExpiresAt)
	}
	if l := (SessionLimits{Idle: 5 * time.Hour, Lifetime: time.Hour}).withDefaults(); l.Idle != time.Hour {
		t.Errorf("idle longer than the lifetime: %+v", l)
	}
}
