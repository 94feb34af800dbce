package catalog

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// refusal checks that err is an *AuthError saying want and naming neither the token's id nor
// its name, while carrying the id for the server's log.
func refusal(t *testing.T, what string, err error, tok Token, want string) {
	t.Helper()
	var ae *AuthError
	if !errors.Is(err, ErrUnauthenticated) || !errors.As(err, &ae) {
		t.Errorf("%s: Authenticate = %v, want an AuthError", what, err)
		return
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %q does not say %q", what, err, want)
	}
	if strings.Contains(err.Error(), tok.ID) || strings.Contains(err.Error(), tok.Name) {
		t.Errorf("%s: %q names the token", what, err)
	}
	if ae.TokenID != tok.ID {
		t.Errorf("%s: the error carries token %q, want %q", what, ae.TokenID, tok.ID)
	}
}

func TestTokenExpiry(t *testing.T) {
	clk := newClock()
	eachCatalog(t, Options{Now: clk.Now}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		tok, secret, err := c.NewToken(ctx, TokenSpec{Name: "short-lived ci", Role: RoleOperator, Lifetime: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		want := clk.Now().Add(time.Hour).Truncate(time.Microsecond)
		if tok.ExpiresAt == nil || !tok.ExpiresAt.Equal(want) {
			t.Fatalf("ExpiresAt = %v, want %v", tok.ExpiresAt, want)
		}
		if back, err := c.GetToken(ctx, tok.ID); err != nil || back.ExpiresAt == nil || !back.ExpiresAt.Equal(want) {
			t.Errorf("GetToken = %+v, %v", back, err)
		}
		clk.Add(time.Hour - time.Microsecond)
		if _, err := c.Authenticate(ctx, secret); err != nil {
			t.Errorf("a microsecond before expiry: %v", err)
		}
		clk.Add(time.Microsecond)
		_, err = c.Authenticate(ctx, secret)
		refusal(t, "expired", err, tok, "token expired at "+want.Format(time.RFC3339)+"; rotate it with rangecopy token rotate")

		// Rotating an expired token makes it work again, for the lifetime it had.
		rot, secret2, err := c.RotateToken(ctx, tok.ID, RotateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rot.ExpiresAt == nil || !rot.ExpiresAt.Equal(clk.Now().Add(time.Hour).Truncate(time.Microsecond)) {
			t.Errorf("rotated ExpiresAt = %v", rot.ExpiresAt)
		}
		if got, err := c.Authenticate(ctx, secret2); err != nil || got.ID != tok.ID {
			t.Errorf("the rotated secret: %+v, %v", got, err)
		}
		// A token without a lifetime never expires.
		_, forever, _ := c.CreateToken(ctx, "forever", RoleViewer)
		clk.Add(100 * 365 * 24 * time.Hour)
		if _, err := c.Authenticate(ctx, forever); err != nil {
			t.Errorf("a token without expiry after a century: %v", err)
		}
	})
}

func TestTokenRotation(t *testing.T) {
	clk := newClock()
	eachCatalog(t, Options{Now: clk.Now}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		sc, _ := ParseScopes([]string{"dc2:ns_a:*"})
		tok, old, err := c.NewToken(ctx, TokenSpec{Name: "deployer", Role: RoleOperator, Scopes: sc, Rights: []Right{RightForceCutover}})
		if err != nil {
			t.Fatal(err)
		}
		// With a grace, the old secret works for it, then is told apart from unknown ones.
		clk.Add(time.Second)
		rot, next, err := c.RotateToken(ctx, tok.ID, RotateOptions{Grace: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if next == old || rot.ID != tok.ID || rot.Name != tok.Name || rot.Role != tok.Role || rot.ExpiresAt != nil ||
			rot.Scopes.String() != "dc2:ns_a:*" || !rot.HasRight(RightForceCutover) {
			t.Errorf("RotateToken = %+v", rot)
		}
		back, _ := c.GetToken(ctx, tok.ID)
		if back.Scopes.String() != "dc2:ns_a:*" || !slices.Equal(back.Rights, []Right{RightForceCutover}) || back.RotatedAt == nil {
			t.Errorf("GetToken after rotation = %+v", back)
		}
		for _, s := range []string{old, next} {
			if got, err := c.Authenticate(ctx, s); err != nil || got.ID != tok.ID {
				t.Errorf("within the grace: %+v, %v", got, err)
			}
		}
		clk.Add(time.Minute)
		_, err = c.Authenticate(ctx, old)
		refusal(t, "rotated out", err, tok, "replaced by a rotation")
		if _, err := c.Authenticate(ctx, next); err != nil {
			t.Errorf("the new secret: %v", err)
		}
		// Without a grace the old secret stops at once; the one before it is unknown.
		_, third, err := c.RotateToken(ctx, tok.ID, RotateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Authenticate(ctx, next)
		refusal(t, "rotated without grace", err, tok, "replaced by a rotation")
		_, err = c.Authenticate(ctx, old)
		if !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "unknown token") {
			t.Errorf("two rotations ago: %v", err)
		}
		if _, err := c.Authenticate(ctx, third); err != nil {
			t.Errorf("the third secret: %v", err)
		}
		// A lifetime given at rotation replaces the token's.
		life := 48 * time.Hour
		rot, _, err = c.RotateToken(ctx, tok.ID, RotateOptions{Lifetime: &life})
		if err != nil || rot.ExpiresAt == nil || !rot.ExpiresAt.Equal(clk.Now().Add(life).Truncate(time.Microsecond)) {
			t.Errorf("rotation with a lifetime: %+v, %v", rot, err)
		}
		// Revoked: refused, anonymously, and not rotated.
		if _, err := c.RevokeToken(ctx, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.RotateToken(ctx, tok.ID, RotateOptions{}); !errors.Is(err, ErrConflict) {
			t.Errorf("rotating a revoked token: %v", err)
		}
		for _, bad := range []RotateOptions{{Grace: -time.Second}, {Grace: MaxRotationGrace + time.Second}} {
			if _, _, err := c.RotateToken(ctx, tok.ID, bad); !errors.Is(err, ErrInvalid) {
				t.Errorf("RotateToken(%+v) = %v", bad, err)
			}
		}
		if _, _, err := c.RotateToken(ctx, "tok_nope", RotateOptions{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("RotateToken(nope) = %v", err)
		}
	})
}

func TestRevokedSecretIsAnonymous(t *testing.T) {
	eachCatalog(t, Options{}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		tok, secret, err := c.CreateToken(ctx, "payroll-exporter", RoleViewer)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.RevokeToken(ctx, tok.ID); err != nil {
			t.Fatal(err)
		}
		_, err = c.Authenticate(ctx, secret)
		refusal(t, "revoked", err, tok, "revoked at")
	})
}

func TestNewTokenSpec(t *testing.T) {
	eachCatalog(t, Options{}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		pre, _ := GenerateSecret()
		tok, shown, err := c.NewToken(ctx, TokenSpec{Name: "imported", Role: RoleAdmin, Secret: pre, Scopes: Scopes{ScopeAll}})
		if err != nil || shown != "" || tok.Scopes != nil {
			t.Fatalf("NewToken with a secret = %+v, %q, %v", tok, shown, err)
		}
		if got, err := c.Authenticate(ctx, pre); err != nil || got.ID != tok.ID {
			t.Errorf("the imported secret: %+v, %v", got, err)
		}
		if _, _, err := c.NewToken(ctx, TokenSpec{Name: "again", Role: RoleAdmin, Secret: pre}); !errors.Is(err, ErrConflict) {
			t.Errorf("a second token of one secret: %v", err)
		}
		for name, spec := range map[string]TokenSpec{
			"right":    {Name: "x", Role: RoleOperator, Rights: []Right{"root"}},
			"secret":   {Name: "x", Role: RoleOperator, Secret: "CHANGE-ME"},
			"lifetime": {Name: "x", Role: RoleOperator, Lifetime: -time.Hour},
			"role":     {Name: "x", Role: "root"},
			"name":     {Role: RoleViewer},
		} {
			if _, _, err := c.NewToken(ctx, spec); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), name) {
				t.Errorf("%s: NewToken = %v", name, err)
			}
		}
	})
}

// Servers starting together on one catalog make one bootstrap token between them.
func TestBootstrapTokenOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, url string) {
		ctx := testContext(t)
		const servers = 8
		cats := make([]*Catalog, servers)
		for i := range cats {
			cats[i] = openTest(t, url, Options{})
		}
		if done, err := cats[0].Bootstrapped(ctx); err != nil || done {
			t.Fatalf("Bootstrapped on an empty catalog = %v, %v", done, err)
		}
		var wg sync.WaitGroup
		created := make([]bool, servers)
		errs := make([]error, servers)
		for i := range cats {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, created[i], errs[i] = cats[i].BootstrapToken(ctx, TokenSpec{Name: "bootstrap admin", Role: RoleAdmin})
			}()
		}
		wg.Wait()
		n := 0
		for i := range cats {
			if errs[i] != nil {
				t.Errorf("server %d: %v", i, errs[i])
			}
			if created[i] {
				n++
			}
		}
		ts, err := cats[0].ListTokens(ctx)
		if n != 1 || err != nil || len(ts) != 1 {
			t.Errorf("%d servers created a token; the catalog holds %d (%v)", n, len(ts), err)
		}
		if done, err := cats[0].Bootstrapped(ctx); err != nil || !done {
			t.Errorf("Bootstrapped after = %v, %v", done, err)
		}
		// Later starts do nothing, whatever happened to the first token.
		if _, err := cats[0].RevokeToken(ctx, ts[0].ID); err != nil {
			t.Fatal(err)
		}
		if _, _, again, err := cats[1].BootstrapToken(ctx, TokenSpec{Name: "bootstrap admin", Role: RoleAdmin}); err != nil || again {
			t.Errorf("a later bootstrap = %v, %v", again, err)
		}
	})
}

// A catalog that holds tokens already (made with rangecopy token create before the first
// start) gets no bootstrap token.
func TestBootstrapTokenWithTokens(t *testing.T) {
	eachCatalog(t, Options{}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		if _, _, err := c.CreateToken(ctx, "made by hand", RoleAdmin); err != nil {
			t.Fatal(err)
		}
		pre, _ := GenerateSecret()
		if _, _, created, err := c.BootstrapToken(ctx, TokenSpec{Name: "bootstrap admin", Role: RoleAdmin, Secret: pre}); err != nil || created {
			t.Errorf("BootstrapToken = %v, %v", created, err)
		}
		if _, err := c.Authenticate(ctx, pre); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("the bootstrap secret of a catalog with tokens: %v", err)
		}
	})
}
