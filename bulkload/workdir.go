package bulkload

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/retry"
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
	fs      *hdfs.Client
	dir     string
	dirPerm os.FileMode
}

// WorkDirOptions configure OpenWorkDir.
type WorkDirOptions struct {
	// Root is the parent of job folders; default DefaultRoot of the HDFS
	// client's user.
	Root string
	// DirPerm is the mode of the folders created; default DefaultDirPerm.
	DirPerm os.FileMode
}

// OpenWorkDir creates (or reuses) the work folder of a job on fs.
func OpenWorkDir(ctx context.Context, fs *hdfs.Client, jobID string, opts WorkDirOptions) (*WorkDir, error) {
	if err := checkName("job id", jobID); err != nil {
		return nil, err
	}
	root := opts.Root
	if root == "" {
		root = DefaultRoot(fs.User())
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
// returns its path and writer. Close the writer with CloseFile.
func (w *WorkDir) Create(ctx context.Context, task, family string) (string, *hdfs.FileWriter, error) {
	dir, err := w.FamilyDir(ctx, task, family)
	if err != nil {
		return "", nil, err
	}
	return createFile(ctx, w.fs, dir)
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
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("create work folder %s: %w", dir, err)
	}
	if err := w.fs.MkdirAll(dir, w.dirPerm); err != nil {
		return fmt.Errorf("create work folder %s: %w", dir, err)
	}
	if err := w.fs.Chmod(dir, w.dirPerm); err != nil {
		return fmt.Errorf("set mode %v on work folder %s: %w", w.dirPerm, dir, err)
	}
	return nil
}

func removeAll(ctx context.Context, fs *hdfs.Client, dir string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("remove work folder %s: %w", dir, err)
	}
	if err := fs.RemoveAll(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
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

// newFileName returns a random name of 32 hex digits, the form HBase gives
// store files.
func newFileName() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// createFile creates a new file with a fresh name in dir.
func createFile(ctx context.Context, fs *hdfs.Client, dir string) (string, *hdfs.FileWriter, error) {
	name := path.Join(dir, newFileName())
	if err := ctx.Err(); err != nil {
		return "", nil, fmt.Errorf("create %s: %w", name, err)
	}
	defaults, err := fs.ServerDefaults()
	if err != nil {
		return "", nil, fmt.Errorf("create %s: server defaults: %w", name, err)
	}
	fw, err := fs.CreateFile(name, defaults.Replication, defaults.BlockSize, DefaultFilePerm)
	if err != nil {
		return "", nil, fmt.Errorf("create %s: %w", name, err)
	}
	return name, fw, nil
}

// CloseFile closes an HDFS file being written. While the NameNode waits for
// the last block's replicas it refuses to complete the file; CloseFile then
// tries again with backoff, as the Java client does, until ctx is done.
func CloseFile(ctx context.Context, fw *hdfs.FileWriter, name string) error {
	return CloseFileAttempts(ctx, fw, name, 20)
}

// CloseFileAttempts is CloseFile with a bound of its own: at most attempts
// calls to Close, with backoff from 20 ms doubling to 2 s between them.
func CloseFileAttempts(ctx context.Context, fw *hdfs.FileWriter, name string, attempts int) error {
	backoff := retry.Backoff{Initial: 20 * time.Millisecond, Max: 2 * time.Second}
	for attempt := 1; ; attempt++ {
		err := fw.Close()
		if err == nil {
			return nil
		}
		if !hdfs.IsErrReplicating(err) || attempt >= attempts {
			return fmt.Errorf("close %s (attempt %d): %w", name, attempt, err)
		}
		if err := retry.Sleep(ctx, backoff.Delay(attempt-1)); err != nil {
			return fmt.Errorf("close %s: waiting for replicas: %w", name, err)
		}
	}
}
