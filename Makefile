# askcore: every rule in core/, run natively, under wazero, in Node and in Chromium.
# `make test` is what CI runs (.ci/run); `make bench` prints the performance table.

GO       ?= go
WASM     := wasm/askcore.wasm
GOFLAGS_WASM := -buildmode=c-shared -trimpath -ldflags='-s -w -buildid='

.PHONY: all build wasm check-wasm test test-go test-js test-interop fuzz-short bench demo clean

all: build

build:
	$(GO) build -o bin/askcore-stdio ./cmd/stdio
	$(GO) build -o bin/askcore-acp ./cmd/acp

# Rebuild the committed WebAssembly core (reproducible: same toolchain, same bytes).
wasm:
	GOOS=wasip1 GOARCH=wasm $(GO) build $(GOFLAGS_WASM) -o $(WASM) ./wasm/guest
	cp $(WASM) hostjs/askcore.wasm
	cd wasm && sha256sum askcore.wasm > askcore.wasm.sha256

# Fail when the committed module is not what the sources build.
check-wasm:
	./scripts/check-wasm.sh

test: check-wasm test-go test-js test-interop fuzz-short

test-go:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

test-js:
	./scripts/test-js.sh

test-interop: build
	./scripts/test-interop.sh

fuzz-short:
	./scripts/fuzz.sh 10s

bench:
	./scripts/bench.sh

demo:
	$(GO) run ./cmd/stdio

clean:
	rm -rf bin
