package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// serverMetrics are the server's own Prometheus metrics (embedded workers add theirs).
type serverMetrics struct {
	requests      *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	catalogErrors prometheus.Counter
}

func newServerMetrics(reg *prometheus.Registry, s *Server) *serverMetrics {
	m := &serverMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rangecopy_api_requests_total",
			Help: "API requests answered, by method and status code."}, []string{"method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rangecopy_api_request_seconds",
			Help:    "Time to answer an API request (event streams excluded), by method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10}}, []string{"method"}),
		catalogErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "rangecopy_catalog_errors_total",
			Help: "Catalog calls that failed."}),
	}
	reg.MustRegister(m.requests, m.latency, m.catalogErrors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rangecopy_server_leader",
			Help: "1 while this server leads the master election."}, func() float64 {
			if s.leads() {
				return 1
			}
			return 0
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rangecopy_zookeeper_session_up",
			Help: "1 while the registry's ZooKeeper session is established."}, func() float64 {
			select {
			case <-s.reg.SessionLost():
				return 0
			default:
				return 1
			}
		}),
	)
	return m
}

// instrument counts and times the API's requests.
func (m *serverMetrics) instrument(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		code := sw.status
		if code == 0 {
			code = http.StatusOK
		}
		m.requests.WithLabelValues(r.Method, strconv.Itoa(code)).Inc()
		if sw.Header().Get("Content-Type") != "text/event-stream" {
			m.latency.WithLabelValues(r.Method).Observe(time.Since(start).Seconds())
		}
	})
}

// statusWriter notes the status of a response; it unwraps for flushes and deadlines.
type statusWriter struct {
	http.ResponseWriter
	status int
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
