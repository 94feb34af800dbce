package server

import (
	"cmp"
	"net/http"
	"slices"

	"rangecopy/api"
)

// The lists the server reads whole (clusters, tokens, workers) are paged here, so that every
// list of the API takes the same cursor and limit and answers the same next.

// pageByKey is one page of items sorted here by key: at most limit items whose keys sort
// after cursor (the first page: cursor empty), and the cursor of the next page (empty on the
// last). Any cursor is a place in the order, so an item removed since still pages on.
func pageByKey[T any](items []T, key func(T) string, q api.PageQuery) ([]T, string) {
	items = slices.Clone(items)
	slices.SortStableFunc(items, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	start := 0
	if q.Cursor != "" {
		start, _ = slices.BinarySearchFunc(items, q.Cursor, func(x T, c string) int { return cmp.Compare(key(x), c) })
		if start < len(items) && key(items[start]) == q.Cursor {
			start++
		}
	}
	return pageFrom(items, key, start, q.Limit)
}

// pageAfterItem is one page of items in their own order: at most limit items after the one
// whose key is cursor (the first page: cursor empty), and the cursor of the next page (empty
// on the last). A cursor that names no item is a 400.
func pageAfterItem[T any](items []T, key func(T) string, q api.PageQuery) ([]T, string, error) {
	start := 0
	if q.Cursor != "" {
		i := slices.IndexFunc(items, func(x T) bool { return key(x) == q.Cursor })
		if i < 0 {
			return nil, "", cursorProblem(q.Cursor)
		}
		start = i + 1
	}
	page, next := pageFrom(items, key, start, q.Limit)
	return page, next, nil
}

// pageFrom is up to limit items from start, and the cursor of the page after.
func pageFrom[T any](items []T, key func(T) string, start, limit int) ([]T, string) {
	if limit <= 0 {
		limit = api.DefaultPageSize
	}
	end := min(len(items), start+min(limit, api.MaxPageSize))
	page := items[start:end]
	if end < len(items) && len(page) > 0 {
		return page, key(page[len(page)-1])
	}
	return page, ""
}

// cursorProblem is the 400 of a cursor this server did not give out.
func cursorProblem(cursor string) error {
	return api.NewProblem(http.StatusBadRequest, "cursor: not one this server gave out",
		&api.ProblemDetail{Location: "query.cursor", Message: "not one this server gave out", Value: cursor})
}
