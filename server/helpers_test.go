package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/testenv"
)

// rig is a server of the test's own on the harness's target ZooKeeper, with a SQLite catalog
// in a folder of the test, and a client that checks every answer against the server's own
// OpenAPI document.
type rig struct {
	t      *testing.T
	s      *Server
	url    string
	admin  string // secrets
	viewer string
	oper   string
	spec   *openapi3.T
	router routers.Router
	stop   func()
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// newRig starts a server; workers is how many tasks its embedded workers run (0: none).
func newRig(t *testing.T, env *testenv.Env, workers int) *rig {
	t.Helper()
	return newRigAt(t, env, workers, t.TempDir(), "/"+testenv.UniqueName(t, "srv"))
}

// newRigAt starts a server with its catalog in dir and its registry under zkRoot: a second
// rig on the same two is the first server restarted.
func newRigAt(t *testing.T, env *testenv.Env, workers int, dir, zkRoot string) *rig {
	t.Helper()
	return newRigAs(t, env, workers, dir, zkRoot, "")
}

// newRigAs is newRigAt with the server's id (empty: a fresh one), as a server restarted
// under its configured id.
func newRigAs(t *testing.T, env *testenv.Env, workers int, dir, zkRoot, id string) *rig {
	t.Helper()
	return newRigWith(t, env, workers, dir, zkRoot, id, nil)
}

// newRigWith is newRigAs with the server's configuration changed by tweak first (nil: none).
func newRigWith(t *testing.T, env *testenv.Env, workers int, dir, zkRoot, id string, tweak func(*Config)) *rig {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := Config{Listen: "127.0.0.1:0", Catalog: "sqlite://" + filepath.Join(dir, "catalog.db"),
		ZK: []string{env.Target.ZKQuorum}, ZKRoot: zkRoot, SessionTimeout: 6 * time.Second,
		Workers: workers, Poll: 500 * time.Millisecond, Reconcile: 500 * time.Millisecond, User: env.Target.User,
		Logger: log, Version: "test", ID: id,
		// Tests refuse many calls from one address on purpose; the limit has tests of its own.
		Limits: Limits{FailedAuthBurst: 1 << 20}}
	if tweak != nil {
		tweak(&cfg)
	}
	s, err := New(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := s.Run(ctx); err != nil {
			t.Errorf("server: %v", err)
		}
	}()
	r := &rig{t: t, s: s, url: s.URL()}
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			wg.Wait()
			s.Close()
		})
	}
	t.Cleanup(r.stop)
	for role, dst := range map[catalog.Role]*string{catalog.RoleAdmin: &r.admin, catalog.RoleViewer: &r.viewer, catalog.RoleOperator: &r.oper} {
		_, secret, err := s.Catalog().CreateToken(ctx, "test "+string(role), role)
		if err != nil {
			t.Fatal(err)
		}
		*dst = secret
	}
	r.loadSpec()
	return r
}

// loadSpec reads the server's OpenAPI document (OpenAPI 3.1).
func (r *rig) loadSpec() {
	t := r.t
	resp, err := http.Get(r.url + api.APIPrefix + "/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	checkCommittedSpec(t, b)
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatalf("the server's OpenAPI document: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the server's OpenAPI document is not valid: %v", err)
	}
	doc.Servers = openapi3.Servers{{URL: r.url}}
	if r.router, err = legacy.NewRouter(doc); err != nil {
		t.Fatal(err)
	}
	r.spec = doc
}

// answer is a response, read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// decode reads the body as JSON into v.
func (a answer) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("body %q: %v", a.body, err)
	}
}

// do sends a request with the secret's token ("" for none) and checks the answer against
// the spec: every status, header and body the tests see must be one the spec allows.
func (r *rig) do(secret, method, path string, body any, header ...string) answer {
	r.t.Helper()
	var rd io.Reader
	if body != nil {
		if s, ok := body.(string); ok {
			rd = strings.NewReader(s)
		} else {
			b, err := json.Marshal(body)
			if err != nil {
				r.t.Fatal(err)
			}
			rd = bytes.NewReader(b)
		}
	}
	req, err := http.NewRequest(method, r.url+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatalf("%s %s: read: %v", method, path, err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: b}
	r.conforms(req, a)
	return a
}

// conforms fails the test if the answer is not one the spec allows for the request.
func (r *rig) conforms(req *http.Request, a answer) {
	r.t.Helper()
	route, params, err := r.router.FindRoute(req)
	if err != nil {
		if a.status == http.StatusNotFound || a.status == http.StatusMethodNotAllowed {
			return // a path the API does not have
		}
		r.t.Errorf("%s %s: no route in the spec: %v", req.Method, req.URL.Path, err)
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}},
		Status: a.status, Header: a.header, Body: io.NopCloser(bytes.NewReader(a.body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		r.t.Errorf("%s %s: answer %d %s breaks the spec: %v", req.Method, req.URL.Path, a.status, a.body, err)
	}
}

// siteFiles reads a harness cluster's site files, as an operator registers them.
func siteFiles(t *testing.T, c *testenv.Cluster) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range []string{"hbase-site.xml", "core-site.xml"} {
		b, err := os.ReadFile(filepath.Join(c.ConfDir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(b)
	}
	return out
}

// registerClusters registers the harness's clusters as "src" and "dst".
func (r *rig) registerClusters(env *testenv.Env) {
	r.t.Helper()
	for name, c := range map[string]*testenv.Cluster{"src": env.Source, "dst": env.Target} {
		a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/clusters", map[string]any{"name": name, "siteFiles": siteFiles(r.t, c)})
		if a.status != http.StatusCreated {
			r.t.Fatalf("register %s: %d %s", name, a.status, a.body)
		}
	}
}

// waitJob polls GET /jobs/{id} until cond holds, for at most d.
func (r *rig) waitJob(id string, d time.Duration, what string, cond func(api.JobOut) bool) api.JobOut {
	r.t.Helper()
	deadline := time.Now().Add(d)
	var v api.JobOut
	for {
		a := r.do(r.viewer, http.MethodGet, api.APIPrefix+"/jobs/"+id, nil)
		if a.status != http.StatusOK {
			r.t.Fatalf("get job %s: %d %s", id, a.status, a.body)
		}
		a.decode(r.t, &v)
		if cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("job %s: not %s after %s: state %s (%s), progress %+v", id, what, d, v.State, v.Message, v.Progress)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
