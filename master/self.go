package master

import (
	"context"

	"rangecopy/cluster"
	"rangecopy/hbase"
)

// checkNotSelf refuses a copy whose target table is its source table on the same cluster,
// found by HBase's cluster id as well as by address (cluster.CheckNotSelf): such a copy would
// bulk load into its own source and lose its delete markers and masked versions. The error
// matches ErrInvalidRequest and unwraps to a *cluster.SameTableError. A cluster id that cannot
// be read leaves the addresses to decide.
func (p *Planner) checkNotSelf(ctx context.Context) error {
	o := p.o
	if cluster.QualifiedTable(o.Spec.Table) != cluster.QualifiedTable(o.Spec.Target()) {
		return nil
	}
	src := cluster.Identity{ID: p.clusterID(ctx, p.src, o.Source), Config: o.Source}
	tgt := cluster.Identity{ID: p.clusterID(ctx, p.tgt, o.Target), Config: o.Target}
	if err := cluster.CheckNotSelf(src, tgt, o.Source.Name, o.Target.Name, o.Spec.Table, o.Spec.Target()); err != nil {
		return invalid(err)
	}
	return nil
}

// clusterID is the HBase cluster id of c's cluster, "" when it cannot be read.
func (p *Planner) clusterID(ctx context.Context, c *hbase.Client, cfg cluster.Config) string {
	cctx, cancel := context.WithTimeout(ctx, p.o.DialTimeout)
	defer cancel()
	id, err := c.ClusterID(cctx)
	if err != nil {
		p.log.Warn("cannot read the cluster id; telling the clusters apart by address", "cluster", cfg.String(), "err", err)
		return ""
	}
	return id
}
