package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// The SQLite catalog holds token hashes, sessions and the audit log: its file is the
// owner's alone (0600, and SQLite gives its journal and WAL files the same mode), in a
// folder that is the owner's alone (0700, rangecopy server's --data-dir).
const (
	sqliteFileMode fs.FileMode = 0o600
	sqliteDirMode  fs.FileMode = 0o700
)

// modeProblem says what is wrong with the mode of the catalog's file (dir false): access
// by the group or others; or of its folder (dir true): writing by the group or others, who
// could replace the file. Empty if nothing.
func modeProblem(mode fs.FileMode, dir bool) string {
	perm := mode.Perm()
	switch {
	case !dir && perm&0o077 != 0:
		return fmt.Sprintf("mode %#o lets the group or others read it: want %#o (chmod %o)", perm, sqliteFileMode, sqliteFileMode)
	case dir && perm&0o022 != 0:
		return fmt.Sprintf("mode %#o lets the group or others replace the file: want %#o (chmod %o)", perm, sqliteDirMode, sqliteDirMode)
	}
	return ""
}

// prepareSQLiteFile creates the SQLite file of a catalog with mode 0600 if it does not exist
// yet, and warns if it or its folder are open to the group or others.
func prepareSQLiteFile(path string, log *slog.Logger) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, sqliteFileMode)
	switch {
	case err == nil:
		if err := f.Close(); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("create %s: %w", path, err)
	}
	if st, err := os.Stat(path); err == nil {
		if p := modeProblem(st.Mode(), false); p != "" {
			log.Warn("catalog: the SQLite file holds token hashes and the audit log, but its "+p, "file", path)
		}
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err == nil {
		if p := modeProblem(st.Mode(), true); p != "" {
			log.Warn("catalog: the folder of the SQLite file "+p, "folder", dir)
		}
	}
	return nil
}
