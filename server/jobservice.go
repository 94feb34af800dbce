package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/cluster"
	"rangecopy/jobs"
)

// newJobs is the server's job service.
func (s *Server) newJobs() *jobs.Service {
	return jobs.New(jobs.Config{Catalog: s.cat, Registry: s.reg, Clusters: registeredClusters{s},
		ZK: s.cfg.ZK, ZKRoot: s.cfg.ZKRoot, WorkRoot: s.cfg.WorkRoot, User: s.cfg.User, Pool: s.pool,
		Logger: s.cfg.Logger, CatalogErrors: s.metrics.catalogErrors})
}

// Jobs is the server's job service: what POST /jobs and the job controls call.
func (s *Server) Jobs() *jobs.Service { return s.jobs }

// registeredClusters resolves the clusters of the catalog for the job service.
type registeredClusters struct{ s *Server }

// Cluster reads a registered cluster: how to reach it and its user.
func (c registeredClusters) Cluster(ctx context.Context, name string) (cluster.Config, string, error) {
	rec, err := c.s.cat.GetCluster(ctx, name)
	if err != nil {
		return cluster.Config{}, "", err
	}
	cfg, err := configOf(name, inputOf(rec))
	if err != nil {
		return cluster.Config{}, "", &jobs.ConflictError{Err: fmt.Errorf("cluster %s as registered cannot be used: %v", name, err)}
	}
	return cfg, rec.User, nil
}

// jobProblem is the API's answer to an error of the job service: invalid 400 (naming the
// fields of the body), not found 404, conflict 409, unavailable the status given (502 for
// a submission the clusters refused, 503 when the registry failed); anything else as
// problem has it.
func (a *rest) jobProblem(err error, what string, unavailable int) error {
	var (
		inv *jobs.InvalidError
		nf  *jobs.NotFoundError
		cf  *jobs.ConflictError
		un  *jobs.UnavailableError
	)
	switch {
	case errors.As(err, &inv):
		if len(inv.Fields) == 0 {
			return huma.Error400BadRequest(strings.TrimPrefix(inv.Error(), "catalog: "))
		}
		details := make([]error, len(inv.Fields))
		msgs := make([]string, len(inv.Fields))
		for i, f := range inv.Fields {
			details[i] = &huma.ErrorDetail{Location: "body." + f.Field, Message: f.Message, Value: f.Value}
			msgs[i] = f.Field + ": " + f.Message
		}
		return huma.Error400BadRequest("the request body is not valid: "+strings.Join(msgs, "; "), details...)
	case errors.As(err, &nf):
		return huma.Error404NotFound(nf.Error())
	case errors.As(err, &cf):
		return huma.Error409Conflict(strings.TrimPrefix(cf.Error(), "catalog: "))
	case errors.As(err, &un):
		return huma.NewError(unavailable, un.Error())
	}
	return a.problem(err, what)
}

// setBandwidth changes the job-wide read cap of a job that has not ended; 0 removes it. Its
// errors are the API's answers.
func (s *Server) setBandwidth(ctx context.Context, id string, bps float64) error {
	if err := s.jobs.SetBandwidth(ctx, id, bps, ""); err != nil {
		return s.api.jobProblem(err, "job "+id, http.StatusServiceUnavailable)
	}
	return nil
}

// stateNamed is the catalog's state of a name the API shows ("running", "lost"); the zero
// state, which is not valid, for a name it does not know.
func stateNamed(name api.JobState) catalog.JobState {
	s, _ := catalog.ParseJobState(string(name))
	return s
}
