package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/server"
)

// serverFlags are the command line of rangecopy server.
type serverFlags struct {
	config         string
	listen         string
	dataDir        string
	catalog        string
	registry       registryFlags
	id             string
	workers        int
	tlsCert        string
	tlsKey         string
	insecureNoAuth bool
	bootstrapFile  string
	user           userFlag
	workDir        string
	zkWait         time.Duration
	limits         limitsFlags
	log            logFlags
	transport      serverTransportFlags
}

// defaultDataDir is where the server keeps its SQLite catalog and bootstrap token by default.
func defaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "rangecopy")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "rangecopy")
	}
	return "rangecopy-data"
}

func newServerCommand() *cobra.Command {
	var f serverFlags
	c := &cobra.Command{
		Use:   "server --zk <host:port,...>",
		Short: "serve the REST API and the catalog, lead detached jobs, run embedded workers",
		Long: `Runs rangecopy server: the REST API (` + api.APIPrefix + `, OpenAPI at
` + api.APIPrefix + `/openapi.yaml), the web dashboard at / (sign in with a token
secret), the catalog of clusters, jobs, tokens and the audit log, a candidate in the master election (the leader plans, retries and finishes
detached jobs, as rangecopy master does) and, with --workers N, embedded
workers. More rangecopy worker processes join through ZooKeeper.

Every flag may also be set by an environment variable (--catalog is
$RANGECOPY_CATALOG, --tls-cert is $RANGECOPY_TLS_CERT) or by a key of the YAML
--config file (keys are flag names); the command line wins over the
environment, the environment over the file.

The catalog defaults to a SQLite file in --data-dir; give
--catalog mysql://user:pass@host:3306/db or postgres://user:pass@host/db for
production. On its first start the server creates an admin token and writes its
secret to <data-dir>/admin-token (mode 0600); with --bootstrap-token-file it
instead imports the secret an operator generated (rangecopy token generate),
keeping only its SHA-256, and writes no file. Of servers starting together on
one catalog, one creates the token. Every call needs a bearer token unless
--insecure-no-auth, which is allowed on a loopback address only.`,
		Example: `  rangecopy server --zk zk1,zk2,zk3:2181 --workers 4
  rangecopy server --config /etc/rangecopy/server.yaml
  RANGECOPY_CATALOG=postgres://rc:secret@db1/rangecopy rangecopy server --zk zk1:2181 --listen 0.0.0.0:8443 \
      --tls-cert /etc/rangecopy/tls.crt --tls-key /etc/rangecopy/tls.key`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := applySettings(c.Flags(), f.config, "config"); err != nil {
				return err
			}
			return runServer(c.Context(), f, c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.StringVar(&f.config, "config", "", "YAML file of settings, keys are flag names (default none)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8080", "address of the API, host:port")
	fs.StringVar(&f.dataDir, "data-dir", defaultDataDir(), "folder of the SQLite catalog and the bootstrap admin token")
	fs.StringVar(&f.catalog, "catalog", "", "catalog URL: sqlite:///path, mysql://user:pass@host:port/db or postgres://user:pass@host:port/db (default <data-dir>/catalog.db)")
	f.registry.add(fs, "")
	f.registry.addSessionTimeout(fs)
	fs.DurationVar(&f.zkWait, "zk-wait", time.Minute, "how long to wait at start for ZooKeeper to answer before giving up")
	fs.StringVar(&f.id, "id", "", "this server's id in the master election, unique among live masters (default server-<host>-<pid>)")
	fs.IntVar(&f.workers, "workers", 0, "tasks the embedded workers run at once (default 0: none)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS with this certificate (PEM), with --tls-key")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the certificate's private key (PEM)")
	fs.BoolVar(&f.insecureNoAuth, "insecure-no-auth", false, "serve every call without a token, as an admin (loopback only)")
	fs.StringVar(&f.bootstrapFile, "bootstrap-token-file", "", "on the first start, make the admin token of the secret in this file (rangecopy token generate) instead of writing <data-dir>/admin-token")
	f.user.add(fs, "HBase effective user and HDFS user of jobs whose clusters name none")
	fs.StringVar(&f.workDir, "work-dir", "", "parent of job work folders on the target HDFS (default /user/<user>/.rangecopy)")
	f.transport.add(fs)
	f.limits.add(fs)
	f.log.add(fs)
	f.log.complete(c)
	_ = c.MarkFlagFilename("config", "yaml", "yml")
	_ = c.MarkFlagDirname("data-dir")
	return c
}

// runServer runs the server until ctx ends. Its flags are checked before it connects to
// anything; while it waits for ZooKeeper it says so on its log.
func runServer(ctx context.Context, f serverFlags, stderr io.Writer) error {
	log, err := f.log.logger(stderr, slog.LevelInfo)
	if err != nil {
		return err
	}
	url, err := f.check()
	if err != nil {
		return err
	}
	if err := f.transport.preflight(f.listen, f.tlsCert, f.tlsKey, f.insecureNoAuth); err != nil {
		return err
	}
	limits, err := f.limits.limits()
	if err != nil {
		return err
	}
	// The bootstrap secret's file is read before anything starts, so a placeholder stops
	// the server at once.
	var bootSecret string
	if f.bootstrapFile != "" && !f.insecureNoAuth {
		if bootSecret, err = readSecretFile(f.bootstrapFile); err != nil {
			return usageErrorf("--bootstrap-token-file: %v", err)
		}
	}
	zk := f.registry.servers()
	start := time.Now()
	log.Info(fmt.Sprintf("connecting to ZooKeeper %s …", strings.Join(zk, ",")), "zk-root", f.registry.zkRoot, "zk-wait", f.zkWait)
	if err := waitZooKeeper(ctx, zk, f.zkWait, log); err != nil {
		return err
	}
	log.Info(fmt.Sprintf("ZooKeeper %s answers; opening the catalog and the registry session", strings.Join(zk, ",")), "catalog", catalog.RedactURL(url))
	octx, cancel := context.WithTimeout(ctx, max(f.zkWait-time.Since(start), 5*time.Second))
	stopTicker := tickWhile(octx, 10*time.Second, func(waited time.Duration) {
		log.Info("still opening the catalog and the ZooKeeper session", "waited", waited.Round(time.Second), "zk", strings.Join(zk, ","))
	})
	s, err := server.New(octx, server.Config{Listen: f.listen, Catalog: url, ZK: zk, ZKRoot: f.registry.zkRoot,
		SessionTimeout: f.registry.sessionTimeout, ID: f.id, Workers: f.workers, TLSCert: f.tlsCert, TLSKey: f.tlsKey,
		InsecureNoAuth: f.insecureNoAuth, User: f.user.get(), WorkRoot: f.workDir, Logger: log, Version: version,
		InsecurePlainHTTP: f.transport.insecurePlainHTTP, BehindTLSProxy: f.transport.behindTLSProxy,
		Sessions: catalog.SessionLimits{Idle: f.transport.sessionIdle, Lifetime: f.transport.sessionLifetime}, Limits: limits})
	stopTicker()
	timedOut := octx.Err() != nil && ctx.Err() == nil
	cancel()
	if err != nil {
		if timedOut {
			return fmt.Errorf("gave up after %s: no catalog and ZooKeeper session (--zk %s, catalog %s): %w",
				time.Since(start).Round(time.Second), strings.Join(zk, ","), catalog.RedactURL(url), startError{err})
		}
		return startError{err}
	}
	defer s.Close()
	if !f.insecureNoAuth {
		if err := bootstrapToken(ctx, s.Catalog(), f.dataDir, bootSecret, log); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "rangecopy server: serving %s%s\n", s.URL(), api.APIPrefix)
	return s.Run(ctx)
}

// check validates the server's flags, before anything is opened or dialled, and returns the
// catalog URL (the SQLite file in --data-dir when --catalog is empty). Every problem is a
// usage error.
func (f serverFlags) check() (string, error) {
	if err := f.registry.check(); err != nil {
		return "", err
	}
	if len(f.registry.servers()) == 0 {
		return "", usageErrorf("--zk is required: the registry's ZooKeeper servers, host[:port],... (or set $%s)", zkEnv)
	}
	if f.zkWait <= 0 {
		return "", usageErrorf("--zk-wait %s: must be positive", f.zkWait)
	}
	if f.workers < 0 || f.workers > 256 {
		return "", usageErrorf("--workers %d: want 0 (none) to 256", f.workers)
	}
	host, port, err := net.SplitHostPort(f.listen)
	if err != nil {
		return "", usageErrorf("--listen %q: want host:port, such as 127.0.0.1:8080 or 0.0.0.0:8443", f.listen)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", usageErrorf("--listen %q: port %q is not a number in 0..65535", f.listen, port)
	}
	if f.insecureNoAuth && !server.LoopbackHost(host) {
		return "", usageErrorf("--insecure-no-auth serves everyone as an admin, so it listens only on loopback, not %q", f.listen)
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return "", usageErrorf("--tls-cert and --tls-key go together: give both (or $RANGECOPY_TLS_CERT and $RANGECOPY_TLS_KEY), or neither")
	}
	url := f.catalog
	if url == "" {
		if err := os.MkdirAll(f.dataDir, 0o700); err != nil {
			return "", usageErrorf("--data-dir: %v", err)
		}
		return "sqlite://" + filepath.Join(f.dataDir, "catalog.db"), nil
	}
	if strings.Contains(strings.ToUpper(url), placeholder) {
		return "", usageErrorf("--catalog %s still holds the placeholder %s: put the real catalog URL in the Secret rangecopy-catalog (docs/operations.md, \"Kubernetes\")",
			catalog.RedactURL(url), placeholder)
	}
	if err := catalog.CheckURL(url); err != nil {
		return "", usageErrorf("--catalog: %v", err)
	}
	return url, nil
}

// placeholder is the value shipped example Secrets hold until an operator replaces it.
const placeholder = "CHANGE-ME"

// startError is an error of server.New as rangecopy server shows it: after the command's
// name, the package's own "server: " prefix would say it twice, and the server's "registry: "
// before the registry's own.
type startError struct{ err error }

func (e startError) Error() string {
	msg := strings.TrimPrefix(e.err.Error(), "server: ")
	return strings.Replace(msg, "registry: registry: ", "registry: ", 1)
}
func (e startError) Unwrap() error { return e.err }

// waitZooKeeper waits until one of the ZooKeeper servers accepts a connection, saying every
// 10 s on log that it still waits, and gives up after wait with one sentence naming them and
// the last error.
func waitZooKeeper(ctx context.Context, servers []string, wait time.Duration, log *slog.Logger) error {
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	lastSaid := start
	var last error
	for {
		err := dialAny(wctx, servers)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		waited := time.Since(start)
		if wctx.Err() != nil {
			if last == nil { // else keep the cause, not the cut-off last dial's
				last = err
			}
			return fmt.Errorf("no ZooKeeper server answered at %s in %s (last: %v): check --zk (or $%s) and that ZooKeeper runs",
				strings.Join(servers, ","), waited.Round(time.Second), last, zkEnv)
		}
		last = err
		if time.Since(lastSaid) >= 10*time.Second {
			log.Info(fmt.Sprintf("still waiting for ZooKeeper %s", strings.Join(servers, ",")), "waited", waited.Round(time.Second),
				"gives-up-after", wait, "err", err)
			lastSaid = time.Now()
		}
		select {
		case <-wctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// dialAny opens and closes a TCP connection to the first of servers that accepts one, each
// tried for at most 2 s; it returns the last error when none does.
func dialAny(ctx context.Context, servers []string) error {
	var last error
	for _, s := range servers {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := (&net.Dialer{}).DialContext(dctx, "tcp", s)
		cancel()
		if err == nil {
			conn.Close()
			return nil
		}
		last = err
	}
	return last
}

// tickWhile calls fn every period with the time since it was called until ctx ends or the
// returned stop is called; stop waits for fn's last call.
func tickWhile(ctx context.Context, period time.Duration, fn func(waited time.Duration)) (stop func()) {
	start := time.Now()
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case <-t.C:
				fn(time.Since(start))
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}

// bootstrapToken creates the first admin token of a catalog that has none, once among the
// servers starting on it. With secret (--bootstrap-token-file's), the token's secret is
// that one (the catalog keeps its SHA-256, no file is written); without, a new secret is
// written to <dataDir>/admin-token, readable by its owner only.
func bootstrapToken(ctx context.Context, cat *catalog.Catalog, dataDir, secret string, log *slog.Logger) error {
	spec := catalog.TokenSpec{Name: "bootstrap admin", Role: catalog.RoleAdmin, Secret: secret}
	done, err := cat.Bootstrapped(ctx)
	if err != nil || done {
		return err
	}
	if secret != "" {
		t, _, created, err := cat.BootstrapToken(ctx, spec)
		if err != nil {
			return fmt.Errorf("bootstrap token: %w", err)
		}
		if created {
			log.Warn("created the bootstrap admin token of the --bootstrap-token-file secret", "token", t.ID)
		}
		return nil
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("bootstrap token: %w", err)
	}
	path := filepath.Join(dataDir, "admin-token")
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("bootstrap token: the catalog has no token but %s exists: remove it, or create a token with rangecopy token create", path)
	}
	if err != nil {
		return fmt.Errorf("bootstrap token: %w", err)
	}
	t, newSecret, created, err := cat.BootstrapToken(ctx, spec)
	if err != nil || !created {
		// Another server made it first (or none could be made): this file stays empty.
		fh.Close()
		os.Remove(path)
		if err != nil {
			return fmt.Errorf("bootstrap token: %w", err)
		}
		return nil
	}
	if _, err := fmt.Fprintln(fh, newSecret); err != nil {
		fh.Close()
		return fmt.Errorf("bootstrap token: write %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("bootstrap token: write %s: %w", path, err)
	}
	log.Warn("created the bootstrap admin token; its secret is in the file (mode 0600)", "token", t.ID, "file", path)
	return nil
}
