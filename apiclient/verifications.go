package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"rangecopy/api"
)

// CreateVerification starts a verification on the server (an operator's call); it runs in
// the background there.
func (c *Client) CreateVerification(ctx context.Context, req api.VerificationRequest) (api.VerificationOutput, error) {
	var out api.VerificationOutput
	_, err := c.do(ctx, http.MethodPost, "/verifications", nil, nil, req, &out)
	return out, err
}

// GetVerification returns a verification: its state and, once it ended, its report.
func (c *Client) GetVerification(ctx context.Context, id string) (api.VerificationOutput, error) {
	var out api.VerificationOutput
	_, err := c.do(ctx, http.MethodGet, "/verifications/"+url.PathEscape(id), nil, nil, nil, &out)
	return out, err
}

// WaitVerification polls a verification every poll (2 s when 0) until it ends or ctx does,
// calling fn (when not nil) with each answer, and returns it as it ended.
func (c *Client) WaitVerification(ctx context.Context, id string, poll time.Duration, fn func(api.VerificationOutput)) (api.VerificationOutput, error) {
	if poll <= 0 {
		poll = 2 * time.Second
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		v, err := c.GetVerification(ctx, id)
		if err != nil {
			return v, err
		}
		if fn != nil {
			fn(v)
		}
		if v.State.Final() {
			return v, nil
		}
		select {
		case <-ctx.Done():
			return v, fmt.Errorf("verification %s: still %s: %w", id, v.State, ctx.Err())
		case <-t.C:
		}
	}
}
