package relocate

import (
	"fmt"

	"rangecopy/cluster"
	"rangecopy/relocation"
)

// TableIssue is a table of a relocation's scope that cannot be moved as asked: its index in
// the scope and what is wrong.
type TableIssue struct {
	// Index is the table's place in the scope (tables[Index]).
	Index int
	// Message says what is wrong.
	Message string
}

// CheckScopeTables finds the tables of a scope named more than once: a source table named
// before (as "t" or "default:t"), or a target table another source table goes to already.
// Each would run two copies of one table in every window. It is pure.
func CheckScopeTables(tables []relocation.TableMap) []TableIssue {
	var issues []TableIssue
	sources, targets := map[string]int{}, map[string]int{}
	for i, t := range tables {
		src, dst := cluster.QualifiedTable(t.Source), cluster.QualifiedTable(t.TargetTable())
		if j, ok := sources[src]; ok {
			issues = append(issues, TableIssue{Index: i,
				Message: fmt.Sprintf("source table %s is named twice (also tables[%d]): name each table once", t.Source, j)})
			continue
		}
		sources[src] = i
		if j, ok := targets[dst]; ok {
			issues = append(issues, TableIssue{Index: i,
				Message: fmt.Sprintf("target table %s is the target of tables[%d] too: two tables cannot go into one", t.TargetTable(), j)})
			continue
		}
		targets[dst] = i
	}
	return issues
}
