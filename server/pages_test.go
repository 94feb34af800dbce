package server

import (
	"net/http"
	"slices"
	"testing"

	"rangecopy/api"
)

// TestPageByKey: a list read whole pages by key, every item once, and a cursor whose item
// went away still pages on.
func TestPageByKey(t *testing.T) {
	items := []string{"d", "a", "c", "e", "b"}
	id := func(s string) string { return s }
	var got []string
	q := api.PageQuery{Limit: 2}
	for range 10 {
		page, next := pageByKey(items, id, q)
		if len(page) > 2 {
			t.Fatalf("a page of %d, limit 2", len(page))
		}
		got = append(got, page...)
		if next == "" {
			break
		}
		q.Cursor = next
	}
	if want := []string{"a", "b", "c", "d", "e"}; !slices.Equal(got, want) {
		t.Errorf("pages %q, want %q", got, want)
	}
	if page, next := pageByKey(items, id, api.PageQuery{Cursor: "bb", Limit: 2}); !slices.Equal(page, []string{"c", "d"}) || next != "d" {
		t.Errorf("after a removed item: %q, next %q", page, next)
	}
	if page, next := pageByKey(items, id, api.PageQuery{Cursor: "z"}); len(page) != 0 || next != "" {
		t.Errorf("after the last: %q, next %q", page, next)
	}
	if page, _ := pageByKey(items, id, api.PageQuery{}); len(page) != len(items) {
		t.Errorf("no limit: %d items, want the default page", len(page))
	}
}

// TestPageAfterItem: a list in its own order pages after the cursor's item; a cursor that
// names none is a 400 naming query.cursor.
func TestPageAfterItem(t *testing.T) {
	items := []string{"t3", "t1", "t2"}
	id := func(s string) string { return s }
	page, next, err := pageAfterItem(items, id, api.PageQuery{Limit: 2})
	if err != nil || !slices.Equal(page, []string{"t3", "t1"}) || next != "t1" {
		t.Errorf("first page: %q %q %v", page, next, err)
	}
	page, next, err = pageAfterItem(items, id, api.PageQuery{Cursor: next, Limit: 2})
	if err != nil || !slices.Equal(page, []string{"t2"}) || next != "" {
		t.Errorf("last page: %q %q %v", page, next, err)
	}
	_, _, err = pageAfterItem(items, id, api.PageQuery{Cursor: "t9"})
	p, ok := err.(*api.Problem)
	if !ok || p.Status != http.StatusBadRequest || p.Type != api.ProblemInvalid || len(p.Errors) != 1 || p.Errors[0].Location != "query.cursor" {
		t.Errorf("unknown cursor: %#v", err)
	}
}
