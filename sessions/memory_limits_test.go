package sessions

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A module .global variable counts against the global-memory budget with
// the buffers: it is refused before anything is allocated.
func TestModuleGlobalsCountAgainstBudget(t *testing.T) {
	const src = hdr + ".global .b8 g[268435456];\n.visible .entry k() { ret; }\n"
	m := newManager(t, Limits{})
	c := newClient(t, m)
	c.send(map[string]any{"type": "load", "id": 3, "source": src, "spec": json.RawMessage(`{"grid":[1],"block":[32]}`)})
	c.expect("diagnostics")
	h := c.expectError("limit")
	if !strings.Contains(h.Message, ".global variables (268435456 bytes)") || !strings.Contains(h.Message, fmt.Sprint(DefaultLimits.MaxBufferBytes)) {
		t.Fatalf("message %q", h.Message)
	}
	// The compiled program does not hold an image of the zeroed segment.
	if c := m.cache.get(src); c.prog == nil || len(c.prog.GlobalImg) != 0 || c.prog.GlobalSize != 1<<28 || c.size > 1<<20 {
		t.Fatalf("program: image %d bytes, size %d, estimate %d", len(c.prog.GlobalImg), c.prog.GlobalSize, c.size)
	}
	// Within the budget it loads; module globals and buffers together
	// over it do not.
	const small = hdr + ".global .b8 g[1024];\n.visible .entry k(.param .u64 p) { ret; }\n"
	m2 := newManager(t, Limits{MaxBufferBytes: 4096})
	c2 := newClient(t, m2)
	c2.load(small, `{"grid":[1],"block":[32],"buffers":[{"name":"b","type":"u8","count":3072}],"params":[{"buffer":"b"}]}`)
	c2.send(map[string]any{"type": "load", "source": small, "spec": json.RawMessage(`{"grid":[1],"block":[32],"buffers":[{"name":"b","type":"u8","count":3073}],"params":[{"buffer":"b"}]}`)})
	c2.expect("diagnostics")
	c2.expectError("limit")
}

// The program cache is bounded by its programs' estimated bytes as well as
// by their number.
func TestProgramCacheBytes(t *testing.T) {
	src := func(i int) string {
		return fmt.Sprintf("%s.global .b8 g%d[268435456];\n.visible .entry k() { .reg .b32 %%r<2000>; mov.b32 %%r1, %d; ret; }\n", hdr, i, i)
	}
	one := compile(src(0)).size
	pc := newProgCache(32, one*3+one/2)
	for i := range 12 {
		pc.get(src(i))
		if pc.size() > one*3+one/2 {
			t.Fatalf("after %d programs the cache holds %d bytes (limit %d)", i+1, pc.size(), one*3+one/2)
		}
	}
	if pc.ll.Len() != 3 {
		t.Fatalf("%d programs cached, want 3", pc.ll.Len())
	}
	// The most recent stay.
	if _, ok := pc.m[sha256.Sum256([]byte(src(11)))]; !ok {
		t.Fatal("the last program was evicted")
	}
	// A program larger than the whole budget is compiled but not kept.
	small := newProgCache(32, one/2)
	if c := small.get(src(1)); c.prog == nil || small.ll.Len() != 0 || small.size() != 0 {
		t.Fatalf("oversized program cached: %d entries, %d bytes", small.ll.Len(), small.size())
	}
	// The count bound still holds.
	byCount := newProgCache(2, 1<<40)
	for i := range 5 {
		byCount.get(src(i))
	}
	if byCount.ll.Len() != 2 || byCount.size() != 2*one {
		t.Fatalf("%d entries, %d bytes", byCount.ll.Len(), byCount.size())
	}
}

// When the accounted memory is above MaxAccountedBytes, new sessions and
// loads are refused with "busy"; it recovers when memory is released.
func TestAccountedMemoryBusy(t *testing.T) {
	m := newManager(t, Limits{})
	a := newClient(t, m)
	a.load(reducePTX, reduceSpec)
	held := m.AccountedBytes()
	if held <= m.cache.size() {
		t.Fatalf("accounted %d bytes, the cache alone %d", held, m.cache.size())
	}
	b := newClient(t, m)
	m.maxAccounted.Store(held - 1) // only the manager's copy is read
	if _, err := m.NewSession(); err != ErrMemoryBusy {
		t.Fatalf("new session over the memory limit: %v", err)
	}
	if !strings.Contains(string(ErrMemoryBusy.Frame()), `"code":"busy"`) {
		t.Fatal(string(ErrMemoryBusy.Frame()))
	}
	b.send(map[string]any{"type": "load", "id": 7, "source": divergentPTX, "spec": json.RawMessage(divergentSpec)})
	b.expect("diagnostics")
	if h := b.expectError("busy"); h.ID == nil || *h.ID != 7 || !strings.Contains(h.Message, "memory") {
		t.Fatalf("busy %+v", h)
	}
	// The session that holds the memory ends: its memory is released.
	a.s.Close()
	if got := m.AccountedBytes(); got != m.cache.size() {
		t.Fatalf("after close %d bytes accounted, the cache holds %d", got, m.cache.size())
	}
	m.maxAccounted.Store(held + 1<<20)
	b.load(divergentPTX, divergentSpec)
	if _, err := m.NewSession(); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

// 130k registers: every reply stays below MaxReplyBytes; the register file
// goes out in pages that inspect selects.
func TestRegisterFilePaged(t *testing.T) {
	const src = hdr + ".visible .entry k() { .reg .b32 %r<65536>; .reg .b64 %rd<65536>; .reg .pred %p<20000>;\n mov.b32 %r70, 5; mov.b64 %rd65000, 7; ret; }\n"
	lim := Limits{MaxReplyBytes: 2 << 20, MaxStateBytes: 1 << 30}
	c := newClient(t, newManager(t, lim))
	c.send(map[string]any{"type": "load", "id": 1, "source": src, "spec": json.RawMessage(`{"grid":[1],"block":[32]}`)})
	c.expect("diagnostics")
	raw := c.expect("loaded")
	var ld loadedMsg
	if err := json.Unmarshal(raw, &ld); err != nil {
		t.Fatal(err)
	}
	wantPages := (131072 + regPage - 1) / regPage
	if len(raw) > lim.MaxReplyBytes || ld.RegCount != 131072 || ld.PredCount != 20000 || ld.RegPages != wantPages || len(ld.Regs) != regPage || len(ld.Preds) != predPage {
		t.Fatalf("loaded: %d bytes, %d of %d regs, %d of %d preds, %d pages", len(raw), len(ld.Regs), ld.RegCount, len(ld.Preds), ld.PredCount, ld.RegPages)
	}
	check := func(what string, raw []byte) *regsJSON {
		t.Helper()
		if len(raw) > lim.MaxReplyBytes {
			t.Fatalf("%s of %d bytes", what, len(raw))
		}
		var m struct {
			Regs *regsJSON `json:"regs"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if m.Regs == nil || m.Regs.Pages != wantPages || len(m.Regs.Values) > regPage || len(m.Regs.Names) > regPage || len(m.Regs.Preds) > predPage {
			t.Fatalf("%s: regs %+v", what, m.Regs)
		}
		return m.Regs
	}
	check("full state", c.expect("state"))
	c.step("warp", 2)
	c.send(map[string]any{"type": "seek", "id": 2, "step": 0})
	check("seek", c.expect("state"))
	// Page 63 holds %rd65000 (register 65536+65000).
	c.send(map[string]any{"type": "inspect", "id": 3, "regPage": 63})
	rj := check("inspect", c.expect("inspect"))
	if rj.Page != 63 || len(rj.Names) != regPage || rj.Names[0].Name != "%rd"+fmt.Sprint(63*regPage-65536) {
		t.Fatalf("page 63: %d names, first %+v", len(rj.Names), rj.Names[0])
	}
	slot := ""
	for _, r := range rj.Names {
		if r.Name == "%rd65000" {
			slot = fmt.Sprint(r.Slot)
		}
	}
	c.send(map[string]any{"type": "step", "count": 2})
	st := check("state", c.expect("state"))
	if st.Page != 63 || st.Values[slot] == nil || st.Values[slot][0] != hex64(7) {
		t.Fatalf("page 63 after the store: %v", st.Values[slot])
	}
	c.send(map[string]any{"type": "inspect", "id": 4, "regPage": wantPages})
	c.expectError("bad-request")

	// A reply over the limit is replaced by an error that names it.
	c2 := newClient(t, newManager(t, Limits{MaxReplyBytes: 4096}))
	c2.send(map[string]any{"type": "load", "id": 9, "source": src, "spec": json.RawMessage(`{"grid":[1],"block":[32]}`)})
	c2.expect("diagnostics")
	if h := c2.expectError("limit"); h.ID == nil || *h.ID != 9 || !strings.Contains(h.Message, "loaded reply") {
		t.Fatalf("%+v", h)
	}
}

// A session that loads no program is closed after NoProgramTimeout; one
// that did stays until its idle timeout.
func TestNoProgramTimeout(t *testing.T) {
	m := newManager(t, Limits{NoProgramTimeout: time.Minute})
	idle := newClient(t, m)
	busy := newClient(t, m)
	busy.load(divergentPTX, divergentSpec)
	idle.send(map[string]any{"type": "check", "source": divergentPTX}) // not a load
	idle.expect("diagnostics")
	m.sweep(time.Now().Add(30 * time.Second))
	if m.Len() != 2 {
		t.Fatal("closed early")
	}
	m.sweep(time.Now().Add(61 * time.Second))
	if h := idle.expectError("expired"); !strings.Contains(h.Message, "no program was loaded within 1m0s") {
		t.Fatalf("%+v", h)
	}
	<-idle.s.Done()
	if got := idle.s.CloseReason(); got != "no program loaded in time" {
		t.Fatalf("close reason %q", got)
	}
	if m.Len() != 1 || busy.s.CloseReason() != "" {
		t.Fatalf("%d sessions; loaded session's close reason %q", m.Len(), busy.s.CloseReason())
	}
}
