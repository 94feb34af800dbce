// Package catalog keeps what must outlive a job, in a SQL database reached through gorm:
// registered clusters, jobs as submitted with their history and final reports, bearer
// tokens, the audit log of mutating calls, relocations with their windows, verifications, and
// samples of the jobs' progress for the dashboard's throughput chart. ZooKeeper
// stays the live execution state; the catalog is the durable record the server reconciles
// with it.
//
// A catalog lives in SQLite (the embedded default, pure Go), MySQL/MariaDB or PostgreSQL. Its
// schema is versioned by goose (the SQL files under migrations/): Open applies the migrations
// this binary knows and refuses a catalog migrated by a newer one.
package catalog

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Options tunes a catalog's connections. The zero value is good for a server.
type Options struct {
	// MaxOpenConns bounds the open connections: default 10 (4 for SQLite, which has one
	// writer at a time anyway).
	MaxOpenConns int
	// MaxIdleConns bounds the idle connections kept: default MaxOpenConns.
	MaxIdleConns int
	// ConnMaxLifetime closes a connection this long after it was opened: default 30 min.
	ConnMaxLifetime time.Duration
	// ConnMaxIdleTime closes a connection idle this long: default 5 min.
	ConnMaxIdleTime time.Duration
	// BusyTimeout is how long a SQLite writer waits for the write lock before it fails with
	// SQLITE_BUSY: default 10 s.
	BusyTimeout time.Duration
	// SlowQuery is the duration above which a statement is logged as slow: default 1 s.
	SlowQuery time.Duration
	// Logger receives slow statements and errors: default slog.Default().
	Logger *slog.Logger
	// Now is the clock: default time.Now. Every stored time is its value in UTC, truncated to
	// microseconds (what all three databases keep).
	Now func() time.Time
}

func (o Options) withDefaults(d Dialect) Options {
	if o.MaxOpenConns <= 0 {
		o.MaxOpenConns = 10
		if d == SQLite {
			o.MaxOpenConns = 4
		}
	}
	if o.MaxIdleConns <= 0 || o.MaxIdleConns > o.MaxOpenConns {
		o.MaxIdleConns = o.MaxOpenConns
	}
	if o.ConnMaxLifetime <= 0 {
		o.ConnMaxLifetime = 30 * time.Minute
	}
	if o.ConnMaxIdleTime <= 0 {
		o.ConnMaxIdleTime = 5 * time.Minute
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 10 * time.Second
	}
	if o.SlowQuery <= 0 {
		o.SlowQuery = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Catalog is an open catalog. It is safe for concurrent use.
type Catalog struct {
	db      *gorm.DB
	sqlDB   *sql.DB
	dialect Dialect
	now     func() time.Time
	log     *slog.Logger
}

// Open connects to the catalog at url, applies the schema migrations it lacks and returns it.
// url is sqlite:///path/file.db (or a bare path; the folder must exist),
// mysql://user:pass@host:port/db?param=value (MariaDB too) or
// postgres://user:pass@host:port/db?param=value. It refuses, with ErrSchemaTooNew, a catalog
// whose schema a newer rangecopy migrated.
func Open(ctx context.Context, url string, opts Options) (*Catalog, error) {
	return open(ctx, url, opts, nil)
}

// open is Open with the migration files given (nil: the dialect's embedded ones).
func open(ctx context.Context, url string, opts Options, migrations fs.FS) (*Catalog, error) {
	// Parse once to learn the dialect, then again with the defaults that depend on it.
	t, err := parseURL(url, 0)
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults(t.dialect)
	if t, err = parseURL(url, opts.BusyTimeout); err != nil {
		return nil, err
	}
	var dial gorm.Dialector
	switch t.dialect {
	case SQLite:
		if dir := filepath.Dir(t.database); dir != "" {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return nil, fmt.Errorf("catalog %q: folder %q of the SQLite file does not exist", t.redacted, dir)
			}
		}
		if err := prepareSQLiteFile(t.database, opts.Logger); err != nil {
			return nil, fmt.Errorf("catalog %q: %w", t.redacted, err)
		}
		dial = sqlite.Open(t.dsn)
	case MySQL:
		dial = mysql.Open(t.dsn)
	case Postgres:
		dial = postgres.Open(t.dsn)
	}
	cfg := &gorm.Config{
		Logger: quietLogger{logger.NewSlogLogger(opts.Logger, logger.Config{
			SlowThreshold:             opts.SlowQuery,
			LogLevel:                  logger.Warn,
			IgnoreRecordNotFoundError: true,
			ParameterizedQueries:      true,
		})},
		TranslateError:         true,
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return stamp(opts.Now()) },
	}
	// A new SQLite file's first connections switch it to WAL, which takes the write lock from
	// a read lock; SQLite answers SQLITE_BUSY at once there (its busy handler would deadlock),
	// so processes opening one file together try again, within the busy timeout.
	var db *gorm.DB
	var sqlDB *sql.DB
	deadline := time.Now().Add(opts.BusyTimeout)
	for attempt := 1; ; attempt++ {
		db, sqlDB, err = connect(ctx, dial, cfg, opts)
		if err == nil || t.dialect != SQLite || !sqliteBusy(err) || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("catalog %q: %w", t.redacted, err)
		case <-time.After(time.Duration(attempt) * 10 * time.Millisecond):
		}
	}
	if err != nil {
		return nil, fmt.Errorf("catalog %q: %w", t.redacted, err)
	}
	c := &Catalog{db: db, sqlDB: sqlDB, dialect: t.dialect, now: opts.Now, log: opts.Logger}
	if migrations == nil {
		if migrations, err = migrationsOf(t.dialect); err != nil {
			sqlDB.Close()
			return nil, fmt.Errorf("catalog %q: %w", t.redacted, err)
		}
	}
	if err := c.migrate(ctx, migrations, t.database); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("catalog %q: %w", t.redacted, err)
	}
	return c, nil
}

// Dialect says which database the catalog lives in.
func (c *Catalog) Dialect() Dialect { return c.dialect }

// Ping checks that the database answers.
func (c *Catalog) Ping(ctx context.Context) error {
	if err := c.sqlDB.PingContext(ctx); err != nil {
		return fmt.Errorf("catalog: ping: %w", err)
	}
	return nil
}

// Close closes the catalog's connections.
func (c *Catalog) Close() error { return c.sqlDB.Close() }

// stamp is the form every stored time takes: UTC, microseconds.
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// optTime applies f (stamp, or time.Time.UTC) to an optional time; nil stays nil.
func optTime(t *time.Time, f func(time.Time) time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := f(*t)
	return &u
}

// stampNow is the catalog clock's now, stamped.
func (c *Catalog) stampNow() time.Time { return stamp(c.now()) }

// quietLogger is gorm's logger without the statements that failed on purpose: a duplicate key
// is how a conflict is found, not an error of the catalog.
type quietLogger struct{ logger.Interface }

// LogMode implements logger.Interface.
func (q quietLogger) LogMode(l logger.LogLevel) logger.Interface {
	return quietLogger{q.Interface.LogMode(l)}
}

// Trace implements logger.Interface.
func (q quietLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		err = nil
	}
	q.Interface.Trace(ctx, begin, fc, err)
}

// newID returns prefix and 16 random hex digits: the id of a new relocation ("rel_") or
// verification ("ver_").
func newID(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// connect opens the database's connection pool and checks that it answers.
func connect(ctx context.Context, dial gorm.Dialector, cfg *gorm.Config, opts Options) (*gorm.DB, *sql.DB, error) {
	db, err := gorm.Open(dial, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("open: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, nil, fmt.Errorf("open: %w", err)
	}
	sqlDB.SetMaxOpenConns(opts.MaxOpenConns)
	sqlDB.SetMaxIdleConns(opts.MaxIdleConns)
	sqlDB.SetConnMaxLifetime(opts.ConnMaxLifetime)
	sqlDB.SetConnMaxIdleTime(opts.ConnMaxIdleTime)
	if err := sqlDB.PingContext(ctx); err != nil {
		sqlDB.Close()
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	return db, sqlDB, nil
}

// sqliteBusy reports whether err is SQLite's SQLITE_BUSY (its primary result code 5).
func sqliteBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}
