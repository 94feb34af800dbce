// Package metrics holds the Prometheus metrics of rangecopy's worker and
// master processes, named by the Prometheus naming guide
// (rangecopy_<noun>_<unit>_total, base units) with bounded labels: a job id
// where it helps, never a task id or a row key. Each set of metrics is a
// struct registered on a caller-given prometheus.Registerer; the package
// keeps no state of its own and never uses the default registry. Every
// method of a nil *Worker or *Master does nothing, so callers may leave
// metrics off.
package metrics
