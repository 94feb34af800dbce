package metrics

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Build is what rangecopy_build_info says of the binary.
type Build struct {
	// Version is the release (main.version, set by the Makefile).
	Version string
	// Revision is the VCS revision the binary was built from; empty when unknown.
	Revision string
	// GoVersion is the Go release that built it.
	GoVersion string
}

// BuildOf is the running binary's Build, of the given version: its revision from
// the build's VCS stamp, when it has one.
func BuildOf(version string) Build {
	b := Build{Version: version, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				b.Revision = s.Value
			}
		}
	}
	return b
}

// NewProcess registers on reg what every rangecopy process exports, whatever it runs:
// rangecopy_build_info{version,revision,goversion} 1, rangecopy_zookeeper_session_up (when
// connected is set: whether the process holds a ZooKeeper session), and the Go runtime's
// and the process's collectors.
func NewProcess(reg prometheus.Registerer, b Build, connected func() bool) error {
	cs := []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rangecopy_build_info",
			Help:        "Always 1; the labels say which build of rangecopy runs.",
			ConstLabels: prometheus.Labels{"version": b.Version, "revision": b.Revision, "goversion": b.GoVersion}},
			func() float64 { return 1 }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}
	if connected != nil {
		cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rangecopy_zookeeper_session_up",
			Help: "1 while the process holds a ZooKeeper session, else 0."}, func() float64 {
			if connected() {
				return 1
			}
			return 0
		}))
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("metrics: register the process's metrics: %w", err)
		}
	}
	return nil
}
