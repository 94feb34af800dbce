package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
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
	user           userFlag
	workDir        string
	limits         limitsFlags
	log            logFlags
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
secret to <data-dir>/admin-token (mode 0600). Every call needs a bearer token
unless --insecure-no-auth, which is allowed on a loopback address only.`,
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
	fs.StringVar(&f.id, "id", "", "this server's id in the master election, unique among live masters (default server-<host>-<pid>)")
	fs.IntVar(&f.workers, "workers", 0, "tasks the embedded workers run at once (default 0: none)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS with this certificate (PEM), with --tls-key")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the certificate's private key (PEM)")
	fs.BoolVar(&f.insecureNoAuth, "insecure-no-auth", false, "serve every call without a token, as an admin (loopback only)")
	f.user.add(fs, "HBase effective user and HDFS user of jobs whose clusters name none")
	fs.StringVar(&f.workDir, "work-dir", "", "parent of job work folders on the target HDFS (default /user/<user>/.rangecopy)")
	f.limits.add(fs)
	f.log.add(fs)
	f.log.complete(c)
	_ = c.MarkFlagFilename("config", "yaml", "yml")
	_ = c.MarkFlagDirname("data-dir")
	return c
}

// runServer runs the server until ctx ends.
func runServer(ctx context.Context, f serverFlags, stderr io.Writer) error {
	log, err := f.log.logger(stderr, slog.LevelInfo)
	if err != nil {
		return err
	}
	if err := f.registry.check(); err != nil {
		return err
	}
	zk := f.registry.servers()
	if len(zk) == 0 {
		return usageErrorf("--zk is required: the registry's ZooKeeper servers, host[:port],... (or set $%s)", zkEnv)
	}
	limits, err := f.limits.limits()
	if err != nil {
		return err
	}
	url := f.catalog
	if url == "" {
		if err := os.MkdirAll(f.dataDir, 0o700); err != nil {
			return usageErrorf("--data-dir: %v", err)
		}
		url = "sqlite://" + filepath.Join(f.dataDir, "catalog.db")
	}
	octx, cancel := context.WithTimeout(ctx, 60*time.Second)
	s, err := server.New(octx, server.Config{Listen: f.listen, Catalog: url, ZK: zk, ZKRoot: f.registry.zkRoot,
		SessionTimeout: f.registry.sessionTimeout, ID: f.id, Workers: f.workers, TLSCert: f.tlsCert, TLSKey: f.tlsKey,
		InsecureNoAuth: f.insecureNoAuth, User: f.user.get(), WorkRoot: f.workDir, Limits: limits, Logger: log, Version: version})
	cancel()
	if err != nil {
		return err
	}
	defer s.Close()
	if !f.insecureNoAuth {
		if err := bootstrapToken(ctx, s.Catalog(), f.dataDir, log); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "rangecopy server: serving %s%s\n", s.URL(), api.APIPrefix)
	return s.Run(ctx)
}

// bootstrapToken creates the first admin token of an empty catalog and writes its secret to
// <dataDir>/admin-token, readable by its owner only.
func bootstrapToken(ctx context.Context, cat *catalog.Catalog, dataDir string, log *slog.Logger) error {
	ts, err := cat.ListTokens(ctx)
	if err != nil {
		return err
	}
	if len(ts) > 0 {
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
	t, secret, err := cat.CreateToken(ctx, "bootstrap admin", catalog.RoleAdmin)
	if err != nil {
		fh.Close()
		os.Remove(path)
		return err
	}
	if _, err := fmt.Fprintln(fh, secret); err != nil {
		fh.Close()
		return fmt.Errorf("bootstrap token: write %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("bootstrap token: write %s: %w", path, err)
	}
	log.Warn("created the bootstrap admin token; its secret is in the file (mode 0600)", "token", t.ID, "file", path)
	return nil
}
