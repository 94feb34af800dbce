package faults

import (
	"testing"

	"rangecopy/testenv"
)

func TestScaffoldEmbeddedCopy(t *testing.T) {
	env := testenv.Get(t)
	src := writeSample(t, env)
	dst := newTarget(t, env)
	r := newRig(t, env)
	p := startProc(t, "copy", "copy", "--source", env.Source.ConfDir, "--target", env.Target.ConfDir, "--table", src, "--target-table", dst,
		"--work-dir", r.workDir, "--user", env.Target.User, "--zk-root", r.root, "--task-size", "8MiB", "--workers", "3", "-v", "--json")
	<-p.exited
	p.logTail(t, 15)
	n := assertSame(t, env, src, dst)
	c, rows := assertSubset(t, env, src, dst)
	t.Logf("%d cells equal; subset %d cells %d rows", n, c, rows)
}
