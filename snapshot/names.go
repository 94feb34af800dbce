package snapshot

import (
	"fmt"
	"strconv"
	"strings"

	"rangecopy/hfile"
)

// NameKind is what a store file name in a manifest stands for.
type NameKind int

// Kinds of store file names.
const (
	// KindHFile is a plain HFile in the region's own family folder.
	KindHFile NameKind = iota + 1
	// KindLink is an HFileLink: "[ns=]table=region-hfile", a file of
	// another (or the same) table.
	KindLink
	// KindReference is a split reference, "<hfile or link>.<parentRegion>":
	// one half of a file of the parent region.
	KindReference
)

// String names the kind.
func (k NameKind) String() string {
	switch k {
	case KindHFile:
		return "hfile"
	case KindLink:
		return "link"
	case KindReference:
		return "reference"
	}
	return "NameKind(" + strconv.Itoa(int(k)) + ")"
}

// FileName is a parsed store file name.
type FileName struct {
	Kind NameKind
	// HFile is the name of the file that holds the bytes: the name itself
	// for KindHFile, the linked file for KindLink, the referred file (or
	// the referred link's file) for KindReference.
	HFile string
	// Link is set when the bytes are reached through an HFileLink (the name
	// itself, or the file a reference refers to).
	Link *hfile.Link
	// Parent is the encoded name of the parent region of a reference.
	Parent string
}

// ParseFileName parses a store file name as a manifest lists it. hasRef says
// whether the manifest carries a Reference for it: a reference name without
// one is fine (its reference file is read), a Reference on a name that is not
// a reference name is not.
func ParseFileName(name string, hasRef bool) (FileName, error) {
	if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return FileName{}, fmt.Errorf("store file name %q: not a file name: %w", name, ErrCorrupt)
	}
	if hfileNameRE.MatchString(name) {
		if hasRef {
			return FileName{}, fmt.Errorf("store file %q: has a reference but is not named like one: %w", name, ErrCorrupt)
		}
		return FileName{Kind: KindHFile, HFile: name}, nil
	}
	if l, ok := hfile.ParseLinkName(name); ok {
		if hasRef {
			return FileName{}, fmt.Errorf("store file %q: has a reference but is named like an HFileLink: %w", name, ErrCorrupt)
		}
		return FileName{Kind: KindLink, HFile: l.HFile, Link: &l}, nil
	}
	if file, parent, ok := hfile.ParseReferenceName(name); ok {
		if !regionNameRE.MatchString(parent) {
			return FileName{}, fmt.Errorf("reference %q: parent region %q is not an encoded region name: %w", name, parent, ErrCorrupt)
		}
		fn := FileName{Kind: KindReference, HFile: file, Parent: parent}
		if l, ok := hfile.ParseLinkName(file); ok {
			fn.HFile, fn.Link = l.HFile, &l
		}
		return fn, nil
	}
	return FileName{}, fmt.Errorf("store file name %q: neither an HFile, an HFileLink nor a reference name: %w", name, ErrCorrupt)
}
