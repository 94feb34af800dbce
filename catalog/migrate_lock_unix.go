//go:build unix

package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/pressly/goose/v3/lock"
)

// sqliteLocker returns a goose locker for the SQLite catalog at path: an exclusive flock on
// path+".migrate-lock", so processes (or catalogs of one process) opening the file together
// migrate it once. The kernel drops the lock when its holder dies. The SQLite file itself is
// not flocked: closing any descriptor of it would drop SQLite's own locks.
func sqliteLocker(path string) lock.Locker {
	return &fileLock{path: path + ".migrate-lock"}
}

// fileLock is an exclusive flock on a file, as a goose lock.Locker. goose calls Lock and
// Unlock in turn, under its provider's mutex.
type fileLock struct {
	path string
	f    *os.File // held while locked
}

// Lock implements lock.Locker: it polls for the lock until ctx ends.
func (l *fileLock) Lock(ctx context.Context, _ *sql.DB) error {
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return fmt.Errorf("migration lock %s: %w", l.path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return fmt.Errorf("migration lock %s: %w", l.path, context.Cause(ctx))
		case <-time.After(50 * time.Millisecond):
		}
	}
	l.f = f
	return nil
}

// Unlock implements lock.Locker.
func (l *fileLock) Unlock(context.Context, *sql.DB) error {
	f := l.f
	l.f = nil
	if f == nil {
		return nil
	}
	return f.Close() // closing the descriptor releases the flock
}
