package catalog

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"rangecopy/testenv"
)

// The suite runs against every database: SQLite always, MariaDB (or MySQL) and PostgreSQL at
// the servers these variables name. scripts/databases.sh starts throwaway ones.
const (
	mysqlEnv    = "RANGECOPY_TEST_MYSQL_URL"
	postgresEnv = "RANGECOPY_TEST_POSTGRES_URL"
)

// backends are the databases of the suite, by subtest name.
var backends = []struct {
	name, env string
}{
	{"sqlite", ""},
	{"mariadb", mysqlEnv},
	{"postgres", postgresEnv},
}

// eachDB runs fn once per database, each time against a database of its own (a new file, or
// a database created for this test and dropped after it), given by its catalog URL.
func eachDB(t *testing.T, fn func(t *testing.T, url string)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			if b.env == "" {
				fn(t, "sqlite://"+filepath.Join(t.TempDir(), "catalog.db"))
				return
			}
			server := os.Getenv(b.env)
			if server == "" {
				msg := fmt.Sprintf("%s is not set: start throwaway servers with `bash scripts/databases.sh start` and `eval \"$(bash scripts/databases.sh env)\"`", b.env)
				if testenv.InCI() {
					t.Fatalf("in CI (CI=%s), the %s run of this test cannot run: %s", os.Getenv("CI"), b.name, msg)
				}
				t.Skip(msg)
			}
			fn(t, newDatabase(t, server))
		})
	}
}

// eachCatalog runs fn once per database with a catalog opened on a database of its own.
func eachCatalog(t *testing.T, opts Options, fn func(t *testing.T, c *Catalog)) {
	t.Helper()
	eachDB(t, func(t *testing.T, url string) {
		fn(t, openTest(t, url, opts))
	})
}

// openTest opens the catalog at url and closes it when the test ends.
func openTest(t *testing.T, url string, opts Options) *Catalog {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	}
	c, err := Open(testContext(t), url, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// newDatabase creates a database of a unique name on the server of serverURL, drops it when
// the test ends, and returns its catalog URL.
func newDatabase(t *testing.T, serverURL string) string {
	t.Helper()
	tg, err := parseURL(serverURL, 0)
	if err != nil {
		t.Fatalf("%v", err)
	}
	rnd := make([]byte, 6)
	rand.Read(rnd)
	label := nonWord.ReplaceAllString(strings.ToLower(t.Name()), "_")
	if len(label) > 40 {
		label = label[len(label)-40:]
	}
	name := "rct_" + hex.EncodeToString(rnd) + "_" + strings.Trim(label, "_")
	driver := map[Dialect]string{MySQL: "mysql", Postgres: "pgx"}[tg.dialect]
	admin, err := sql.Open(driver, tg.dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", tg.redacted, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	quoted := `"` + name + `"`
	if tg.dialect == MySQL {
		quoted = "`" + name + "`"
	}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+quoted); err != nil {
		admin.Close()
		t.Fatalf("create database %s on %s: %v", name, tg.redacted, err)
	}
	// Registered first, so it runs after the catalog of the test is closed.
	t.Cleanup(func() {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		drop := "DROP DATABASE " + quoted
		if tg.dialect == Postgres {
			drop += " WITH (FORCE)"
		}
		if _, err := admin.ExecContext(ctx, drop); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatalf("%v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// clock is a settable clock for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
