package bulkload_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"rangecopy/bulkload"
	"rangecopy/testenv"
)

// TestIntegrationEnsureTableRace creates one target table from eight callers at once, as
// identical submissions do: exactly one reports it created the table, none fails (the
// others find it made, with the families, its regions open).
func TestIntegrationEnsureTableRace(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	source := newTable(t, env.Source, "racesrc", []testenv.Family{{Name: "a"}, {Name: "b"}}, [][]byte{[]byte("m")})
	sc, tc := dial(t, env.Source, env.Source.User), dial(t, env.Target, env.Target.User)
	srcDesc, err := sc.TableDescriptor(ctx, source)
	if err != nil {
		t.Fatal(err)
	}
	target := testenv.UniqueName(t, "racedst")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		env.Target.DeleteTable(ctx, target)
	})
	const callers = 8
	created := make([]bool, callers)
	errs := make([]error, callers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			created[i], errs[i] = bulkload.EnsureTable(ctx, tc, *srcDesc, target, [][]byte{[]byte("m")}, true)
		}()
	}
	close(start)
	wg.Wait()
	n := 0
	for i := range callers {
		if errs[i] != nil {
			t.Errorf("caller %d: %v", i, errs[i])
		}
		if created[i] {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d callers created the table; want 1", n)
	}
	regions, err := tc.Regions(ctx, target)
	if err != nil || len(regions) != 2 {
		t.Errorf("target regions %d, %v; want 2", len(regions), err)
	}
}
