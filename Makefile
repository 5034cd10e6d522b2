# Scouts. `make run` builds and starts the agent; `make test` runs every test.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
# Where `make run` serves the local API besides its socket (port 0: any free port).
LISTEN  ?= 127.0.0.1:0

.PHONY: all build run test vet race bench deps-run deps-test clean

all: build

deps-run:
	@build/deps.sh run

deps-test:
	@build/deps.sh test

build: deps-run
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/scouts .
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/scouts-relay ./relay/cmd/scouts-relay

run: build
	./bin/scouts agent --listen $(LISTEN) $(ARGS)

vet:
	$(GO) vet ./...

test: deps-test vet
	$(GO) test ./...

race: deps-test
	$(GO) test -race ./...

# Benchmarks print figures beside their floors; see docs/benchmarks.md.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

clean:
	rm -rf bin
