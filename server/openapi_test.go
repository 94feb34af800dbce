package server

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// committedSpec is the OpenAPI document as committed, the API's contract.
var committedSpec = filepath.Join("..", "api", "openapi.yaml")

// checkCommittedSpec fails t when doc, a document this package made or a server served,
// differs from the committed one.
func checkCommittedSpec(t *testing.T, doc []byte) {
	t.Helper()
	want, err := os.ReadFile(committedSpec)
	if err != nil {
		t.Fatalf("the committed OpenAPI document: %v (run go generate ./api)", err)
	}
	if !bytes.Equal(doc, want) {
		t.Errorf("api/openapi.yaml differs from the document the server serves: run go generate ./api (or make openapi) and commit it")
	}
}

// TestOpenAPIUpToDate: api/openapi.yaml is the document the code makes, so it cannot drift
// from the handlers. After changing an operation or a type of package api, run
// go generate ./api.
func TestOpenAPIUpToDate(t *testing.T) {
	b, err := OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	checkCommittedSpec(t, b)
}

// TestOpenAPIContract: the document is valid, its schemas read as names (not huma's
// Create-clusterRequest or ListJobsOutputBody), every list takes the same cursor and limit
// and answers next, and every error answer is a Problem.
func TestOpenAPIContract(t *testing.T) {
	b, err := OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("not valid: %v", err)
	}
	name := regexp.MustCompile(`^[A-Z][A-Za-z]*$`)
	for n := range doc.Components.Schemas {
		if !name.MatchString(n) || strings.HasSuffix(n, "Body") {
			t.Errorf("schema %q does not read as a name: name the Go type in package api", n)
		}
	}
	lists := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, resp := range op.Responses.Map() {
				if status[0] != '4' && status[0] != '5' && status != "default" {
					continue
				}
				mt := resp.Value.Content.Get("application/problem+json")
				if mt == nil || mt.Schema == nil || mt.Schema.Ref != "#/components/schemas/Problem" {
					t.Errorf("%s %s: answer %s is not a Problem", method, path, status)
				}
			}
			if !strings.HasPrefix(op.OperationID, "list-") {
				continue
			}
			lists++
			var params []string
			for _, p := range op.Parameters {
				if p.Value.In == "query" {
					params = append(params, p.Value.Name)
				}
			}
			for _, want := range []string{"cursor", "limit"} {
				if !strings.Contains(" "+strings.Join(params, " ")+" ", " "+want+" ") {
					t.Errorf("%s (%s %s) takes no %s: %q", op.OperationID, method, path, want, params)
				}
			}
			ok := op.Responses.Status(200)
			if ok == nil || ok.Value.Content.Get("application/json") == nil {
				t.Errorf("%s: no JSON answer", op.OperationID)
				continue
			}
			s := ok.Value.Content.Get("application/json").Schema.Value
			if s.Properties["next"] == nil {
				t.Errorf("%s answers no next: %v", op.OperationID, s.Properties)
			}
			if op.Responses.Status(400) == nil {
				t.Errorf("%s: no 400 for a cursor it did not give out", op.OperationID)
			}
		}
	}
	if lists < 8 {
		t.Errorf("%d list operations; want jobs, tasks, clusters, tokens, audit, workers, relocations, verifications", lists)
	}
}
