//go:build race

package hbase

// raceEnabled reports whether the race detector is on: allocation counts
// mean nothing under it.
const raceEnabled = true
