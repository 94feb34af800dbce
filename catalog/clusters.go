package catalog

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// checkCluster refuses a cluster record that cannot be stored.
func checkCluster(cl Cluster) error {
	if cl.Name == "" || len(cl.Name) > 191 {
		return fmt.Errorf("%w: cluster name %q: want 1 to 191 bytes", ErrInvalid, cl.Name)
	}
	if cl.ZKQuorum == "" {
		return fmt.Errorf("%w: cluster %q: no zkQuorum", ErrInvalid, cl.Name)
	}
	return nil
}

// CreateCluster registers a cluster; a cluster of the same name is an ErrConflict. It returns
// the stored record (with its times).
func (c *Catalog) CreateCluster(ctx context.Context, cl Cluster) (Cluster, error) {
	if err := checkCluster(cl); err != nil {
		return Cluster{}, fmt.Errorf("catalog: %w", err)
	}
	now := c.stampNow()
	cl.CreatedAt, cl.UpdatedAt = now, now
	err := c.db.WithContext(ctx).Create(&cl).Error
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return Cluster{}, fmt.Errorf("catalog: %w", &ConflictError{Kind: "cluster", Key: cl.Name, What: "name", Detail: "a cluster of that name is registered"})
	}
	if err != nil {
		return Cluster{}, fmt.Errorf("catalog: create cluster %q: %w", cl.Name, err)
	}
	return cl, nil
}

// GetCluster returns the cluster of that name, or ErrNotFound.
func (c *Catalog) GetCluster(ctx context.Context, name string) (Cluster, error) {
	cl, err := take[Cluster](c.db.WithContext(ctx), "cluster", "name", name)
	if err != nil {
		return Cluster{}, fmt.Errorf("catalog: %w", err)
	}
	return normCluster(cl), nil
}

// ListClusters returns every cluster, by name.
func (c *Catalog) ListClusters(ctx context.Context) ([]Cluster, error) {
	cls, err := find(c.db.WithContext(ctx).Order("name"), normCluster)
	if err != nil {
		return nil, fmt.Errorf("catalog: list clusters: %w", err)
	}
	return cls, nil
}

// UpdateCluster replaces the cluster of cl.Name with cl (keeping when it was created), or
// returns ErrNotFound.
func (c *Catalog) UpdateCluster(ctx context.Context, cl Cluster) (Cluster, error) {
	if err := checkCluster(cl); err != nil {
		return Cluster{}, fmt.Errorf("catalog: %w", err)
	}
	var out Cluster
	err := c.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		old, err := take[Cluster](c.lock(tx), "cluster", "name", cl.Name)
		if err != nil {
			return err
		}
		cl.CreatedAt, cl.UpdatedAt = old.CreatedAt, c.stampNow()
		if err := tx.Select("*").Save(&cl).Error; err != nil {
			return fmt.Errorf("update cluster %q: %w", cl.Name, err)
		}
		out = normCluster(cl)
		return nil
	})
	if err != nil {
		return Cluster{}, fmt.Errorf("catalog: %w", err)
	}
	return out, nil
}

// DeleteCluster removes the cluster of that name. It is refused with an *InUseError
// (ErrInUse) while a job that has not ended names the cluster as its source or target.
func (c *Catalog) DeleteCluster(ctx context.Context, name string) error {
	err := c.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := take[Cluster](c.lock(tx), "cluster", "name", name); err != nil {
			return err
		}
		var ids []string
		err := tx.Model(&Job{}).Where("(source_cluster = ? OR target_cluster = ?) AND state NOT IN ?", name, name, finalStates()).
			Order("submitted_at, id").Limit(10).Pluck("id", &ids).Error
		if err != nil {
			return fmt.Errorf("delete cluster %q: find its jobs: %w", name, err)
		}
		if len(ids) > 0 {
			return &InUseError{Cluster: name, Jobs: ids}
		}
		if err := tx.Where("name = ?", name).Delete(&Cluster{}).Error; err != nil {
			return fmt.Errorf("delete cluster %q: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	return nil
}

// lock makes a query inside a transaction lock the rows it reads (FOR UPDATE); SQLite's
// immediate transactions already hold the database's write lock, and its dialect drops it.
func (c *Catalog) lock(tx *gorm.DB) *gorm.DB {
	return tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate})
}

// normCluster puts times read back in UTC and an empty site-file map as nil.
func normCluster(cl Cluster) Cluster {
	cl.CreatedAt, cl.UpdatedAt = cl.CreatedAt.UTC(), cl.UpdatedAt.UTC()
	if len(cl.SiteFiles) == 0 {
		cl.SiteFiles = nil
	}
	return cl
}
