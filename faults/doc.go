// Package faults holds rangecopy's fault tests of the distributed mode: real
// master and worker processes (the rangecopy binary, built once per run)
// copying tables between the two real clusters of testenv while a test kills,
// freezes or cancels them, or stops a region server or a DataNode, or splits
// and moves target regions. Every test ends by comparing the source and the
// target cell for cell and checking that the job was done exactly once (or,
// for a cancelled job, that the target holds only cells of the source and the
// job's report accounts for every file loaded).
//
// The package has no code of its own beyond this comment: the tests are the
// content. docs/failures.md says, for each failure, what happens and which
// test shows it.
//
// Tests that stop a shared server (a target region server, a source DataNode)
// do not run in parallel: Go runs them one after the other first, then the
// parallel tests together, so no two tests stop servers at once and no
// parallel test sees a server stopped. Other packages' tests do run at the
// same time, so a stopped server must never be one they need: a region server
// a test stops is one it started, and a stopped DataNode is one of three, so
// two still take every new block. Every test uses a ZooKeeper root, a work
// folder and tables of its own.
package faults
