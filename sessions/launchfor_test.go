package sessions

import (
	"encoding/json"
	"testing"
)

// A kernel that stages through dynamic shared memory (an extern .shared
// array): `ptxplay init` gives it 48 KiB and grid 1.
const dynSharedPTX = hdr + `
.extern .shared .align 16 .b8 smem[];
.visible .entry stage(.param .u64 src, .param .u64 dst, .param .u32 n) {
	.reg .u32 %r<6>; .reg .u64 %rd<6>; .reg .f32 %f<2>;
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [dst];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.f32 %f1, [%rd4];
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.f32 [%r4], %f1;
	ld.shared.f32 %f1, [%r4];
	add.u64 %rd5, %rd2, %rd3;
	st.global.f32 [%rd5], %f1;
	ret;
}
`

type launchSpecJSON struct {
	Entry              string            `json:"entry"`
	Grid               []int             `json:"grid"`
	Block              []int             `json:"block"`
	DynamicSharedBytes int               `json:"dynamicSharedBytes"`
	Buffers            []json.RawMessage `json:"buffers"`
	Params             []json.RawMessage `json:"params"`
}

// loadFor loads src with spec as made for the kernel sig ("" sends none)
// and returns the loaded message and the state that follows.
func (c *client) loadFor(src, spec, sig string, extra map[string]any) (loadedMsg, stateMsg) {
	c.t.Helper()
	msg := map[string]any{"type": "load", "id": 3, "source": src, "spec": json.RawMessage(spec)}
	if sig != "" {
		msg["kernel"] = sig
	}
	for k, v := range extra {
		msg[k] = v
	}
	c.send(msg)
	c.expect("diagnostics")
	var l loadedMsg
	if err := json.Unmarshal(c.expect("loaded"), &l); err != nil {
		c.t.Fatal(err)
	}
	st, _ := c.state()
	return l, st
}

func appliedSpec(t *testing.T, l loadedMsg) (launchSpecJSON, string) {
	t.Helper()
	var s launchSpecJSON
	if l.Launch == nil || !l.Launch.Applied || l.Launch.Spec == nil {
		t.Fatalf("no launch applied: %+v", l.Launch)
	}
	if err := json.Unmarshal(l.Launch.Spec, &s); err != nil {
		t.Fatal(err)
	}
	return s, string(l.Launch.Spec)
}

// A pasted kernel gets its own launch: the launch a load carries follows
// only the kernel it was made for (name and parameters); another kernel
// runs the launch inferred from it alone, dynamic shared memory included,
// and nothing of the unrelated launch carries over to the next kernel.
func TestLaunchFollowsItsKernel(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	l, _ := c.loadFor(divergentPTX, divergentSpec, "", nil)
	if l.KernelSig != "div(u64:8)" || l.Launch != nil {
		t.Fatalf("first load: kernelSig %q launch %+v", l.KernelSig, l.Launch)
	}
	divSig := l.KernelSig

	// The user's edits of the launch stay while the kernel is the same,
	// its body edited or not.
	edited := `{"grid":[3],"block":[64],"buffers":[{"name":"out","type":"u32","count":192}],"params":[{"buffer":"out"}]}`
	body := divergentPTX[:len(divergentPTX)-len("\tret;\n}\n")] + "\tadd.u32 %r3, %r3, 1;\n\tret;\n}\n"
	l, _ = c.loadFor(body, edited, divSig, nil)
	if l.Launch != nil || l.TotalCTAs != 3 || l.KernelSig != divSig {
		t.Fatalf("same kernel, edited launch: launch %+v totalCTAs %d sig %q", l.Launch, l.TotalCTAs, l.KernelSig)
	}

	// Another kernel: its own launch, nothing of div's (grid 3, buffer
	// "out"), and its extern .shared array gets 48 KiB.
	c.send(map[string]any{"type": "check", "id": 4, "source": dynSharedPTX})
	var d diagnosticsMsg
	json.Unmarshal(c.expect("diagnostics"), &d)
	if !d.Check || !d.OtherKernel {
		t.Fatalf("check of another kernel: %+v", d)
	}
	l, st := c.loadFor(dynSharedPTX, edited, divSig, map[string]any{"at": 5})
	s, raw := appliedSpec(t, l)
	if !l.Launch.Inferred || s.Entry != "stage" || s.DynamicSharedBytes != 48<<10 || s.Grid[0] != 1 || len(s.Params) != 3 {
		t.Fatalf("another kernel's launch: %s", raw)
	}
	if l.TotalCTAs != 1 || l.SharedBytes != 48<<10 || len(l.Buffers) != 2 || l.Buffers[0].Name == "out" {
		t.Fatalf("loaded: totalCTAs %d sharedBytes %d buffers %+v", l.TotalCTAs, l.SharedBytes, l.Buffers)
	}
	// Another kernel cannot replay the old one's position: it starts at step 0.
	if st.Step != 0 || st.Reason != "loaded" {
		t.Fatalf("state after loading another kernel with at: step %d reason %s", st.Step, st.Reason)
	}
	c.send(`{"type":"pause","id":6}`)
	if st, _ := c.state(); st.Step != 0 {
		t.Fatalf("another kernel replayed to step %d", st.Step)
	}
	stageSig := l.KernelSig

	// Back to an unrelated kernel with stage's launch: its 48 KiB do not leak.
	l, _ = c.loadFor(divergentPTX, raw, stageSig, nil)
	s, raw = appliedSpec(t, l)
	if s.DynamicSharedBytes != 0 || l.SharedBytes != 0 || s.Entry != "div" {
		t.Fatalf("the unrelated kernel kept stage's launch: %s (sharedBytes %d)", raw, l.SharedBytes)
	}

	// Same name, other parameters: another kernel.
	otherParams := hdr + ".visible .entry div(.param .u64 out, .param .u32 n) {\n\tret;\n}\n"
	l, _ = c.loadFor(otherParams, divergentSpec, divSig, nil)
	if s, raw = appliedSpec(t, l); !l.Launch.Inferred || len(s.Params) != 2 {
		t.Fatalf("same name, other parameters: %s", raw)
	}

	// Infer launch: asked for, even for the same kernel.
	l, _ = c.loadFor(divergentPTX, edited, divSig, map[string]any{"inferLaunch": true})
	if s, raw = appliedSpec(t, l); !l.Launch.Inferred || s.Grid[0] != 1 || l.TotalCTAs != 1 {
		t.Fatalf("inferLaunch: %s", raw)
	}

	// A load without kernel (an example, a share link, an imported spec)
	// keeps its spec as before.
	l, _ = c.loadFor(divergentPTX, edited, "", nil)
	if l.Launch != nil || l.TotalCTAs != 3 {
		t.Fatalf("no kernel named: launch %+v totalCTAs %d", l.Launch, l.TotalCTAs)
	}
	c.send(map[string]any{"type": "check", "id": 7, "source": body})
	d = diagnosticsMsg{}
	json.Unmarshal(c.expect("diagnostics"), &d)
	if d.OtherKernel {
		t.Fatalf("check of the same kernel, edited: %+v", d)
	}
}
