package catalog

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Dashboard sessions: a sign-in with a token secret opens a session whose id (SessionPrefix
// then 32 random bytes, base64url) the browser keeps in its cookie. The catalog keeps the
// id's SHA-256 only, so neither a cookie nor a copy of the catalog gives the token's secret.
const (
	// SessionPrefix starts every session id.
	SessionPrefix = "rcs_"
	sessionBytes  = 32
	// DefaultSessionIdle is how long a session lasts unused by default.
	DefaultSessionIdle = 2 * time.Hour
	// DefaultSessionLifetime is how long a session lasts at most by default, used or not.
	DefaultSessionLifetime = 12 * time.Hour
	// SessionSeenResolution is how stale a session's LastSeenAt may be: a lookup writes it
	// (and pushes the idle expiry on) at most once in this time.
	SessionSeenResolution = time.Minute
)

// sessionIDLen is the length of a well-formed session id.
var sessionIDLen = len(SessionPrefix) + base64.RawURLEncoding.EncodedLen(sessionBytes)

// Session is a dashboard sign-in of a token.
type Session struct {
	// IDHash is the hex SHA-256 of the session's id; the id itself is only in the cookie.
	IDHash string `gorm:"column:id_hash;primaryKey"`
	// TokenID is the token that signed in.
	TokenID string `gorm:"column:token_id"`
	// CreatedAt is when the session was opened, LastSeenAt when it was last used (to within
	// SessionSeenResolution).
	CreatedAt  time.Time `gorm:"column:created_at;autoCreateTime:false"`
	LastSeenAt time.Time `gorm:"column:last_seen_at;autoUpdateTime:false"`
	// IdleExpiresAt is when it ends unless used before; ExpiresAt when it ends anyway.
	IdleExpiresAt time.Time `gorm:"column:idle_expires_at"`
	ExpiresAt     time.Time `gorm:"column:expires_at"`
}

// TableName implements gorm's tabler.
func (Session) TableName() string { return "dashboard_sessions" }

// SessionLimits bound a session's life.
type SessionLimits struct {
	// Idle ends a session unused this long; 0 means DefaultSessionIdle.
	Idle time.Duration
	// Lifetime ends a session this long after sign-in; 0 means DefaultSessionLifetime.
	Lifetime time.Duration
}

func (l SessionLimits) withDefaults() SessionLimits {
	if l.Idle <= 0 {
		l.Idle = DefaultSessionIdle
	}
	if l.Lifetime <= 0 {
		l.Lifetime = DefaultSessionLifetime
	}
	if l.Idle > l.Lifetime {
		l.Idle = l.Lifetime
	}
	return l
}

// sessionState is what a session's times say at now: live, or why it ended.
func sessionState(s Session, now time.Time) error {
	switch {
	case !now.Before(s.ExpiresAt):
		return errors.New("session ended: signed in too long ago; sign in again")
	case !now.Before(s.IdleExpiresAt):
		return errors.New("session ended: unused too long; sign in again")
	}
	return nil
}

// touchDue reports whether a lookup at now should write the session's LastSeenAt (and push
// its idle expiry to the new idleUntil): at most once per SessionSeenResolution.
func touchDue(s Session, now time.Time, lim SessionLimits) (bool, time.Time) {
	idleUntil := now.Add(lim.Idle)
	if idleUntil.After(s.ExpiresAt) {
		idleUntil = s.ExpiresAt
	}
	return now.Sub(s.LastSeenAt) >= SessionSeenResolution, idleUntil
}

// tokenUsable says why a token can no longer hold a session at now; nil if it can: a
// revoked or expired token ends its sessions.
func tokenUsable(t Token, now time.Time) error {
	if t.RevokedAt != nil {
		return errors.New("the session's token was revoked")
	}
	if t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) {
		return errors.New("the session's token expired")
	}
	return nil
}

// sessionOutlived says why a session no longer belongs to its token; nil if it does. A
// session opened before the token's secret was rotated ends with the old secret: a rotation
// is how an operator takes back a secret that may have leaked.
func sessionOutlived(s Session, t Token) error {
	if t.RotatedAt != nil && s.CreatedAt.Before(*t.RotatedAt) {
		return errors.New("the session's token was rotated after the session began: sign in with the new secret")
	}
	return nil
}

// CreateSession opens a dashboard session for the token of that id and returns the
// session's id (for the cookie; shown only now) and the session. The token must exist and
// not be revoked.
func (c *Catalog) CreateSession(ctx context.Context, tokenID string, lim SessionLimits) (string, Session, error) {
	lim = lim.withDefaults()
	raw := make([]byte, sessionBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", Session{}, fmt.Errorf("catalog: create session: random id: %w", err)
	}
	id := SessionPrefix + base64.RawURLEncoding.EncodeToString(raw)
	now := c.stampNow()
	s := Session{IDHash: hashSecret(id), TokenID: tokenID, CreatedAt: now, LastSeenAt: now,
		IdleExpiresAt: stamp(now.Add(lim.Idle)), ExpiresAt: stamp(now.Add(lim.Lifetime))}
	err := c.write(ctx, nil, func(tx *gorm.DB) error {
		t, err := take[Token](tx, "token", "id", tokenID)
		if err != nil {
			return err
		}
		if err := tokenUsable(normToken(t), now); err != nil {
			return fmt.Errorf("%w: %v", ErrUnauthenticated, err)
		}
		return tx.Create(&s).Error
	})
	if err != nil {
		return "", Session{}, fmt.Errorf("catalog: create session of token %q: %w", tokenID, err)
	}
	return id, s, nil
}

// LookupSession returns the session of that id and its token. A malformed or unknown id, a
// session past its idle or absolute expiry, and one whose token was revoked are
// ErrUnauthenticated. The stored hash is compared in constant time; the session's LastSeenAt
// and idle expiry move on at most once per SessionSeenResolution.
func (c *Catalog) LookupSession(ctx context.Context, id string, lim SessionLimits) (Session, Token, error) {
	lim = lim.withDefaults()
	if len(id) != sessionIDLen || !strings.HasPrefix(id, SessionPrefix) {
		return Session{}, Token{}, fmt.Errorf("catalog: %w: not a session id", ErrUnauthenticated)
	}
	want := hashSecret(id)
	var s Session
	err := c.db.WithContext(ctx).Where("id_hash = ?", want).Take(&s).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Session{}, Token{}, fmt.Errorf("catalog: %w: no such session (signed out, or ended)", ErrUnauthenticated)
	}
	if err != nil {
		return Session{}, Token{}, fmt.Errorf("catalog: look up session: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(s.IDHash), []byte(want)) != 1 {
		return Session{}, Token{}, fmt.Errorf("catalog: %w: no such session", ErrUnauthenticated)
	}
	s = normSession(s)
	now := c.stampNow()
	if err := sessionState(s, now); err != nil {
		return Session{}, Token{}, fmt.Errorf("catalog: %w: %v", ErrUnauthenticated, err)
	}
	t, err := take[Token](c.db.WithContext(ctx), "token", "id", s.TokenID)
	if errors.Is(err, ErrNotFound) {
		return Session{}, Token{}, fmt.Errorf("catalog: %w: the session's token is gone", ErrUnauthenticated)
	}
	if err != nil {
		return Session{}, Token{}, fmt.Errorf("catalog: look up session: %w", err)
	}
	t = normToken(t)
	if err := tokenUsable(t, now); err != nil {
		return Session{}, Token{}, fmt.Errorf("catalog: %w: %v", ErrUnauthenticated, err)
	}
	if err := sessionOutlived(s, t); err != nil {
		return Session{}, Token{}, fmt.Errorf("catalog: %w: %v", ErrUnauthenticated, err)
	}
	if due, idleUntil := touchDue(s, now, lim); due {
		idleUntil = stamp(idleUntil)
		res := c.db.WithContext(ctx).Model(&Session{}).Where("id_hash = ? AND last_seen_at < ?", s.IDHash, now).
			Updates(map[string]any{"last_seen_at": now, "idle_expires_at": idleUntil})
		if res.Error != nil {
			return Session{}, Token{}, fmt.Errorf("catalog: look up session: note its use: %w", res.Error)
		}
		s.LastSeenAt, s.IdleExpiresAt = now, idleUntil
	}
	return s, t, nil
}

// DeleteSession ends the session of that id (a sign-out). An unknown id is no error.
func (c *Catalog) DeleteSession(ctx context.Context, id string) error {
	if err := c.db.WithContext(ctx).Where("id_hash = ?", hashSecret(id)).Delete(&Session{}).Error; err != nil {
		return fmt.Errorf("catalog: delete session: %w", err)
	}
	return nil
}

// DeleteTokenSessions ends every session of a token and returns how many there were.
func (c *Catalog) DeleteTokenSessions(ctx context.Context, tokenID string) (int64, error) {
	res := c.db.WithContext(ctx).Where("token_id = ?", tokenID).Delete(&Session{})
	if res.Error != nil {
		return 0, fmt.Errorf("catalog: delete sessions of token %q: %w", tokenID, res.Error)
	}
	return res.RowsAffected, nil
}

// ExpireSessions deletes the sessions past their idle or absolute expiry and returns how
// many it deleted.
func (c *Catalog) ExpireSessions(ctx context.Context) (int64, error) {
	now := c.stampNow()
	res := c.db.WithContext(ctx).Where("expires_at <= ? OR idle_expires_at <= ?", now, now).Delete(&Session{})
	if res.Error != nil {
		return 0, fmt.Errorf("catalog: expire sessions: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// normSession puts times read back in UTC.
func normSession(s Session) Session {
	s.CreatedAt, s.LastSeenAt = s.CreatedAt.UTC(), s.LastSeenAt.UTC()
	s.IdleExpiresAt, s.ExpiresAt = s.IdleExpiresAt.UTC(), s.ExpiresAt.UTC()
	return s
}
