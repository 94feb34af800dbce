package hbase

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// ClusterID reads the cluster's id, the one HBase keeps in <parent>/hbaseid (a ClusterId
// message): two clients with the same id talk to one cluster, whatever addresses they were
// given.
// A client whose cluster is found without ZooKeeper (as in tests) has no id to read: an
// error.
func (c *Client) ClusterID(ctx context.Context) (string, error) {
	z, ok := c.zk.(*zkClient)
	if !ok || z == nil {
		return "", fmt.Errorf("hbase: cluster id: the client reads no ZooKeeper")
	}
	d, err := z.get(ctx, "hbaseid")
	if err != nil {
		return "", err
	}
	id, err := parseClusterIDZNode(d)
	if err != nil {
		return "", fmt.Errorf("znode %s/hbaseid: %w", z.parent, err)
	}
	return id, nil
}

// parseClusterIDZNode decodes the content of <parent>/hbaseid: the znode metadata, "PBUF",
// then a ClusterId message whose field 1 is the id.
func parseClusterIDZNode(data []byte) (string, error) {
	b, err := stripZNodeMeta(data)
	if err != nil {
		return "", err
	}
	var id string
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", fmt.Errorf("%w: hbaseid: %v", ErrZNode, protowire.ParseError(n))
		}
		b = b[n:]
		if num == 1 && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return "", fmt.Errorf("%w: hbaseid: %v", ErrZNode, protowire.ParseError(m))
			}
			id, b = string(v), b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return "", fmt.Errorf("%w: hbaseid: %v", ErrZNode, protowire.ParseError(m))
		}
		b = b[m:]
	}
	if id == "" {
		return "", fmt.Errorf("%w: hbaseid: no cluster id", ErrZNode)
	}
	return id, nil
}
