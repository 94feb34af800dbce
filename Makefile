# rangecopy: the two commands a newcomer runs are `make demo` and `make test`.
SHELL := /bin/bash
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GO_LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build image-files image docs openapi deps testenv-build testenv-up testenv-down testenv-status demo test bench bench-scale vet fmt proto clean

all: build

## build: the rangecopy binary in bin/
build:
	go build -ldflags "$(GO_LDFLAGS)" -o bin/rangecopy ./cmd/rangecopy

## image-files: the static linux/amd64 binary and the host's CA certificates in bin/image/, for
## docker build --target prebuilt -f deploy/Dockerfile . (which then pulls nothing)
image-files:
	mkdir -p bin/image
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags "-s -w $(GO_LDFLAGS)" -o bin/image/rangecopy ./cmd/rangecopy
	cp /etc/ssl/certs/ca-certificates.crt bin/image/ca-certificates.crt

## image: the container image rangecopy:$(VERSION) from the prebuilt binary (see deploy/Dockerfile)
image: image-files
	docker build -f deploy/Dockerfile --target prebuilt -t rangecopy:$(VERSION) .

## docs: regenerate the markdown reference of every command in docs/cli, the package table of
## docs/layout.md and the REST API's OpenAPI document api/openapi.yaml (tests check each is current)
docs: openapi
	go generate ./cmd/rangecopy ./scripts/layout

## openapi: regenerate api/openapi.yaml, the REST API's contract, from the code
openapi:
	go generate ./api

## deps: install what is missing (JDK 17, Maven, protoc, protoc-gen-go) and fetch Go and Maven dependencies
deps:
	bash scripts/install-deps.sh

## testenv-build: compile the Java harness and resolve its classpath (dependencies cached in ~/.m2)
testenv-build:
	mvn -B -q -f testenv/pom.xml package

## testenv-up: start both mini clusters, a JVM each, in the background and wait until they are ready
testenv-up: testenv-build
	go run ./testenv/cmd/testenv up

## testenv-down: stop both mini clusters
testenv-down:
	go run ./testenv/cmd/testenv down

testenv-status:
	go run ./testenv/cmd/testenv status

## demo: bring up both clusters, write a sample table on the source, copy a key range of it
## with rangecopy copy and compare source and target cell for cell; then relocate it through
## rangecopy server (embedded SQLite and workers) while a writer writes, cut over, compare
demo: deps testenv-up build
	go run ./testenv/cmd/demo

## test: install what is missing, start the clusters, vet, run every test with -race, stop the clusters
test: deps
	bash scripts/test.sh

## bench: start the clusters if needed and measure rangecopy against the raw HDFS copy,
## ExportSnapshot, CopyTable and scan+put on a SIZE table (default 2GiB) in one run;
## writes bench/results/ and the table in docs/benchmarks.md (BENCH_FLAGS: more flags)
SIZE ?= 2GiB
bench: build
	SIZE=$(SIZE) bash scripts/bench.sh

## bench-scale: plan a synthetic table of REGIONS regions (default 100000, ten store files each)
## into the running test environment's ZooKeeper and measure plan, register, nodes, job status,
## a leader failover and 200 simulated workers claiming; writes bench/results/scale-<time>.json
## (SCALE_FLAGS: more flags of bench/cmd/scale). Needs RANGECOPY_TESTENV (a running harness).
REGIONS ?= 100000
bench-scale: build
	go build -o bin/scale ./bench/cmd/scale
	bin/scale -regions $(REGIONS) -rangecopy bin/rangecopy -command "make bench-scale REGIONS=$(REGIONS)$(if $(SCALE_FLAGS), SCALE_FLAGS=\"$(SCALE_FLAGS)\")" $(SCALE_FLAGS)

vet:
	go vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

## proto: regenerate the protobuf code of hbase/
proto:
	bash hbase/pb/generate.sh

clean:
	rm -rf bin testenv/target
