package master

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"rangecopy/bulkload"
	"rangecopy/cluster"
	"rangecopy/cluster/dial"
	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/job"
	"rangecopy/registry"
	"rangecopy/snapshot"
)

// Planner is a job's preparation, shared by every way of running it (the
// one-process copy, Submit, the leading master): the request checked, both
// clusters (HBase and HDFS) and the registry reached, the source table's
// schema and regions read. It registers the job, makes sure of the target
// table, pins and plans the job, and finishes it.
type Planner struct {
	o        *Options
	log      *slog.Logger
	src, tgt *hbase.Client
	srcFS    *fsys.HDFS
	tgtFS    *fsys.HDFS
	// createdNamespace is the target namespace this planner created for
	// the target table, if any.
	createdNamespace string
	reg              *registry.Registry
	srcDesc          *hbase.TableDescriptor // restricted to the copied families
	families         []string
	tgtExists        bool
	srcRegions       []*hbase.Region
	detached         bool // the job is submitted for the masters (Submit)
	sharedReg        bool // reg belongs to the caller (a leading master)
	// releases give pooled connections back (Options.Pool); with no pool the
	// connections are closed instead.
	releases []func()
}

// Close ends the planner's connections (not a registry it was handed).
func (p *Planner) Close() {
	if p.reg != nil && !p.sharedReg {
		p.reg.Close()
	}
	if p.o.Pool != nil {
		for _, release := range p.releases {
			release()
		}
		p.releases = nil
		return
	}
	for _, c := range []*hbase.Client{p.src, p.tgt} {
		if c != nil {
			c.Close()
		}
	}
	for _, c := range []*fsys.HDFS{p.srcFS, p.tgtFS} {
		if c != nil {
			c.Close()
		}
	}
}

// Open validates the request and connects to everything it needs, failing
// with an error that names the thing before anything is changed. With
// Options.Resume it reads the job's spec from the registry.
func Open(ctx context.Context, o Options) (*Planner, error) {
	o.defaults()
	p := &Planner{o: &o, log: o.Logger}
	ok := false
	defer func() {
		if !ok {
			p.Close()
		}
	}()
	if o.Resume == "" {
		if err := o.Spec.Validate(); err != nil {
			return nil, err
		}
	} else if err := registry.ValidateJobID(o.Resume); err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	for _, c := range []cluster.Config{o.Source, o.Target} {
		if !c.HasHDFS() {
			return nil, fmt.Errorf("%s: its HDFS is not known (give --%s-hdfs hdfs://namenode:port/hbase-root)", c, c.Name)
		}
	}
	var err error
	// The registry first: a resumed job brings its own spec. A dry run
	// does not touch it (opening it creates its root).
	if !o.DryRun || o.Resume != "" {
		rctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
		p.reg, err = registry.Open(rctx, registry.Config{Servers: o.ZK, Root: o.ZKRoot, Logger: o.Logger.With("part", "registry")})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("registry ZooKeeper %s: unreachable within %s: %w", strings.Join(o.ZK, ","), o.DialTimeout, err)
		}
	}
	if o.Resume != "" {
		j, err := p.reg.Job(ctx, o.Resume)
		if errors.Is(err, registry.ErrNotFound) {
			return nil, fmt.Errorf("--resume %s: no such job in the registry %s%s", o.Resume, strings.Join(o.ZK, ","), o.ZKRoot)
		}
		if err != nil {
			return nil, fmt.Errorf("--resume %s: %w", o.Resume, err)
		}
		rec, err := job.DecodeRecord(j.Spec)
		if err != nil {
			return nil, fmt.Errorf("--resume %s: %w", o.Resume, err)
		}
		if !rec.IsCopy() {
			return nil, fmt.Errorf("--resume %s: a %s job, not a copy (run rangecopy %s again with its arguments)", o.Resume, rec.Kind, rec.Kind)
		}
		if o.Spec.Table != "" && o.Spec.Table != rec.Spec.Table {
			return nil, fmt.Errorf("--resume %s: the job copies table %s, not %s", o.Resume, rec.Spec.Table, o.Spec.Table)
		}
		o.Spec = rec.Spec
	}
	if err := p.connect(ctx); err != nil {
		return nil, err
	}
	ok = true
	return p, nil
}

// connect reaches both clusters and their HDFS and checks the source and
// target tables.
func (p *Planner) connect(ctx context.Context) error {
	o := p.o
	var err error
	if p.src, err = p.dialHBase(ctx, o.Source); err != nil {
		return err
	}
	if p.tgt, err = p.dialHBase(ctx, o.Target); err != nil {
		return err
	}
	if err := p.checkNotSelf(ctx); err != nil {
		return err
	}
	if err := p.checkSource(ctx); err != nil {
		return err
	}
	if err := p.checkTarget(ctx); err != nil {
		return err
	}
	if p.srcFS, err = p.dialHDFS(ctx, o.Source); err != nil {
		return err
	}
	if p.tgtFS, err = p.dialHDFS(ctx, o.Target); err != nil {
		return err
	}
	return nil
}

// dialHBase reaches a cluster's HBase, through the pool when there is one.
func (p *Planner) dialHBase(ctx context.Context, c cluster.Config) (*hbase.Client, error) {
	o := p.o
	log := o.Logger.With("cluster", c.Name)
	if o.Pool == nil {
		return dial.HBase(ctx, c, o.User, o.DialTimeout, log)
	}
	cl, release, err := o.Pool.HBase(ctx, c, o.User, o.DialTimeout, log)
	if err != nil {
		return nil, err
	}
	p.releases = append(p.releases, release)
	return cl, nil
}

// dialHDFS reaches a cluster's HDFS, through the pool when there is one.
func (p *Planner) dialHDFS(ctx context.Context, c cluster.Config) (*fsys.HDFS, error) {
	o := p.o
	if o.Pool == nil {
		return dial.HDFS(ctx, c, o.User)
	}
	fs, release, err := o.Pool.HDFS(ctx, c, o.User)
	if err != nil {
		return nil, err
	}
	p.releases = append(p.releases, release)
	return fs, nil
}

// attach opens a planner for a registered job with the registry of the
// caller (a leading master): the record says how to reach the clusters.
func attach(ctx context.Context, reg *registry.Registry, rec job.Record, dialTimeout time.Duration, pool *dial.Pool, facts *snapshot.FactsCache, log *slog.Logger) (*Planner, error) {
	o := Options{Source: rec.Source, Target: rec.Target, Spec: rec.Spec, RunOptions: rec.Options,
		DialTimeout: dialTimeout, Pool: pool, Facts: facts, Logger: log}
	o.defaults()
	p := &Planner{o: &o, log: log, reg: reg, sharedReg: true, detached: true}
	if err := p.connect(ctx); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Options are the planner's options, defaults applied (and, for a resumed
// job, the spec its record holds).
func (p *Planner) Options() Options { return *p.o }

// Registry is the registry the job is in.
func (p *Planner) Registry() *registry.Registry { return p.reg }

// Logger is the job's log.
func (p *Planner) Logger() *slog.Logger { return p.log }

// Clusters are the connections to the source and target HBase and HDFS.
func (p *Planner) Clusters() (src, tgt *hbase.Client, srcFS, tgtFS *fsys.HDFS) {
	return p.src, p.tgt, p.srcFS, p.tgtFS
}

// checkSource reads the source table's schema and regions and checks the
// families asked for.
func (p *Planner) checkSource(ctx context.Context) error {
	o := p.o
	cctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
	defer cancel()
	d, err := p.src.TableDescriptor(cctx, o.Spec.Table)
	if errors.Is(err, hbase.ErrTableNotFound) {
		return invalid(fmt.Errorf("source table %s does not exist on the %s: %w", o.Spec.Table, o.Source, err))
	}
	if err != nil {
		return fmt.Errorf("source table %s on %s: %w", o.Spec.Table, o.Source, err)
	}
	var have []string
	for _, f := range d.Families {
		have = append(have, f.Name)
	}
	var missing []string
	for _, f := range o.Spec.Families {
		if d.Family(f) == nil {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return invalid(fmt.Errorf("source table %s has no column family %s (it has %s)", o.Spec.Table,
			strings.Join(missing, ", "), strings.Join(have, ", ")))
	}
	keep := *d
	keep.Families = nil
	for _, f := range d.Families {
		if o.Spec.WantsFamily(f.Name) {
			keep.Families = append(keep.Families, f)
			p.families = append(p.families, f.Name)
		}
	}
	p.srcDesc = &keep
	if p.srcRegions, err = p.src.Regions(cctx, o.Spec.Table); err != nil {
		return fmt.Errorf("source table %s: regions: %w", o.Spec.Table, err)
	}
	return nil
}

// checkTarget checks an existing target table has the families, or that a
// missing one may be created.
func (p *Planner) checkTarget(ctx context.Context) error {
	o := p.o
	target := o.Spec.Target()
	cctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
	defer cancel()
	have, err := p.tgt.TableDescriptor(cctx, target)
	switch {
	case err == nil:
		if missing := bulkload.MissingFamilies(p.srcDesc, have); len(missing) > 0 {
			return invalid(fmt.Errorf("on the %s: %w", o.Target, &bulkload.MissingFamiliesError{Table: target, Families: missing}))
		}
		p.tgtExists = true
		return nil
	case !errors.Is(err, hbase.ErrTableNotFound):
		return fmt.Errorf("target table %s on %s: %w", target, o.Target, err)
	case !o.CreateTable:
		return invalid(&bulkload.NoTargetTableError{Table: target, Cluster: o.Target.String()})
	}
	return nil
}

// EnsureTable makes sure of the target table: there, or created pre-split
// at the source's region boundaries in the range when the job may create it.
func (p *Planner) EnsureTable(ctx context.Context) error {
	o := p.o
	var starts [][]byte
	for _, reg := range p.srcRegions {
		starts = append(starts, reg.StartKey)
	}
	splits := bulkload.SplitKeys(starts, o.Spec.Rows.Start, o.Spec.Rows.End)
	if o.CreateTable {
		ns, err := bulkload.EnsureNamespace(ctx, p.tgt, o.Spec.Target())
		if err != nil {
			return err
		}
		if ns != "" {
			p.createdNamespace = ns
			p.log.Info("created the target namespace", "namespace", ns, "table", o.Spec.Target())
		}
	}
	created, err := bulkload.EnsureTable(ctx, p.tgt, *p.srcDesc, o.Spec.Target(), splits, o.CreateTable)
	if err != nil {
		return err
	}
	if created {
		p.log.Info("created the target table", "table", o.Spec.Target(), "regions", len(splits)+1)
	}
	return nil
}
