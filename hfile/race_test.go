//go:build race

package hfile

const raceEnabled = true
