package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/fsys"
	"rangecopy/hfile"
)

// Input is where a store file's bytes really are and how to read them.
type Input struct {
	// Path is the HFile that exists (live, archived or in .tmp).
	Path string
	// Size is its length in bytes.
	Size int64
	// Reference, when set, restricts reading to one half of Path
	// (hfile.NewHalfReader).
	Reference *hfile.Reference
}

// FileKey names a store file of a snapshot: region, family and the name the
// manifest gives it.
type FileKey struct {
	Region, Family, Name string
}

// Locations returns the places a store file may live, in the order they are
// tried: the live store folder, the archive, and .tmp.
func Locations(rootDir, namespace, table, region, family, file string) []string {
	rel := path.Join("data", namespace, table, region, family, file)
	return []string{
		path.Join(rootDir, rel),
		path.Join(rootDir, "archive", rel),
		path.Join(rootDir, ".tmp", rel),
	}
}

// maxReferenceFile caps a reference file read from HDFS (a split key and a
// few bytes of framing).
const maxReferenceFile = 1 << 20

// Resolve finds where the bytes of the manifest's store file f of table
// ("namespace:qualifier" or "qualifier") are. HFileLinks are followed to the
// linked table's file; a reference resolves to its parent region's file (or
// the file the parent's link points at) with the half to read. A file found
// nowhere is an error wrapping ErrNotFound that names every place looked.
func Resolve(ctx context.Context, src fsys.Reader, rootDir, table string, f ManifestFile) (Input, error) {
	what := fmt.Sprintf("store file %s of region %s family %s", f.Name, f.Region, f.Family)
	fn, err := ParseFileName(f.Name, f.Reference != nil)
	if err != nil {
		return Input{}, fmt.Errorf("%s: %w", what, err)
	}
	ns, qual := splitTable(table)
	var in Input
	switch fn.Kind {
	case KindHFile:
		in, err = find(ctx, src, Locations(rootDir, ns, qual, f.Region, f.Family, fn.HFile))
	case KindLink:
		in, err = find(ctx, src, Locations(rootDir, fn.Link.Namespace, fn.Link.Table, fn.Link.Region, f.Family, fn.HFile))
	case KindReference:
		ref := f.Reference
		if ref == nil {
			if ref, err = readReference(ctx, src, Locations(rootDir, ns, qual, f.Region, f.Family, f.Name)); err != nil {
				return Input{}, fmt.Errorf("%s: %w", what, err)
			}
		}
		if fn.Link != nil {
			in, err = find(ctx, src, Locations(rootDir, fn.Link.Namespace, fn.Link.Table, fn.Link.Region, f.Family, fn.HFile))
		} else {
			in, err = find(ctx, src, Locations(rootDir, ns, qual, fn.Parent, f.Family, fn.HFile))
		}
		in.Reference = ref
	}
	if err != nil {
		return Input{}, fmt.Errorf("%s: %w", what, err)
	}
	return in, nil
}

// find returns the first of the paths that exists as a file.
func find(ctx context.Context, src fsys.Reader, paths []string) (Input, error) {
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return Input{}, err
		}
		st, err := src.Stat(ctx, p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Input{}, fmt.Errorf("stat %s: %w", p, err)
		}
		if st.IsDir() {
			return Input{}, fmt.Errorf("%s is a folder, not an HFile: %w", p, ErrCorrupt)
		}
		if err := checkReadable(p, st); err != nil {
			return Input{}, err
		}
		return Input{Path: p, Size: st.Size()}, nil
	}
	return Input{}, fmt.Errorf("found nowhere; looked in %s: %w", strings.Join(paths, ", "), ErrNotFound)
}

// readReference reads and parses a reference file from the first of paths
// that exists.
func readReference(ctx context.Context, src fsys.Reader, paths []string) (*hfile.Reference, error) {
	in, err := find(ctx, src, paths)
	if err != nil {
		return nil, fmt.Errorf("reference file: %w", err)
	}
	b, err := readSmall(ctx, src, in.Path, maxReferenceFile)
	if err != nil {
		return nil, fmt.Errorf("reference file: %w", err)
	}
	ref, err := hfile.ParseReference(b)
	if err != nil {
		return nil, fmt.Errorf("reference file %s: %w", in.Path, err)
	}
	return ref, nil
}

// checkReadable refuses HDFS files that our HDFS client cannot read as plain
// bytes: erasure-coded files (striped blocks) and files in an encryption
// zone (HDFS transparent encryption); docs/design.md, "Refused inputs", lists
// every input rangecopy refuses.
func checkReadable(p string, st fs.FileInfo) error {
	hs, ok := st.Sys().(*hdfs.FileStatus)
	if !ok || hs == nil {
		return nil
	}
	if ec := hs.GetEcPolicy(); ec != nil {
		return fmt.Errorf("%s is erasure-coded (policy %s), which rangecopy does not read yet: %w", p, ec.GetName(), ErrUnsupported)
	}
	if hs.GetFileEncryptionInfo() != nil {
		return fmt.Errorf("%s lies in an HDFS encryption zone, which rangecopy does not read yet: %w", p, ErrUnsupported)
	}
	return nil
}
