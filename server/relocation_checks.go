package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/cluster"
	"rangecopy/hbase"
	"rangecopy/master"
	"rangecopy/relocate"
	"rangecopy/relocation"
)

// checkScopeTables adds to fe, as tables[i], each table of a relocation's scope named twice
// (relocate.CheckScopeTables), missing on the source or without a family asked for, or that
// would be copied onto itself (the same table on the same cluster, cluster.CheckNotSelf), as
// a job of that table would be refused. The clusters are reached to know; one that cannot be
// is a 502.
func (a *rest) checkScopeTables(ctx context.Context, in scopeCheck, fe *fieldErrs) error {
	for _, is := range relocate.CheckScopeTables(in.tables) {
		fe.add(fmt.Sprintf("tables[%d]", is.Index), is.Message, in.raw[is.Index])
	}
	srcCfg, srcUser, err := a.clusterConfig(ctx, in.source, "source")
	if err != nil {
		return err
	}
	tgtCfg, tgtUser, err := a.clusterConfig(ctx, in.target, "target")
	if err != nil {
		return err
	}
	log := a.s.cfg.Logger.With("part", "relocation check")
	src, release, err := a.s.pool.HBase(ctx, srcCfg, cmp.Or(srcUser, a.s.cfg.User), master.DefaultDialTimeout, log)
	if err != nil {
		return huma.Error502BadGateway(fmt.Sprintf("source cluster %s: %v", in.source, err))
	}
	defer release()
	for i, t := range in.tables {
		cctx, cancel := context.WithTimeout(ctx, master.DefaultDialTimeout)
		d, err := src.TableDescriptor(cctx, t.Source)
		cancel()
		switch {
		case errors.Is(err, hbase.ErrTableNotFound):
			fe.add(fmt.Sprintf("tables[%d]", i), fmt.Sprintf("source table %s does not exist on the %s", t.Source, srcCfg), in.raw[i])
			continue
		case err != nil:
			return huma.Error502BadGateway(fmt.Sprintf("source table %s on %s: %v", t.Source, in.source, err))
		}
		var missing []string
		for _, f := range in.families {
			if d.Family(f) == nil {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			fe.add(fmt.Sprintf("tables[%d]", i), fmt.Sprintf("source table %s has no column family %s", t.Source, strings.Join(missing, ", ")), in.raw[i])
		}
	}
	// The same table on one cluster: by address first, by HBase's cluster id when the
	// addresses differ (two registrations of one cluster).
	ids := func() (cluster.Identity, cluster.Identity, error) {
		s, t := cluster.Identity{Config: srcCfg}, cluster.Identity{Config: tgtCfg}
		tgt, releaseTgt, err := a.s.pool.HBase(ctx, tgtCfg, cmp.Or(tgtUser, a.s.cfg.User), master.DefaultDialTimeout, log)
		if err != nil {
			return s, t, huma.Error502BadGateway(fmt.Sprintf("target cluster %s: %v", in.target, err))
		}
		defer releaseTgt()
		s.ID, t.ID = clusterID(ctx, src, log), clusterID(ctx, tgt, log)
		return s, t, nil
	}
	var srcID, tgtID cluster.Identity
	read := false
	for i, t := range in.tables {
		if cluster.QualifiedTable(t.Source) != cluster.QualifiedTable(t.TargetTable()) {
			continue
		}
		if !read {
			if srcID, tgtID, err = ids(); err != nil {
				return err
			}
			read = true
		}
		if err := cluster.CheckNotSelf(srcID, tgtID, in.source, in.target, t.Source, t.TargetTable()); err != nil {
			fe.add(fmt.Sprintf("tables[%d]", i), err.Error(), in.raw[i])
		}
	}
	return nil
}

// scopeCheck is what checkScopeTables checks: the clusters by name, the tables as given
// (raw) and parsed, and the families asked for.
type scopeCheck struct {
	source, target string
	raw            []string
	tables         []relocation.TableMap
	families       []string
}

// clusterID is the HBase cluster id of c's cluster, "" (addresses decide) when it cannot be
// read.
func clusterID(ctx context.Context, c *hbase.Client, log *slog.Logger) string {
	cctx, cancel := context.WithTimeout(ctx, master.DefaultDialTimeout)
	defer cancel()
	id, err := c.ClusterID(cctx)
	if err != nil {
		log.Warn("cannot read a cluster's id; telling the clusters apart by address", "err", err)
		return ""
	}
	return id
}
