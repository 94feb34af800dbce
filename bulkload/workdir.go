package bulkload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"rangecopy/fsys"
)

// DefaultDirPerm is the mode of the work folders: everyone may create and
// remove entries, so the region servers' user can move files out of them.
const DefaultDirPerm os.FileMode = 0o777

// DefaultFilePerm is the mode of the files written into a work folder.
const DefaultFilePerm os.FileMode = 0o666

// DefaultRoot returns the default parent of job work folders for an HDFS
// user: /user/<user>/.rangecopy.
func DefaultRoot(user string) string {
	return path.Join("/user", user, ".rangecopy")
}

// WorkDir is a job's work folder on the target HDFS: <root>/<job-id>, with a
// folder per task and, inside it, per family. Output HFiles are written there
// and moved into the table's regions by bulk loads.
type WorkDir struct {
	fs      fsys.FS
	dir     string
	dirPerm os.FileMode
}

// WorkDirOptions configure OpenWorkDir.
type WorkDirOptions struct {
	// Root is the parent of job folders; default DefaultRoot of User.
	Root string
	// User is the HDFS user the work folder is for, when Root is not given.
	User string
	// DirPerm is the mode of the folders created; default DefaultDirPerm.
	DirPerm os.FileMode
}

// OpenWorkDir creates (or reuses) the work folder of a job on fs.
func OpenWorkDir(ctx context.Context, fs fsys.FS, jobID string, opts WorkDirOptions) (*WorkDir, error) {
	if err := checkName("job id", jobID); err != nil {
		return nil, err
	}
	root := opts.Root
	if root == "" {
		if opts.User == "" {
			return nil, fmt.Errorf("bulkload: work folder of job %s: neither a root nor a user given", jobID)
		}
		root = DefaultRoot(opts.User)
	}
	perm := opts.DirPerm
	if perm == 0 {
		perm = DefaultDirPerm
	}
	w := &WorkDir{fs: fs, dir: path.Join(root, jobID), dirPerm: perm}
	if err := w.mkdir(ctx, w.dir); err != nil {
		return nil, err
	}
	return w, nil
}

// Path returns the job's folder.
func (w *WorkDir) Path() string { return w.dir }

// TaskDir returns the folder of a task (it may not exist yet).
func (w *WorkDir) TaskDir(task string) string { return path.Join(w.dir, task) }

// FamilyDir creates (if needed) and returns the folder of a task's files of
// one family.
func (w *WorkDir) FamilyDir(ctx context.Context, task, family string) (string, error) {
	if err := checkName("task id", task); err != nil {
		return "", err
	}
	if err := checkName("family", family); err != nil {
		return "", err
	}
	if err := w.mkdir(ctx, w.TaskDir(task)); err != nil {
		return "", err
	}
	dir := path.Join(w.TaskDir(task), family)
	if err := w.mkdir(ctx, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// Create creates a new, uniquely named file in a task's family folder and
// returns its path and writer, with mode DefaultFilePerm. The file is
// complete when Close returns nil.
func (w *WorkDir) Create(ctx context.Context, task, family string) (string, io.WriteCloser, error) {
	dir, err := w.FamilyDir(ctx, task, family)
	if err != nil {
		return "", nil, err
	}
	name, err := NewFileName()
	if err != nil {
		return "", nil, err
	}
	name = path.Join(dir, name)
	fw, err := w.fs.Create(ctx, name, fsys.CreateOptions{Perm: DefaultFilePerm})
	if err != nil {
		return "", nil, fmt.Errorf("create %s: %w", name, err)
	}
	return name, fw, nil
}

// RemoveTask removes a task's folder with everything left in it (files that
// were not loaded). A missing folder is not an error.
func (w *WorkDir) RemoveTask(ctx context.Context, task string) error {
	if err := checkName("task id", task); err != nil {
		return err
	}
	return removeAll(ctx, w.fs, w.TaskDir(task))
}

// Remove removes the job's folder, at the end of a job or when it is
// cancelled. A missing folder is not an error.
func (w *WorkDir) Remove(ctx context.Context) error {
	return removeAll(ctx, w.fs, w.dir)
}

// mkdir creates dir and its parents and sets its mode explicitly (the
// NameNode may apply a umask to the mode sent with mkdirs).
func (w *WorkDir) mkdir(ctx context.Context, dir string) error {
	if err := w.fs.MkdirAll(ctx, dir, w.dirPerm); err != nil {
		return fmt.Errorf("create work folder %s: %w", dir, err)
	}
	if err := w.fs.Chmod(ctx, dir, w.dirPerm); err != nil {
		return fmt.Errorf("set mode %v on work folder %s: %w", w.dirPerm, dir, err)
	}
	return nil
}

func removeAll(ctx context.Context, fs fsys.FS, dir string) error {
	if err := fs.RemoveAll(ctx, dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove work folder %s: %w", dir, err)
	}
	return nil
}

// checkName refuses names that would escape or nest folders.
func checkName(what, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("bulkload: invalid %s %q", what, name)
	}
	return nil
}
