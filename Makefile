# Scouts. `make run` builds and starts the agent; `make test` runs every test.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
# bin/scouts-window is the same program built with the desktop window
# (Wails: GTK 3 + WebKit2GTK 4.1); bin/scouts (agent, tray, CLI) stays free
# of them. See docs/desktop.md.
WINDOW_TAGS := window,production,webkit2_41
# Where `make run` serves the local API besides its socket (port 0: any free port).
LISTEN  ?= 127.0.0.1:0
NPM     ?= npm
# Playwright drives Debian's chromium (build/deps.sh installs it); it never
# downloads a browser of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1

# The web UI (frontend/) is built with npm into frontend/dist, which the
# binary embeds; it is rebuilt only when its sources change.
UI_SRC   := $(shell find frontend/src -type f 2>/dev/null) frontend/index.html frontend/vite.config.ts frontend/tsconfig.json
UI_DEPS  := frontend/node_modules/.installed
UI_BUILT := frontend/dist/index.html

.PHONY: all build bin-scouts eval run test vet race bench fuzz deps-run deps-test clean frontend test-go test-window test-ui test-browser test-e2e stress chaos

all: build

deps-run:
	@build/deps.sh run

deps-test:
	@build/deps.sh test

$(UI_DEPS): frontend/package.json frontend/package-lock.json
	cd frontend && $(NPM) ci --no-audit --no-fund
	@touch $@

$(UI_BUILT): $(UI_DEPS) $(UI_SRC)
	cd frontend && $(NPM) run build

frontend: deps-run $(UI_BUILT)

# Each binary says it is being built: a first build on two cores takes
# minutes (the window's GTK and WebKit bindings the longest), which looked
# like a hang when nothing was printed.
bin-scouts: deps-run frontend
	@echo "make: building bin/scouts (the agent, its tray and the command line, with the web UI)…"
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/scouts .

# bin/scouts-eval is `scouts eval` (triage and the learner measured on a
# corpus; docs/triage.md): a program of its own, which scouts runs from
# beside itself, so that the always-on agent links neither the evaluation
# nor the corpus with its embedded checksums.
eval:
	@echo "make: building bin/scouts-eval (scouts eval: the evaluation on a mail corpus)…"
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/scouts-eval ./cmd/scouts-eval

build: bin-scouts eval
	@echo "make: building bin/scouts-window (the desktop window: Wails, GTK 3, WebKit2GTK)…"
	$(GO) build -trimpath -tags $(WINDOW_TAGS) -ldflags "$(LDFLAGS)" -o bin/scouts-window .
	@echo "make: building bin/scouts-relay…"
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/scouts-relay ./relay/cmd/scouts-relay

# run builds what it runs, bin/scouts, not the window and the relay
# (`make build`), which cost a cold build about three minutes more.
run: bin-scouts
	./bin/scouts agent --listen $(LISTEN) --ui $(ARGS)

# The chaos suite (app/chaos) builds only with its tag: vetting it here
# keeps it compiling as the APIs it drives change.
vet:
	$(GO) vet ./...
	$(GO) vet -tags $(WINDOW_TAGS) ./app/... .
	$(GO) vet -tags chaos ./app/chaos/

# vet, the Go tests, the window's, the UI's unit tests (Vitest), then the
# browser end-to-end tests (Playwright + chromium against a real
# `bin/scouts agent --ui`; screenshots of every view in
# test-artifacts/screenshots/). build/test.sh runs every stage whatever
# became of the ones before, then names the ones that failed (and fails).
# It runs each as `$(MAKE) STAGE`, named through TEST_MAKE: a recipe that
# names $(MAKE) runs even under `make -n`, which must only print it.
TEST_STAGES := vet test-go test-window test-ui test-browser
TEST_MAKE := $(MAKE)
test: deps-test
	@MAKE="$(TEST_MAKE)" build/test.sh $(TEST_STAGES)

# app/e2e/desktop builds both binaries and drives the window under Xvfb and
# the tray on a private DBus session bus: the window embeds the built UI.
test-go: $(UI_BUILT)
	$(GO) test ./...

test-window: $(UI_BUILT)
	$(GO) test -tags $(WINDOW_TAGS) ./app/window/...

# The packages that build and run the real binaries, again (`.ci/run` runs
# them twice: a test racing with asynchronous work shows itself there).
test-e2e: $(UI_BUILT)
	$(GO) test -count=1 ./app/e2e/...

# `make test` STRESS_RUNS times in a row while a busy loop keeps the other
# core occupied: a test that waits on the wrong thing fails here first.
STRESS_RUNS ?= 5
stress:
	@build/stress.sh $(STRESS_RUNS)

# The crash suite (app/chaos, build tag chaos; not part of `make test`):
# the real binaries with relays and agents SIGKILLed at random points,
# PostgreSQL restarted under load (a private cluster on a free port, never
# the machine's server), Gmail pushes duplicated, reordered and stale, a
# crash between a Gmail change and its record. It ends with a table of
# lost and duplicated counts and fails unless both are 0 everywhere.
# CHAOS_SEED=N replays a run's kill points. See docs/chaos.md.
chaos:
	$(GO) test -tags chaos -count=1 -v -timeout 30m -run TestChaos ./app/chaos/

test-ui: $(UI_DEPS)
	cd frontend && $(NPM) test

# The specs that need a model run bin/scouts-fakellm, the Go tests' fake
# model (scouts/triage/triagetest) as a process; those that need Gmail run
# bin/scouts-fakegmail --oauth (the fake Gmail and Google OAuth).
test-browser: deps-test build
	$(GO) build -o bin/scouts-fakellm ./cmd/scouts-fakellm
	$(GO) build -o bin/scouts-fakegmail ./cmd/scouts-fakegmail
	cd frontend && $(NPM) run e2e

race: deps-test
	$(GO) test -race ./...

# Benchmarks print figures beside their floors; see docs/benchmarks.md.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

# Fuzz targets, as package:name, each run for FUZZTIME one after another
# by build/fuzz.sh (go test fuzzes one target of one package at a time;
# the script says why a bare "context deadline exceeded" is let pass: a
# race in Go's fuzzing, go.dev/issue/75804). A crasher is saved
# in the package's testdata/fuzz/, where plain `go test` replays it: fix
# the bug and keep the file. See docs/architecture.md, "Fuzzing".
FUZZTIME ?= 10s
FUZZ_TARGETS := \
	relay/protocol:FuzzDecode \
	relay/service:FuzzGmailPush \
	relay/server:FuzzWebhookBody \
	relay/server:FuzzScoutConfig \
	connectors/directory:FuzzRef \
	connectors/directory:FuzzFetchRef \
	connectors/directory:FuzzParseConfig \
	app/gmaildesk:FuzzConfig \
	scouts/triage/mailtext:FuzzExtract \
	scouts/definition:FuzzDefinitionsFolderFile \
	scouts/rules:FuzzRules \
	scouts/rules:FuzzTemplate \
	scouts/rules:FuzzRuleCost \
	app/effects:FuzzFileMoveTemplate \
	app/effects:FuzzFileMoveWriteScope

fuzz:
	@GO="$(GO)" FUZZTIME="$(FUZZTIME)" build/fuzz.sh $(FUZZ_TARGETS)

clean:
	rm -rf bin test-artifacts frontend/dist/assets frontend/dist/index.html
