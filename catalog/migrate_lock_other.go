//go:build !unix

package catalog

import "github.com/pressly/goose/v3/lock"

// sqliteLocker returns nil where flock is missing: SQLite catalogs there are migrated without
// a lock between processes (each migration still runs in an immediate transaction).
func sqliteLocker(string) lock.Locker { return nil }
