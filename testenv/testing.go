package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/colinmarc/hdfs/v2"
)

// InCI reports whether the tests run in CI, where a missing environment is a
// failure and never a skip.
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}

// Get returns the running test environment. Without one, it fails the test
// in CI and skips it elsewhere, saying how to start it.
func Get(t testing.TB) *Env {
	t.Helper()
	dir, err := DefaultDir()
	var env *Env
	if err == nil {
		env, err = Load(dir)
	}
	if err != nil {
		if InCI() {
			t.Fatalf("test environment missing in CI: %v", err)
		}
		t.Skipf("skipped outside CI: test environment missing (start it with make testenv-up): %v", err)
	}
	return env
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// UniqueName returns a name no other test uses: the prefix, the test's name
// and a random suffix, restricted to characters valid in HBase table names
// and HDFS paths.
func UniqueName(t testing.TB, prefix string) string {
	t.Helper()
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("random name: %v", err)
	}
	name := unsafeName.ReplaceAllString(prefix+"_"+t.Name(), "_")
	if len(name) > 60 {
		name = name[:60]
	}
	return strings.Trim(name, "_") + "_" + hex.EncodeToString(b[:])
}

// NewTable creates a table of the test's own on c (a UniqueName from
// prefix) with HBase's admin client, and deletes it when the test ends.
func (c *Cluster) NewTable(t testing.TB, prefix string, families []Family, splits [][]byte) string {
	t.Helper()
	table := UniqueName(t, prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.CreateTable(ctx, table, families, splits); err != nil {
		t.Fatalf("create table %s on %s: %v", table, c.Name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := c.DeleteTable(ctx, table); err != nil {
			t.Logf("delete table %s on %s: %v", table, c.Name, err)
		}
	})
	return table
}

// HDFS connects to c's NameNode as user (c.User, the superuser, when
// empty) and closes the client when the test ends.
func (c *Cluster) HDFS(t testing.TB, user string) *hdfs.Client {
	t.Helper()
	if user == "" {
		user = c.User
	}
	client, err := hdfs.NewClient(hdfs.ClientOptions{Addresses: []string{c.NameNode}, User: user})
	if err != nil {
		t.Fatalf("connect to %s NameNode %s as %s: %v", c.Name, c.NameNode, user, err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}
