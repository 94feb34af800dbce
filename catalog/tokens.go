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

// GenerateSecret returns a new, well-formed token secret (for a token created or imported
// later, as a bootstrap secret an operator keeps in a Kubernetes Secret).
func GenerateSecret() (string, error) {
	raw := make([]byte, secretBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("catalog: random secret: %w", err)
	}
	return SecretPrefix + secretEncoding.EncodeToString(raw), nil
}

// CheckSecret reports whether s is a well-formed token secret (GenerateSecret's form),
// without saying which part is wrong beyond its form.
func CheckSecret(s string) error {
	if len(s) != secretLen || !strings.HasPrefix(s, SecretPrefix) {
		return fmt.Errorf("not a rangecopy token secret: want %s and %d characters of a-z, 2-7 (rangecopy token generate)", SecretPrefix, secretLen-len(SecretPrefix))
	}
	if _, err := secretEncoding.DecodeString(s[len(SecretPrefix):]); err != nil {
		return fmt.Errorf("not a rangecopy token secret: want %s and %d characters of a-z, 2-7 (rangecopy token generate)", SecretPrefix, secretLen-len(SecretPrefix))
	}
	return nil
}

// TokenSpec is what a new token is: its name and role, and optionally scopes, rights, a
// lifetime and a secret generated before.
type TokenSpec struct {
	// Name says whom or what the token is for (1 to 255 bytes).
	Name string
	// Role is what the token may do.
	Role Role
	// Scopes restrict where it may write; none: everywhere.
	Scopes Scopes
	// Rights are permissions beyond its role.
	Rights []Right
	// Lifetime is how long its secret works; 0: until revoked.
	Lifetime time.Duration
	// Secret, when set, is the token's secret (well-formed, GenerateSecret): the catalog
	// keeps its SHA-256 and CreateToken returns no secret. Empty: a new one.
	Secret string
}

// check validates the spec; the error names the field.
func (s TokenSpec) check() error {
	if s.Name == "" || len(s.Name) > 255 {
		return fmt.Errorf("%w: name %q: want 1 to 255 bytes", ErrInvalid, s.Name)
	}
	if !s.Role.Valid() {
		return fmt.Errorf("%w: unknown role %q: want viewer, operator or admin", ErrInvalid, s.Role)
	}
	for _, r := range s.Rights {
		if !r.Valid() {
			return fmt.Errorf("%w: unknown right %q: want %s", ErrInvalid, r, RightForceCutover)
		}
	}
	if s.Lifetime < 0 {
		return fmt.Errorf("%w: lifetime %s: want more than nothing, or none", ErrInvalid, s.Lifetime)
	}
	if s.Secret != "" {
		if err := CheckSecret(s.Secret); err != nil {
			return fmt.Errorf("%w: secret: %w", ErrInvalid, err)
		}
	}
	return nil
}

// newToken makes the token of a spec (checked) and its secret ("" when the spec gave one).
func (c *Catalog) newToken(spec TokenSpec) (Token, string, error) {
	raw := make([]byte, 8)
	if _, err := rand.Read(raw); err != nil {
		return Token{}, "", fmt.Errorf("random id: %w", err)
	}
	secret, shown := spec.Secret, ""
	if secret == "" {
		var err error
		if secret, err = GenerateSecret(); err != nil {
			return Token{}, "", err
		}
		shown = secret
	}
	now := c.stampNow()
	t := Token{
		ID:         "tok_" + hex.EncodeToString(raw),
		Name:       spec.Name,
		Role:       spec.Role,
		SecretHash: hashSecret(secret),
		CreatedAt:  now,
		Scopes:     normScopes(spec.Scopes),
		Rights:     spec.Rights,
	}
	if spec.Lifetime > 0 {
		exp := stamp(now.Add(spec.Lifetime))
		t.ExpiresAt = &exp
	}
	return t, shown, nil
}

// normScopes drops scopes made moot by an unrestricted one: [*] is stored as none.
func normScopes(ss Scopes) Scopes {
	for _, s := range ss {
		if s == ScopeAll {
			return nil
		}
	}
	return ss
}

// CreateToken creates a token of that name and role, unrestricted and without expiry, and
// returns it with its secret. The secret is shown only now; the catalog keeps its SHA-256.
func (c *Catalog) CreateToken(ctx context.Context, name string, role Role) (Token, string, error) {
	return c.NewToken(ctx, TokenSpec{Name: name, Role: role})
}

// NewToken creates the token of spec and returns it with its secret, shown only now (empty
// when the spec gave the secret).
func (c *Catalog) NewToken(ctx context.Context, spec TokenSpec) (Token, string, error) {
	if err := spec.check(); err != nil {
		return Token{}, "", fmt.Errorf("catalog: create token %q: %w", spec.Name, err)
	}
	t, secret, err := c.newToken(spec)
	if err != nil {
		return Token{}, "", fmt.Errorf("catalog: create token %q: %w", spec.Name, err)
	}
	if err := c.db.WithContext(ctx).Create(&t).Error; err != nil {
		if errors.Is(err, gorm.ErrDuplicatedKey) && spec.Secret != "" {
			return Token{}, "", fmt.Errorf("catalog: create token %q: %w", spec.Name,
				&ConflictError{Kind: "token", Key: spec.Name, What: "secret", Detail: "another token has this secret: generate a new one"})
		}
		return Token{}, "", fmt.Errorf("catalog: create token %q: %w", spec.Name, err)
	}
	return t, secret, nil
}

// TokenBootstrap is the marker row of the catalog's bootstrap: its one row says the first
// admin token was made (or that tokens existed already), so that servers starting together
// make one between them.
type TokenBootstrap struct {
	// Name is the marker's key, always "admin".
	Name string `gorm:"column:name;primaryKey"`
	// TokenID is the bootstrap token's id; empty when the catalog had tokens already.
	TokenID string `gorm:"column:token_id"`
	// CreatedAt is when the bootstrap happened.
	CreatedAt time.Time `gorm:"column:created_at;autoCreateTime:false"`
}

// TableName implements gorm's tabler.
func (TokenBootstrap) TableName() string { return "token_bootstrap" }

const bootstrapMarker = "admin"

// Bootstrapped reports whether the catalog needs no bootstrap token: it was bootstrapped, or
// holds tokens.
func (c *Catalog) Bootstrapped(ctx context.Context) (bool, error) {
	var n int64
	if err := c.db.WithContext(ctx).Model(&TokenBootstrap{}).Count(&n).Error; err != nil {
		return false, fmt.Errorf("catalog: bootstrap marker: %w", err)
	}
	if n > 0 {
		return true, nil
	}
	if err := c.db.WithContext(ctx).Model(&Token{}).Count(&n).Error; err != nil {
		return false, fmt.Errorf("catalog: count tokens: %w", err)
	}
	return n > 0, nil
}

// BootstrapToken creates the catalog's first token of spec, once: in one transaction it
// inserts the bootstrap marker and, if the catalog holds no token, the token. Of servers
// starting together exactly one creates it; created is false for the others, and for a
// catalog bootstrapped before or holding tokens already. The secret is returned when the
// spec gave none and the token was created.
func (c *Catalog) BootstrapToken(ctx context.Context, spec TokenSpec) (t Token, secret string, created bool, err error) {
	if err := spec.check(); err != nil {
		return Token{}, "", false, fmt.Errorf("catalog: bootstrap token: %w", err)
	}
	nt, s, err := c.newToken(spec)
	if err != nil {
		return Token{}, "", false, fmt.Errorf("catalog: bootstrap token: %w", err)
	}
	err = c.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&Token{}).Count(&n).Error; err != nil {
			return fmt.Errorf("count tokens: %w", err)
		}
		m := TokenBootstrap{Name: bootstrapMarker, CreatedAt: nt.CreatedAt}
		if n == 0 {
			m.TokenID = nt.ID
		}
		if err := tx.Create(&m).Error; err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if err := tx.Create(&nt).Error; err != nil {
			return fmt.Errorf("create token: %w", err)
		}
		created = true
		return nil
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) || (err != nil && c.bootstrapDone(ctx)) {
		// Another server bootstrapped first: its marker row's key refused this one's (or the
		// transaction failed otherwise, and the marker read afterwards says one exists).
		return Token{}, "", false, nil
	}
	if err != nil {
		return Token{}, "", false, fmt.Errorf("catalog: bootstrap token: %w", err)
	}
	if !created {
		return Token{}, "", false, nil
	}
	return nt, s, true, nil
}

// bootstrapDone reports whether the bootstrap marker is there (false when it cannot tell).
func (c *Catalog) bootstrapDone(ctx context.Context) bool {
	var n int64
	err := c.db.WithContext(ctx).Model(&TokenBootstrap{}).Where("name = ?", bootstrapMarker).Count(&n).Error
	return err == nil && n > 0
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

// MaxRotationGrace bounds how long a rotated-out secret keeps working.
const MaxRotationGrace = 7 * 24 * time.Hour

// RotateOptions are the choices of a rotation.
type RotateOptions struct {
	// Grace is how long the replaced secret keeps working (0: not at all; at most
	// MaxRotationGrace), so that its users can switch.
	Grace time.Duration
	// Lifetime, when set, is the new secret's lifetime. Unset: the lifetime the token had
	// (from its last secret's issue to its expiry), or none if it had no expiry.
	Lifetime *time.Duration
}

// RotateToken gives the token of that id a new secret and returns the token with it (shown
// only now). The token keeps its id, name, role, scopes and rights; the old secret works
// for opts.Grace more and is refused afterwards. A revoked token is not rotated
// (ErrConflict); an expired one is, and so works again.
func (c *Catalog) RotateToken(ctx context.Context, id string, opts RotateOptions) (Token, string, error) {
	if opts.Grace < 0 || opts.Grace > MaxRotationGrace {
		return Token{}, "", fmt.Errorf("catalog: rotate token %q: %w: grace %s: want 0 to %s", id, ErrInvalid, opts.Grace, MaxRotationGrace)
	}
	if opts.Lifetime != nil && *opts.Lifetime < 0 {
		return Token{}, "", fmt.Errorf("catalog: rotate token %q: %w: lifetime %s: want more than nothing", id, ErrInvalid, *opts.Lifetime)
	}
	secret, err := GenerateSecret()
	if err != nil {
		return Token{}, "", fmt.Errorf("catalog: rotate token %q: %w", id, err)
	}
	var out Token
	err = c.write(ctx, nil, func(tx *gorm.DB) error {
		t, err := take[Token](tx, "token", "id", id)
		if err != nil {
			return err
		}
		t = normToken(t)
		if t.RevokedAt != nil {
			return &ConflictError{Kind: "token", Key: id, What: "state", Detail: "it was revoked at " + t.RevokedAt.Format(time.RFC3339) + ": create a new token"}
		}
		now := c.stampNow()
		var exp *time.Time
		lifetime := time.Duration(0)
		switch {
		case opts.Lifetime != nil:
			lifetime = *opts.Lifetime
		case t.ExpiresAt != nil:
			issued := t.CreatedAt
			if t.RotatedAt != nil {
				issued = *t.RotatedAt
			}
			lifetime = t.ExpiresAt.Sub(issued)
		}
		if lifetime > 0 {
			e := stamp(now.Add(lifetime))
			exp = &e
		}
		old := t.SecretHash
		until := stamp(now.Add(opts.Grace))
		res := tx.Model(&Token{}).Where("id = ? AND secret_hash = ?", id, old).Updates(map[string]any{
			"secret_hash":           hashSecret(secret),
			"previous_secret_hash":  old,
			"previous_secret_until": until,
			"rotated_at":            now,
			"expires_at":            exp,
		})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return &ConflictError{Kind: "token", Key: id, What: "secret", Detail: "rotated by another call at the same time: look at it again"}
		}
		t.SecretHash, t.PreviousSecretHash, t.PreviousSecretUntil, t.RotatedAt, t.ExpiresAt = hashSecret(secret), &old, &until, &now, exp
		out = t
		return nil
	})
	if err != nil {
		return Token{}, "", fmt.Errorf("catalog: rotate token %q: %w", id, err)
	}
	return out, secret, nil
}

// AuthError is why a secret was refused. It matches ErrUnauthenticated. Its message never
// names the token (whoever holds a refused secret need not learn whose it was); TokenID is
// for the server's own log.
type AuthError struct {
	// Reason is what was wrong, for people: it names no token.
	Reason string
	// TokenID is the token the secret was (or had been) of; empty if unknown.
	TokenID string
}

// Error implements error.
func (e *AuthError) Error() string { return e.Reason }

// Is makes errors.Is(err, ErrUnauthenticated) true.
func (e *AuthError) Is(target error) bool { return target == ErrUnauthenticated }

// Authenticate returns the token whose secret this is. A malformed, unknown, revoked, expired
// or rotated-out secret is an *AuthError (ErrUnauthenticated) whose message names no token.
// The stored hash is compared in constant time, and the token's LastUsedAt is written at most
// once per LastUsedResolution.
func (c *Catalog) Authenticate(ctx context.Context, secret string) (Token, error) {
	if len(secret) != secretLen || !strings.HasPrefix(secret, SecretPrefix) {
		return Token{}, fmt.Errorf("catalog: %w", &AuthError{Reason: "not a rangecopy token secret (they start " + SecretPrefix + "; rangecopy token create)"})
	}
	want := hashSecret(secret)
	unknown := &AuthError{Reason: "unknown token: not a secret of this server's catalog (rangecopy token create)"}
	var t Token
	err := c.db.WithContext(ctx).Where("secret_hash = ?", want).Take(&t).Error
	current := err == nil
	if errors.Is(err, gorm.ErrRecordNotFound) {
		// A secret a rotation replaced: it works during its grace, and is told apart after.
		err = c.db.WithContext(ctx).Where("previous_secret_hash = ?", want).Take(&t).Error
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Token{}, fmt.Errorf("catalog: %w", unknown)
	}
	if err != nil {
		return Token{}, fmt.Errorf("catalog: authenticate: %w", err)
	}
	stored := t.SecretHash
	if !current && t.PreviousSecretHash != nil {
		stored = *t.PreviousSecretHash
	}
	// The lookup went by the hash's index; compare again without an early exit.
	if subtle.ConstantTimeCompare([]byte(stored), []byte(want)) != 1 {
		return Token{}, fmt.Errorf("catalog: %w", unknown)
	}
	t = normToken(t)
	now := c.stampNow()
	if t.RevokedAt != nil {
		return Token{}, fmt.Errorf("catalog: %w", &AuthError{TokenID: t.ID,
			Reason: "this token was revoked at " + t.RevokedAt.Format(time.RFC3339) + "; ask an admin for a new one"})
	}
	if !current && (t.PreviousSecretUntil == nil || !now.Before(*t.PreviousSecretUntil)) {
		at := "since"
		if t.RotatedAt != nil {
			at = "at " + t.RotatedAt.Format(time.RFC3339)
		}
		return Token{}, fmt.Errorf("catalog: %w", &AuthError{TokenID: t.ID,
			Reason: "this secret was replaced by a rotation " + at + "; use the new secret"})
	}
	if t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) {
		return Token{}, fmt.Errorf("catalog: %w", &AuthError{TokenID: t.ID,
			Reason: "token expired at " + t.ExpiresAt.Format(time.RFC3339) + "; rotate it with rangecopy token rotate"})
	}
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
	t.ExpiresAt = optTime(t.ExpiresAt, time.Time.UTC)
	t.RotatedAt = optTime(t.RotatedAt, time.Time.UTC)
	t.PreviousSecretUntil = optTime(t.PreviousSecretUntil, time.Time.UTC)
	return t
}
