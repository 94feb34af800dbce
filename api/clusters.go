package api

import "time"

// ClusterInput is a cluster as registered: by name, with its ZooKeeper quorum, znode parent,
// HDFS root and user, or with the contents of its site files. It is the body of
// PUT /clusters/{name}.
type ClusterInput struct {
	// ZKQuorum is the ZooKeeper quorum, host[:port],... (not needed with site files).
	ZKQuorum string `json:"zkQuorum,omitempty" maxLength:"4096" doc:"ZooKeeper quorum, host[:port],... (not needed with siteFiles)" example:"zk1,zk2,zk3:2181"`
	// ZNodeParent is HBase's znode parent; default /hbase.
	ZNodeParent string `json:"znodeParent,omitempty" maxLength:"1024" doc:"HBase's znode parent (default /hbase)" example:"/hbase"`
	// HDFSRoot is hbase.rootdir: hdfs://namenode:port/path.
	HDFSRoot string `json:"hdfsRoot,omitempty" maxLength:"4096" doc:"hbase.rootdir, hdfs://namenode:port/path (not needed with siteFiles)" example:"hdfs://nn1:8020/hbase"`
	// User is the HBase effective user and HDFS user of jobs on this cluster.
	User string `json:"user,omitempty" maxLength:"256" doc:"HBase effective user and HDFS user for jobs that use this cluster"`
	// SiteFiles are site files by name (core-site.xml, hdfs-site.xml, hbase-site.xml).
	SiteFiles map[string]string `json:"siteFiles,omitempty" doc:"contents of the cluster's site files by file name (core-site.xml, hdfs-site.xml, hbase-site.xml)"`
}

// ClusterCreateRequest is the body of POST /clusters: a cluster's name and how it is
// reached.
type ClusterCreateRequest struct {
	Name string `json:"name" minLength:"1" maxLength:"128" pattern:"^[A-Za-z0-9][A-Za-z0-9._-]*$" doc:"the cluster's name, such as dc1"`
	ClusterInput
}

// ClusterOut is a registered cluster.
type ClusterOut struct {
	Name        string `json:"name" doc:"the cluster's name"`
	ZKQuorum    string `json:"zkQuorum" doc:"ZooKeeper quorum as registered"`
	ZNodeParent string `json:"znodeParent" doc:"HBase's znode parent"`
	HDFSRoot    string `json:"hdfsRoot" doc:"hbase.rootdir"`
	User        string `json:"user" doc:"HBase and HDFS user for its jobs (empty: the server's)"`
	// SiteFiles are the site files redacted: values withheld as "(redacted)".
	SiteFiles map[string]string `json:"siteFiles,omitempty" doc:"site files by name, redacted: for admins every secret-bearing value (passwords, secrets, keys, tokens, credentials) reads \"(redacted)\", for other roles every value but those saying where the cluster is (quorum, znode parent, root folder, NameNodes); sent back in a PUT, \"(redacted)\" keeps the stored value"`
	CreatedAt time.Time         `json:"createdAt" doc:"when it was registered"`
	UpdatedAt time.Time         `json:"updatedAt" doc:"when it was last changed"`
}
