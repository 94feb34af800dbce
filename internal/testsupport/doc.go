// Package testsupport holds the helpers the integration tests of every
// package share: one definition of "the target holds what was copied from
// the source" (Compare) and one way to open our HBase client on a test
// cluster (Dial, DialWith).
//
// It is for tests only: it may import testenv and hbase, and no non-test
// code may import it (a test of this package checks that).
package testsupport
