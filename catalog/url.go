package catalog

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Dialect is the kind of database behind a catalog.
type Dialect string

// The databases a catalog can live in.
const (
	SQLite   Dialect = "sqlite"
	MySQL    Dialect = "mysql"
	Postgres Dialect = "postgres"
)

// String returns the dialect's name.
func (d Dialect) String() string { return string(d) }

// target is a parsed catalog URL: which database and the driver's connection string.
type target struct {
	dialect Dialect
	// dsn is the driver's connection string.
	dsn string
	// database is the database name (the file's path for SQLite).
	database string
	// redacted is the URL with its password hidden, for errors and logs.
	redacted string
}

// parseURL turns a catalog URL into a target: sqlite:///path/file.db (or a bare path),
// mysql://user:pass@host:port/db?param=value, postgres://user:pass@host:port/db?param=value.
// busy is SQLite's busy timeout.
func parseURL(raw string, busy time.Duration) (target, error) {
	if strings.TrimSpace(raw) == "" {
		return target{}, fmt.Errorf("catalog URL is empty: want sqlite:///path/file.db, mysql://user:pass@host:port/db or postgres://user:pass@host:port/db")
	}
	scheme, rest, hasScheme := strings.Cut(raw, "://")
	if !hasScheme {
		if strings.HasPrefix(raw, "sqlite:") {
			return sqliteTarget(strings.TrimPrefix(raw, "sqlite:"), raw, busy)
		}
		// A bare path names a SQLite file.
		return sqliteTarget(raw, raw, busy)
	}
	switch strings.ToLower(scheme) {
	case "sqlite", "sqlite3", "file":
		// sqlite:///abs/path has an empty host; sqlite://rel/path is relative.
		return sqliteTarget(rest, raw, busy)
	case "mysql", "mariadb":
		return mysqlTarget(raw)
	case "postgres", "postgresql":
		return postgresTarget(raw)
	}
	return target{}, fmt.Errorf("catalog URL %q: unknown scheme %q: want sqlite, mysql or postgres", redact(raw), scheme)
}

func sqliteTarget(path, raw string, busy time.Duration) (target, error) {
	path, query, _ := strings.Cut(path, "?")
	if path == "" {
		return target{}, fmt.Errorf("catalog URL %q: no SQLite file path: want sqlite:///path/file.db", raw)
	}
	if path == ":memory:" || strings.HasPrefix(path, "file::memory:") {
		return target{}, fmt.Errorf("catalog URL %q: an in-memory SQLite database would lose the catalog: name a file", raw)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return target{}, fmt.Errorf("catalog URL %q: query: %w", raw, err)
	}
	for k := range q {
		if !strings.HasPrefix(k, "_pragma") {
			return target{}, fmt.Errorf("catalog URL %q: unknown SQLite parameter %q (only _pragma=... may be added)", raw, k)
		}
	}
	// WAL lets readers run beside the one writer; the busy timeout makes a writer wait for
	// the lock instead of failing with SQLITE_BUSY; immediate transactions take the write
	// lock at BEGIN, so a read-then-write transaction never has to upgrade (which fails at
	// once, whatever the timeout).
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	return target{dialect: SQLite, dsn: path + "?" + q.Encode(), database: path, redacted: raw}, nil
}

func mysqlTarget(raw string) (target, error) {
	u, red, db, err := parseServerURL(raw, "mysql", func(u *url.URL) bool { return u.Hostname() != "" })
	if err != nil {
		return target{}, err
	}
	if u.User == nil || u.User.Username() == "" {
		return target{}, fmt.Errorf("catalog URL %q: no user: want mysql://user:pass@host:port/db", red)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "3306")
	}
	q := u.Query()
	// Times are stored and read in UTC with microseconds; text as utf8mb4.
	q.Set("parseTime", "true")
	q.Set("loc", "UTC")
	if q.Get("charset") == "" {
		q.Set("charset", "utf8mb4")
	}
	if q.Get("timeout") == "" {
		q.Set("timeout", "10s")
	}
	pass, _ := u.User.Password()
	dsn := fmt.Sprintf("%s:%s@tcp(%s)/%s?%s", u.User.Username(), pass, host, db, q.Encode())
	return target{dialect: MySQL, dsn: dsn, database: db, redacted: red}, nil
}

func postgresTarget(raw string) (target, error) {
	u, red, db, err := parseServerURL(raw, "postgres", func(u *url.URL) bool { return u.Hostname() != "" || u.Query().Get("host") != "" })
	if err != nil {
		return target{}, err
	}
	q := u.Query()
	if q.Get("connect_timeout") == "" {
		q.Set("connect_timeout", "10")
	}
	u.Scheme = "postgres"
	u.RawQuery = q.Encode()
	return target{dialect: Postgres, dsn: u.String(), database: db, redacted: red}, nil
}

// parseServerURL parses the URL of a database server of that scheme: it must name a host
// (hasHost), a port in range if any, and a database. It returns the URL, its form with the
// password hidden and the database name.
func parseServerURL(raw, scheme string, hasHost func(*url.URL) bool) (u *url.URL, red, db string, err error) {
	u, err = url.Parse(raw)
	if err != nil {
		return nil, "", "", fmt.Errorf("catalog URL %q: %w", redact(raw), parseErr(err))
	}
	red = u.Redacted()
	if !hasHost(u) {
		return nil, "", "", fmt.Errorf("catalog URL %q: no host: want %s://user:pass@host:port/db", red, scheme)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n <= 0 || n > 65535 {
			return nil, "", "", fmt.Errorf("catalog URL %q: port %q is not a number in 1..65535", red, p)
		}
	}
	db = strings.TrimPrefix(u.Path, "/")
	if db == "" || strings.Contains(db, "/") {
		return nil, "", "", fmt.Errorf("catalog URL %q: no database name: want %s://user:pass@host:port/db", red, scheme)
	}
	return u, red, db, nil
}

// redact hides the password of a URL that may not parse.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	if at := strings.LastIndex(raw, "@"); at >= 0 {
		if scheme, _, ok := strings.Cut(raw, "://"); ok {
			return scheme + "://xxxxx" + raw[at:]
		}
	}
	return raw
}

// parseErr is url.Parse's error without the URL it quotes (which would show a password).
func parseErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
