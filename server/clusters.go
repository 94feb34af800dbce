package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/cluster"
)

// clusterOut is a registered cluster as a caller of role may read it: its site files
// redacted (siteRedaction), never as stored.
func clusterOut(c catalog.Cluster, role catalog.Role) api.ClusterOut {
	return api.ClusterOut{Name: c.Name, ZKQuorum: c.ZKQuorum, ZNodeParent: c.ZNodeParent, HDFSRoot: c.HDFSRoot,
		User: c.User, SiteFiles: cluster.RedactSiteFiles(c.SiteFiles, siteRedaction(role)), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// siteRedaction is how much of a cluster's site files a role reads: admins, who register
// clusters, every value but secret-bearing ones; viewers and operators only the values that
// say where the cluster is (the rest could be anything, and a job needs none of it).
func siteRedaction(role catalog.Role) cluster.Redaction {
	if role == catalog.RoleAdmin {
		return cluster.RedactSecrets
	}
	return cluster.RedactAllButLayout
}

type clusterNameIn struct {
	Name string `path:"name" minLength:"1" maxLength:"128" pattern:"^[A-Za-z0-9][A-Za-z0-9._-]*$" doc:"the cluster's name"`
}

type clusterOutput struct {
	Body api.ClusterOut
}

type clusterListOutput struct {
	Body api.ClusterList
}

// configOf reads a registered cluster as the engine reaches it. It talks to no cluster.
func configOf(name string, in api.ClusterInput) (cluster.Config, error) {
	if len(in.SiteFiles) > 0 {
		site, err := cluster.ParseSite(in.SiteFiles)
		if err != nil {
			return cluster.Config{}, fieldProblem("siteFiles", err.Error(), nil)
		}
		c, err := cluster.FromSite(name, "its site files", site)
		if err != nil {
			return cluster.Config{}, fieldProblem("siteFiles", err.Error(), nil)
		}
		return c, nil
	}
	if in.ZKQuorum == "" {
		return cluster.Config{}, fieldProblem("zkQuorum", "required unless siteFiles are given", nil)
	}
	if strings.Contains(in.ZKQuorum, "/") {
		return cluster.Config{}, fieldProblem("zkQuorum", "give hosts and ports only; the parent goes in znodeParent", in.ZKQuorum)
	}
	parent := in.ZNodeParent
	if parent == "" {
		parent = cluster.DefaultZNodeParent
	}
	c, err := cluster.ParseClusterKey(name, in.ZKQuorum+parent)
	if err != nil {
		return cluster.Config{}, fieldProblem("zkQuorum", err.Error(), in.ZKQuorum)
	}
	if in.HDFSRoot == "" {
		return cluster.Config{}, fieldProblem("hdfsRoot", "required unless siteFiles are given: hbase.rootdir, hdfs://namenode:port/path", nil)
	}
	if c.NameNodes, c.RootDir, err = cluster.ParseRootDir(in.HDFSRoot, nil); err != nil {
		return cluster.Config{}, fieldProblem("hdfsRoot", err.Error(), in.HDFSRoot)
	}
	return c, nil
}

// resolvable refuses a cluster whose ZooKeeper or NameNode hosts have no address: a typo
// found at registration rather than at each job's submission. IP addresses pass as they are.
func resolvable(ctx context.Context, cfg cluster.Config) error {
	check := func(field string, hostports []string) error {
		for _, hp := range hostports {
			host, _, err := net.SplitHostPort(hp)
			if err != nil {
				host = hp
			}
			if net.ParseIP(host) != nil {
				continue
			}
			lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err = net.DefaultResolver.LookupHost(lctx, host)
			cancel()
			if err != nil {
				return fieldProblem(field, fmt.Sprintf("host %q has no address: %v", host, err), host)
			}
		}
		return nil
	}
	if err := check("zkQuorum", cfg.ZKQuorum); err != nil {
		return err
	}
	return check("hdfsRoot", cfg.NameNodes)
}

// inputOf is the registered form of a catalog cluster.
func inputOf(c catalog.Cluster) api.ClusterInput {
	return api.ClusterInput{ZKQuorum: c.ZKQuorum, ZNodeParent: c.ZNodeParent, HDFSRoot: c.HDFSRoot, User: c.User, SiteFiles: c.SiteFiles}
}

// recordOf is the catalog record of a checked cluster input.
func recordOf(name string, in api.ClusterInput, cfg cluster.Config) catalog.Cluster {
	c := catalog.Cluster{Name: name, ZKQuorum: in.ZKQuorum, ZNodeParent: in.ZNodeParent, HDFSRoot: in.HDFSRoot,
		User: in.User, SiteFiles: in.SiteFiles}
	if c.ZKQuorum == "" {
		c.ZKQuorum = strings.Join(cfg.ZKQuorum, ",")
	}
	if c.ZNodeParent == "" {
		c.ZNodeParent = cfg.ZNodeParent
	}
	if c.HDFSRoot == "" {
		c.HDFSRoot = "hdfs://" + strings.Join(cfg.NameNodes, ",") + cfg.RootDir
	}
	return c
}

func (a *rest) registerClusters() {
	cat := a.s.cat
	list := op("list-clusters", http.MethodGet, "/clusters", "List the registered clusters", catalog.RoleViewer, "clusters")
	list.Errors = append(list.Errors, http.StatusBadRequest)
	huma.Register(a.h, list, func(ctx context.Context, in *struct{ api.PageQuery }) (*clusterListOutput, error) {
		cs, err := cat.ListClusters(ctx)
		if err != nil {
			return nil, a.problem(err, "clusters")
		}
		page, next := pageByKey(cs, func(c catalog.Cluster) string { return c.Name }, in.PageQuery)
		out := &clusterListOutput{Body: api.ClusterList{Clusters: []api.ClusterOut{}, Next: next}}
		for _, c := range page {
			out.Body.Clusters = append(out.Body.Clusters, clusterOut(c, callerOf(ctx).role))
		}
		return out, nil
	})
	create := op("create-cluster", http.MethodPost, "/clusters", "Register a cluster", catalog.RoleAdmin, "clusters")
	create.DefaultStatus = http.StatusCreated
	create.Errors = append(create.Errors, http.StatusBadRequest, http.StatusConflict)
	huma.Register(a.h, create, func(ctx context.Context, in *struct {
		Unchecked bool `query:"unchecked" doc:"register even if the cluster's ZooKeeper gives no session now (otherwise it is tried for a few seconds)"`
		Body      api.ClusterCreateRequest
	}) (*clusterOutput, error) {
		if _, err := cluster.KeepRedacted(in.Body.SiteFiles, nil); err != nil {
			return nil, fieldProblem("siteFiles", err.Error(), nil)
		}
		cfg, err := configOf(in.Body.Name, in.Body.ClusterInput)
		if err != nil {
			return nil, err
		}
		if err := resolvable(ctx, cfg); err != nil {
			return nil, err
		}
		if err := checkReachable(ctx, cfg, in.Unchecked); err != nil {
			return nil, err
		}
		c, err := cat.CreateCluster(ctx, recordOf(in.Body.Name, in.Body.ClusterInput, cfg))
		if err != nil {
			return nil, a.problem(err, "cluster "+in.Body.Name)
		}
		return &clusterOutput{Body: clusterOut(c, callerOf(ctx).role)}, nil
	})
	get := op("get-cluster", http.MethodGet, "/clusters/{name}", "Show a cluster", catalog.RoleViewer, "clusters")
	get.Errors = append(get.Errors, http.StatusNotFound)
	huma.Register(a.h, get, func(ctx context.Context, in *clusterNameIn) (*clusterOutput, error) {
		c, err := cat.GetCluster(ctx, in.Name)
		if err != nil {
			return nil, a.problem(err, "cluster "+in.Name)
		}
		return &clusterOutput{Body: clusterOut(c, callerOf(ctx).role)}, nil
	})
	put := op("put-cluster", http.MethodPut, "/clusters/{name}", "Change a registered cluster", catalog.RoleAdmin, "clusters")
	put.Errors = append(put.Errors, http.StatusBadRequest, http.StatusNotFound)
	huma.Register(a.h, put, func(ctx context.Context, in *struct {
		Name      string `path:"name" minLength:"1" maxLength:"128" pattern:"^[A-Za-z0-9][A-Za-z0-9._-]*$" doc:"the cluster's name"`
		Unchecked bool   `query:"unchecked" doc:"register even if the cluster's ZooKeeper gives no session now (otherwise it is tried for a few seconds)"`
		Body      api.ClusterInput
	}) (*clusterOutput, error) {
		if len(in.Body.SiteFiles) > 0 {
			// A file read back from the API holds the marker where a value was withheld:
			// keep the stored value there.
			old, err := cat.GetCluster(ctx, in.Name)
			if err != nil && !errors.Is(err, catalog.ErrNotFound) {
				return nil, a.problem(err, "cluster "+in.Name)
			}
			if in.Body.SiteFiles, err = cluster.KeepRedacted(in.Body.SiteFiles, old.SiteFiles); err != nil {
				return nil, fieldProblem("siteFiles", err.Error(), nil)
			}
		}
		cfg, err := configOf(in.Name, in.Body)
		if err != nil {
			return nil, err
		}
		if err := resolvable(ctx, cfg); err != nil {
			return nil, err
		}
		if err := checkReachable(ctx, cfg, in.Unchecked); err != nil {
			return nil, err
		}
		c, err := cat.UpdateCluster(ctx, recordOf(in.Name, in.Body, cfg))
		if err != nil {
			return nil, a.problem(err, "cluster "+in.Name)
		}
		return &clusterOutput{Body: clusterOut(c, callerOf(ctx).role)}, nil
	})
	del := op("delete-cluster", http.MethodDelete, "/clusters/{name}", "Remove a cluster no running job uses", catalog.RoleAdmin, "clusters")
	del.DefaultStatus = http.StatusNoContent
	del.Errors = append(del.Errors, http.StatusNotFound, http.StatusConflict)
	huma.Register(a.h, del, func(ctx context.Context, in *clusterNameIn) (*struct{}, error) {
		if err := cat.DeleteCluster(ctx, in.Name); err != nil {
			return nil, a.problem(err, "cluster "+in.Name)
		}
		return nil, nil
	})
}

// clusterConfig reads a registered cluster for a job.
func (a *rest) clusterConfig(ctx context.Context, name, field string) (cluster.Config, string, error) {
	c, err := a.s.cat.GetCluster(ctx, name)
	if err != nil {
		if err2 := a.problem(err, "cluster "+name); isStatus(err2, http.StatusNotFound) {
			return cluster.Config{}, "", fieldProblem(field, fmt.Sprintf("no cluster %q is registered (GET /api/v1/clusters lists them)", name), name)
		} else {
			return cluster.Config{}, "", err2
		}
	}
	cfg, err := configOf(name, inputOf(c))
	if err != nil {
		return cluster.Config{}, "", huma.Error409Conflict(fmt.Sprintf("cluster %s as registered cannot be used: %v", name, err))
	}
	return cfg, c.User, nil
}

// isStatus reports whether err is an API error of that status.
func isStatus(err error, status int) bool {
	se, ok := err.(huma.StatusError)
	return ok && se.GetStatus() == status
}
