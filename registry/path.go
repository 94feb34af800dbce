package registry

import (
	"fmt"
	"hash/fnv"
	"os"
	"path"
	"strings"
)

// Buckets is the number of buckets a job's tasks are spread over.
const Buckets = 256

// MaxIDLen bounds task and worker ids.
const MaxIDLen = 200

// MaxJobIDLen and MaxRootLen bound a job id and the root path, so that
// creating a job with all its bucket folders in one transaction stays well
// under 1 MB (at most about 420 KB).
const (
	MaxJobIDLen = 128
	MaxRootLen  = 128
)

// ValidateJobID checks a job id: ValidateID, at most MaxJobIDLen bytes.
func ValidateJobID(id string) error {
	if len(id) > MaxJobIDLen {
		return fmt.Errorf("job id %.20q...: longer than %d bytes", id, MaxJobIDLen)
	}
	return ValidateID(id)
}

// Bucket returns the bucket of a task id: FNV-1a of the id modulo Buckets.
func Bucket(taskID string) int {
	h := fnv.New32a()
	h.Write([]byte(taskID))
	return int(h.Sum32() % Buckets)
}

func bucketName(b int) string { return fmt.Sprintf("%02x", b) }

// ValidateID checks that an id (job, task or worker) is one ZooKeeper path
// element that needs no escaping: 1 to MaxIDLen characters out of letters,
// digits, '.', '_', '-' and ':', not "." or "..", and not containing the
// sequence marker "-n_" that election nodes use.
func ValidateID(id string) error {
	if id == "" {
		return fmt.Errorf("empty id")
	}
	if len(id) > MaxIDLen {
		return fmt.Errorf("id %.20q...: longer than %d bytes", id, MaxIDLen)
	}
	if id == "." || id == ".." {
		return fmt.Errorf("id %q: not a valid path element", id)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == '-', c == ':':
		default:
			return fmt.Errorf("id %q: byte %#x at %d is not allowed (letters, digits, '.', '_', '-', ':')", id, c, i)
		}
	}
	if strings.Contains(id, "-n_") {
		return fmt.Errorf("id %q: must not contain %q", id, "-n_")
	}
	return nil
}

// ProcessID is an id for a process of this host: prefix, the host name (its
// bytes that ValidateID refuses made '_') and the process id, cut to
// MaxIDLen.
func ProcessID(prefix string) string {
	host, _ := os.Hostname()
	if host == "" {
		host = "host"
	}
	host = strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' {
			return c
		}
		return '_'
	}, host)
	id := strings.ReplaceAll(fmt.Sprintf("%s-%s-%d", prefix, host, os.Getpid()), "-n_", "-n.")
	if len(id) > MaxIDLen {
		id = id[len(id)-MaxIDLen:]
	}
	return id
}

// ValidateRoot checks a root path: absolute, no trailing slash, no empty,
// "." or ".." elements.
func ValidateRoot(root string) error {
	if !strings.HasPrefix(root, "/") || root == "/" {
		return fmt.Errorf("root %q: must be an absolute path below /", root)
	}
	if len(root) > MaxRootLen {
		return fmt.Errorf("root %.20q...: longer than %d bytes", root, MaxRootLen)
	}
	if path.Clean(root) != root {
		return fmt.Errorf("root %q: not a clean path", root)
	}
	for _, el := range strings.Split(root[1:], "/") {
		if err := ValidateID(el); err != nil {
			return fmt.Errorf("root %q: %w", root, err)
		}
	}
	return nil
}

// paths builds node paths under one root.
type paths struct{ root string }

func (p paths) leaderDir() string           { return p.root + "/leader" }
func (p paths) workersDir() string          { return p.root + "/workers" }
func (p paths) worker(id string) string     { return p.root + "/workers/" + id }
func (p paths) jobsDir() string             { return p.root + "/jobs" }
func (p paths) job(job string) string       { return p.root + "/jobs/" + job }
func (p paths) events(job string) string    { return p.job(job) + "/events" }
func (p paths) dir(job, kind string) string { return p.job(job) + "/" + kind }
func (p paths) bucketDir(job, kind string, b int) string {
	return p.job(job) + "/" + kind + "/" + bucketName(b)
}
func (p paths) in(job, kind, task string) string {
	return p.bucketDir(job, kind, Bucket(task)) + "/" + task
}
func (p paths) task(job, task string) string       { return p.in(job, kindTasks, task) }
func (p paths) checkpoint(job, task string) string { return p.in(job, kindCheckpoints, task) }
func (p paths) claim(job, task string) string      { return p.in(job, kindClaims, task) }
func (p paths) result(job, task string, s Status) string {
	if s == StatusDone {
		return p.in(job, kindDone, task)
	}
	return p.in(job, kindFailed, task)
}

// The per-bucket folders of a job.
const (
	kindTasks       = "tasks"
	kindClaims      = "claims"
	kindCheckpoints = "checkpoints"
	kindDone        = "done"
	kindFailed      = "failed"
)

var kinds = []string{kindTasks, kindClaims, kindCheckpoints, kindDone, kindFailed}
