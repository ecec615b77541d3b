package sessions

import (
	"fmt"
	"strings"
	"testing"
)

// The state a launch grows as it runs counts against the session's state
// budget: a recursive function with a .local buffer (each re-entry saves
// the buffer and registers of every lane of every warp) and a cp.async
// loop that never waits stop with a memory-limit fault at the bound, and
// the session's accounted bytes include what the machine holds.
func TestDynamicStateBudget(t *testing.T) {
	const budget = 8 << 20
	recurse := recurseLocalPTX(1024)
	copies := hdr + `
.visible .entry k(.param .u64 p) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>;
	.shared .align 16 .b8 sh[4096];
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 4;
	mov.u32 %r3, sh;
	add.u32 %r2, %r2, %r3;
	mul.wide.u32 %rd2, %r1, 16;
	add.u64 %rd3, %rd1, %rd2;
L:
	cp.async.cg.shared.global [%r2], [%rd3], 16;
	cp.async.commit_group;
	bra L;
}`
	for _, tc := range []struct {
		name, src, spec string
		line            int
	}{
		{"recursion", recurse, `{"grid":[2],"block":[256]}`, 10},
		{"cp.async", copies, `{"grid":[8],"block":[256],"buffers":[{"name":"b","type":"u8","count":4096}],"params":[{"buffer":"b"}]}`, 16},
	} {
		m := newManager(t, Limits{MaxStateBytes: budget})
		c := newClient(t, m)
		c.load(tc.src, tc.spec)
		c.send(map[string]any{"type": "run"})
		st, _ := c.state()
		if st.Status != "fault" || st.Fault == nil || st.Fault.Kind != "memory-limit" || st.Fault.Line != tc.line {
			t.Fatalf("%s: status %s reason %s fault %+v", tc.name, st.Status, st.Reason, st.Fault)
		}
		if !strings.Contains(st.Fault.Message, "limit is") {
			t.Fatalf("%s: message %q", tc.name, st.Fault.Message)
		}
		var static, dyn, held, limit int64
		c.do(func() {
			c.s.account(true)
			static, dyn, held = stateBytes(c.s.m), c.s.m.DynamicStateBytes(), c.s.ch.get(chargeState)
			limit = c.s.m.Config().MaxDynamicBytes
		})
		if limit != budget-static {
			t.Fatalf("%s: dynamic limit %d, want %d - %d", tc.name, limit, budget, static)
		}
		if dyn > limit || dyn < limit*3/4 {
			t.Fatalf("%s: %d bytes of dynamic state at the fault, limit %d", tc.name, dyn, limit)
		}
		if held < static+dyn {
			t.Fatalf("%s: accounted %d bytes, the machine holds %d + %d", tc.name, held, static, dyn)
		}
		if !strings.Contains(st.Fault.Message, fmt.Sprint(limit)) {
			t.Fatalf("%s: message %q does not name the limit %d", tc.name, st.Fault.Message, limit)
		}
	}
}

// recurseLocalPTX recurses without end through a function with a .local
// buffer of n bytes: every call saves the buffer of each of the warp's
// lanes (the call is on line 10).
func recurseLocalPTX(n int) string {
	return hdr + fmt.Sprintf(`
.func f() {
	.local .align 4 .b8 buf[%d];
	.reg .u32 %%r1;
	mov.u32 %%r1, %%tid.x;
	st.local.u32 [buf], %%r1;
	call f;
	ret;
}
.visible .entry k() {
	call f;
	ret;
}`, n)
}
