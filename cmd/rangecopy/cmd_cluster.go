package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"rangecopy/api"
	"rangecopy/apiclient"
)

// siteFileNames are the site files rangecopy cluster add --site-dir sends, the ones the
// server reads.
var siteFileNames = []string{"core-site.xml", "hdfs-site.xml", "hbase-site.xml"}

// clusterAddFlags are rangecopy cluster add's own flags.
type clusterAddFlags struct {
	siteDir     string
	zkQuorum    string
	znodeParent string
	hdfsRoot    string
	user        string
	unchecked   bool
	replace     bool
}

// input is the registration the flags describe: the site files of --site-dir, or the quorum,
// parent and root. It reads the folder but talks to no server.
func (f clusterAddFlags) input() (api.ClusterInput, error) {
	in := api.ClusterInput{User: f.user}
	switch {
	case f.siteDir != "" && (f.zkQuorum != "" || f.znodeParent != "" || f.hdfsRoot != ""):
		return in, usageErrorf("--site-dir or --zk-quorum/--znode-parent/--hdfs-root: the site files name the quorum and root themselves")
	case f.siteDir != "":
		files, err := readSiteDir(f.siteDir)
		if err != nil {
			return in, err
		}
		in.SiteFiles = files
	case f.zkQuorum == "" || f.hdfsRoot == "":
		return in, usageErrorf("give --site-dir <folder of site files>, or --zk-quorum and --hdfs-root")
	default:
		in.ZKQuorum, in.ZNodeParent, in.HDFSRoot = f.zkQuorum, f.znodeParent, f.hdfsRoot
	}
	return in, nil
}

// readSiteDir reads the site files of a configuration folder (those of siteFileNames it
// holds; at least one).
func readSiteDir(dir string) (map[string]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, usageErrorf("--site-dir: %v", err)
	}
	if !st.IsDir() {
		return nil, usageErrorf("--site-dir %s: not a folder", dir)
	}
	files := map[string]string{}
	for _, name := range siteFileNames {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, usageErrorf("--site-dir: %v", err)
		}
		files[name] = string(b)
	}
	if len(files) == 0 {
		return nil, usageErrorf("--site-dir %s holds none of %s", dir, strings.Join(siteFileNames, ", "))
	}
	return files, nil
}

func newClusterCommand() *cobra.Command {
	var f relocFlags
	c := &cobra.Command{
		Use:   "cluster <action>",
		Short: "register, list, show and remove the clusters of rangecopy server",
		Long: `Talks to rangecopy server's /api/v1/clusters. A registered cluster is named in
jobs, verifications and relocations by its name. Register one from a folder of
its site files (--site-dir: core-site.xml, hdfs-site.xml, hbase-site.xml) or
from its ZooKeeper quorum and hbase.rootdir. The server tries the quorum for a
few seconds and refuses a cluster whose ZooKeeper gives no session, unless
--unchecked. The token comes from --token-file or RANGECOPY_TOKEN: viewer to
list and show, admin to add and remove.`,
		Example: `  rangecopy cluster add dc1 --site-dir /etc/hbase/conf --server https://rc1:8443
  rangecopy cluster add dc2 --zk-quorum zk1,zk2,zk3:2181 --hdfs-root hdfs://nn2:8020/hbase --user hbase
  rangecopy cluster list
  rangecopy cluster remove dc2`,
		Args: cobra.ArbitraryArgs,
		RunE: needSubcommand("cluster action"),
	}
	pf := c.PersistentFlags()
	f.api.add(pf)
	pf.BoolVar(&f.jsonOut, "json", false, "print the server's JSON")

	var af clusterAddFlags
	add := &cobra.Command{
		Use:   "add <name> (--site-dir <folder> | --zk-quorum <host:port,...> --hdfs-root <url>)",
		Short: "register a cluster (--replace: change a registered one)",
		Args:  exactArgs("cluster add", "the cluster's name"),
		RunE: func(c *cobra.Command, args []string) error {
			in, err := af.input()
			if err != nil {
				return err
			}
			client, err := f.client()
			if err != nil {
				return err
			}
			o := apiclient.ClusterOptions{Unchecked: af.unchecked}
			var out api.ClusterOut
			if af.replace {
				out, err = client.UpdateCluster(c.Context(), args[0], in, o)
			} else {
				out, err = client.RegisterCluster(c.Context(), args[0], in, o)
			}
			if err != nil {
				return err
			}
			return printCluster(c.OutOrStdout(), f.jsonOut, out)
		},
	}
	afs := add.Flags()
	afs.StringVar(&af.siteDir, "site-dir", "", "folder of the cluster's site files (core-site.xml, hdfs-site.xml, hbase-site.xml)")
	afs.StringVar(&af.zkQuorum, "zk-quorum", "", "the cluster's ZooKeeper quorum, host[:port],... (without --site-dir)")
	afs.StringVar(&af.znodeParent, "znode-parent", "", "HBase's znode parent (default /hbase)")
	afs.StringVar(&af.hdfsRoot, "hdfs-root", "", "hbase.rootdir, hdfs://namenode:port/path (without --site-dir)")
	afs.StringVar(&af.user, "user", "", "HBase effective user and HDFS user of jobs on this cluster (default the server's)")
	afs.BoolVar(&af.unchecked, "unchecked", false, "register even if the cluster's ZooKeeper does not answer the server now")
	afs.BoolVar(&af.replace, "replace", false, "change a registered cluster rather than add a new one")
	_ = add.MarkFlagDirname("site-dir")

	list := &cobra.Command{
		Use:   "list",
		Short: "list the registered clusters",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			client, err := f.client()
			if err != nil {
				return err
			}
			cs, err := client.ListClusters(c.Context())
			if err != nil {
				return err
			}
			w := c.OutOrStdout()
			if f.jsonOut {
				out := api.ClusterList{Clusters: cs}
				if out.Clusters == nil {
					out.Clusters = []api.ClusterOut{}
				}
				return json.NewEncoder(w).Encode(out)
			}
			for _, cl := range cs {
				if _, err := fmt.Fprintf(w, "%-16s %s%s %s\n", cl.Name, cl.ZKQuorum, cl.ZNodeParent, cl.HDFSRoot); err != nil {
					return err
				}
			}
			return nil
		},
	}
	show := &cobra.Command{
		Use:   "show <name>",
		Short: "show a registered cluster",
		Args:  exactArgs("cluster show", "the cluster's name"),
		RunE: func(c *cobra.Command, args []string) error {
			client, err := f.client()
			if err != nil {
				return err
			}
			out, err := client.GetCluster(c.Context(), args[0])
			if err != nil {
				return err
			}
			return printCluster(c.OutOrStdout(), f.jsonOut, out)
		},
	}
	remove := &cobra.Command{
		Use:   "remove <name>",
		Short: "remove a registered cluster that no running job uses",
		Args:  exactArgs("cluster remove", "the cluster's name"),
		RunE: func(c *cobra.Command, args []string) error {
			client, err := f.client()
			if err != nil {
				return err
			}
			if err := client.DeleteCluster(c.Context(), args[0]); err != nil {
				return err
			}
			if f.jsonOut {
				return nil
			}
			_, err = fmt.Fprintf(c.OutOrStdout(), "cluster %s removed\n", args[0])
			return err
		},
	}
	c.AddCommand(add, list, show, remove)
	return c
}

// exactArgs wants one argument, what, as a usage error naming it otherwise.
func exactArgs(cmd, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return usageErrorf("%s needs %s", cmd, what)
		case len(args) > 1:
			return usageErrorf("%s takes one argument, %s; got %q", cmd, what, args)
		}
		return nil
	}
}

// printCluster writes a registered cluster as text (or its JSON).
func printCluster(w io.Writer, jsonOut bool, cl api.ClusterOut) error {
	if jsonOut {
		return json.NewEncoder(w).Encode(cl)
	}
	fmt.Fprintf(w, "cluster   %s\nzookeeper %s%s\nhdfs      %s\n", cl.Name, cl.ZKQuorum, cl.ZNodeParent, cl.HDFSRoot)
	if cl.User != "" {
		fmt.Fprintf(w, "user      %s\n", cl.User)
	}
	if len(cl.SiteFiles) > 0 {
		names := make([]string, 0, len(cl.SiteFiles))
		for n := range cl.SiteFiles {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(w, "site      %s\n", strings.Join(names, ", "))
	}
	_, err := fmt.Fprintf(w, "changed   %s\n", cl.UpdatedAt.UTC().Format("2006-01-02 15:04:05Z"))
	return err
}
