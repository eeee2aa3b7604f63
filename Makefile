# askcore: every rule in core/, run natively, under wazero, in Node and in Chromium.
# `make test` is what CI runs (.ci/run); `make bench` prints the performance table.

GO       ?= go
WASM     := wasm/askcore.wasm

.PHONY: all build dist test-install wasm check-wasm test test-go lint-go test-go-race test-go-unraced test-js test-interop test-hosts hosts-install fuzz-short bench demo clean

all: build

# The four commands into bin/, in one go build (the packages they share
# compiled once). -buildvcs=auto: --version names the commit built (GOFLAGS
# may say false).
build:
	$(GO) build -buildvcs=auto -o bin/ ./cmd/askcore-stdio ./cmd/askcore-acp ./cmd/askcore-mcp ./cmd/askcore-hub

# The release into dist/ (internal/dist): an archive per platform,
# SHA256SUMS, the npm packages. PLATFORMS=linux/amd64,darwin/arm64 builds
# only those; VERSION defaults to git describe --tags --always.
PLATFORMS ?=
VERSION ?=
dist:
	GO=$(GO) $(GO) run ./internal/dist -platforms '$(PLATFORMS)' -version '$(VERSION)'

# As a user installs it: make dist twice (the same bytes), then the npm
# packages from a local registry, npx -y @askcore/mcp and Claude Code
# (scripts/test-install.sh).
test-install:
	./scripts/test-install.sh

# Rebuild the committed WebAssembly core (reproducible: same toolchain, same bytes).
# The build command itself lives in scripts/check-wasm.sh, so that check-wasm builds
# exactly what this writes: $(WASM), its .sha256, and the copy hostjs/askcore.wasm.
wasm:
	GO=$(GO) ./scripts/check-wasm.sh --update

# Fail when the committed module is not what the sources build.
check-wasm:
	GO=$(GO) ./scripts/check-wasm.sh

# The suites run in four lanes side by side (scripts/test-lanes.sh: go
# test; the node suites; check-wasm, vet, fuzzing; the hosts' npm install;
# TEST_LANES=serial for one after another).
test:
	MAKE="$(MAKE)" ./scripts/test-lanes.sh

# Every Go test: gofmt and vet, go test -race, then the few tests -race
# skips. make test runs the three in different lanes (scripts/test-lanes.sh).
test-go: lint-go test-go-race test-go-unraced

# gofmt first: an unformatted file is a review comment a machine can make.
lint-go:
	@unformatted="$$("$$($(GO) env GOROOT)/bin/gofmt" -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

# The packages whose tests run longest, named first: go test starts packages
# in the order given (./... then adds each other package once), so they no
# longer start last and run alone at the end (docs/testing.md, timings).
GO_SLOW_FIRST := ./hostgo ./cmd/askcore-stdio ./termui ./mcpserver
# wazero's compiler (the packages that turn the module into machine code,
# once per engine) is compiled without the race detector's instrumentation
# (-race=false; askcore's code, the standard library and the rest of wazero
# keep it): instrumented, it was half of some packages' CPU (agent 27 -> 16 s,
# seamtest 30 -> 10 s) and it runs on one goroutine, finding no race of
# askcore's. Not the whole of wazero: uninstrumented, the part that runs the
# guest and its host calls made the detector report a race between two
# goroutines that a mutex orders (hub/server TestOneReplyWinsAcrossReplicas,
# every run; docs/testing.md).
WAZERO_COMPILER := github.com/tetratelabs/wazero/internal/engine/wazevo
RACE_UNINSTRUMENTED := $(foreach p,$(WAZERO_COMPILER)/backend/... $(WAZERO_COMPILER)/frontend $(WAZERO_COMPILER)/ssa,-gcflags=$(p)=-race=false)
test-go-race:
	$(GO) test -race $(RACE_UNINSTRUMENTED) -count=1 -timeout 20m -p 4 -ldflags='-s -w' $(GO_SLOW_FIRST) ./... # -p 4: much of a test binary's time is waiting (children, browsers, timers), so four at a time on two cores (three left the lane at the 900 s line beside two loads); no DWARF or ELF symbols: a third less CPU to link each test binary (race reports and stack traces come from Go's own pc-line table, which stays)

test-go-unraced:
	$(GO) test -count=1 -ldflags='-s -w' -run '^(TestConformance|TestInputCap|TestMemoryBounded|TestHugeInputNeverEntersTheGuest)$$' ./hostgo # the interpreter's corpus and 500,000 calls' memory, skipped under -race
	$(GO) test -count=1 -ldflags='-s -w' -run '^(TestLongRepliesReachTheClient|TestBinaryLongReply|TestLineGuardOversized|TestLineGuardDoesNotHoldOversizedLines)$$' ./acpagent # megabytes through one goroutine, skipped under -race
	$(GO) test -count=1 -ldflags='-s -w' -run '^TestHugeArgumentsThroughExecute$$' ./agent # the same

test-js: build
	./scripts/test-js.sh

test-interop: build
	./scripts/test-interop.sh

# The real hosts from npm (Claude Code, Codex, Gemini CLI, opencode) against
# bin/askcore-mcp, with fake model servers; TUIs through tmux.
test-hosts: build
	./scripts/test-hosts.sh

# Only the hosts' npm install (~1.2 GB, mostly network): make test runs it
# at the start, beside the other lanes, so test-hosts finds it done.
hosts-install:
	./scripts/test-hosts.sh --install

# A number of executions per target, not a duration: with Go 1.26 a
# -fuzztime duration can end a clean run with "context deadline exceeded"
# (golang/go#75804), which a loaded machine makes likely. A count has no
# deadline: a loaded machine makes the run slower, never red. FUZZ_SECONDS
# bounds the stage all the same: each target gets the whole count when the
# machine fuzzes it that fast, and as many executions as fit in about that
# many seconds when it does not (scripts/fuzz.sh).
FUZZ_SECONDS ?= 3
fuzz-short:
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_WORKERS=1 ./scripts/fuzz.sh 100000x

bench:
	./scripts/bench.sh

demo:
	$(GO) run ./cmd/askcore-stdio

clean:
	rm -rf bin dist
