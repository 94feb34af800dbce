package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rangecopy/catalog"
)

// TestTokenCommands creates, lists and revokes a token in a SQLite catalog named by
// $RANGECOPY_CATALOG, as a server's operator would, and refuses bad input by name.
func TestTokenCommands(t *testing.T) {
	t.Setenv("RANGECOPY_CATALOG", "sqlite://"+filepath.Join(t.TempDir(), "catalog.db"))
	cmd := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, out, stderr := cmd("token", "create", "--name", "ci", "--role", "operator")
	if code != exitOK || !strings.Contains(out, "secret rc_") {
		t.Fatalf("create: %d %q %q", code, out, stderr)
	}
	id := strings.Fields(out)[1]
	if code, out, _ = cmd("token", "list"); code != exitOK || !strings.Contains(out, id) || !strings.Contains(out, "operator") {
		t.Fatalf("list: %d %q", code, out)
	}
	if code, out, _ = cmd("token", "revoke", id); code != exitOK || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %d %q", code, out)
	}
	if code, _, stderr = cmd("token", "create", "--name", "x", "--role", "root"); code != exitUsage || !strings.Contains(stderr, "--role \"root\"") {
		t.Errorf("bad role: %d %q", code, stderr)
	}
	if code, _, stderr = cmd("token", "revoke", "tok_nosuch"); code == exitOK || !strings.Contains(stderr, "tok_nosuch") {
		t.Errorf("unknown token: %d %q", code, stderr)
	}
}

// TestTokenLifecycleCommands creates a scoped, expiring token with the force-cutover right,
// rotates it, revokes it, makes one of a generated secret, and finds each change in the
// catalog's audit log as a CLI entry with the OS user; the placeholder secret and bad
// scopes are refused by name.
func TestTokenLifecycleCommands(t *testing.T) {
	dir := t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "catalog.db")
	t.Setenv("RANGECOPY_CATALOG", url)
	cmd := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, out, stderr := cmd("token", "create", "--name", "deployer", "--role", "operator", "--expires", "90d",
		"--scope", "dc2:ns_a:*", "--scope", "dc3:*", "--right", "force-cutover")
	if code != exitOK || !strings.Contains(out, "secret rc_") || !strings.Contains(out, "valid until") || !strings.Contains(out, "scope dc2:ns_a:*,dc3:* +force-cutover") {
		t.Fatalf("create: %d %q %q", code, out, stderr)
	}
	id := strings.Fields(out)[1]
	old := strings.Fields(out[strings.Index(out, "secret "):])[1]
	code, out, _ = cmd("token", "list")
	if code != exitOK || !strings.Contains(out, id) || !strings.Contains(out, "valid until") || !strings.Contains(out, "dc2:ns_a:*,dc3:*") {
		t.Fatalf("list: %d %q", code, out)
	}
	code, out, stderr = cmd("token", "rotate", id, "--grace", "10m")
	if code != exitOK || !strings.Contains(out, "secret rc_") || strings.Contains(out, old) {
		t.Fatalf("rotate: %d %q %q", code, out, stderr)
	}
	if code, _, stderr = cmd("token", "rotate", id, "--grace", "300h"); code != exitUsage || !strings.Contains(stderr, "--grace") {
		t.Errorf("rotate with a long grace: %d %q", code, stderr)
	}
	if code, out, _ = cmd("token", "revoke", id); code != exitOK {
		t.Fatalf("revoke: %d %q", code, out)
	}
	// A generated secret, made a token without printing it.
	code, gen, _ := cmd("token", "generate")
	gen = strings.TrimSpace(gen)
	if code != exitOK || catalog.CheckSecret(gen) != nil {
		t.Fatalf("generate: %d %q", code, gen)
	}
	file := filepath.Join(dir, "secret")
	os.WriteFile(file, []byte(gen+"\n"), 0o600)
	code, out, stderr = cmd("token", "create", "--name", "imported", "--role", "admin", "--secret-file", file)
	if code != exitOK || strings.Contains(out, gen) || strings.Contains(out, "secret") {
		t.Fatalf("create from a secret file: %d %q %q", code, out, stderr)
	}
	os.WriteFile(file, []byte("CHANGE-ME\n"), 0o600)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--secret-file", file}, "CHANGE-ME"},
		{[]string{"--scope", "dc2"}, "--scope"},
		{[]string{"--scope", "dc2:ns a:*"}, `namespace "ns a"`},
		{[]string{"--right", "root"}, "--right"},
		{[]string{"--expires", "soon"}, "--expires"},
	} {
		code, _, stderr := cmd(append([]string{"token", "create", "--name", "x", "--role", "operator"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.says) {
			t.Errorf("create %v: %d %q; want a usage error saying %q", c.args, code, stderr, c.says)
		}
	}

	cat, err := catalog.Open(t.Context(), url, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if _, err := cat.Authenticate(t.Context(), gen); err != nil {
		t.Errorf("the imported secret: %v", err)
	}
	page, err := cat.ListAudit(t.Context(), "", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range page.Entries {
		if e.Method != "CLI" || !strings.Contains(e.Message, "by OS user ") || e.RemoteAddr == "" {
			t.Errorf("audit entry %+v", e)
		}
		got = append(got, e.Path+" "+e.TokenName)
	}
	want := []string{"token create imported", "token revoke deployer", "token rotate deployer", "token create deployer"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("audit log %q, want %q", got, want)
	}
}

// TestBootstrapTokenFile: the server's bootstrap imports the operator's secret once and
// writes no file; the placeholder is refused before anything starts; without a file, one
// admin-token file is written, once.
func TestBootstrapTokenFile(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cat, err := catalog.Open(ctx, "sqlite://"+filepath.Join(dir, "catalog.db"), catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	file := filepath.Join(dir, "bootstrap")
	os.WriteFile(file, []byte("CHANGE-ME"), 0o600)
	if _, err := readSecretFile(file); err == nil || !strings.Contains(err.Error(), "CHANGE-ME") || !strings.Contains(err.Error(), "rangecopy token generate") {
		t.Errorf("the placeholder: %v", err)
	}
	var stderr bytes.Buffer
	code := run(ctx, []string{"server", "--zk", "127.0.0.1:1", "--data-dir", dir, "--bootstrap-token-file", file}, io.Discard, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "CHANGE-ME") {
		t.Errorf("server with the placeholder: %d %q", code, stderr.String())
	}
	secret, _ := catalog.GenerateSecret()
	for range 2 {
		if err := bootstrapToken(ctx, cat, dir, secret, log); err != nil {
			t.Fatal(err)
		}
	}
	ts, _ := cat.ListTokens(ctx)
	if len(ts) != 1 || ts[0].Role != catalog.RoleAdmin {
		t.Fatalf("tokens after two bootstraps: %+v", ts)
	}
	if tok, err := cat.Authenticate(ctx, secret); err != nil || tok.ID != ts[0].ID {
		t.Errorf("the imported bootstrap secret: %+v, %v", tok, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "admin-token")); !os.IsNotExist(err) {
		t.Errorf("an admin-token file was written: %v", err)
	}

	// Without a file: a new secret in admin-token, once.
	dir2 := t.TempDir()
	cat2, err := catalog.Open(ctx, "sqlite://"+filepath.Join(dir2, "catalog.db"), catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cat2.Close()
	for range 2 {
		if err := bootstrapToken(ctx, cat2, dir2, "", log); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir2, "admin-token"))
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := cat2.Authenticate(ctx, strings.TrimSpace(string(b))); err != nil || tok.Role != catalog.RoleAdmin {
		t.Errorf("the admin-token file's secret: %+v, %v", tok, err)
	}
	if ts, _ := cat2.ListTokens(ctx); len(ts) != 1 {
		t.Errorf("tokens after two bootstraps: %d", len(ts))
	}
}
