// Package metrics holds the Prometheus metrics of rangecopy's processes (what every process
// exports, a worker's, a master's), named by the Prometheus naming guide
// (rangecopy_<noun>_<unit>_total, base units) with bounded labels: a job's id or its
// relocation's, never a task id or a row key.
//
// NewProcess registers what every process exports: rangecopy_build_info, the ZooKeeper
// session, the Go runtime's and the process's metrics.
//
// Per-job series carry two labels: job_id for a job of its own, relocation for a job that
// belongs to a relocation (a catch-up window's), whose series are the relocation's and not
// one per window job (job_id is then empty). A job's series go once the job ends here: a
// worker's at the first scrape after its last opening of the job was untracked (so the
// final counts are scraped once), a master's at once. The label name job is Prometheus's
// own (the scrape job's), never used here.
//
// Each set of metrics is registered on a caller-given prometheus.Registerer; the package
// keeps no state of its own and never uses the default registry. Every method of a nil
// *Worker or *Master does nothing, so callers may leave metrics off.
package metrics
