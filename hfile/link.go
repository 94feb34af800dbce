package hfile

import (
	"path"
	"regexp"
	"strings"
)

// linkNameRE is HFileLink.LINK_NAME_REGEX: [namespace=]table=region-hfile.
const linkNameRE = `(?:(?:[_\p{Nd}\p{L}]+)=)?(?:[_\p{Nd}\p{L}][-_.\p{Nd}\p{L}]*)=(?:[a-f0-9]+)-` + hfileNameRE

var linkRE = regexp.MustCompile(`^(?:([_\p{Nd}\p{L}]+)=)?([_\p{Nd}\p{L}][-_.\p{Nd}\p{L}]*)=([a-f0-9]+)-(` + hfileNameRE + `)$`)

// Link is a parsed HFileLink name: an empty file that stands for an HFile of
// another (or the same) table, created by snapshot clones, restores and
// splits.
type Link struct {
	Namespace string // "default" when the name has none
	Table     string
	Region    string // encoded region name
	HFile     string
}

// ParseLinkName parses "<table>=<region>-<hfile>" or
// "<namespace>=<table>=<region>-<hfile>".
func ParseLinkName(name string) (Link, bool) {
	m := linkRE.FindStringSubmatch(name)
	if m == nil {
		return Link{}, false
	}
	l := Link{Namespace: m[1], Table: m[2], Region: m[3], HFile: m[4]}
	if l.Namespace == "" {
		l.Namespace = "default"
	}
	return l, true
}

// Name returns the link file name (the namespace is left out for "default").
func (l Link) Name() string {
	var b strings.Builder
	if l.Namespace != "" && l.Namespace != "default" {
		b.WriteString(l.Namespace)
		b.WriteByte('=')
	}
	b.WriteString(l.Table)
	b.WriteByte('=')
	b.WriteString(l.Region)
	b.WriteByte('-')
	b.WriteString(l.HFile)
	return b.String()
}

// Paths returns the places the linked file may live, in the order HBase
// tries them: the live store directory, .tmp, the MOB directory, and the
// archive. family is the name of the directory holding the link.
func (l Link) Paths(rootDir, family string) []string {
	rel := path.Join("data", l.Namespace, l.Table, l.Region, family, l.HFile)
	return []string{
		path.Join(rootDir, rel),
		path.Join(rootDir, ".tmp", rel),
		path.Join(rootDir, "mobdir", rel),
		path.Join(rootDir, "archive", rel),
	}
}
