package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
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
