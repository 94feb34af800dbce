// Package parallel runs a function over indexes, a bounded number at once.
package parallel

import (
	"context"
	"sync"
)

// ForEach runs fn for 0..n-1, at most width at once (at least one), and
// returns the first error; that error cancels the context the others run
// with, and no index is started after it. It returns ctx's cause when ctx
// ends first.
func ForEach(ctx context.Context, n, width int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, max(width, 1))
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := fn(ctx, i); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	return context.Cause(ctx)
}
