package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"rangecopy/catalog"
	"rangecopy/cluster/dial"
	"rangecopy/dashboard"
	"rangecopy/job"
	"rangecopy/jobkind"
	"rangecopy/jobs"
	"rangecopy/master"
	"rangecopy/registry"
	"rangecopy/relocate"
	"rangecopy/verify"
	"rangecopy/worker"
)

// Server is a running rangecopy server.
type Server struct {
	cfg     Config
	cat     *catalog.Catalog
	reg     *registry.Registry
	api     *rest
	jobs    *jobs.Service
	dash    *dashboard.Dashboard
	metrics *serverMetrics
	promReg *prometheus.Registry
	ln      net.Listener
	http    *http.Server
	certs   *certFiles // TLS certificate and key, reloaded when they change; nil: plain HTTP
	pool    *dial.Pool // connections to the jobs' clusters, kept warm across jobs
	leading sync.Mutex // held while a term's reconciler runs
	isLead  bool
	relocs  *relocate.Driver
	verifs  verifier
}

// New loads the TLS certificate, opens the catalog and the registry and binds the listener;
// Run serves. The caller closes the server after Run returns (or instead of calling it).
func New(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.defaults(); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if cfg.ID == "" {
		cfg.ID = registry.ProcessID("server")
	}
	if err := registry.ValidateID(cfg.ID); err != nil {
		return nil, fmt.Errorf("server id: %w", err)
	}
	s := &Server{cfg: cfg, promReg: prometheus.NewRegistry(), pool: dial.NewPool(0, cfg.Logger)}
	var err error
	// A bad certificate fails at once, before the catalog's migrations and the wait for a
	// ZooKeeper session.
	if cfg.TLSCert != "" {
		if s.certs, err = loadCertFiles(cfg.TLSCert, cfg.TLSKey, cfg.Logger); err != nil {
			s.pool.Close()
			return nil, fmt.Errorf("server: %w", err)
		}
	}
	if s.cat, err = catalog.Open(ctx, cfg.Catalog, catalog.Options{Logger: cfg.Logger}); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if s.reg, err = registry.Open(ctx, registry.Config{Servers: cfg.ZK, Root: cfg.ZKRoot,
		SessionTimeout: cfg.SessionTimeout, Logger: cfg.Logger}); err != nil {
		s.cat.Close()
		return nil, fmt.Errorf("server: registry: %w", err)
	}
	if s.metrics, err = newServerMetrics(s.promReg, s, s.reg.Connected); err != nil {
		s.Close()
		return nil, fmt.Errorf("server: metrics: %w", err)
	}
	s.jobs = s.newJobs()
	s.api = newAPI(s)
	s.relocs = newRelocations(s)
	if s.dash, err = newDashboard(s); err != nil {
		s.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	if s.ln, err = net.Listen("tcp", cfg.Listen); err != nil {
		s.Close()
		return nil, fmt.Errorf("server: listen on %s: %w", cfg.Listen, err)
	}
	s.http = &http.Server{
		Handler:           s.api.handler(s.dash),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// The whole request and the whole answer are bounded; event streams lift both as
		// they start (streamSlot) and bound each event's write instead.
		ReadTimeout:    cfg.Limits.ReadTimeout,
		WriteTimeout:   cfg.Limits.WriteTimeout,
		MaxHeaderBytes: cfg.Limits.MaxHeaderBytes,
		ErrorLog:       nil,
	}
	if s.certs != nil {
		s.http.TLSConfig = &tls.Config{GetCertificate: s.certs.getCertificate, MinVersion: tls.VersionTLS12}
	}
	return s, nil
}

// Addr is the address the API listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// URL is the API's base URL, such as http://127.0.0.1:8080.
func (s *Server) URL() string {
	scheme := "http"
	if s.cfg.TLSCert != "" {
		scheme = "https"
	}
	return scheme + "://" + s.ln.Addr().String()
}

// Catalog is the server's catalog.
func (s *Server) Catalog() *catalog.Catalog { return s.cat }

// Run serves the API, campaigns to lead (and while leading plans, finishes and reconciles
// jobs) and runs the embedded workers, until ctx ends or the listener fails.
func (s *Server) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	log := s.cfg.Logger
	// Verifications that were running when this server (of this id) or another stopped end
	// in error; the ones created from now on run under ctx.
	s.verifs.begin(ctx)
	defer s.verifs.wait()
	s.adoptVerifications(ctx, true)
	var wg sync.WaitGroup
	errc := make(chan error, 3)
	s.runTransport(ctx, &wg)
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := master.Lead(ctx, master.LeadConfig{Registry: s.reg, ID: s.cfg.ID, Poll: s.cfg.Poll,
			Pool: s.pool, Logger: log, WhileLeading: s.lead, Metrics: s.metrics.master})
		if err != nil {
			errc <- fmt.Errorf("master: %w", err)
		}
	}()
	if s.cfg.Workers > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			host, _ := os.Hostname()
			err := worker.RunAgent(ctx, worker.AgentConfig{Registry: s.reg, ID: s.cfg.ID + "-w",
				Capacity: s.cfg.Workers, Pool: s.pool, Logger: log, Metrics: s.metrics.worker,
				Kinds: map[string]jobkind.Server{job.KindVerify: verify.UnitServer{}},
				Info:  fmt.Sprintf("rangecopy server %s, host %s, pid %d", s.cfg.Version, host, os.Getpid())})
			if err != nil && ctx.Err() == nil {
				errc <- fmt.Errorf("embedded workers: %w", err)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.dash.Run(ctx)
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.api.summarizeRefusals(ctx)
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		var err error
		if s.http.TLSConfig != nil {
			err = s.http.ServeTLS(s.ln, "", "")
		} else {
			err = s.http.Serve(s.ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("serve %s: %w", s.cfg.Listen, err)
		}
	}()
	log.Info("serving", "url", s.URL(), "id", s.cfg.ID, "workers", s.cfg.Workers)
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	_ = s.http.Shutdown(sctx)
	scancel()
	cancel()
	wg.Wait()
	return err
}

// lead runs for each term of leadership: it reconciles the catalog with the registry at
// once and then every Reconcile, and drives the relocations (relocate.Driver.Run).
func (s *Server) lead(ctx context.Context) {
	s.leading.Lock()
	s.isLead = true
	s.leading.Unlock()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.relocs.Run(ctx)
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.pruneHistory(ctx)
	}()
	defer wg.Wait()
	defer func() {
		s.leading.Lock()
		s.isLead = false
		s.leading.Unlock()
	}()
	t := time.NewTicker(s.cfg.Reconcile)
	defer t.Stop()
	for {
		if err := s.reconcile(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Logger.Warn("reconcile catalog and registry", "err", err)
			s.metrics.catalogErrors.Inc()
		}
		s.adoptVerifications(ctx, false)
		select {
		case <-ctx.Done():
			// One last look as the term ends (the server stops, say): a job that ended
			// since the last look is recorded so, not left running in the catalog for
			// the next leader. What it writes follows the registry, as any leader's would.
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			if err := s.reconcile(fctx); err != nil {
				s.cfg.Logger.Warn("reconcile catalog and registry as the term ends", "err", err)
			}
			cancel()
			return
		case <-t.C:
		}
	}
}

// leads reports whether this server leads now.
func (s *Server) leads() bool {
	s.leading.Lock()
	defer s.leading.Unlock()
	return s.isLead
}

// Close closes the registry and the catalog.
func (s *Server) Close() error {
	if s.ln != nil {
		s.ln.Close()
	}
	if s.reg != nil {
		s.reg.Close()
	}
	s.pool.Close()
	if s.cat != nil {
		return s.cat.Close()
	}
	return nil
}
