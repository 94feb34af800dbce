package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"rangecopy/registry"
)

// registryFlags are the flags every command that talks to the registry
// alone (master, worker, job) takes.
type registryFlags struct {
	zk, zkRoot     string
	sessionTimeout time.Duration
	logFormat      string
	verbose        bool
}

func (r *registryFlags) add(fs *flag.FlagSet, withSession bool) {
	fs.StringVar(&r.zk, "zk", os.Getenv("RANGECOPY_ZK"), "ZooKeeper servers of the registry, host:port,... (required; default $RANGECOPY_ZK)")
	fs.StringVar(&r.zkRoot, "zk-root", "/rangecopy", "registry root in ZooKeeper")
	fs.StringVar(&r.logFormat, "log-format", "text", "log format on stderr: text or json")
	fs.BoolVar(&r.verbose, "v", false, "log debug detail")
	if withSession {
		fs.DurationVar(&r.sessionTimeout, "session-timeout", 10*time.Second,
			"ZooKeeper session timeout: how soon the others notice this process died (the server clamps it, usually to [4s, 40s])")
	}
}

// servers parses --zk.
func (r *registryFlags) servers() ([]string, error) {
	var out []string
	for _, s := range strings.Split(r.zk, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !strings.Contains(s, ":") {
			s += ":2181"
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: --zk is required: the registry's ZooKeeper servers, host:port,...", errUsage)
	}
	return out, nil
}

// logger makes the command's logger on w.
func (r *registryFlags) logger(w io.Writer) (*slog.Logger, error) {
	level := slog.LevelInfo
	if r.verbose {
		level = slog.LevelDebug
	}
	o := &slog.HandlerOptions{Level: level}
	switch r.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return nil, fmt.Errorf("%w: --log-format %q: want text or json", errUsage, r.logFormat)
}

// start makes the command's logger on w and opens the registry with it.
func (r *registryFlags) start(ctx context.Context, w io.Writer) (*slog.Logger, *registry.Registry, error) {
	log, err := r.logger(w)
	if err != nil {
		return nil, nil, err
	}
	reg, err := r.open(ctx, log)
	if err != nil {
		return nil, nil, err
	}
	return log, reg, nil
}

// open validates the flags and opens the registry.
func (r *registryFlags) open(ctx context.Context, log *slog.Logger) (*registry.Registry, error) {
	servers, err := r.servers()
	if err != nil {
		return nil, err
	}
	if err := registry.ValidateRoot(r.zkRoot); err != nil {
		return nil, fmt.Errorf("%w: --zk-root: %v", errUsage, err)
	}
	if r.sessionTimeout < 0 {
		return nil, fmt.Errorf("%w: --session-timeout %s: must be positive", errUsage, r.sessionTimeout)
	}
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	reg, err := registry.Open(octx, registry.Config{Servers: servers, Root: r.zkRoot, SessionTimeout: r.sessionTimeout,
		Logger: log.With("part", "registry")})
	if err != nil {
		return nil, fmt.Errorf("registry ZooKeeper %s: %w", strings.Join(servers, ","), err)
	}
	return reg, nil
}

// parseFlags parses args, with -h answered by the usage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return flag.ErrHelp
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

// parseCommand parses the flags of a command that takes no arguments;
// help reports -h (answered already by the usage).
func parseCommand(fs *flag.FlagSet, args []string) (help bool, err error) {
	if err := parseFlags(fs, args); err != nil {
		return errors.Is(err, flag.ErrHelp), err
	}
	if fs.NArg() != 0 {
		return false, fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	return false, nil
}
