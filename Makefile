# The one command that runs every test: `make test`.
GO ?= go

.PHONY: test check-format vet unit fuzz bench

test: check-format vet unit

check-format:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go') | grep -v '_templ.go$$' || true); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

# Fuzz the parser (seeded with the corpus) for FUZZTIME (default 5m).
FUZZTIME ?= 5m
fuzz:
	$(GO) test ./engine/ptx -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME)

# The engine benchmarks recorded in docs/benchmarks.md.
bench:
	$(GO) test ./engine/emu -run '^$$' -bench . -benchtime 3x -count 1
