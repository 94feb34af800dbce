package catalog

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Token secrets: SecretPrefix then 32 random bytes in lower-case unpadded base32 (52
// characters, 256 bits).
const (
	// SecretPrefix starts every token secret, so leaked secrets are easy to scan for.
	SecretPrefix = "rc_"
	secretBytes  = 32
	// LastUsedResolution is how stale a token's LastUsedAt may be: authenticating writes it at
	// most once in this time.
	LastUsedResolution = time.Minute
)

var secretEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// secretLen is the length of a well-formed secret.
var secretLen = len(SecretPrefix) + secretEncoding.EncodedLen(secretBytes)

// hashSecret returns the hex SHA-256 of a secret, the form the catalog keeps.
func hashSecret(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// CreateToken creates a token of that name and role and returns it with its secret. The
// secret is shown only now; the catalog keeps its SHA-256.
func (c *Catalog) CreateToken(ctx context.Context, name string, role Role) (Token, string, error) {
	if name == "" || len(name) > 255 {
		return Token{}, "", fmt.Errorf("catalog: create token: %w: name %q: want 1 to 255 bytes", ErrInvalid, name)
	}
	if !role.Valid() {
		return Token{}, "", fmt.Errorf("catalog: create token %q: %w: unknown role %q: want viewer, operator or admin", name, ErrInvalid, role)
	}
	raw := make([]byte, secretBytes+8)
	if _, err := rand.Read(raw); err != nil {
		return Token{}, "", fmt.Errorf("catalog: create token %q: random secret: %w", name, err)
	}
	secret := SecretPrefix + secretEncoding.EncodeToString(raw[:secretBytes])
	t := Token{
		ID:         "tok_" + hex.EncodeToString(raw[secretBytes:]),
		Name:       name,
		Role:       role,
		SecretHash: hashSecret(secret),
		CreatedAt:  c.stampNow(),
	}
	if err := c.db.WithContext(ctx).Create(&t).Error; err != nil {
		return Token{}, "", fmt.Errorf("catalog: create token %q: %w", name, err)
	}
	return t, secret, nil
}

// ListTokens returns every token, revoked ones too, oldest first.
func (c *Catalog) ListTokens(ctx context.Context) ([]Token, error) {
	ts, err := find(c.db.WithContext(ctx).Order("created_at, id"), normToken)
	if err != nil {
		return nil, fmt.Errorf("catalog: list tokens: %w", err)
	}
	return ts, nil
}

// GetToken returns the token of that id, or ErrNotFound.
func (c *Catalog) GetToken(ctx context.Context, id string) (Token, error) {
	t, err := take[Token](c.db.WithContext(ctx), "token", "id", id)
	if err != nil {
		return Token{}, fmt.Errorf("catalog: %w", err)
	}
	return normToken(t), nil
}

// RevokeToken revokes the token of that id from now on and returns it; revoking a revoked
// token keeps the first time. An unknown id is ErrNotFound.
func (c *Catalog) RevokeToken(ctx context.Context, id string) (Token, error) {
	now := c.stampNow()
	res := c.db.WithContext(ctx).Model(&Token{}).Where("id = ? AND revoked_at IS NULL", id).Update("revoked_at", now)
	if res.Error != nil {
		return Token{}, fmt.Errorf("catalog: revoke token %q: %w", id, res.Error)
	}
	return c.GetToken(ctx, id)
}

// Authenticate returns the token whose secret this is. A malformed, unknown or revoked
// secret is ErrUnauthenticated. The stored hash is compared in constant time, and the token's
// LastUsedAt is written at most once per LastUsedResolution.
func (c *Catalog) Authenticate(ctx context.Context, secret string) (Token, error) {
	if len(secret) != secretLen || !strings.HasPrefix(secret, SecretPrefix) {
		return Token{}, fmt.Errorf("catalog: %w: not a rangecopy token secret", ErrUnauthenticated)
	}
	want := hashSecret(secret)
	var t Token
	err := c.db.WithContext(ctx).Where("secret_hash = ?", want).Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Token{}, fmt.Errorf("catalog: %w: unknown token", ErrUnauthenticated)
	}
	if err != nil {
		return Token{}, fmt.Errorf("catalog: authenticate: %w", err)
	}
	// The lookup went by the hash's index; compare again without an early exit.
	if subtle.ConstantTimeCompare([]byte(t.SecretHash), []byte(want)) != 1 {
		return Token{}, fmt.Errorf("catalog: %w: unknown token", ErrUnauthenticated)
	}
	t = normToken(t)
	if t.RevokedAt != nil {
		return Token{}, fmt.Errorf("catalog: %w: token %q (%s) was revoked at %s", ErrUnauthenticated, t.ID, t.Name, t.RevokedAt.Format(time.RFC3339))
	}
	now := c.stampNow()
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= LastUsedResolution {
		stale := now.Add(-LastUsedResolution)
		res := c.db.WithContext(ctx).Model(&Token{}).
			Where("id = ? AND (last_used_at IS NULL OR last_used_at <= ?)", t.ID, stale).
			Update("last_used_at", now)
		if res.Error != nil {
			return Token{}, fmt.Errorf("catalog: authenticate: note the token's use: %w", res.Error)
		}
		if res.RowsAffected > 0 {
			t.LastUsedAt = &now
		}
	}
	return t, nil
}

// normToken puts times read back in UTC.
func normToken(t Token) Token {
	t.CreatedAt = t.CreatedAt.UTC()
	t.LastUsedAt = optTime(t.LastUsedAt, time.Time.UTC)
	t.RevokedAt = optTime(t.RevokedAt, time.Time.UTC)
	return t
}
