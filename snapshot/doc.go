// Package snapshot pins a copy's inputs: it takes a snapshot of the source
// table, reads the snapshot's v2 manifest from the source HDFS, resolves every
// store file to where its bytes really are (data/, archive/ or .tmp/,
// following HFileLinks and split references), and gathers each file's facts
// (rows, TIMERANGE, a sample of its block index) for planning.
//
// The steps are separate so that each can be used and tested alone:
// DecodeManifest is pure (bytes in, manifest out), ReadManifest adds the
// HDFS reads, Resolve finds one file, Read does all of it for a snapshot that
// exists, and Pin takes the snapshot first.
package snapshot
