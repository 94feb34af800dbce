package apiclient

import (
	"context"
	"net/http"
	"net/url"

	"rangecopy/api"
)

// ClusterOptions are the options of a registration or change.
type ClusterOptions struct {
	// Unchecked registers the cluster even if its ZooKeeper gives the server no session now
	// (?unchecked=true); otherwise the server refuses it with a 400.
	Unchecked bool
}

func (o ClusterOptions) query() url.Values {
	q := url.Values{}
	if o.Unchecked {
		q.Set("unchecked", "true")
	}
	return q
}

// RegisterCluster registers a cluster (an admin's call), with options.
func (c *Client) RegisterCluster(ctx context.Context, name string, in api.ClusterInput, o ClusterOptions) (api.ClusterOut, error) {
	body := api.ClusterCreateRequest{Name: name, ClusterInput: in}
	var out api.ClusterOut
	_, err := c.do(ctx, http.MethodPost, "/clusters", o.query(), nil, body, &out)
	return out, err
}

// UpdateCluster changes how a registered cluster is reached (an admin's call).
func (c *Client) UpdateCluster(ctx context.Context, name string, in api.ClusterInput, o ClusterOptions) (api.ClusterOut, error) {
	var out api.ClusterOut
	_, err := c.do(ctx, http.MethodPut, "/clusters/"+url.PathEscape(name), o.query(), nil, in, &out)
	return out, err
}

// DeleteCluster removes a registered cluster that no running job uses (an admin's call).
func (c *Client) DeleteCluster(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodDelete, "/clusters/"+url.PathEscape(name), nil, nil, nil, nil)
	return err
}
