package sessions

import (
	"encoding/json"
	"strings"
	"testing"
)

// wgmmaPTX: 128 threads write A (64x16 f16, K-major, no swizzle: LBO 128,
// SBO 256) and B (8x16) to shared memory, element i of shared memory (in
// halves) holding the value i, then one wgmma.mma_async m64n8k16.
var wgmmaPTX = testKernel("wgmma_view.ptx")

const wgmmaSpec = `{"grid":[1],"block":[128],"buffers":[{"name":"out","type":"f32","count":512}],"params":[{"buffer":"out"}]}`

// The loaded message names a wgmma.mma_async by its own form, with its
// accumulator registers; a warp's wgmma-groups in flight are in its
// summary; the descriptor view says where each element of A and B lives
// in shared memory and what it holds.
func TestWgmmaView(t *testing.T) {
	c := newClient(t, newManager(t, Limits{MaxWarpInstructions: 50000}))
	c.load(wgmmaPTX, wgmmaSpec)
	var ops []tensorOpJSON
	c.do(func() { ops = c.s.tensorOps() })
	if len(ops) != 1 || ops[0].Key != "wgmma.m64n8k16.f32.f16.f16" || len(ops[0].Regs["d"]) != 4 || len(ops[0].Regs) != 1 {
		t.Fatalf("tensor ops %+v", ops)
	}
	pc := ops[0].PC
	// Step until warp 0 has its mma_async in flight.
	var groups *wgmmaAsyncJSON
	for i := 0; i < 2000 && groups == nil; i++ {
		st := c.step("warp", 1)
		for _, ct := range st.CTAs {
			for _, w := range ct.Warps {
				if w.Warp == 0 && w.Wgmma != nil {
					groups = w.Wgmma
				}
			}
		}
	}
	if groups == nil || groups.Ops != 1 || len(groups.Groups) != 1 || groups.Groups[0].Group != 0 || groups.Open != 1 {
		t.Fatalf("warp 0's wgmma in flight: %+v", groups)
	}
	if ls := groups.Groups[0].Lines; len(ls) != 1 || ls[0] != ops[0].Line {
		t.Errorf("lines %v, want [%d]", ls, ops[0].Line)
	}
	c.send(map[string]any{"type": "inspect", "id": 7, "cta": 0, "warp": 0, "wgmmaPC": pc})
	var in inspectMsg
	if err := json.Unmarshal(c.expect("inspect"), &in); err != nil {
		t.Fatal(err)
	}
	v := in.Wgmma
	if v == nil || v.Form != ops[0].Key || len(v.Operands) != 2 || v.SharedBytes != 2304 {
		t.Fatalf("view %+v", v)
	}
	a, b := v.Operands[0], v.Operands[1]
	if a.Name != "a" || a.Reg != "%rd1" || a.Desc.LBO != 128 || a.Desc.SBO != 256 || a.Desc.Start != 0 || a.Desc.Swizzle != "none" || a.Error != "" {
		t.Fatalf("A %+v", a)
	}
	if b.Name != "b" || b.Desc.Start != 2048 || b.Rows != 8 || b.K != 16 || b.Error != "" {
		t.Fatalf("B %+v", b)
	}
	// A[m][k] K-major, no swizzle: (m%8)*16 + (m/8)*SBO + (k/8)*LBO + (k%8)*2,
	// holding the f16 value byte/2.
	f16 := func(x int) uint32 { // a small nonnegative integer, exactly
		if x == 0 {
			return 0
		}
		e := 0
		for 1<<(e+1) <= x {
			e++
		}
		return uint32(e+15)<<10 | uint32((x<<10>>e)&0x3ff)
	}
	for m := 0; m < 64; m++ {
		for k := 0; k < 16; k++ {
			want := uint64(m%8*16 + m/8*256 + k/8*128 + k%8*2)
			i := m*16 + k
			if a.Addr[i] != want || a.Bits[i] != f16(int(want/2)) || a.Core[i] != m/8*a.CoreCols+k/8 {
				t.Fatalf("A[%d][%d]: byte %d bits %#x core %d, want byte %d bits %#x", m, k, a.Addr[i], a.Bits[i], a.Core[i], want, f16(int(want/2)))
			}
		}
	}
	// An instruction that is not a wgmma.mma_async is a bad request.
	c.send(map[string]any{"type": "inspect", "id": 8, "cta": 0, "warp": 0, "wgmmaPC": 0})
	if e := c.expectError("bad-request"); !strings.Contains(e.Message, "not a wgmma.mma_async") {
		t.Errorf("error %q", e.Message)
	}
}

// A descriptor that reads past the CTA's shared memory: the view says so
// instead of a layout.
func TestWgmmaViewOutsideShared(t *testing.T) {
	c := newClient(t, newManager(t, Limits{MaxWarpInstructions: 50000}))
	c.load(strings.Replace(wgmmaPTX, "0x0000001000080080", "0x0000001000080100", 1), wgmmaSpec)
	var pc int
	c.do(func() { pc = c.s.tensorOps()[0].PC })
	// To the fault the executor reports at the mma_async.
	for i := 0; ; i++ {
		if st := c.step("warp", 1); st.Status == "fault" {
			if !strings.Contains(st.Fault.Message, "outside the CTA's 2304 bytes") {
				t.Fatalf("fault %+v", st.Fault)
			}
			c.expect("done")
			break
		}
		if i > 3000 {
			t.Fatal("no fault")
		}
	}
	c.send(map[string]any{"type": "inspect", "id": 7, "cta": 0, "warp": 0, "wgmmaPC": pc})
	var in inspectMsg
	if err := json.Unmarshal(c.expect("inspect"), &in); err != nil {
		t.Fatal(err)
	}
	b := in.Wgmma.Operands[1]
	if !strings.Contains(b.Error, "outside the CTA's 2304 bytes of shared memory") || b.Addr != nil {
		t.Fatalf("B %+v", b)
	}
}
