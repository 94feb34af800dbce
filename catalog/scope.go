package catalog

import (
	"fmt"
	"strings"
	"time"

	"rangecopy/units"
)

// Scope restricts where a token may write: a target cluster, namespace and table, each a
// name, a prefix ending in "*", or "*" for any. Its text form is cluster[:namespace[:table]]
// where a form of fewer parts must end in "*" ("dc2:*" is every namespace and table of dc2)
// and "*" alone is everything. Examples: "*", "dc2:*", "dc2:ns_a:*", "dc2:ns_a:events",
// "dc2:ns_a:events_*", "*:scratch:*".
type Scope struct {
	// Cluster, Namespace and Table are patterns: a name, a prefix and "*", or "*".
	Cluster, Namespace, Table string
}

// ScopeAll is the scope of a token that names none: every cluster, namespace and table.
var ScopeAll = Scope{Cluster: "*", Namespace: "*", Table: "*"}

// defaultNamespace is HBase's namespace of a table named without one.
const defaultNamespace = "default"

// ParseScope reads a scope's text form. The error names the part that is wrong.
func ParseScope(s string) (Scope, error) {
	if s == "" {
		return Scope{}, fmt.Errorf("scope is empty: want cluster[:namespace[:table]], e.g. dc2:ns_a:*, or * for every target")
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return Scope{}, fmt.Errorf("scope %q: %d parts: want at most cluster:namespace:table", s, len(parts))
	}
	if last := parts[len(parts)-1]; len(parts) < 3 && last != "*" {
		return Scope{}, fmt.Errorf("scope %q: a scope of fewer than three parts must end in * (say %s:*, or name the table)", s, s)
	}
	sc := Scope{Cluster: "*", Namespace: "*", Table: "*"}
	dst := []*string{&sc.Cluster, &sc.Namespace, &sc.Table}
	for i, p := range parts {
		what := [...]string{"cluster", "namespace", "table"}[i]
		if err := checkPattern(p); err != nil {
			return Scope{}, fmt.Errorf("scope %q: %s %q: %w", s, what, p, err)
		}
		*dst[i] = p
	}
	return sc, nil
}

// checkPattern checks one part of a scope: a name of letters, digits, '_', '-' and '.',
// optionally ending in '*', or '*'.
func checkPattern(p string) error {
	if p == "" {
		return fmt.Errorf("empty: want a name, a prefix ending in *, or *")
	}
	name := strings.TrimSuffix(p, "*")
	if len(p) > 255 {
		return fmt.Errorf("%d bytes: want at most 255", len(p))
	}
	for i, r := range name {
		ok := r == '_' || r == '-' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			if r == '*' {
				return fmt.Errorf("* at byte %d: a * may only end a part", i)
			}
			return fmt.Errorf("%q at byte %d: want letters, digits, _, - or ., or a trailing *", r, i)
		}
	}
	return nil
}

// String returns the scope's text form, shortest first: "*", "dc2:*", "dc2:ns:*", "dc2:ns:t".
func (s Scope) String() string {
	switch {
	case s.Cluster == "*" && s.Namespace == "*" && s.Table == "*":
		return "*"
	case s.Namespace == "*" && s.Table == "*":
		return s.Cluster + ":*"
	case s.Table == "*":
		return s.Cluster + ":" + s.Namespace + ":*"
	}
	return s.Cluster + ":" + s.Namespace + ":" + s.Table
}

// MarshalText writes the scope's text form.
func (s Scope) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a scope's text form (ParseScope).
func (s *Scope) UnmarshalText(b []byte) error {
	v, err := ParseScope(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Allows reports whether the scope lets a token write table (of namespace; empty is
// HBase's default namespace) of cluster.
func (s Scope) Allows(cluster, namespace, table string) bool {
	if namespace == "" {
		namespace = defaultNamespace
	}
	return matchPattern(s.Cluster, cluster) && matchPattern(s.Namespace, namespace) && matchPattern(s.Table, table)
}

// matchPattern reports whether name matches p: equal, or starting with p's prefix before a
// trailing '*'. An empty name matches nothing but "*".
func matchPattern(p, name string) bool {
	if p == "*" {
		return true
	}
	if name == "" {
		return false
	}
	if prefix, ok := strings.CutSuffix(p, "*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	return p == name
}

// Scopes are a token's scopes: it may write where any of them allows. None is every target.
type Scopes []Scope

// ParseScopes reads scopes' text forms; none is every target. The error names the first
// scope that is wrong.
func ParseScopes(ss []string) (Scopes, error) {
	var out Scopes
	for _, s := range ss {
		sc, err := ParseScope(strings.TrimSpace(s))
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// Allows reports whether any scope allows writing table (of namespace) of cluster; no
// scopes allow everything.
func (ss Scopes) Allows(cluster, namespace, table string) bool {
	if len(ss) == 0 {
		return true
	}
	for _, s := range ss {
		if s.Allows(cluster, namespace, table) {
			return true
		}
	}
	return false
}

// AllowsTable is Allows of a table named "[namespace:]name".
func (ss Scopes) AllowsTable(cluster, table string) bool {
	ns, name := SplitTable(table)
	return ss.Allows(cluster, ns, name)
}

// Strings returns the scopes' text forms; none is ["*"].
func (ss Scopes) Strings() []string {
	if len(ss) == 0 {
		return []string{"*"}
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.String()
	}
	return out
}

// String returns the scopes' text forms separated by commas.
func (ss Scopes) String() string { return strings.Join(ss.Strings(), ",") }

// SplitTable splits an HBase table name "[namespace:]name" into its namespace (default when
// it names none) and name.
func SplitTable(table string) (namespace, name string) {
	if ns, n, ok := strings.Cut(table, ":"); ok {
		return ns, n
	}
	return defaultNamespace, table
}

// Right is a permission a token holds beyond its role.
type Right string

// The rights.
const (
	// RightForceCutover lets an operator's token force a relocation's cut-over past its lag
	// and verification gates (with a reason, which goes to the audit log).
	RightForceCutover Right = "force-cutover"
)

// Rights lists every right.
func Rights() []Right { return []Right{RightForceCutover} }

// Valid reports whether r is a known right.
func (r Right) Valid() bool { return r == RightForceCutover }

// String returns the right's name.
func (r Right) String() string { return string(r) }

// ParseLifetime reads a token's lifetime: a Go duration ("720h", "90m") or a number of days
// ("90d", units.ParseAge). It must be positive.
func ParseLifetime(s string) (time.Duration, error) {
	d, err := units.ParseAge(s)
	if err != nil {
		return 0, fmt.Errorf("lifetime %w", err)
	}
	if d <= 0 {
		return 0, fmt.Errorf("lifetime %q: want more than nothing", s)
	}
	return d, nil
}
