package bulkload_test

import (
	"errors"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/bulkload"
	"rangecopy/hfile"
	"rangecopy/testenv"
)

// TestIntegrationNonSuperuser stages files as an ordinary HDFS user, "rcuser"
// (whose home the superuser created and handed over), and loads them as that
// user: the work folders let the region server move the files out, so the
// loads succeed; cleanup removes the folders.
func TestIntegrationNonSuperuser(t *testing.T) {
	t.Parallel()
	env := testenv.Get(t)
	cl := env.Target
	ctx := t.Context()
	const user = "rcuser"
	super := hdfsClient(t, cl, cl.User)
	top := "/" + testenv.UniqueName(t, "home")
	home := path.Join(top, user)
	if err := super.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { super.RemoveAll(top) })
	if err := super.Chown(home, user, "supergroup"); err != nil {
		t.Fatal(err)
	}
	if err := super.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}

	s := &setup{cl: cl, table: newTable(t, cl, "perm", fams, [][]byte{[]byte("r0100")}), c: dial(t, cl, user), fs: hdfsClient(t, cl, user)}
	wd, err := bulkload.OpenWorkDir(ctx, wrapFS(t, s.fs), "job-perm", bulkload.WorkDirOptions{Root: path.Join(home, ".rangecopy")})
	if err != nil {
		t.Fatal(err)
	}
	s.wd = wd
	l := s.loader(t, nil)
	var want []*hfile.Cell
	var files []bulkload.File
	for i, fam := range []string{"f", "g"} {
		cells := genCells(fam, "r", i*100, i*100+150)
		want = append(want, cells...)
		files = append(files, writeFile(t, s, "task-1", fam, cells, hfile.WriterOptions{}))
	}
	for _, dir := range []string{wd.Path(), wd.TaskDir("task-1"), path.Dir(files[0].Path)} {
		fi, err := s.fs.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != bulkload.DefaultDirPerm {
			t.Errorf("%s has mode %v, want %v", dir, fi.Mode().Perm(), bulkload.DefaultDirPerm)
		}
		if owner := fi.(*hdfs.FileInfo).Owner(); owner != user {
			t.Errorf("%s is owned by %s, want %s", dir, owner, user)
		}
	}
	for _, f := range files {
		fi, err := s.fs.Stat(f.Path)
		if err != nil || fi.Mode().Perm() != bulkload.DefaultFilePerm || fi.(*hdfs.FileInfo).Owner() != user {
			t.Errorf("staged file %s: %v, %v; want mode %v, owner %s", f.Path, fi, err, bulkload.DefaultFilePerm, user)
		}
		if err := l.Load(ctx, f); err != nil {
			t.Fatalf("Load as %s: %v", user, err)
		}
		if exists(t, s.fs, f.Path) {
			t.Errorf("%s still in the work folder after its load", f.Path)
		}
	}
	sortCells(want)
	checkTable(t, s, want)

	if err := wd.RemoveTask(ctx, "task-1"); err != nil {
		t.Fatal(err)
	}
	if err := wd.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.fs.Stat(wd.Path()); !os.IsNotExist(err) {
		t.Errorf("job folder after Remove: %v", err)
	}
	if !exists(t, s.fs, home) {
		t.Error("Remove removed more than the job folder")
	}
}

// TestIntegrationRefused has the region server refuse a file for a reason it
// hides behind loaded=false: the file belongs to the superuser with mode 0644
// and the load runs as another user, who may not move it. The Loader tries a
// few times, then gives up with an error naming the file, the region and
// what it could find out; the file stays and the table stays empty.
func TestIntegrationRefused(t *testing.T) {
	t.Parallel()
	s := newSetup(t, "refused", fams, nil)
	ctx := t.Context()
	cells := genCells("f", "r", 0, 20)
	f := writeFile(t, s, "t", "f", cells, hfile.WriterOptions{})
	if err := s.fs.Chmod(f.Path, 0o644); err != nil {
		t.Fatal(err)
	}
	other := *s
	other.c = dial(t, s.cl, "rcother")
	l := other.loader(t, nil)
	err := l.Load(ctx, f)
	var le *bulkload.LoadError
	if !errors.As(err, &le) || le.Region == "" {
		t.Fatalf("Load of a file the user may not move: %v", err)
	}
	for _, want := range []string{f.Path, le.Region, "loaded=false", "owned by " + s.cl.User, "-rw-r--r--"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if !exists(t, s.fs, f.Path) {
		t.Error("refused file is gone")
	}
	checkTable(t, s, nil)
	if v := l.Counters().Values(); v.Files != 0 || v.Retries == 0 {
		t.Errorf("counters = %+v, want retries and no file", v)
	}
	t.Logf("refused: %v", err)
}
