package snapshot

import (
	"sort"

	"rangecopy/job"
)

// sortFiles orders files by region (in the given order), family and name.
func sortFiles(fs []job.StoreFile, regionOrder map[string]int) {
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if ra, rb := regionOrder[a.Region], regionOrder[b.Region]; ra != rb {
			return ra < rb
		}
		if a.Family != b.Family {
			return a.Family < b.Family
		}
		return a.Name < b.Name
	})
}
