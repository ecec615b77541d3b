package browser

import (
	"encoding/json"
	"strings"
	"testing"
)

// mbringSrc: a 2-stage mbarrier ring (sessions/mbarrier_view_test.go):
// warp 0 produces tiles counted as 128 transaction bytes on full[s],
// warp 1 consumes them and arrives on empty[s].
const mbringSrc = `
.version 8.0
.target sm_90
.address_size 64

// A 2-stage ring: warp 0 produces 4 tiles of 32 words (tile i, word k:
// 100*i + k) into stage i%2 once the stage's empty barrier allows, and
// counts them as 128 transaction bytes on its full barrier; warp 1 waits
// for the full barrier, adds word k (lane k) and arrives on the empty
// barrier. Each lane's sum is 600 + 4k.
.visible .entry mbring(.param .u64 out) {
	.reg .u32 %r<24>; .reg .u64 %rd<8>; .reg .pred %p<8>;
	.shared .align 8 .b64 full[2];
	.shared .align 8 .b64 empty[2];
	.shared .align 4 .u32 buf[64];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r14, %r1, 31;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra INITED;
	mov.u32 %r2, full;
	mbarrier.init.shared.b64 [%r2], 1;
	mbarrier.init.shared.b64 [%r2+8], 1;
	mov.u32 %r2, empty;
	mbarrier.init.shared.b64 [%r2], 32;
	mbarrier.init.shared.b64 [%r2+8], 32;
INITED:
	bar.sync 0;
	mov.u32 %r5, 0;
	mov.u32 %r20, 0;
	setp.ge.u32 %p3, %r1, 32;
	@%p3 bra CONSUMER;
PLOOP:
	and.b32 %r6, %r5, 1;
	shr.u32 %r7, %r5, 1;
	and.b32 %r7, %r7, 1;
	xor.b32 %r7, %r7, 1;
	shl.b32 %r8, %r6, 3;
	mov.u32 %r9, empty;
	add.u32 %r9, %r9, %r8;
WE:
	mbarrier.try_wait.parity.shared.b64 %p5, [%r9], %r7;
	@!%p5 bra WE;
	mov.u32 %r9, full;
	add.u32 %r9, %r9, %r8;
	@!%p1 mbarrier.arrive.expect_tx.shared.b64 %rd2, [%r9], 128;
	mov.u32 %r10, buf;
	shl.b32 %r11, %r6, 7;
	add.u32 %r10, %r10, %r11;
	shl.b32 %r12, %r14, 2;
	add.u32 %r10, %r10, %r12;
	mul.lo.u32 %r13, %r5, 100;
	add.u32 %r13, %r13, %r14;
	st.shared.u32 [%r10], %r13;
	@!%p1 mbarrier.complete_tx.shared.b64 [%r9], 128;
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p4, %r5, 4;
	@%p4 bra PLOOP;
	ret;
CONSUMER:
	and.b32 %r6, %r5, 1;
	shr.u32 %r7, %r5, 1;
	and.b32 %r7, %r7, 1;
	shl.b32 %r8, %r6, 3;
	mov.u32 %r9, full;
	add.u32 %r9, %r9, %r8;
WF:
	mbarrier.try_wait.parity.shared.b64 %p5, [%r9], %r7;
	@!%p5 bra WF;
	mov.u32 %r10, buf;
	shl.b32 %r11, %r6, 7;
	add.u32 %r10, %r10, %r11;
	shl.b32 %r12, %r14, 2;
	add.u32 %r10, %r10, %r12;
	ld.shared.u32 %r13, [%r10];
	add.u32 %r20, %r20, %r13;
	mov.u32 %r9, empty;
	add.u32 %r9, %r9, %r8;
	mbarrier.arrive.shared.b64 %rd2, [%r9];
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p4, %r5, 4;
	@%p4 bra CONSUMER;
	mul.wide.u32 %rd3, %r14, 4;
	add.u64 %rd3, %rd1, %rd3;
	st.global.u32 [%rd3], %r20;
	ret;
}
`

// TestMbarrierPanel: the Warps pane lists the CTA's live mbarriers with
// their names, phase, arrivals, transaction bytes and the warps waiting
// on them; clicking an address shows its bytes in the Memory tab.
// Screenshots at 1440×900, 1024×768 presenter and 390×844.
func TestMbarrierPanel(t *testing.T) {
	s := need(t)
	snap := map[string]any{
		"title":  "mbarrier ring",
		"source": strings.TrimPrefix(mbringSrc, "\n"),
		"spec":   map[string]any{"grid": []int{1}, "block": []int{64}, "buffers": []any{map[string]any{"name": "out", "type": "u32", "count": 32}}, "params": []any{map[string]any{"buffer": "out"}}},
		"id":     "AAAAAAAAAAAA",
	}
	data, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	tb := s.newTab(t, "/"+linkFragment(t, data))
	tb.wake()
	tb.waitLoaded("mbring.ptx")
	tb.viewport(1440, 900)
	// Step until a warp waits on an mbarrier with transaction bytes outstanding.
	ok := false
	for range 80 {
		tb.button("step-warp")
		var got bool
		tb.eval(`(() => { const t = document.querySelector(".cta-mbars")?.textContent ?? ""; return document.querySelectorAll(".mbar").length === 4 && !!document.querySelector(".mbar-wait") && t.includes("128 tx bytes"); })()`, &got)
		if got {
			ok = true
			break
		}
	}
	if !ok {
		var text string
		tb.eval(`document.querySelector(".cta-mbars")?.textContent ?? ""`, &text)
		t.Fatalf("no mbarrier with a waiting warp and 128 transaction bytes: %q", text)
	}
	var names []string
	tb.eval(`[...document.querySelectorAll(".mbar-addr")].map((b) => b.textContent)`, &names)
	if strings.Join(names, " ") != "full[0] @0x0 full[1] @0x8 empty[0] @0x10 empty[1] @0x18" {
		t.Errorf("mbarrier names %q", names)
	}
	tb.atEverySize("mbarrier panel", "mbarriers")
	tb.click(".mbar-addr")
	tb.waitJS("the Memory tab", `!document.getElementById("pg-tab-memory").hidden && document.getElementById("pg-tab-memory").getBoundingClientRect().height > 0`)
}
