package bulkload_test

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"testing"
	"time"

	"rangecopy/bulkload"
	"rangecopy/hbase"
	"rangecopy/testenv"
)

// TestIntegrationEnsureTable creates a source table with every family
// attribute set, then: no create flag → error and no table; create → the
// target has the same families and attributes (read back with our client)
// and is pre-split at the source's boundaries inside the range; an existing
// target without a family → error naming it, target unchanged.
func TestIntegrationEnsureTable(t *testing.T) {
	t.Parallel()
	env := testenv.Get(t)
	ctx := t.Context()
	srcFams := []testenv.Family{
		{Name: "a", MaxVersions: 5, Compression: "GZ", Encoding: "FAST_DIFF", Bloom: "ROWCOL", BlockSize: 32768,
			TTL: 86400, KeepDeletedCells: true, InMemory: true, Scope: 1},
		{Name: "b"},
	}
	source := newTable(t, env.Source, "ensuresrc", srcFams, [][]byte{[]byte("b"), []byte("d"), []byte("f"), []byte("h")})
	sc, tc := dial(t, env.Source, env.Source.User), dial(t, env.Target, env.Target.User)
	srcDesc, err := sc.TableDescriptor(ctx, source)
	if err != nil {
		t.Fatal(err)
	}
	srcRegions, err := sc.Regions(ctx, source)
	if err != nil {
		t.Fatal(err)
	}
	var bounds [][]byte
	for _, r := range srcRegions {
		bounds = append(bounds, r.StartKey)
	}
	splits := bulkload.SplitKeys(bounds, []byte("c"), nil) // copy [c, end)
	if want := [][]byte{[]byte("d"), []byte("f"), []byte("h")}; !reflect.DeepEqual(splits, want) {
		t.Fatalf("SplitKeys = %q, want %q", splits, want)
	}

	target := testenv.UniqueName(t, "ensuredst")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		env.Target.DeleteTable(ctx, target)
	})
	created, err := bulkload.EnsureTable(ctx, tc, *srcDesc, target, splits, false)
	if created || !errors.Is(err, bulkload.ErrNoTargetTable) || !errors.Is(err, hbase.ErrTableNotFound) {
		t.Fatalf("EnsureTable without create = %v, %v; want ErrNoTargetTable", created, err)
	}
	if _, err := tc.TableDescriptor(ctx, target); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Fatalf("target after a refused EnsureTable: %v", err)
	}
	t.Logf("no create flag: %v", err)

	created, err = bulkload.EnsureTable(ctx, tc, *srcDesc, target, splits, true)
	if err != nil || !created {
		t.Fatalf("EnsureTable with create = %v, %v", created, err)
	}
	dstDesc, err := tc.TableDescriptor(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	if len(dstDesc.Families) != len(srcDesc.Families) {
		t.Fatalf("target families %+v, source %+v", dstDesc.Families, srcDesc.Families)
	}
	for _, sf := range srcDesc.Families {
		df := dstDesc.Family(sf.Name)
		if df == nil {
			t.Errorf("target lacks family %s", sf.Name)
			continue
		}
		type attrs struct {
			MaxVersions, MinVersions, TTL, BlockSize, ReplicationScope    int
			Compression, DataBlockEncoding, BloomFilter, KeepDeletedCells string
			InMemory                                                      bool
		}
		of := func(f *hbase.FamilyDescriptor) attrs {
			return attrs{f.MaxVersions, f.MinVersions, f.TTL, f.BlockSize, f.ReplicationScope, f.Compression, f.DataBlockEncoding, f.BloomFilter, f.KeepDeletedCells, f.InMemory}
		}
		if of(df) != of(&sf) {
			t.Errorf("family %s: target %+v, source %+v", sf.Name, of(df), of(&sf))
		}
		if !maps.Equal(df.Attributes, sf.Attributes) {
			t.Errorf("family %s attributes: target %v, source %v", sf.Name, df.Attributes, sf.Attributes)
		}
	}
	if a := dstDesc.Family("a"); a == nil || a.MaxVersions != 5 || a.Compression != "GZ" || a.DataBlockEncoding != "FAST_DIFF" ||
		a.BloomFilter != "ROWCOL" || a.BlockSize != 32768 || a.TTL != 86400 || a.KeepDeletedCells != "TRUE" || !a.InMemory || a.ReplicationScope != 1 {
		t.Errorf("family a of the target: %+v", a)
	} else {
		t.Logf("family a of the target: %+v", *a)
	}
	regions, err := tc.Regions(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	var starts [][]byte
	for _, r := range regions {
		if r.Server.IsZero() {
			t.Errorf("region %s not open after EnsureTable", r)
		}
		starts = append(starts, r.StartKey)
	}
	if want := [][]byte{{}, []byte("d"), []byte("f"), []byte("h")}; !reflect.DeepEqual(starts, want) {
		t.Errorf("target region starts %q, want %q", starts, want)
	}
	// Ensuring it again finds it fit and changes nothing.
	if created, err := bulkload.EnsureTable(ctx, tc, *srcDesc, target, splits, true); created || err != nil {
		t.Errorf("second EnsureTable = %v, %v", created, err)
	}

	// An existing target that lacks family a.
	partial := newTable(t, env.Target, "ensurepartial", []testenv.Family{{Name: "b"}}, nil)
	before, err := tc.TableDescriptor(ctx, partial)
	if err != nil {
		t.Fatal(err)
	}
	created, err = bulkload.EnsureTable(ctx, tc, *srcDesc, partial, splits, true)
	var mf *bulkload.MissingFamiliesError
	if created || !errors.As(err, &mf) || !reflect.DeepEqual(mf.Families, []string{"a"}) || !errors.Is(err, hbase.ErrNoSuchColumnFamily) {
		t.Fatalf("EnsureTable of a target without family a = %v, %v", created, err)
	}
	after, err := tc.TableDescriptor(ctx, partial)
	if err != nil || !reflect.DeepEqual(before, after) {
		t.Errorf("target changed by a refused EnsureTable: before %+v, after %+v (%v)", before, after, err)
	}
	if regions, err := tc.Regions(ctx, partial); err != nil || len(regions) != 1 {
		t.Errorf("target regions after a refused EnsureTable: %v, %v", regions, err)
	}
	t.Logf("missing family: %v", mf)
}
