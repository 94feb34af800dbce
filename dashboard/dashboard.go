package dashboard

import (
	"bytes"
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"
)

//go:embed web
var webFS embed.FS

// Config is a dashboard's wiring.
type Config struct {
	// Source answers every page; required.
	Source Source
	// InsecureNoAuth serves everyone as an admin without sign-in, as the API does under
	// --insecure-no-auth.
	InsecureNoAuth bool
	// Version is shown in the page footer.
	Version string
	// Logger receives what goes wrong; nil discards.
	Logger *slog.Logger
	// Live is how often the live stream looks at its jobs; 0 means 1 s. Sample is how often
	// Run samples the running jobs for the throughput charts; 0 means 5 s.
	Live, Sample time.Duration
	// Sampling reports whether Run samples now; nil means always. Several servers share one
	// catalog, so only the one that leads samples: a job gets one history.
	Sampling func() bool
	// Sessions keeps the sign-ins (signin.go); nil keeps them in this process's memory.
	Sessions Sessions
	// SecureCookies marks the session cookie Secure (and __Host-) even on requests that
	// arrive in plain HTTP, for a server behind a proxy that terminates TLS.
	SecureCookies bool
}

// Dashboard is the web dashboard, an http.Handler. Mount it at the root of the server's
// mux; the API keeps its own prefix.
type Dashboard struct {
	cfg   Config
	key   []byte // this process's key for the CSRF token of anonymous sessions
	pages map[string]*template.Template
	mux   *http.ServeMux

	sessions Sessions // the sign-ins: Config.Sessions, or in this process's memory
}

// navItem is one entry of the navigation bar. A new page adds its entry to nav and its
// routes to New.
type navItem struct {
	Name, Path string
}

// nav is the navigation bar of a session of role: the admin pages only for admins.
func nav(role Role) []navItem {
	items := []navItem{{"Jobs", "/jobs"}, {"Relocations", "/relocations"}, {"Workers", "/workers"}}
	if role == RoleAdmin {
		items = append(items, navItem{"Clusters", "/clusters"}, navItem{"Tokens", "/tokens"}, navItem{"Audit log", "/audit"})
	}
	return items
}

// New builds the dashboard.
func New(cfg Config) (*Dashboard, error) {
	if cfg.Source == nil {
		return nil, errors.New("dashboard: no source")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Live <= 0 {
		cfg.Live = time.Second
	}
	if cfg.Sample <= 0 {
		cfg.Sample = 5 * time.Second
	}
	d := &Dashboard{cfg: cfg, key: make([]byte, 32), pages: map[string]*template.Template{},
		mux: http.NewServeMux()}
	if _, err := rand.Read(d.key); err != nil {
		return nil, fmt.Errorf("dashboard: random key: %w", err)
	}
	if d.sessions = cfg.Sessions; d.sessions == nil {
		d.sessions = newMemSessions(cfg.Source)
	}
	funcs := template.FuncMap{
		"bytes": bytesText, "rate": rateText, "limit": limitText, "eta": etaText, "duration": durationText,
		"percent": percentText, "tasks": tasksText, "time": timeHTML, "row": rowText,
		"lag": lagText, "godur": goDurationText,
		"pct100": func(f float64) string { return fmt.Sprintf("%.1f", min(100, max(0, f*100))) },
	}
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(webFS, "web/layout.html")
	if err != nil {
		return nil, fmt.Errorf("dashboard: templates: %w", err)
	}
	for _, name := range []string{"login", "jobs", "job", "workers", "relocations", "relocation", "error",
		"clusters", "cluster", "tokens", "audit"} {
		t, err := template.Must(layout.Clone()).ParseFS(webFS, "web/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("dashboard: template %s: %w", name, err)
		}
		d.pages[name] = t
	}
	static, err := fs.Sub(webFS, "web/static")
	if err != nil {
		return nil, fmt.Errorf("dashboard: static files: %w", err)
	}
	files := http.FileServerFS(static)
	d.mux.Handle("GET /static/", http.StripPrefix("/static/", cacheFor(time.Hour, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Files only: no listing, and a name no file can have (invalid UTF-8, say) is
		// not found rather than the file server's 500.
		if name := r.URL.Path; !fs.ValidPath(name) || name == "." {
			d.fail(w, r, http.StatusNotFound, "There is no file "+r.URL.Path+".")
			return
		}
		files.ServeHTTP(w, r)
	}))))
	d.mux.HandleFunc("GET /login", d.loginPage)
	d.mux.HandleFunc("POST /login", d.login)
	d.mux.HandleFunc("POST /logout", d.logout)
	d.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/jobs", http.StatusSeeOther) })
	d.mux.Handle("GET /jobs", d.viewer(d.jobsPage))
	d.mux.Handle("GET /jobs/{id}", d.viewer(d.jobPage))
	d.mux.Handle("POST /jobs/{id}/{action}", d.operator(d.act))
	d.mux.Handle("GET /relocations", d.viewer(d.relocationsPage))
	d.mux.Handle("GET /relocations/{id}", d.viewer(d.relocationPage))
	d.mux.Handle("POST /relocations/{id}/{action}", d.operator(d.relocAct))
	d.mux.Handle("GET /workers", d.viewer(d.workersPage))
	d.mux.Handle("GET /clusters", d.admin(d.clustersPage))
	d.mux.Handle("GET /clusters/{name}", d.admin(d.clusterPage))
	d.mux.Handle("GET /tokens", d.admin(d.tokensPage))
	d.mux.Handle("GET /audit", d.admin(d.auditPage))
	d.mux.Handle("GET /live", d.viewer(d.live))
	d.mux.Handle("GET /live/relocation", d.viewer(d.liveRelocation))
	d.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		d.fail(w, r, http.StatusNotFound, "There is no page "+r.URL.Path+".")
	})
	return d, nil
}

// ServeHTTP serves the dashboard's pages.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	d.mux.ServeHTTP(w, r)
}

// Run samples the jobs that have not ended, every Sample (while Sampling says so), for the
// throughput charts, until ctx ends. The samples go to the Source, which keeps them.
func (d *Dashboard) Run(ctx context.Context) {
	t := time.NewTicker(d.cfg.Sample)
	defer t.Stop()
	for {
		if d.cfg.Sampling == nil || d.cfg.Sampling() {
			d.sample(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sample records how far each job that has not ended is now.
func (d *Dashboard) sample(ctx context.Context) {
	page, err := d.cfg.Source.Jobs(ctx, JobFilter{States: []string{"pending", "planning", "running", "paused", "cancelling"}, Limit: 1000})
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Warn("dashboard: sample jobs: list them", "err", err)
		}
		return
	}
	now := time.Now()
	ss := make([]JobSample, 0, len(page.Jobs))
	for _, j := range page.Jobs {
		ss = append(ss, JobSample{Job: j.ID, Sample: Sample{At: now, BytesDone: j.BytesDone}})
	}
	if len(ss) == 0 {
		return
	}
	if err := d.cfg.Source.RecordSamples(ctx, ss); err != nil && ctx.Err() == nil {
		d.cfg.Logger.Warn("dashboard: sample jobs: record them", "jobs", len(ss), "err", err)
	}
}

func cacheFor(d time.Duration, h http.Handler) http.Handler {
	v := fmt.Sprintf("public, max-age=%d", int(d.Seconds()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", v)
		h.ServeHTTP(w, r)
	})
}

// viewer lets through signed-in people; others go to the sign-in page.
func (d *Dashboard) viewer(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := d.authenticate(r)
		if err != nil {
			if !errors.Is(err, errNoSession) && !errors.Is(err, ErrUnauthenticated) {
				d.fail(w, r, http.StatusServiceUnavailable, "The server cannot check your token now: "+err.Error())
				return
			}
			if errors.Is(err, ErrUnauthenticated) {
				d.setSession(w, r, "")
			}
			http.Redirect(w, r, "/login?next="+template.URLQueryEscaper(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, s)))
	})
}

// operator lets through POSTs of operators (and admins) that carry the session's CSRF
// token; anything else is refused with 403.
func (d *Dashboard) operator(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		s, err := d.authenticate(r)
		if err != nil {
			if !errors.Is(err, errNoSession) && !errors.Is(err, ErrUnauthenticated) {
				d.fail(w, r, http.StatusServiceUnavailable, "The server cannot check your token now: "+err.Error())
				return
			}
			d.refuse(r, Principal{}, http.StatusForbidden, "not signed in")
			d.fail(w, r, http.StatusForbidden, "Sign in first: this action needs an operator's token.")
			return
		}
		s.who.Addr = r.RemoteAddr
		if !validCSRF(r.PostFormValue(csrfField), s.csrf) {
			d.refuse(r, s.who, http.StatusForbidden, "the form's CSRF token is missing or wrong (forged)")
			d.fail(w, r, http.StatusForbidden, "The form did not come from this dashboard (its CSRF token is missing or wrong). Reload the page and try again.")
			return
		}
		if !s.who.Role.MayOperate() {
			d.refuse(r, s.who, http.StatusForbidden, fmt.Sprintf("role %s; this needs operator", s.who.Role))
			d.fail(w, r, http.StatusForbidden, fmt.Sprintf("Token %s has role %s; this needs operator.", s.who.Name, s.who.Role))
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, s)))
	})
}

// refuse records a refused request in the audit log, through the Source.
func (d *Dashboard) refuse(r *http.Request, who Principal, status int, why string) {
	who.Addr = r.RemoteAddr
	ref := Refusal{Who: who, Method: r.Method, Path: r.URL.Path, Status: status, Why: why}
	if err := d.cfg.Source.Refused(r.Context(), ref); err != nil {
		d.cfg.Logger.Error("dashboard: audit log: cannot record a refusal", "method", ref.Method, "path", ref.Path,
			"status", status, "why", why, "err", err)
	}
}

// page is what every template gets.
type page struct {
	Title    string
	Active   string
	Nav      []navItem
	Who      *Principal // nil: not signed in
	SignOut  bool       // signed in with a cookie (not --insecure-no-auth)
	Operator bool
	CSRF     string
	Version  string
	Body     any
}

// render writes a page with status.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, name, title string, body any) {
	p := page{Title: title, Active: name, Nav: nav(""), Version: d.cfg.Version, Body: body}
	if s := sessionOf(r.Context()); s != nil {
		p.Nav = nav(s.who.Role)
		p.Who, p.SignOut = &s.who, s.id != ""
		p.Operator = s.who.Role.MayOperate()
		p.CSRF = s.csrf
	}
	var buf bytes.Buffer
	if err := d.pages[name].ExecuteTemplate(&buf, "layout.html", p); err != nil {
		d.cfg.Logger.Error("dashboard: render", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail writes an error page.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	d.render(w, r, status, "error", http.StatusText(status), struct {
		Status int
		Text   string
		Msg    string
	}{status, http.StatusText(status), msg})
}

// sourceFail writes the error page of a Source's error.
func (d *Dashboard) sourceFail(w http.ResponseWriter, r *http.Request, what string, err error) {
	var ue *UserError
	switch {
	case errors.Is(err, ErrNotFound):
		d.fail(w, r, http.StatusNotFound, what+": no such thing here.")
	case errors.As(err, &ue):
		d.fail(w, r, ue.Status, ue.Message)
	default:
		d.cfg.Logger.Warn("dashboard: source", "what", what, "err", err)
		d.fail(w, r, http.StatusServiceUnavailable, what+": unavailable now: "+err.Error())
	}
}
