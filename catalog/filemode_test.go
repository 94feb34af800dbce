package catalog

import (
	"bytes"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSQLiteFileMode opens a new SQLite catalog, whose file is created 0600, and one whose
// file an operator made readable by everyone, which opens with a warning naming the fix.
func TestSQLiteFileMode(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "catalog.db")
	c := openTest(t, "sqlite://"+fresh, Options{})
	c.Close()
	st, err := os.Stat(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("new catalog file: mode %#o, want 0600", st.Mode().Perm())
	}

	wide := filepath.Join(dir, "wide.db")
	if err := os.WriteFile(wide, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(wide, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	var logs bytes.Buffer
	openTest(t, "sqlite://"+wide, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "chmod 600") || !strings.Contains(logs.String(), wide) {
		t.Errorf("a world-readable catalog file opened without a warning naming it and the fix; log:\n%s", logs.String())
	}
}

// TestModeProblem classifies modes of the catalog's file and folder.
func TestModeProblem(t *testing.T) {
	for _, c := range []struct {
		mode fs.FileMode
		dir  bool
		bad  bool
	}{
		{0o600, false, false}, {0o400, false, false}, {0o640, false, true}, {0o644, false, true}, {0o606, false, true},
		{fs.ModeDir | 0o700, true, false}, {fs.ModeDir | 0o755, true, false}, {fs.ModeDir | 0o775, true, true}, {fs.ModeDir | 0o777, true, true},
	} {
		if got := modeProblem(c.mode, c.dir); (got != "") != c.bad {
			t.Errorf("modeProblem(%v, dir %v) = %q, want a problem %v", c.mode, c.dir, got, c.bad)
		}
	}
}
