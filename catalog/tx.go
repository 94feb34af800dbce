package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"rangecopy/retry"
)

// txAttempts bounds the runs of a transaction that the database aborted to break a deadlock
// or a serialization conflict (or that lost a race on a unique key).
const txAttempts = 6

// txBackoff spaces those runs.
var txBackoff = retry.Backoff{Initial: 5 * time.Millisecond, Max: 200 * time.Millisecond, Jitter: 0.5}

// write runs fn in a transaction, again when the database aborted it to break a deadlock or
// a serialization conflict, and again when again(err) says the error is worth another run.
func (c *Catalog) write(ctx context.Context, again func(error) bool, fn func(tx *gorm.DB) error) error {
	var err error
	for attempt := 0; attempt < txAttempts; attempt++ {
		if attempt > 0 {
			if serr := retry.Sleep(ctx, txBackoff.Delay(attempt-1)); serr != nil {
				return fmt.Errorf("%w (after: %w)", serr, err)
			}
		}
		err = c.db.WithContext(ctx).Transaction(fn)
		if err == nil || !(transient(err) || (again != nil && again(err))) {
			return err
		}
	}
	return err
}

// transient reports whether err is a database's deadlock or serialization abort, after which
// the whole transaction may run again.
func transient(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		// 1213: deadlock; 1205: lock wait timeout.
		return me.Number == 1213 || me.Number == 1205
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// 40P01: deadlock detected; 40001: serialization failure.
		return pe.Code == "40P01" || pe.Code == "40001"
	}
	return false
}

// retryable reports whether err is transient or a lost race on a unique key.
func retryable(err error) bool { return errors.Is(err, gorm.ErrDuplicatedKey) }

// take reads the one row of T whose column holds key, through q (the database, a transaction
// or a locking one). No such row is ErrNotFound; the error names the row as what and key.
func take[T any](q *gorm.DB, what, column, key string) (T, error) {
	var row T
	err := q.Where(column+" = ?", key).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		var zero T
		return zero, fmt.Errorf("%s %q: %w", what, key, ErrNotFound)
	}
	if err != nil {
		var zero T
		return zero, fmt.Errorf("read %s %q: %w", what, key, err)
	}
	return row, nil
}

// find reads every row q selects, each put through norm.
func find[T any](q *gorm.DB, norm func(T) T) ([]T, error) {
	var rows []T
	if err := q.Find(&rows).Error; err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i] = norm(rows[i])
	}
	return rows, nil
}
