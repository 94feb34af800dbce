package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"rangecopy/catalog"
	"rangecopy/metrics"
	"rangecopy/relocation"
)

// serverMetrics are the server's Prometheus metrics: its own (the API's, the dashboard's,
// the catalog's, the relocations'), with what every process exports (metrics.NewProcess)
// and the metrics of its master and embedded workers.
type serverMetrics struct {
	requests      *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	dashboard     *prometheus.CounterVec
	catalogErrors prometheus.Counter
	master        *metrics.Master
	worker        *metrics.Worker
}

// routeUnmatched is the route label of an API request no route took (a 404 or 405).
const routeUnmatched = "unmatched"

// newServerMetrics registers s's metrics on reg; connected says whether s holds a
// ZooKeeper session.
func newServerMetrics(reg *prometheus.Registry, s *Server, connected func() bool) (*serverMetrics, error) {
	m := &serverMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rangecopy_api_requests_total",
			Help: `API requests answered, by route (the route's pattern, such as "GET /api/v1/jobs/{id}", or "unmatched") and status code.`},
			[]string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rangecopy_api_request_duration_seconds",
			Help:    "Time to answer an API request (event streams excluded), by route and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10}}, []string{"route", "code"}),
		dashboard: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rangecopy_dashboard_requests_total",
			Help: "Web dashboard requests answered (pages, assets, sign-in), by status code."}, []string{"code"}),
		catalogErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "rangecopy_catalog_errors_total",
			Help: "Catalog calls that failed."}),
	}
	if err := metrics.NewProcess(reg, metrics.BuildOf(s.cfg.Version), connected); err != nil {
		return nil, err
	}
	// The event streams open and their cap: a stream count at its cap refuses new ones (503).
	streams := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rangecopy_api_event_streams",
		Help: "Event streams open (the API's and the dashboard's live updates)."}, func() float64 {
		if s.api == nil || s.api.streams == nil {
			return 0
		}
		return float64(s.api.streams.inUse())
	})
	streamsMax := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rangecopy_api_event_streams_max",
		Help: "Event streams the server holds at once (--max-streams); past it new ones are refused with 503."}, func() float64 {
		if s.api == nil || s.api.streams == nil {
			return 0
		}
		return float64(s.api.streams.max)
	})
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.dashboard, m.catalogErrors, streams, streamsMax, relocationCollector{s: s}} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	var err error
	if m.master, err = metrics.NewMaster(reg); err != nil {
		return nil, err
	}
	if m.worker, err = metrics.NewWorker(reg); err != nil {
		return nil, err
	}
	return m, nil
}

// instrument counts and times the API's requests, by the route mux took (its pattern).
func (m *serverMetrics) instrument(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		r.Pattern = ""
		mux.ServeHTTP(sw, r) // sets r.Pattern to the pattern it took; none when no route did
		route := r.Pattern
		if route == "" {
			route = routeUnmatched
		}
		code := strconv.Itoa(sw.code())
		m.requests.WithLabelValues(route, code).Inc()
		if sw.Header().Get("Content-Type") != "text/event-stream" {
			m.latency.WithLabelValues(route, code).Observe(time.Since(start).Seconds())
		}
	})
}

// instrumentDashboard counts the dashboard's requests, apart from the API's.
func (m *serverMetrics) instrumentDashboard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		m.dashboard.WithLabelValues(strconv.Itoa(sw.code())).Inc()
	})
}

// relocationCollector exports the open relocations' lag, gate and phase while this server
// leads (the leader drives them; one server exports them, not every replica). It reads the
// catalog at each scrape.
type relocationCollector struct{ s *Server }

var (
	relocationLagDesc = prometheus.NewDesc("rangecopy_relocation_lag_seconds",
		"How far behind the source a relocation's target is as the cut-over's lag gate sees it: the last catch-up "+
			"window's lag (its end minus its snapshot time), or the time since a running catch-up window's snapshot when "+
			"that is more. Only once a catch-up window ran or runs.", []string{metrics.LabelRelocation}, nil)
	relocationMaxLagDesc = prometheus.NewDesc("rangecopy_relocation_max_lag_seconds",
		"A relocation's lag gate (max-lag): the cut-over waits until its lag is under it.", []string{metrics.LabelRelocation}, nil)
	relocationPhaseDesc = prometheus.NewDesc("rangecopy_relocation_phase",
		"1 for each open relocation, with its phase.", []string{metrics.LabelRelocation, "phase"}, nil)
	relocationWatermarkDesc = prometheus.NewDesc("rangecopy_relocation_watermark_timestamp_seconds",
		"The snapshot time of the last window of a relocation that ran (Unix seconds): the target holds the source's "+
			"cells up to it.", []string{metrics.LabelRelocation}, nil)
)

// Describe implements prometheus.Collector.
func (relocationCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- relocationLagDesc
	ch <- relocationMaxLagDesc
	ch <- relocationPhaseDesc
	ch <- relocationWatermarkDesc
}

// Collect implements prometheus.Collector.
func (c relocationCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	if !s.leads() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rs, err := s.cat.ListRelocations(ctx, true)
	if err != nil {
		s.metrics.catalogErrors.Inc()
		s.cfg.Logger.Warn("metrics: list the relocations", "err", err)
		return
	}
	now := time.Now()
	for _, r := range rs {
		ch <- prometheus.MustNewConstMetric(relocationPhaseDesc, prometheus.GaugeValue, 1, r.ID, r.Phase)
		ch <- prometheus.MustNewConstMetric(relocationMaxLagDesc, prometheus.GaugeValue, float64(r.MaxLagMs)/1000, r.ID)
		if r.Watermark > 0 {
			ch <- prometheus.MustNewConstMetric(relocationWatermarkDesc, prometheus.GaugeValue, float64(r.Watermark)/1000, r.ID)
		}
		var last, running *catalog.RelocationWindow
		for _, w := range []struct {
			seq int
			dst **catalog.RelocationWindow
		}{{r.LastSeq, &last}, {r.RunningSeq, &running}} {
			if w.seq == 0 {
				continue
			}
			got, err := s.cat.RelocationWindow(ctx, r.ID, w.seq)
			if err != nil {
				s.metrics.catalogErrors.Inc()
				s.cfg.Logger.Warn("metrics: read a relocation's window", "relocation", r.ID, "window", w.seq, "err", err)
				continue
			}
			*w.dst = &got
		}
		if lag, ok := relocationLag(last, running, now); ok {
			ch <- prometheus.MustNewConstMetric(relocationLagDesc, prometheus.GaugeValue, lag.Seconds(), r.ID)
		}
	}
}

// relocationLag is the lag a relocation's lag gate sees, or will at least see once the
// running window ends, at now: the last catch-up (or final) window's lag, or how long
// since the running one's snapshot time when that is more. ok is false when neither window
// is a catch-up or final one (before the full copy ran).
func relocationLag(last, running *catalog.RelocationWindow, now time.Time) (lag time.Duration, ok bool) {
	if last != nil && last.Kind != string(relocation.Full) {
		lag, ok = time.Duration(last.LagMs)*time.Millisecond, true
	}
	if running != nil && running.Kind != string(relocation.Full) && running.SnapshotTime > 0 {
		lag, ok = max(lag, now.Sub(time.UnixMilli(running.SnapshotTime))), true
	}
	return lag, ok
}

// statusWriter notes the status of a response; it unwraps for flushes and deadlines.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// code is the status written, 200 when none was.
func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap is the writer below, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush flushes a streamed response.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// SetWriteDeadline sets the write deadline of the connection below.
func (w *statusWriter) SetWriteDeadline(t time.Time) error {
	return http.NewResponseController(w.ResponseWriter).SetWriteDeadline(t)
}
