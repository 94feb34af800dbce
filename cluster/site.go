package cluster

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// siteFiles are the files Load reads from a configuration folder, later ones
// overriding earlier ones, as Hadoop and HBase layer them.
func siteFiles() []string {
	return []string{"core-site.xml", "hdfs-site.xml", "hbase-site.xml"}
}

// maxSiteFile bounds a site file: real ones are a few hundred KB at most.
const maxSiteFile = 16 << 20

// Site is the merged properties of a cluster's site files.
type Site map[string]string

// Get returns a property with ${name} references to other properties
// expanded (up to a depth that stops cycles); a missing property is "".
func (s Site) Get(key string) string {
	return s.expand(s[key], 0)
}

func (s Site) expand(v string, depth int) string {
	if depth > 20 {
		return v
	}
	var b strings.Builder
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		j := strings.IndexByte(v[i:], '}')
		if j < 0 {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:i])
		name := v[i+2 : i+j]
		if val, ok := s[name]; ok {
			b.WriteString(s.expand(val, depth+1))
		} else {
			b.WriteString(v[i : i+j+1])
		}
		v = v[i+j+1:]
	}
}

// ReadSite reads the site files present in dir and merges them. A folder
// with none of them is an error that names what was looked for.
func ReadSite(dir string) (Site, error) {
	site := Site{}
	found := 0
	for _, name := range siteFiles() {
		p := filepath.Join(dir, name)
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		st, err := f.Stat()
		if err == nil && st.Size() > maxSiteFile {
			err = fmt.Errorf("%d bytes, over the %d limit", st.Size(), maxSiteFile)
		}
		if err == nil {
			err = decodeSite(f, site)
		}
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		found++
	}
	if found == 0 {
		return nil, fmt.Errorf("read site files: %s holds none of %s", dir, strings.Join(siteFiles(), ", "))
	}
	return site, nil
}

// Load reads a cluster's configuration folder: the ZooKeeper quorum
// (hbase.zookeeper.quorum, with hbase.zookeeper.property.clientPort for hosts
// without a port), zookeeper.znode.parent, hbase.rootdir, whose HDFS name
// service is resolved through hdfs-site.xml, and hbase.io.compress.zstd.codec.
func Load(name, dir string) (Config, error) {
	site, err := ReadSite(dir)
	if err != nil {
		return Config{}, fmt.Errorf("%s cluster: %w", name, err)
	}
	return FromSite(name, dir, site)
}

// ParseSite merges site files given by their contents, keyed by file name
// (core-site.xml, hdfs-site.xml, hbase-site.xml; any other name is refused),
// as ReadSite merges a folder's.
func ParseSite(files map[string]string) (Site, error) {
	site := Site{}
	known := map[string]bool{}
	for _, n := range siteFiles() {
		known[n] = true
	}
	for n := range files {
		if !known[n] {
			return nil, fmt.Errorf("site file %q: want one of %s", n, strings.Join(siteFiles(), ", "))
		}
	}
	found := 0
	for _, name := range siteFiles() {
		text, ok := files[name]
		if !ok {
			continue
		}
		if len(text) > maxSiteFile {
			return nil, fmt.Errorf("site file %s: %d bytes, over the %d limit", name, len(text), maxSiteFile)
		}
		if err := decodeSite(strings.NewReader(text), site); err != nil {
			return nil, fmt.Errorf("site file %s: %w", name, err)
		}
		found++
	}
	if found == 0 {
		return nil, fmt.Errorf("site files: none of %s given", strings.Join(siteFiles(), ", "))
	}
	return site, nil
}

// decodeSite adds the properties of one site file to site.
func decodeSite(r io.Reader, site Site) error {
	var conf struct {
		Properties []struct {
			Name  string `xml:"name"`
			Value string `xml:"value"`
		} `xml:"property"`
	}
	if err := xml.NewDecoder(r).Decode(&conf); err != nil {
		return err
	}
	for _, prop := range conf.Properties {
		site[strings.TrimSpace(prop.Name)] = strings.TrimSpace(prop.Value)
	}
	return nil
}

// FromSite reads a cluster from its merged site properties, as Load does; where names
// where they came from, for errors.
func FromSite(name, where string, site Site) (Config, error) {
	dir := where
	var err error
	c := Config{Name: name, ZNodeParent: DefaultZNodeParent}
	if p := site.Get("zookeeper.znode.parent"); p != "" {
		c.ZNodeParent = p
	}
	if err := checkParent(c.ZNodeParent); err != nil {
		return Config{}, fmt.Errorf("%s cluster: %s: zookeeper.znode.parent: %w", name, dir, err)
	}
	hosts := site.Get("hbase.zookeeper.quorum")
	if hosts == "" {
		return Config{}, fmt.Errorf("%s cluster: %s sets no hbase.zookeeper.quorum", name, dir)
	}
	port := DefaultZKPort
	if p := site.Get("hbase.zookeeper.property.clientPort"); p != "" {
		if _, err := fmt.Sscanf(p, "%d", &port); err != nil || port <= 0 || port > 65535 {
			return Config{}, fmt.Errorf("%s cluster: %s: bad hbase.zookeeper.property.clientPort %q", name, dir, p)
		}
	}
	if c.ZKQuorum, err = quorum(hosts, port); err != nil {
		return Config{}, fmt.Errorf("%s cluster: %s: hbase.zookeeper.quorum: %w", name, dir, err)
	}
	root := site.Get("hbase.rootdir")
	if root == "" {
		return Config{}, fmt.Errorf("%s cluster: %s sets no hbase.rootdir", name, dir)
	}
	if strings.HasPrefix(root, "/") {
		// A path without a file system: it lives on fs.defaultFS.
		root = strings.TrimSuffix(site.Get("fs.defaultFS"), "/") + root
	}
	if c.NameNodes, c.RootDir, err = ParseRootDir(root, site); err != nil {
		return Config{}, fmt.Errorf("%s cluster: %s: %w", name, dir, err)
	}
	c.ZstdCodec = strings.TrimSpace(site.Get("hbase.io.compress.zstd.codec"))
	return c, nil
}
