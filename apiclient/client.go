package apiclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"rangecopy/api"
)

// DefaultTimeout bounds one call (not an event stream) when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// maxResponse bounds a response body the client reads.
const maxResponse = 16 << 20

// Options configure a Client.
type Options struct {
	// Token is the bearer token's secret; empty sends none.
	Token string
	// CAFile is a PEM file of the certificate authorities to trust for an https server, in
	// place of the system's; empty trusts the system's.
	CAFile string
	// Timeout bounds each call but an event stream; 0 means DefaultTimeout.
	Timeout time.Duration
	// HTTPClient, if set, is used as it is (CAFile is then ignored).
	HTTPClient *http.Client
	// UserAgent is sent with every call; empty means "rangecopy-apiclient".
	UserAgent string
	// AllowPlainHTTP lets a Token go over http:// to a host other than this machine, in
	// clear text. Without it New refuses such a URL (ErrPlainHTTP); http:// to localhost,
	// 127.0.0.0/8 or ::1 is always allowed.
	AllowPlainHTTP bool
}

// Client calls one rangecopy server. It is safe for concurrent use.
type Client struct {
	base    *url.URL
	token   string
	timeout time.Duration
	hc      *http.Client
	agent   string
}

// New makes a client of the server at baseURL (http://host:port or https://host:port; a
// path, if any, is the prefix the API sits under, before /api/v1).
func New(baseURL string, o Options) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %w", baseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("server URL %q: want http:// or https://", baseURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("server URL %q: no host", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("server URL %q: no query or fragment, please", baseURL)
	}
	if err := checkPlainHTTP(u, o.Token != "", o.AllowPlainHTTP); err != nil {
		return nil, err
	}
	c := &Client{base: u, token: o.Token, timeout: o.Timeout, hc: o.HTTPClient, agent: o.UserAgent}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.agent == "" {
		c.agent = "rangecopy-apiclient"
	}
	if c.hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if o.CAFile != "" {
			pem, err := os.ReadFile(o.CAFile)
			if err != nil {
				return nil, fmt.Errorf("CA file: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("CA file %s: no PEM certificate in it", o.CAFile)
			}
			tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		}
		// No Client.Timeout: it would cut event streams; calls are bounded by context.
		c.hc = &http.Client{Transport: tr}
		if o.Token != "" && !o.AllowPlainHTTP {
			c.hc.CheckRedirect = refuseDowngrade
		}
	}
	return c, nil
}

// URL is the server's base URL as given.
func (c *Client) URL() string { return c.base.String() }

// Error is an answer of the API other than success: its RFC 9457 problem details, with the
// call it answered.
type Error struct {
	// Method and Path are the call's.
	Method, Path string
	// Status is the HTTP status; Type, Title, Detail and Errors the problem's.
	Status int
	Type   api.ProblemType
	Title  string
	Detail string
	Errors []*api.ProblemDetail
}

// Error names the call, the status and what the server said.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	} else if e.Title != "" && e.Title != http.StatusText(e.Status) {
		b.WriteString(": " + e.Title)
	}
	for _, d := range e.Errors {
		// The detail of a field problem names it already; list only what it does not say.
		s := d.Message
		if d.Location != "" {
			s = d.Location + ": " + d.Message
		}
		if d.Message != "" && !strings.Contains(e.Detail, d.Message) {
			b.WriteString("; " + s)
		}
	}
	return b.String()
}

// StatusOf is the HTTP status of an API error anywhere in err's chain, or 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// IsNotFound reports whether err is a 404 of the API.
func IsNotFound(err error) bool { return StatusOf(err) == http.StatusNotFound }

// decodeError reads a non-2xx answer into an *Error; a body that is no problem document
// still gives the status and (the start of) the body as detail.
func decodeError(method, path string, resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &Error{Method: method, Path: path, Status: resp.StatusCode}
	var p api.Problem
	if json.Unmarshal(body, &p) == nil && (p.Title != "" || p.Detail != "" || p.Status != 0) {
		e.Type, e.Title, e.Detail, e.Errors = p.Type, p.Title, p.Detail, p.Errors
	} else if s := strings.TrimSpace(string(body)); s != "" {
		if len(s) > 512 {
			s = s[:512] + "..."
		}
		e.Detail = s
	}
	return e
}

// newRequest builds a call of path (under /api/v1) with a JSON body (nil: none).
func (c *Client) newRequest(ctx context.Context, method, path string, query url.Values, body any) (*http.Request, error) {
	u := *c.base
	u.Path = strings.TrimRight(u.Path, "/") + api.APIPrefix + path
	u.RawQuery = query.Encode()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encode the body: %w", method, api.APIPrefix+path, err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, application/problem+json")
	req.Header.Set("User-Agent", c.agent)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

// do makes one call and decodes a 2xx answer into out (nil: discard it); it returns the
// status.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, header http.Header, body, out any) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := c.newRequest(ctx, method, path, query, body)
	path = api.APIPrefix + path // as errors name it
	if err != nil {
		return 0, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, decodeError(method, path, resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse))
		return resp.StatusCode, nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxResponse)).Decode(out); err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: decode the answer: %w", method, path, err)
	}
	return resp.StatusCode, nil
}

// jobPath is the path of a job, its id escaped.
func jobPath(id string, tail ...string) string {
	return "/jobs/" + url.PathEscape(id) + strings.Join(tail, "")
}

// submitAttempts is how often SubmitJob sends a submission with an idempotency key when
// the connection fails before an answer.
const submitAttempts = 3

// SubmitJob submits a copy. With an idempotency key a second submission with the same key
// returns the first job, so a call whose answer was lost on the way is sent again (up to 3
// times). created is false when the server answered with a job it had already (the same
// copy running, or the same key).
func (c *Client) SubmitJob(ctx context.Context, sub api.JobSubmission, idempotencyKey string) (job api.JobOut, created bool, err error) {
	var h http.Header
	attempts := 1
	if idempotencyKey != "" {
		h = http.Header{"Idempotency-Key": {idempotencyKey}}
		attempts = submitAttempts
	}
	for i := 0; ; i++ {
		var out api.JobOut
		status, err := c.do(ctx, http.MethodPost, "/jobs", nil, h, sub, &out)
		if err == nil {
			return out, status == http.StatusCreated, nil
		}
		if status != 0 || i+1 >= attempts || ctx.Err() != nil {
			return api.JobOut{}, false, err
		}
		select {
		case <-ctx.Done():
			return api.JobOut{}, false, err
		case <-time.After(time.Duration(i+1) * time.Second):
		}
	}
}

// GetJob returns a job.
func (c *Client) GetJob(ctx context.Context, id string) (api.JobOut, error) {
	var out api.JobOut
	_, err := c.do(ctx, http.MethodGet, jobPath(id), nil, nil, nil, &out)
	return out, err
}

// JobFilter selects jobs for ListJobs; zero fields select all.
type JobFilter struct {
	// States keeps jobs in these states.
	States []string
	// Table keeps jobs of this source table; Cluster jobs whose source or target it is.
	Table, Cluster string
	// Cursor is the Next of the page before; Limit the page size (0: the server's, 100).
	Cursor string
	Limit  int
}

// ListJobs returns one page of jobs, newest first; its Next is the cursor of the page after,
// empty on the last.
func (c *Client) ListJobs(ctx context.Context, f JobFilter) (api.JobList, error) {
	q := url.Values{}
	if len(f.States) > 0 {
		q.Set("state", strings.Join(f.States, ","))
	}
	if f.Table != "" {
		q.Set("table", f.Table)
	}
	if f.Cluster != "" {
		q.Set("cluster", f.Cluster)
	}
	if f.Cursor != "" {
		q.Set("cursor", f.Cursor)
	}
	if f.Limit > 0 {
		q.Set("limit", fmt.Sprint(f.Limit))
	}
	var out api.JobList
	_, err := c.do(ctx, http.MethodGet, "/jobs", q, nil, nil, &out)
	return out, err
}

// AllJobs returns every job the filter selects, reading page after page.
func (c *Client) AllJobs(ctx context.Context, f JobFilter) ([]api.JobOut, error) {
	var all []api.JobOut
	for {
		p, err := c.ListJobs(ctx, f)
		if err != nil {
			return all, err
		}
		all = append(all, p.Jobs...)
		if p.Next == "" || p.Next == f.Cursor {
			return all, nil
		}
		f.Cursor = p.Next
	}
}

// control posts an action (pause, resume, cancel) of a job.
func (c *Client) control(ctx context.Context, id, action string) (api.JobOut, error) {
	var out api.JobOut
	_, err := c.do(ctx, http.MethodPost, jobPath(id, "/", action), nil, nil, nil, &out)
	return out, err
}

// PauseJob pauses a job.
func (c *Client) PauseJob(ctx context.Context, id string) (api.JobOut, error) {
	return c.control(ctx, id, "pause")
}

// ResumeJob resumes a paused job.
func (c *Client) ResumeJob(ctx context.Context, id string) (api.JobOut, error) {
	return c.control(ctx, id, "resume")
}

// CancelJob cancels a job.
func (c *Client) CancelJob(ctx context.Context, id string) (api.JobOut, error) {
	return c.control(ctx, id, "cancel")
}

// SetBandwidth changes a job's job-wide read limit: a rate such as "200MB/s", or "0" for
// none.
func (c *Client) SetBandwidth(ctx context.Context, id, rate string) (api.JobOut, error) {
	var out api.JobOut
	body := api.JobPatch{Bandwidth: rate}
	_, err := c.do(ctx, http.MethodPatch, jobPath(id), nil, nil, body, &out)
	return out, err
}

// ListClusters returns the registered clusters, by name, reading page after page.
func (c *Client) ListClusters(ctx context.Context) ([]api.ClusterOut, error) {
	var all []api.ClusterOut
	q := url.Values{}
	for {
		var page api.ClusterList
		if _, err := c.do(ctx, http.MethodGet, "/clusters", q, nil, nil, &page); err != nil {
			return all, err
		}
		all = append(all, page.Clusters...)
		if page.Next == "" || page.Next == q.Get("cursor") {
			return all, nil
		}
		q.Set("cursor", page.Next)
	}
}

// GetCluster returns a registered cluster.
func (c *Client) GetCluster(ctx context.Context, name string) (api.ClusterOut, error) {
	var out api.ClusterOut
	_, err := c.do(ctx, http.MethodGet, "/clusters/"+url.PathEscape(name), nil, nil, nil, &out)
	return out, err
}

// CreateCluster registers a cluster (an admin's call).
func (c *Client) CreateCluster(ctx context.Context, name string, in api.ClusterInput) (api.ClusterOut, error) {
	body := api.ClusterCreateRequest{Name: name, ClusterInput: in}
	var out api.ClusterOut
	_, err := c.do(ctx, http.MethodPost, "/clusters", nil, nil, body, &out)
	return out, err
}

// ListRelocations returns every relocation (with open, those that have not ended), newest
// first, reading page after page.
func (c *Client) ListRelocations(ctx context.Context, open bool) ([]api.RelocationOut, error) {
	var all []api.RelocationOut
	q := url.Values{}
	if open {
		q.Set("open", "true")
	}
	for {
		var page api.RelocationList
		if _, err := c.do(ctx, http.MethodGet, "/relocations", q, nil, nil, &page); err != nil {
			return all, err
		}
		all = append(all, page.Relocations...)
		if page.Next == "" || page.Next == q.Get("cursor") {
			return all, nil
		}
		q.Set("cursor", page.Next)
	}
}

// Call makes one call to path under /api/v1 (a path the typed calls do not cover, such as
// the relocations) with body as JSON (nil: none) and decodes a 2xx answer into out (nil:
// discard it). Any other answer is an *Error.
func (c *Client) Call(ctx context.Context, method, path string, body, out any) error {
	_, err := c.do(ctx, method, path, nil, nil, body, out)
	return err
}
