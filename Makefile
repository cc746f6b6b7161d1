# `make test` is what CI runs (.ci/run): it installs the pinned Codex App Server into an
# ignored cache folder, then checks formatting, vets and runs every test with the race detector.
GO ?= go

.PHONY: test build install-codex fmt-check vet bench fuzz clean

# -parallel 4 -p 4: most tests wait on real processes (App Server, harnesses), not on the CPU,
# so four tests of a package and four packages run at once even on two cores.
test: install-codex fmt-check vet
	CODEXHOST_CODEX_BIN="$$(./scripts/install-codex.sh)" $(GO) test -race -count=1 -parallel 4 -p 4 -timeout 15m ./...

install-codex:
	@./scripts/install-codex.sh >/dev/null

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go') $$(git ls-files -o --exclude-standard '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; echo "run: gofmt -w ."; exit 1; fi

vet:
	$(GO) vet ./...

build:
	CGO_ENABLED=0 $(GO) build -o bin/codexhost .

bench: install-codex
	CODEXHOST_CODEX_BIN="$$(./scripts/install-codex.sh)" $(GO) test -run '^$$' -bench . -benchmem ./...

# A short fuzz run of each parser, one target at a time; longer runs: make fuzz FUZZTIME=5m.
# `make test` already runs every target once over its seed corpus (plain go test does).
FUZZTIME ?= 20s
fuzz:
	GO=$(GO) ./scripts/fuzz.sh $(FUZZTIME)

clean:
	rm -rf bin dist
