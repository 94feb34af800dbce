package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rangecopy/cluster"
	"rangecopy/hbase"
	"rangecopy/job"
	"rangecopy/progress"
	"rangecopy/registry"
)

// The flag groups below are each defined once and added to every command
// that takes them, so a flag has one name, one parser and one default.

// clusterFlags name one cluster: --<side> (a folder of site files or a
// ZooKeeper cluster key) and --<side>-hdfs (its hbase.rootdir).
type clusterFlags struct {
	side    string // "source" or "target": the flags' prefix
	spec    string
	rootDir string
}

func (c *clusterFlags) add(fs *pflag.FlagSet, side string) {
	c.side = side
	fs.StringVar(&c.spec, side, "", side+" cluster: folder of its site files, or ZooKeeper cluster key zk1,zk2:2181:/hbase; with --server, the name of a cluster registered there (required)")
	fs.StringVar(&c.rootDir, side+"-hdfs", "", side+" hbase.rootdir, hdfs://namenode:port/path (needed with a cluster key)")
	_ = cobra.MarkFlagDirname(fs, side)
}

// config reads the cluster the flags name; it reads a configuration folder
// but talks to no cluster.
func (c clusterFlags) config() (cluster.Config, error) {
	cfg, err := cluster.Parse(c.side, c.spec)
	if err != nil {
		return cfg, usageErrorf("--%s: %v", c.side, err)
	}
	if c.rootDir != "" {
		nns, dir, err := cluster.ParseRootDir(c.rootDir, nil)
		if err != nil {
			return cfg, usageErrorf("--%s-hdfs: %v", c.side, err)
		}
		cfg.NameNodes, cfg.RootDir = nns, dir
	}
	if !cfg.HasHDFS() {
		return cfg, usageErrorf("--%s %s names no HDFS: give --%s-hdfs hdfs://namenode:port/hbase-root", c.side, c.spec, c.side)
	}
	return cfg, nil
}

// rangeFlags select what of a table a command reads: --table,
// --target-table, the row range, the time range and --families, as copy and
// verify take them.
type rangeFlags struct {
	table, targetTable string
	startRow, stopRow  string
	startTime, endTime string
	families           string
}

// add adds the flags; verb says what the command does with the cells
// ("copy", "compare").
func (r *rangeFlags) add(fs *pflag.FlagSet, verb, tableHelp string) {
	fs.StringVar(&r.table, "table", "", "source table, [namespace:]name ("+tableHelp+")")
	fs.StringVar(&r.targetTable, "target-table", "", "target table (default the source table's name)")
	fs.StringVar(&r.startRow, "start-row", "", "first row to "+verb+" (inclusive; default the start of the table)")
	fs.StringVar(&r.stopRow, "stop-row", "", "row to stop before (exclusive; default the end of the table)")
	fs.StringVar(&r.startTime, "start-time", "", "oldest cell timestamp to "+verb+", ms (inclusive; default 0)")
	fs.StringVar(&r.endTime, "end-time", "", "cell timestamp to stop before, ms (exclusive; default no limit)")
	fs.StringVar(&r.families, "families", "", "comma-separated column families to "+verb+" (default all)")
}

// request parses the flags into the range part of a job.Request; it does not check it.
func (r rangeFlags) request() (job.Request, error) {
	req := job.Request{Table: r.table, TargetTable: r.targetTable, StartRow: r.startRow, StopRow: r.stopRow}
	var err error
	if req.StartTime, err = parseMillis("--start-time", r.startTime); err != nil {
		return req, err
	}
	if req.EndTime, err = parseMillis("--end-time", r.endTime); err != nil {
		return req, err
	}
	if req.Families, err = parseFamilies(r.families); err != nil {
		return req, err
	}
	return req, nil
}

// parseFamilies reads --families, comma-separated names; empty is every family (nil). An
// empty name in the list (",", "a,,b", "a,") is refused rather than dropped: the list would
// otherwise mean fewer families, or all of them, than the command line seems to say.
func parseFamilies(v string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	return checkFamilies(strings.Split(v, ","))
}

// checkFamilies trims each family name and refuses an empty one, naming its place.
func checkFamilies(names []string) ([]string, error) {
	out := make([]string, 0, len(names))
	for i, fam := range names {
		if fam = strings.TrimSpace(fam); fam == "" {
			return nil, usageErrorf("--families %q: name %d of %d is empty (leave --families out for every family)",
				strings.Join(names, ","), i+1, len(names))
		}
		out = append(out, fam)
	}
	return out, nil
}

// spec parses and checks the flags into a job spec.
func (r rangeFlags) spec() (job.Spec, error) {
	req, err := r.request()
	if err != nil {
		return job.Spec{}, err
	}
	s, _, err := req.Resolve()
	if err != nil {
		return job.Spec{}, fieldUsage(err)
	}
	return s, nil
}

// fieldUsage is the usage error of a job.Request's field errors, each named by its flag.
func fieldUsage(err error) error {
	var msgs []string
	for _, fe := range job.FieldErrors(err) {
		msgs = append(msgs, fe.Flag()+": "+fe.Err.Error())
	}
	if len(msgs) == 0 {
		return usageErrorf("%v", err)
	}
	return usageErrorf("%s", strings.Join(msgs, "; "))
}

// parseMillis reads a time flag in milliseconds; empty is no bound (nil).
func parseMillis(flag, v string) (*int64, error) {
	if v == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, usageErrorf("%s %q: not a number of milliseconds", flag, v)
	}
	return &n, nil
}

// registryFlags locate the registry in ZooKeeper: --zk and --zk-root, and
// for the processes that hold a session of their own (master, worker),
// --session-timeout.
type registryFlags struct {
	zk, zkRoot     string
	sessionTimeout time.Duration
}

// zkEnv is the environment variable --zk defaults to.
const zkEnv = "RANGECOPY_ZK"

// add adds --zk and --zk-root; fallback says what an empty --zk means when
// $RANGECOPY_ZK is empty too ("" when --zk is then required, "-" when it is
// required unless --server names a server).
func (r *registryFlags) add(fs *pflag.FlagSet, fallback string) {
	help := "ZooKeeper servers of the registry, host[:port],... (default $" + zkEnv
	switch fallback {
	case "":
		help += "; required"
	case "-":
		help += "; required without --server or $" + serverEnv
	default:
		help += ", else " + fallback
	}
	fs.StringVar(&r.zk, "zk", "", help+")")
	fs.StringVar(&r.zkRoot, "zk-root", registry.DefaultRoot, "registry root in ZooKeeper")
}

// addSessionTimeout adds --session-timeout.
func (r *registryFlags) addSessionTimeout(fs *pflag.FlagSet) {
	fs.DurationVar(&r.sessionTimeout, "session-timeout", 10*time.Second,
		"ZooKeeper session timeout: how soon the others notice this process died (the server clamps it, usually to [4s, 40s])")
}

// servers parses --zk (or $RANGECOPY_ZK when --zk is empty), adding the
// default port 2181 where a server has none; none given gives nil.
func (r registryFlags) servers() []string {
	list := r.zk
	if list == "" {
		list = os.Getenv(zkEnv)
	}
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !strings.Contains(s, ":") {
			s += ":2181"
		}
		out = append(out, s)
	}
	return out
}

// check validates --zk-root and --session-timeout.
func (r registryFlags) check() error {
	if err := registry.ValidateRoot(r.zkRoot); err != nil {
		return usageErrorf("--zk-root: %v", err)
	}
	if r.sessionTimeout < 0 {
		return usageErrorf("--session-timeout %s: must be positive", r.sessionTimeout)
	}
	return nil
}

// open validates the flags, with --zk required, and opens the registry.
func (r registryFlags) open(ctx context.Context, log *slog.Logger) (*registry.Registry, error) {
	servers := r.servers()
	if len(servers) == 0 {
		return nil, usageErrorf("--zk is required: the registry's ZooKeeper servers, host[:port],... (or set $%s)", zkEnv)
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	log.Info(fmt.Sprintf("connecting to ZooKeeper %s …", strings.Join(servers, ",")), "zk-root", r.zkRoot)
	return openRegistry(ctx, registry.Config{Servers: servers, Root: r.zkRoot, SessionTimeout: r.sessionTimeout, Logger: log.With("part", "registry")})
}

// openRegistry opens the registry cfg names, giving up after 30 s.
func openRegistry(ctx context.Context, cfg registry.Config) (*registry.Registry, error) {
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	reg, err := registry.Open(octx, cfg)
	if err != nil {
		return nil, fmt.Errorf("registry ZooKeeper %s: %w", strings.Join(cfg.Servers, ","), err)
	}
	return reg, nil
}

// progressPrinter is how a command shows progress on stderr: a bar redrawn
// every 500 ms on a terminal, else a log line of what every 10 s.
func progressPrinter(stderr io.Writer, log *slog.Logger, what string) (progress.Printer, time.Duration) {
	if isTerminal(stderr) {
		return &progress.Terminal{W: stderr}, 500 * time.Millisecond
	}
	return &progress.Log{Logger: log, What: what}, 10 * time.Second
}

// logFlags say how a command logs on stderr: --log-format and -v.
type logFlags struct {
	format  string
	verbose bool
}

func (l *logFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&l.format, "log-format", "text", "log format on stderr: text or json")
	fs.BoolVarP(&l.verbose, "verbose", "v", false, "log debug detail too (every task and input file)")
}

// complete registers the completion of --log-format's values on c.
func (l *logFlags) complete(c *cobra.Command) {
	_ = c.RegisterFlagCompletionFunc("log-format", cobra.FixedCompletions([]cobra.Completion{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
}

// logger makes the command's logger on w, logging from level up (from debug
// up with -v).
func (l logFlags) logger(w io.Writer, level slog.Level) (*slog.Logger, error) {
	if l.verbose {
		level = slog.LevelDebug
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	o := &slog.HandlerOptions{Level: level}
	if l.format == "json" {
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return slog.New(slog.NewTextHandler(w, o)), nil
}

// check validates --log-format.
func (l logFlags) check() error {
	if l.format != "text" && l.format != "json" {
		return usageErrorf("--log-format %q: want text or json", l.format)
	}
	return nil
}

// userFlag is --user: the user to act as on HBase and HDFS.
type userFlag struct {
	name string
}

// add adds --user; what says what the user is for.
func (u *userFlag) add(fs *pflag.FlagSet, what string) {
	fs.StringVar(&u.name, "user", "", what+" (default $HADOOP_USER_NAME, else the OS user)")
}

// get is --user, else hbase.DefaultUser.
func (u userFlag) get() string {
	if u.name != "" {
		return u.name
	}
	return hbase.DefaultUser()
}

// goStyleFlags rewrites flags written the way Go's flag package took them,
// -name and -name=value, to --name for the command args run, and --x to
// -x for a one-letter shorthand, so command lines written before rangecopy
// moved to cobra keep working. The values of flags and everything after
// "--" are left alone.
func goStyleFlags(root *cobra.Command, args []string) []string {
	c, _, err := root.Find(args)
	if err != nil || c == nil {
		c = root
	}
	c.InitDefaultHelpFlag()
	lookup := func(name string) *pflag.Flag {
		if f := c.LocalFlags().Lookup(name); f != nil {
			return f
		}
		return c.InheritedFlags().Lookup(name)
	}
	shorthand := func(name string) *pflag.Flag {
		if f := c.LocalFlags().ShorthandLookup(name); f != nil {
			return f
		}
		return c.InheritedFlags().ShorthandLookup(name)
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var f *pflag.Flag
		switch {
		case len(name) == 1:
			if f = shorthand(name); f != nil {
				out[len(out)-1] = "-" + strings.TrimLeft(a, "-")
			}
		case strings.HasPrefix(a, "--"):
			f = lookup(name)
		default:
			if f = lookup(name); f != nil {
				out[len(out)-1] = "-" + a
			}
		}
		if f != nil && f.NoOptDefVal == "" && !hasValue && i+1 < len(args) {
			i++
			out = append(out, args[i]) // the flag's value, whatever it looks like
		}
	}
	return out
}
