// Package conformance holds the end-to-end tests of the engine: the ZLUDA
// conformance suite (real PTX with inputs and outputs recorded on NVIDIA
// GPUs) and the corpus of real-world PTX modules that must compile.
//
// Cases that are known to fail are listed with a one-line reason in
// testdata/*_expected_failures.txt. An unlisted failure fails the test; a
// listed case that passes is logged ("now passes, remove from list"), and
// fails the test only with PTXPLAY_STRICT=1. Rewrite the lists from the
// current results with
//
//	go test ./engine/conformance -update
package conformance

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*_expected_failures.txt from the current results")

// sharedDir is the project's shared folder, relative to this package.
const sharedDir = "../../../shared"

// strict reports whether PTXPLAY_STRICT=1 asks for unexpected passes to
// fail the test.
func strict() bool { return os.Getenv("PTXPLAY_STRICT") == "1" }

// expectations is an expected-failure list and the tally of a run.
type expectations struct {
	path    string
	header  []string          // leading comment lines, kept by -update
	reasons map[string]string // case name -> reason
	seen    map[string]bool

	passed, expected, unexpected, nowPass int
	failures                              map[string]string // this run's failures
}

// loadExpectations reads an expected-failure list: one case per line, its
// name, white space and a reason; blank lines and #-comments are ignored.
func loadExpectations(t *testing.T, path string) *expectations {
	t.Helper()
	e := &expectations{path: path, reasons: map[string]string{}, seen: map[string]bool{}, failures: map[string]string{}}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return e
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	inHeader := true
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			if inHeader {
				e.header = append(e.header, sc.Text())
			}
			continue
		}
		inHeader = false
		name, reason := line, ""
		if i := strings.IndexAny(line, " \t"); i >= 0 {
			name, reason = line[:i], line[i+1:]
		}
		if _, dup := e.reasons[name]; dup {
			t.Errorf("%s:%d: %s is listed twice", path, n, name)
		}
		e.reasons[name] = strings.TrimSpace(reason)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return e
}

// record judges one case's outcome (failure "" means it passed) inside
// its subtest.
func (e *expectations) record(t *testing.T, name, failure string) {
	t.Helper()
	e.seen[name] = true
	reason, listed := e.reasons[name]
	switch {
	case failure == "" && !listed:
		e.passed++
	case failure == "" && listed:
		e.passed++
		e.nowPass++
		if strict() {
			t.Errorf("now passes, remove from list %s (listed as: %s)", filepath.Base(e.path), reason)
		} else {
			t.Logf("now passes, remove from list %s (listed as: %s)", filepath.Base(e.path), reason)
		}
	case listed:
		e.expected++
		e.failures[name] = failure
		t.Logf("expected failure: %s", failure)
	default:
		e.unexpected++
		e.failures[name] = failure
		if *update {
			t.Logf("new failure (added to %s): %s", filepath.Base(e.path), failure)
		} else {
			t.Errorf("FAIL (not in %s): %s", filepath.Base(e.path), failure)
		}
	}
}

// finish reports listed cases that no longer exist, prints the summary and
// rewrites the list with -update.
func (e *expectations) finish(t *testing.T, suite string) {
	t.Helper()
	var stale []string
	for name := range e.reasons {
		if !e.seen[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	for _, name := range stale {
		if strict() {
			t.Errorf("%s lists %s, which is not a case of the suite", filepath.Base(e.path), name)
		} else {
			t.Logf("%s lists %s, which is not a case of the suite", filepath.Base(e.path), name)
		}
	}
	t.Logf("%s: %d passed, %d expected failures, %d unexpected failures", suite, e.passed, e.expected, e.unexpected)
	if e.nowPass > 0 {
		t.Logf("%s: %d listed cases now pass: remove them from %s (or run with -update)", suite, e.nowPass, e.path)
	}
	if *update {
		if err := e.write(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: wrote %d expected failures to %s", suite, len(e.failures), e.path)
	}
}

// write rewrites the list from this run's failures, keeping the header.
func (e *expectations) write() error {
	var b strings.Builder
	for _, h := range e.header {
		b.WriteString(h)
		b.WriteByte('\n')
	}
	names := make([]string, 0, len(e.failures))
	for name := range e.failures {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(&b, "%s %s\n", name, oneLine(e.failures[name], 240))
	}
	if err := os.MkdirAll(filepath.Dir(e.path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(e.path, []byte(b.String()), 0o644)
}

// oneLine squeezes a message onto one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		cut := n
		for cut > 0 && s[cut]&0xc0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
