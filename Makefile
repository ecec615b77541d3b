# The one command that runs every test: `make test`. It installs what the
# tests need first (Node packages for the UI build check; Debian's chromium for
# the browser tests, postgresql for the share store's tests and clang-19 for
# the CUDA compiler's tests, when missing and running as root).
GO ?= go
TEMPL ?= github.com/a-h/templ/cmd/templ@v0.3.977
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: test deps check-format vet lint check-generated unit race abuse generate fuzz bench loadtest

test: deps check-format vet lint check-generated unit race abuse

deps:
	@if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json .npm-ci-stamp 2>/dev/null; then \
		echo "npm ci"; npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json .npm-ci-stamp; fi
	@if ! command -v chromium >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing chromium"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else echo "chromium is missing and cannot be installed here: browser tests will fail in CI"; fi; fi
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing postgresql"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
		else echo "postgresql is missing and cannot be installed here: the share store's PostgreSQL tests skip"; fi; fi
	@if ! command -v clang-19 >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing clang-19 (and bubblewrap, its sandbox)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-19 bubblewrap >/dev/null; \
		else echo "clang-19 is missing and cannot be installed here: the CUDA tests skip"; fi; fi

check-format:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*') | grep -v '_templ.go$$' || true); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

lint:
	$(GO) run $(STATICCHECK) ./...

# Generated files are committed; fail when they no longer match their sources.
# (The UI bundle is checked by `go test ./ui`, which rebuilds it.)
check-generated:
	@cd web && tmp=$$(mktemp) && trap 'rm -f $$tmp' EXIT && for f in $$(git ls-files '*.templ'); do \
		$(GO) run $(TEMPL) generate -f $$f -stdout > $$tmp || { echo "templ generate failed for web/$$f"; exit 1; }; \
		cmp -s $$tmp $${f%.templ}_templ.go || { echo "web/$${f%.templ}_templ.go is stale: run go generate ./web"; exit 1; }; done
	@cd engine/emu && $(GO) run gen_cmp.go -o - | cmp -s - exec_cmp_gen.go || { echo "engine/emu/exec_cmp_gen.go is stale: run go generate ./engine/emu"; exit 1; }

# The share store's suite runs against a real PostgreSQL server that the
# tests start; where make test can install it (root, or CI) it must run.
unit:
	@if [ -n "$$CI" ] || [ "$$(id -u)" = 0 ]; then export PTXPLAY_TEST_POSTGRES=require; fi; \
	$(GO) test -count=1 ./...

# The race detector over the tests of the web package (websockets,
# shutdown, limits, metrics) but those that only run gallery kernels to
# check their results (RACE_WEB_SKIP: one goroutine each, a third of the
# package's time under the race detector), and the tests of the sessions package that
# exercise its goroutines: the session loop, jobs and the CPU scheduler,
# expiry, slow clients, the program cache and the metrics. (All of
# `go test -race ./sessions` took about 5 minutes on 2 busy cores, nearly
# all of it the single-goroutine history and emulation property tests.)
# Also the parallel runs of `ptxplay run --parallel` (engine/launch), whose
# workers share the launch's inputs and merge their outputs.
RACE_SESSIONS ?= TestCPUSched|TestHistoryWalksSliced|TestWalkPauseAndClose|TestCPUMeter|TestCommandTimeLimit|TestCPUAllowance|TestStepsBeforeRuns|TestAccountedMemoryBusy|TestNoProgramTimeout|TestRunPauseAndDone|TestBreakpoints|TestFault$$|TestMalformed|TestLimits|TestIdleExpiry|TestSlowClient|TestProgramCache|TestNoGoroutineLeak|TestMetricsAndReset|TestSessionPanic|TestOverflowing|TestLaunchBudget|TestRemapKeepsTheRun|TestStepToEndSettles|TestDeadlockSettled|TestLoadDiagnostics|TestLoadedMessage
RACE_WEB_SKIP ?= TestLessonsAreShareLinks|TestLessonResults|TestLessonHintsShowWhatViewsShow|TestExampleRealWgmmaGemms|TestWgmmaFragmentsAPI|TestCUDALessonResults
race:
	$(GO) test -race -count=1 ./web -skip '$(RACE_WEB_SKIP)'
	$(GO) test -race -count=1 ./sessions -run '$(RACE_SESSIONS)'
	$(GO) test -race -count=1 ./engine/launch -run 'Parallel'

# Regenerate the templ components and the UI bundle.
generate: deps
	$(GO) generate ./web ./ui ./engine/emu

# Fuzz the parser (seeded with the corpus) for FUZZTIME (default 5m), then
# the launch-spec parser and validator for SPEC_FUZZTIME (default 60s).
# Their seeds run in every `go test`.
FUZZTIME ?= 5m
SPEC_FUZZTIME ?= 60s
fuzz:
	$(GO) test ./engine/ptx -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) -parallel 1
	$(GO) test ./engine/launch -run '^$$' -fuzz FuzzSpec -fuzztime $(SPEC_FUZZTIME) -parallel 1

# The benchmarks recorded in docs/benchmarks.md.
bench:
	$(GO) test ./engine/emu -run '^$$' -bench . -benchtime 20x -count 1
	$(GO) test ./engine/analysis -run '^$$' -bench Analysis -benchtime 20x -count 1
	$(GO) test ./engine/launch -run '^$$' -bench TMAPipeline -benchtime 20x -count 1
	$(GO) test ./web -run '^$$' -bench ShareSQLite -benchtime 2000x -count 1
	$(GO) test ./web/loadtest -run '^$$' -bench . -count 1

# The abuse run of docs/deployment.md, bounded to ABUSE_DURATION (60s in
# `make test`; 150s in `make loadtest`): RSS under the memory limit, benign
# step p99 < 100ms and /healthz p99 < 50ms while attackers run.
ABUSE_DURATION ?= 60s
abuse:
	$(GO) test ./web/loadtest -run TestAbuse -abuse.duration $(ABUSE_DURATION) -count 1 -timeout 10m -v

# The 60-second, 200-session load test, then the 150-second abuse run.
loadtest:
	PTXPLAY_LOAD_SECONDS=60 $(GO) test ./web/loadtest -run TestLoad -count 1 -v
	$(MAKE) abuse ABUSE_DURATION=150s
