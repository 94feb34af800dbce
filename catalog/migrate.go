package catalog

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// The schema is migrated by goose from the SQL files under migrations/, one folder per
// dialect (sqlite, mysql, postgres), the same versions in each: NNNNN_name.sql with an Up
// section only (forward only). Add a file to each folder; never edit an applied one.
// goose records the applied versions in goose_db_version and runs each file in a
// transaction, on MySQL outside one (MySQL commits each DDL statement on its own), so a
// MySQL migration must be repeatable (IF NOT EXISTS, INSERT IGNORE).
//
// Versions 1 to 4 were applied by the hand-written migrator of the releases before goose,
// which recorded them in schema_migrations. They are repeatable, so on such a catalog goose
// runs them again as no-ops and records them; version 5 then adds a row to
// schema_migrations that makes those releases refuse the catalog.
//
//go:embed migrations
var migrationFiles embed.FS

// migrationLockID is the PostgreSQL advisory lock taken while migrating (the releases before
// goose took the same one).
const migrationLockID = 1918987879

// migrationsOf returns the migration files of dialect d.
func migrationsOf(d Dialect) (fs.FS, error) {
	dir := map[Dialect]string{SQLite: "sqlite", MySQL: "mysql", Postgres: "postgres"}[d]
	files, err := fs.Sub(migrationFiles, path.Join("migrations", dir))
	if err != nil {
		return nil, fmt.Errorf("migrations of %s: %w", d, err)
	}
	return files, nil
}

// migrate applies the migrations of files the catalog lacks, holding the dialect's migration
// lock so servers starting together apply each once. It refuses, with ErrSchemaTooNew, a
// catalog a newer binary migrated.
func (c *Catalog) migrate(ctx context.Context, files fs.FS, sqlitePath string) error {
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	dialect := goose.DialectSQLite3
	switch c.dialect {
	case Postgres:
		dialect = goose.DialectPostgres
		l, err := lock.NewPostgresSessionLocker(lock.WithLockID(migrationLockID), lock.WithLockTimeout(1, 300))
		if err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(l))
	case MySQL:
		dialect = goose.DialectMySQL
		// MySQL commits DDL by itself: goose runs it outside a transaction, so its version
		// table exists a moment before its zero row. goose's Up asks HasPending first, which
		// makes that table without the session lock: another server starting then read the
		// table without the row ("missing zero version migration"). The named lock is held
		// here, on a connection of its own, around everything goose does.
		opts = append(opts, goose.WithIsolateDDL(true))
		conn, err := c.sqlDB.Conn(ctx)
		if err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
		defer conn.Close()
		if err := (mysqlLocker{}).SessionLock(ctx, conn); err != nil {
			return err
		}
		defer func() {
			if err := (mysqlLocker{}).SessionUnlock(context.WithoutCancel(ctx), conn); err != nil {
				c.log.Warn("catalog: release the migration lock (it goes with the connection anyway)", "err", err)
			}
		}()
	case SQLite:
		if l := sqliteLocker(sqlitePath); l != nil {
			opts = append(opts, goose.WithLocker(l))
		}
	}
	p, err := goose.NewProvider(dialect, c.sqlDB, files, opts...)
	if err != nil {
		return fmt.Errorf("schema migrations: %w", err)
	}
	// Up takes the lock before it looks at the version table (GetVersions would not, and
	// could read MySQL's table between its creation and its first row). On a catalog a newer
	// binary migrated it applies nothing: every version this one knows is there.
	applied, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate the schema: %w", err)
	}
	for _, r := range applied {
		c.log.Info("catalog: schema migrated", "version", r.Source.Version, "file", path.Base(r.Source.Path),
			"dialect", c.dialect, "took", r.Duration)
	}
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return fmt.Errorf("schema version: %w", err)
	}
	sources := p.ListSources()
	if latest := sources[len(sources)-1].Version; current > latest {
		return fmt.Errorf("%w: the catalog is at schema version %d, this rangecopy knows versions up to %d: run the rangecopy that migrated it, or a newer one", ErrSchemaTooNew, current, latest)
	}
	return nil
}

// mysqlLocker is a goose session locker on MySQL's (and MariaDB's) named lock, which the
// server releases when the connection ends.
type mysqlLocker struct{}

const mysqlLockName = "rangecopy.catalog.migrate"

// SessionLock implements lock.SessionLocker: it waits up to 5 min for the lock.
func (mysqlLocker) SessionLock(ctx context.Context, conn *sql.Conn) error {
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 300)", mysqlLockName).Scan(&got); err != nil {
		return fmt.Errorf("take the migration lock: %w", err)
	}
	if !got.Valid || got.Int64 != 1 {
		return errors.New("take the migration lock: another process held it for 5 min")
	}
	return nil
}

// SessionUnlock implements lock.SessionLocker.
func (mysqlLocker) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	var released sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT RELEASE_LOCK(?)", mysqlLockName).Scan(&released); err != nil {
		return fmt.Errorf("release the migration lock: %w", err)
	}
	return nil
}
