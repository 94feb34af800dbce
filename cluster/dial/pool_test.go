package dial

import (
	"testing"
	"time"

	"rangecopy/cluster"
	"rangecopy/testenv"
)

// TestPool: a connection taken twice is the same, given back it is kept, a connection idle
// past the idle time is closed and dialled anew, and a closed pool keeps nothing.
func TestPool(t *testing.T) {
	env := testenv.Get(t)
	c, err := cluster.Load("target", env.Target.ConfDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	p := NewPool(time.Minute, nil)
	now := time.Now()
	p.now = func() time.Time { return now }
	a, relA, err := p.HBase(ctx, c, env.Target.User, 30*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, relB, err := p.HBase(ctx, c, env.Target.User, 30*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("the same cluster and user gave two clients")
	}
	other, relO, err := p.HBase(ctx, c, "someone-else", 30*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if other == a {
		t.Fatal("another user shared the client")
	}
	relA()
	relA() // twice is once
	relB()
	relO()
	again, relAgain, err := p.HBase(ctx, c, env.Target.User, 30*time.Second, nil)
	if err != nil || again != a {
		t.Fatalf("given back and taken again: %p, %v; want the kept %p", again, err, a)
	}
	relAgain()
	now = now.Add(2 * time.Minute) // idle past the limit: closed, dialled anew
	fresh, relFresh, err := p.HBase(ctx, c, env.Target.User, 30*time.Second, nil)
	if err != nil || fresh == a {
		t.Fatalf("after the idle time: %p, %v; want a new client", fresh, err)
	}
	if _, err := a.ListNamespaces(ctx); err == nil {
		t.Error("the reaped client still answers: it was not closed")
	}
	fs1, relFS1, err := p.HDFS(ctx, c, env.Target.User)
	if err != nil {
		t.Fatal(err)
	}
	fs2, relFS2, err := p.HDFS(ctx, c, env.Target.User)
	if err != nil || fs1 != fs2 {
		t.Fatalf("HDFS twice: %p %p, %v", fs1, fs2, err)
	}
	relFS1()
	p.Close()
	if _, err := fs2.Stat(ctx, c.RootDir); err != nil {
		t.Errorf("a held HDFS client was closed by Close: %v", err)
	}
	relFS2()
	relFresh()
	if _, err := fresh.ListNamespaces(ctx); err == nil {
		t.Error("a client given back to a closed pool still answers")
	}
}
