package bulkload

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"rangecopy/hbase"
	"rangecopy/retry"
)

// MissingFamiliesError reports an existing target table that lacks families
// the copy needs. errors.Is matches hbase.ErrNoSuchColumnFamily.
type MissingFamiliesError struct {
	Table    string
	Families []string
}

// Error names the table and the missing families.
func (e *MissingFamiliesError) Error() string {
	return fmt.Sprintf("target table %s has no column famil%s %s (add %s, or copy fewer families)",
		e.Table, plural(len(e.Families), "y", "ies"), strings.Join(e.Families, ", "), plural(len(e.Families), "it", "them"))
}

// Is matches hbase.ErrNoSuchColumnFamily.
func (e *MissingFamiliesError) Is(target error) bool { return target == hbase.ErrNoSuchColumnFamily }

// ErrNoTargetTable reports a target table that does not exist while creating
// it was not asked for. The errors returned are *NoTargetTableError, which
// match it and hbase.ErrTableNotFound.
var ErrNoTargetTable = errors.New("target table does not exist")

// NoTargetTableError reports a target table that does not exist while
// creating it was not asked for, in one sentence that says how to have it
// created. errors.Is matches ErrNoTargetTable and hbase.ErrTableNotFound.
type NoTargetTableError struct {
	Table string
	// Cluster names where the table was looked for, e.g. "target cluster
	// (zookeeper ...)"; empty leaves it out.
	Cluster string
}

// Error names the table and the cluster and says to use --create-table.
func (e *NoTargetTableError) Error() string {
	on := ""
	if e.Cluster != "" {
		on = " on the " + e.Cluster
	}
	return fmt.Sprintf("target table %s does not exist%s; use --create-table to create it", e.Table, on)
}

// Is matches ErrNoTargetTable and hbase.ErrTableNotFound.
func (e *NoTargetTableError) Is(target error) bool {
	return target == ErrNoTargetTable || target == hbase.ErrTableNotFound
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// MissingFamilies returns the names of the families of want that have is
// lacks, in want's order. It is pure.
func MissingFamilies(want, have *hbase.TableDescriptor) []string {
	var missing []string
	for _, f := range want.Families {
		if have.Family(f.Name) == nil {
			missing = append(missing, f.Name)
		}
	}
	return missing
}

// TargetDescriptor returns the descriptor to create the target table from:
// the source's families with all their attributes and configuration, and the
// source's table attributes except coprocessors (their classes may not exist
// on the target cluster). It is pure.
func TargetDescriptor(source hbase.TableDescriptor, target string) hbase.TableDescriptor {
	d := hbase.TableDescriptor{Name: target, Attributes: map[string]string{}}
	for k, v := range source.Attributes {
		if strings.HasPrefix(strings.ToLower(k), "coprocessor$") {
			continue
		}
		d.Attributes[k] = v
	}
	for _, f := range source.Families {
		f.Attributes = maps.Clone(f.Attributes)
		f.Configuration = maps.Clone(f.Configuration)
		d.Families = append(d.Families, f)
	}
	return d
}

// EnsureNamespace creates the namespace of table on c's cluster when it is
// missing (HBase creates no namespace for a new table), and reports which
// namespace it created ("" for none: the table is in the default namespace,
// or its namespace exists).
func EnsureNamespace(ctx context.Context, c *hbase.Client, table string) (string, error) {
	ns, _, ok := strings.Cut(table, ":")
	if !ok || ns == "default" {
		return "", nil
	}
	have, err := c.ListNamespaces(ctx)
	if err != nil {
		return "", fmt.Errorf("namespace %s of target table %s: %w", ns, table, err)
	}
	if slices.Contains(have, ns) {
		return "", nil
	}
	made, err := c.CreateNamespace(ctx, ns)
	if err != nil {
		return "", fmt.Errorf("create namespace %s for target table %s: %w", ns, table, err)
	}
	if !made {
		return "", nil
	}
	return ns, nil
}

// EnsureTable makes sure the target table can take the copy of source's
// families before anything is written to it. An existing target must have
// every family of source (the error names the missing ones; nothing is
// created or changed). A missing target is an error unless create is set;
// then it is created (and its namespace, when missing: EnsureNamespace) with
// source's families and attributes, pre-split at splits (see SplitKeys), and
// EnsureTable waits until all its regions are open. It reports whether it
// created the table.
func EnsureTable(ctx context.Context, c *hbase.Client, source hbase.TableDescriptor, target string, splits [][]byte, create bool) (bool, error) {
	if len(source.Families) == 0 {
		return false, fmt.Errorf("ensure target table %s: source %s has no column families", target, source.Name)
	}
	have, err := c.TableDescriptor(ctx, target)
	switch {
	case err == nil:
		if missing := MissingFamilies(&source, have); len(missing) > 0 {
			return false, &MissingFamiliesError{Table: target, Families: missing}
		}
		return false, nil
	case !errors.Is(err, hbase.ErrTableNotFound):
		return false, fmt.Errorf("ensure target table %s: %w", target, err)
	case !create:
		return false, &NoTargetTableError{Table: target}
	}
	if _, err := EnsureNamespace(ctx, c, target); err != nil {
		return false, err
	}
	d := TargetDescriptor(source, target)
	if err := c.CreateTable(ctx, d, splits); err != nil {
		if !errors.Is(err, hbase.ErrTableExists) {
			return false, fmt.Errorf("create target table %s: %w", target, err)
		}
		// Another submission of the same copy created it between our look and our
		// create: the table is there, which is all that was asked, if it has the families.
		have, derr := c.TableDescriptor(ctx, target)
		if derr != nil {
			return false, fmt.Errorf("target table %s, created by another at the same time: %w", target, derr)
		}
		if missing := MissingFamilies(&source, have); len(missing) > 0 {
			return false, &MissingFamiliesError{Table: target, Families: missing}
		}
		return false, waitOpen(ctx, c, target, len(splits)+1)
	}
	if err := waitOpen(ctx, c, target, len(splits)+1); err != nil {
		return true, err
	}
	return true, nil
}

// waitOpen polls hbase:meta until the table has (at least) n regions, all
// open on a server.
func waitOpen(ctx context.Context, c *hbase.Client, table string, n int) error {
	backoff := retry.Backoff{Initial: 100 * time.Millisecond, Max: 2 * time.Second}
	for attempt := 0; ; attempt++ {
		regions, err := c.Regions(ctx, table)
		if err == nil {
			// At least the n regions made, every one open. Someone may split
			// the new table at once: the parents go offline and the daughters
			// count once they open.
			live, open := 0, 0
			for _, r := range regions {
				if r.Offline {
					continue
				}
				live++
				if !r.Server.IsZero() {
					open++
				}
			}
			if live >= n && open == live {
				return nil
			}
		}
		if err := retry.Sleep(ctx, backoff.Delay(attempt)); err != nil {
			return fmt.Errorf("wait for the %d regions of %s to open: %w", n, table, err)
		}
	}
}
