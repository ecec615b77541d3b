package sessions

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math/bits"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The client's model of a session, merged from `state` and `inspect`
// messages with the rules of ui/model.ts. The property tests below check
// that, after any sequence of commands, what this model holds is exactly
// the machine's state, computed fresh.

// warpModel is a warp as the client holds it: its JSON fields, merged
// from keyed deltas by the one rule of ui/model.ts mergeKeyed (null
// deletes a field, any other value replaces it). ts_merge_test.go runs the
// TypeScript merge itself.
type warpModel map[string]json.RawMessage

type ctaModel struct {
	Linear int
	Idx    [3]int
	// The CTA's cluster: %clusterid, its linear index, the CTA's rank.
	ClusterIdx    [3]int
	ClusterLinear int
	Rank          int
	Barriers      []barrierJSON
	Mbarriers     []mbarrierJSON
	// MbarriersOmitted: the live mbarriers beyond those listed.
	MbarriersOmitted int
	Warps            map[int]warpModel
}

type memKey struct {
	space  string
	buffer string
	cta    int
}

type clientModel struct {
	loaded                *loadedMsg
	step, steps, first    int64
	status, reason        string
	running               bool
	stats                 emu.Stats
	next                  *warpRef
	last                  *lastJSON
	fault                 *faultJSON
	ctas                  map[int]*ctaModel
	regs                  map[int][]string
	preds                 map[int]string
	regsOf                *[2]int
	mem                   map[memKey]map[uint64]byte
	memStep               int64
	fullStates, deltas    int
	regDeltas, predDeltas int
	div                   *divergenceJSON
	lineMem               []lineMemJSON    // the per-line memory analysis, merged from updates
	lineMemHeld           bool             // a whole table was received since the load
	lineMemSent           int              // states that carried an update
	warns                 []warningJSON    // the checker's warnings, as last sent
	printf                []printfLineJSON // the Console, merged from printf updates
	printfDropped         int64
	printfHeld            bool // a whole printf output was received since the load
	printfLines           int  // the most lines the Console held
}

func newClientModel() *clientModel {
	return &clientModel{ctas: map[int]*ctaModel{}, regs: map[int][]string{}, preds: map[int]string{},
		mem: map[memKey]map[uint64]byte{}, memStep: -1}
}

func (c *clientModel) applyLoaded(b []byte) error {
	var l loadedMsg
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	*c = *newClientModel()
	c.loaded = &l
	return nil
}

// applyState merges a state message (ui/model.ts applyState).
func (c *clientModel) applyState(b []byte) error {
	var m stateMsg
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	// Fields absent from a delta keep their value: decode the raw warps
	// again to see which are present.
	var raw struct {
		CTAs []struct {
			Barriers  json.RawMessage `json:"barriers"`
			Mbarriers json.RawMessage `json:"mbarriers"`
			Warps     []warpModel     `json:"warps"`
		} `json:"ctas"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	c.div = m.Divergence // every state carries it while it is on
	if p := m.Printf; p != nil {
		// As ui/model.ts merges it: keep a prefix, append.
		if m.Full && p.Keep != 0 {
			return fmt.Errorf("a full state keeps %d printf lines", p.Keep)
		}
		if p.Keep > len(c.printf) || !c.printfHeld && !m.Full {
			return fmt.Errorf("printf keeps %d of %d lines (held: %v)", p.Keep, len(c.printf), c.printfHeld)
		}
		c.printf = append(c.printf[:p.Keep:p.Keep], p.Lines...)
		c.printfDropped = p.Dropped
		c.printfHeld = true
	} else if m.Full {
		return fmt.Errorf("a full state without printf")
	}
	if m.Warnings != nil {
		c.warns = m.Warnings.List
	}
	switch {
	case m.LineMemory != nil:
		c.lineMem = *m.LineMemory
		c.lineMemHeld = true
		c.lineMemSent++
	case m.LineMemoryDelta != nil:
		if !c.lineMemHeld {
			return fmt.Errorf("a lineMemoryDelta before any lineMemory")
		}
		c.lineMem = applyLineMem(c.lineMem, m.LineMemoryDelta)
		c.lineMemSent++
	case !c.lineMemHeld:
		return fmt.Errorf("the first state of a launch has no lineMemory")
	}
	if m.Full {
		c.fullStates++
	} else {
		c.deltas++
	}
	c.step, c.steps, c.first = m.Step, m.Steps, m.FirstStep
	c.running, c.status, c.reason = m.Running, m.Status, m.Reason
	c.stats, c.next, c.last = m.Stats, m.Next, m.Last
	if m.Full {
		clear(c.ctas)
	}
	for i, cj := range m.CTAs {
		old := c.ctas[cj.CTA]
		if m.Full || old == nil || old.Linear != cj.Linear {
			old = &ctaModel{Linear: cj.Linear, Idx: cj.Idx, Warps: map[int]warpModel{}}
			c.ctas[cj.CTA] = old
		}
		old.Linear, old.Idx = cj.Linear, cj.Idx
		old.ClusterIdx, old.ClusterLinear, old.Rank = cj.ClusterIdx, cj.ClusterLinear, cj.Rank
		if len(raw.CTAs[i].Barriers) > 0 && string(raw.CTAs[i].Barriers) != "null" {
			old.Barriers = cj.Barriers
		}
		// Every field but warps comes whole and replaces what was held.
		if len(raw.CTAs[i].Mbarriers) == 0 || string(raw.CTAs[i].Mbarriers) == "null" {
			return fmt.Errorf("CTA %d came without its mbarriers", cj.CTA)
		}
		old.Mbarriers, old.MbarriersOmitted = cj.Mbarriers, cj.MbarriersOmitted
		for k, w := range cj.Warps {
			wm := old.Warps[w.Warp]
			if wm == nil {
				wm = warpModel{}
				old.Warps[w.Warp] = wm
			}
			for f, v := range raw.CTAs[i].Warps[k] {
				if string(v) == "null" {
					delete(wm, f)
				} else {
					wm[f] = v
				}
			}
		}
	}
	if m.Regs != nil || m.Full {
		c.applyRegs(m.Regs, m.Full)
	}
	rebuilt := m.Full && (m.Reason == "reset" || m.Reason == "loaded")
	if m.MemoryStale || rebuilt || (m.Full && len(m.Memory) == 0 && m.Step != c.memStep) {
		clear(c.mem)
	}
	for _, ch := range m.Memory {
		if err := c.applyMemory(ch); err != nil {
			return err
		}
	}
	c.memStep = m.Step
	c.fault = m.Fault
	return nil
}

func (c *clientModel) applyRegs(r *regsJSON, full bool) {
	if r == nil {
		if full {
			clear(c.regs)
			clear(c.preds)
			c.regsOf = nil
		}
		return
	}
	same := c.regsOf != nil && c.regsOf[0] == r.CTA && c.regsOf[1] == r.Warp
	if !same {
		clear(c.regs)
		clear(c.preds)
	}
	if len(r.Values) > 0 {
		c.regDeltas++
	}
	if len(r.Preds) > 0 {
		c.predDeltas++
	}
	for k, v := range r.Values {
		slot, _ := strconv.Atoi(k)
		c.regs[slot] = v
	}
	for k, v := range r.Preds {
		slot, _ := strconv.Atoi(k)
		c.preds[slot] = v
	}
	c.regsOf = &[2]int{r.CTA, r.Warp}
}

func (c *clientModel) applyInspect(b []byte) error {
	var m inspectMsg
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m.Regs != nil {
		clear(c.regs)
		clear(c.preds)
		c.applyRegs(m.Regs, false)
		c.regsOf = &[2]int{m.CTA, m.Warp}
	}
	if m.Divergence != nil {
		c.div = m.Divergence
	}
	if m.Memory != nil {
		ch := *m.Memory
		if ch.CTA == nil {
			lin := m.Linear
			ch.CTA = &lin
		}
		return c.applyMemory(ch)
	}
	return nil
}

func (c *clientModel) applyMemory(ch memJSON) error {
	b, err := hex.DecodeString(ch.Hex)
	if err != nil {
		return err
	}
	k := memKey{space: ch.Space, buffer: ch.Buffer}
	if ch.Space == "shared" {
		k.buffer = ""
		if ch.CTA != nil {
			k.cta = *ch.CTA
		}
	}
	r := c.mem[k]
	if r == nil {
		r = map[uint64]byte{}
		c.mem[k] = r
	}
	for i, x := range b {
		r[ch.Offset+uint64(i)] = x
	}
	return nil
}

// check compares the model with machine m (the session's state rebuilt
// from scratch): warps, stacks, barriers, the selected warp's registers
// and predicates, every memory byte the model holds, and the status.
func (c *clientModel) check(s *Session, m *emu.Machine, sel [2]int) error {
	if got := c.stats; got != m.Stats() {
		return fmt.Errorf("stats %+v, machine %+v", got, m.Stats())
	}
	if c.step != m.Stats().WarpInstructions {
		return fmt.Errorf("step %d at %d warp-instructions", c.step, m.Stats().WarpInstructions)
	}
	wantStatus := "paused"
	switch {
	case m.Fault() != nil:
		wantStatus = "fault"
	case m.Done():
		wantStatus = "done"
	}
	if c.status != wantStatus && c.status != "limit" {
		return fmt.Errorf("status %q, machine %q", c.status, wantStatus)
	}
	if (c.fault == nil) != (m.Fault() == nil) || (c.fault != nil && c.fault.Message != m.Fault().Message) {
		return fmt.Errorf("fault %+v, machine %v", c.fault, m.Fault())
	}
	nw := m.NextWarp()
	if (nw == nil) != (c.next == nil) {
		return fmt.Errorf("next %+v, machine %v", c.next, nw)
	}
	ctas := m.CTAs()
	if len(ctas) != len(c.ctas) {
		return fmt.Errorf("%d CTAs, machine %d", len(c.ctas), len(ctas))
	}
	if nw != nil && (c.next.Warp != nw.ID || ctas[c.next.CTA].Linear != nw.CTA().Linear) {
		return fmt.Errorf("next %+v, machine CTA %d warp %d", c.next, nw.CTA().Linear, nw.ID)
	}
	for ci, cta := range ctas {
		cm := c.ctas[ci]
		if cm == nil || cm.Linear != cta.Linear || cm.Idx != cta.Idx {
			return fmt.Errorf("CTA %d: %+v, machine linear %d", ci, cm, cta.Linear)
		}
		if cl := cta.Cluster(); cm.Rank != cta.Rank || cl == nil || cm.ClusterIdx != cl.Idx || cm.ClusterLinear != cl.Linear {
			return fmt.Errorf("CTA %d: cluster %v #%d rank %d, machine rank %d", ci, cm.ClusterIdx, cm.ClusterLinear, cm.Rank, cta.Rank)
		}
		if want := barriersJSON(cta.Barriers()); !slices.EqualFunc(cm.Barriers, want, func(a, b barrierJSON) bool {
			return a.ID == b.ID && a.Arrived == b.Arrived && a.Expected == b.Expected && slices.Equal(a.Waiting, b.Waiting)
		}) {
			return fmt.Errorf("CTA %d barriers %+v, machine %+v", ci, cm.Barriers, want)
		}
		if want := s.mbarriersJSON(cta); !reflect.DeepEqual(cm.Mbarriers, want.list) || cm.MbarriersOmitted != want.omitted {
			return fmt.Errorf("CTA %d mbarriers %+v (and %d more), machine %+v", ci, cm.Mbarriers, cm.MbarriersOmitted, want)
		}
		if len(cm.Warps) != len(cta.Warps) {
			return fmt.Errorf("CTA %d: %d warps, machine %d", ci, len(cm.Warps), len(cta.Warps))
		}
		for _, w := range cta.Warps {
			// The warp as a fresh full state would carry it.
			want := s.warpJSON(w, nil)
			d, _ := diffKeyed(nil, &want)
			var wm warpModel
			if err := json.Unmarshal(encode(d), &wm); err != nil {
				return err
			}
			got := cm.Warps[w.ID]
			if got == nil {
				return fmt.Errorf("CTA %d warp %d missing", ci, w.ID)
			}
			if g, w2 := encode(got), encode(wm); string(g) != string(w2) {
				return fmt.Errorf("CTA %d warp %d: model %s, machine %s", ci, w.ID, g, w2)
			}
		}
	}
	// The selected warp's registers.
	ci, wi := sel[0], sel[1]
	if ci >= len(ctas) {
		ci = 0
	}
	if len(ctas) > 0 {
		if wi >= len(ctas[ci].Warps) {
			wi = 0
		}
		w := ctas[ci].Warps[wi]
		if c.regsOf == nil || c.regsOf[0] != ci || c.regsOf[1] != w.ID {
			return fmt.Errorf("registers of %v, selected CTA %d warp %d", c.regsOf, ci, w.ID)
		}
		// The client holds the selected page of the register file.
		pageRegs, pagePreds := s.pageSlots(s.view.regPage)
		for _, slot := range pageRegs {
			vals := w.Reg(int(slot))
			got := c.regs[int(slot)]
			if len(got) != 32 {
				return fmt.Errorf("register %s: %d lanes", s.prog.prog.Regs[slot].Name, len(got))
			}
			for l, x := range vals {
				if got[l] != hex64(x) {
					return fmt.Errorf("register %s lane %d: model %s, machine %x", s.prog.prog.Regs[slot].Name, l, got[l], x)
				}
			}
		}
		for _, slot := range pagePreds {
			if got, want := c.preds[int(slot)], hex32(w.Pred(int(slot))); got != want {
				return fmt.Errorf("predicate %s: model %q, machine %s", s.prog.prog.Preds[slot].Name, got, want)
			}
		}
	}
	// Every byte the model holds.
	for k, bytes := range c.mem {
		var mem []byte
		switch k.space {
		case "global":
			for _, a := range m.Global.Allocs() {
				if a.Name == k.buffer {
					mem = a.Data
				}
			}
		case "shared":
			for _, cta := range ctas {
				if cta.Linear == k.cta {
					mem = cta.Shared()
				}
			}
			if mem == nil {
				continue // a retired CTA: the view shows none
			}
		}
		for _, off := range slices.Sorted(maps.Keys(bytes)) {
			if off >= uint64(len(mem)) || mem[off] != bytes[off] {
				return fmt.Errorf("%s %s/%d byte %d: model %02x, machine %v", k.space, k.buffer, k.cta, off, bytes[off], mem[min(off, uint64(len(mem)))])
			}
		}
	}
	return nil
}

// ---- driving a session ----

// modelClient is a test client that keeps a clientModel.
type modelClient struct {
	*client
	model *clientModel
	sel   [2]int
}

// apply reads messages until the reply to the last command, merging them.
// It returns the final (non-running) state, or nil when the command ended
// in an error reply.
func (mc *modelClient) apply(wantState bool) (*stateMsg, error) {
	for {
		typ, b := mc.next()
		switch typ {
		case "state":
			if err := mc.model.applyState(b); err != nil {
				return nil, err
			}
			var st stateMsg
			json.Unmarshal(b, &st)
			if !st.Running {
				return &st, nil
			}
		case "inspect":
			if err := mc.model.applyInspect(b); err != nil {
				return nil, err
			}
			if !wantState {
				return nil, nil
			}
		case "loaded":
			if err := mc.model.applyLoaded(b); err != nil {
				return nil, err
			}
		case "line-memory":
			var lm lineMemoryMsg
			if err := json.Unmarshal(b, &lm); err != nil {
				return nil, err
			}
			if !mc.model.lineMemHeld {
				return nil, fmt.Errorf("line-memory before any lineMemory")
			}
			mc.model.lineMem = applyLineMem(mc.model.lineMem, lm.Delta)
		case "printf":
			var pm printfMsg
			if err := json.Unmarshal(b, &pm); err != nil {
				return nil, err
			}
			mc.model.printf = append(mc.model.printf, pm.Lines...)
		case "done", "diagnostics", "breakpoints":
			if !wantState && typ == "breakpoints" {
				return nil, nil
			}
		case "error":
			return nil, fmt.Errorf("error reply %s", b)
		default:
			return nil, fmt.Errorf("unexpected %s", b)
		}
	}
}

// wmmaPTX: two warps accumulate A·B into their own 16x16 tile of acc three
// times in place (wmma.load.c, wmma.mma, wmma.store.d), and store each
// result to shared memory too: stepping back over a wmma.store must bring
// the old bytes back.
const wmmaPTX = hdr + `
.visible .entry wm(.param .u64 in, .param .u64 acc) {
	.reg .b32 %a<8>, %b<8>; .reg .f32 %c<8>; .reg .u32 %t, %w, %i, %s; .reg .u64 %rd<4>; .reg .pred %p;
	.shared .align 256 .b8 tile[2048];
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [acc];
	mov.u32 %t, %tid.x;
	shr.u32 %w, %t, 5;
	mul.wide.u32 %rd3, %w, 1024;
	add.u64 %rd2, %rd2, %rd3;
	wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%rd1];
	wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, [%rd1+512];
	mov.u32 %s, tile;
	mad.lo.u32 %s, %w, 1024, %s;
	mov.u32 %i, 0;
LOOP:
	wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, [%rd2];
	wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7};
	wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd2], {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7};
	wmma.store.d.sync.aligned.col.m16n16k16.shared.f32 [%s], {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, 16;
	add.u32 %i, %i, 1;
	setp.lt.u32 %p, %i, 3;
	@%p bra LOOP;
	ret;
}
`

const wmmaSpec = `{"grid":[1],"block":[64],"buffers":[{"name":"in","type":"f16","count":512,"init":{"random":{"seed":3,"min":-2,"max":2}}},{"name":"acc","type":"f32","count":512,"init":{"iota":{"start":0,"step":1}}}],"params":[{"buffer":"in"},{"buffer":"acc"}]}`

type example struct {
	name, src, spec string
}

// galleryExamples reads the playground's gallery (web/examples).
func galleryExamples(t testing.TB) []example {
	dir := filepath.Join("..", "web", "examples")
	var idx []struct {
		Name string `json:"name"`
		Spec string `json:"spec"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	var out []example
	for _, e := range idx {
		sb, err := os.ReadFile(filepath.Join(dir, e.Spec))
		if err != nil {
			t.Fatal(err)
		}
		var spec map[string]json.RawMessage
		if err := json.Unmarshal(sb, &spec); err != nil {
			t.Fatal(err)
		}
		var ptxName string
		json.Unmarshal(spec["ptx"], &ptxName)
		delete(spec, "ptx")
		src, err := os.ReadFile(filepath.Join(dir, ptxName))
		if err != nil {
			t.Fatal(err)
		}
		sj, _ := json.Marshal(spec)
		out = append(out, example{name: e.Name, src: string(src), spec: string(sj)})
	}
	if len(out) == 0 {
		t.Fatal("no gallery examples")
	}
	return out
}

// TestClientModelExact: for every gallery example and random sequences of
// steps (warp, round, barrier), back, seek, warp selection, memory views,
// breakpoints with runs, and resets, the client model merged from the
// deltas equals the machine's state rebuilt from scratch at that position.
func TestClientModelExact(t *testing.T) {
	exs := galleryExamples(t)
	for ei, ex := range exs {
		t.Run(ex.name, func(t *testing.T) {
			runModelSequence(t, ex, int64(ei+1), modelCommands(ex.name))
		})
	}
	// The kernels of this file keep their seeds as the gallery grows (the
	// seeds they had with 22 lessons).
	for i, ex := range []example{{"reduce", reducePTX, reduceSpec}, {"divergent", divergentPTX, divergentSpec}, {"wmma", wmmaPTX, wmmaSpec}, {"mbarrier-ring", mbringPTX, mbringSpec}} {
		t.Run(ex.name, func(t *testing.T) {
			runModelSequence(t, ex, int64(23+i), 250)
		})
	}
}

// heavyModelExamples are the gallery's tensor-core GEMMs: every back and
// seek of theirs replays wgmma, TMA and mma warp-instructions, ten times
// the cost of the other examples' commands. They run fewer commands, each
// still a random mix of steps, backs, seeks and runs across their groups
// in flight.
var heavyModelExamples = map[string]bool{
	"hopper-gemm-tile": true, "fastcu-tma-wgmma": true, "fastcu-cpasync-wgmma": true,
	"tma-dot": true, "triton-matmul": true, "wgmma-layouts": true,
}

// modelCommands is the number of random commands TestClientModelExact
// runs on a gallery example.
func modelCommands(name string) int {
	if heavyModelExamples[name] {
		return 120
	}
	return 250
}

func runModelSequence(t *testing.T, ex example, seed int64, commands int) {
	runModelSequenceLimits(t, ex, seed, commands, Limits{MaxWarpInstructions: 5000})
}

// runModelSequenceLimits runs a random command sequence under lim and
// returns the latest firstStep the client saw.
func runModelSequenceLimits(t *testing.T, ex example, seed int64, commands int, lim Limits) (maxFirst int64) {
	return runModelSequenceOpts(t, ex, seed, commands, lim, modelOpts{})
}

// modelOpts varies the command mix of runModelSequenceOpts.
type modelOpts struct {
	// longRuns: half the warp steps are of hundreds to thousands of
	// instructions and half the runs go without breakpoints (to the end,
	// the launch's limit or the command's cap), and every state's
	// warnings are compared with a fresh checker's too.
	longRuns bool
	// intervals, if set, replace the history's snapshot intervals (at
	// command ends, within one command; default 16 and 64).
	intervals [2]int64
	// walkStops, if set, counts the history commands (back, seek,
	// divergence) that stopped early (reason interrupted).
	walkStops *int
	// printfLines, if set, receives the most printf lines the client's
	// Console held, and printfDropped the most it was told were dropped.
	printfLines   *int
	printfDropped *int64
}

// runModelSequenceOpts is runModelSequenceLimits with a command mix.
func runModelSequenceOpts(t *testing.T, ex example, seed int64, commands int, lim Limits, opts modelOpts) (maxFirst int64) {
	c := newClient(t, newManager(t, lim))
	mc := &modelClient{client: c, model: newClientModel()}
	load := func() {
		c.send(map[string]any{"type": "load", "id": 1, "source": ex.src, "spec": json.RawMessage(ex.spec)})
		if _, err := mc.apply(true); err != nil {
			t.Fatal(err)
		}
		iv := opts.intervals
		if iv[0] == 0 {
			iv = [2]int64{16, 64}
		}
		c.do(func() { c.s.h.interval, c.s.h.jobInterval = iv[0], iv[1] })
		mc.sel = [2]int{0, 0}
	}
	load()
	var lines []int
	c.do(func() {
		for l := range c.s.prog.linePCs {
			lines = append(lines, l)
		}
	})
	slices.Sort(lines)
	rnd := rand.New(rand.NewSource(seed))
	grans := []string{"warp", "round", "barrier"}
	var log []string
	tensorLasts, swizzleLasts, asyncStates := 0, 0, 0
	accessLasts := map[string]int{} // states after a shared or global access, by space
	tensorAt := focusPositions(c, 5000)
	divToggles := map[int]bool{1: true, 2: false, 3: true}
	divOn, divChecks := false, 0
	bpOn := map[int]bool{}
	warnChecks := 0
	for i := 0; i < commands; i++ {
		var desc string
		wantState := true
		if on, ok := divToggles[i*5/commands]; ok && i*5%commands == 0 {
			// The divergence view opens (after some steps: the trace is
			// rebuilt from the history), closes and opens again.
			desc = fmt.Sprintf("divergence %v", on)
			divOn = on
			c.send(map[string]any{"type": "divergence", "on": on})
			log = append(log, desc)
			st, err := mc.apply(true)
			if err != nil {
				t.Fatalf("command %d (%s): %v", i, desc, err)
			}
			if opts.walkStops != nil && st.Reason == "interrupted" {
				*opts.walkStops++
			}
			continue
		}
		switch x := rnd.Intn(20); {
		case x < 7:
			g, n := grans[rnd.Intn(3)], 1+rnd.Intn(4)
			if g == "warp" && rnd.Intn(4) == 0 {
				n = 1 + rnd.Intn(60)
			}
			if opts.longRuns && rnd.Intn(2) == 0 {
				g, n = "warp", 100+rnd.Intn(3000)
			}
			desc = fmt.Sprintf("step %s %d", g, n)
			c.send(map[string]any{"type": "step", "granularity": g, "count": n})
		case x < 10:
			g, n := grans[rnd.Intn(3)], 1+rnd.Intn(3)
			desc = fmt.Sprintf("back %s %d", g, n)
			c.send(map[string]any{"type": "back", "granularity": g, "count": n})
		case x < 12 && len(tensorAt) > 0 && rnd.Intn(2) == 0:
			// To just after a tensor-core instruction or a shared-memory
			// access: seek there, or step forward to it.
			k := tensorAt[rnd.Intn(len(tensorAt))]
			if k >= mc.model.first && k < mc.model.steps {
				desc = fmt.Sprintf("seek %d (after a tensor-core instruction or a shared access)", k)
				c.send(map[string]any{"type": "seek", "step": k})
			} else if k > mc.model.step {
				desc = fmt.Sprintf("step warp %d (to a tensor-core instruction or a shared access)", k-mc.model.step)
				c.send(map[string]any{"type": "step", "granularity": "warp", "count": k - mc.model.step})
			} else {
				continue
			}
		case x < 12:
			k := mc.model.first + rnd.Int63n(mc.model.steps-mc.model.first)
			desc = fmt.Sprintf("seek %d", k)
			c.send(map[string]any{"type": "seek", "step": k})
		case x < 14:
			// Select another warp (as clicking a warp does).
			n := len(mc.model.ctas)
			if n == 0 {
				continue
			}
			ci := rnd.Intn(n)
			cm := mc.model.ctas[ci]
			wi := rnd.Intn(len(cm.Warps))
			desc = fmt.Sprintf("select %d/%d", ci, wi)
			mc.sel = [2]int{ci, wi}
			c.send(map[string]any{"type": "inspect", "cta": ci, "warp": wi})
			wantState = false
		case x < 16:
			// Fill some memory into the view.
			if mc.sel[0] >= len(mc.model.ctas) {
				continue // the selected CTA retired (the session shows CTA 0)
			}
			l := mc.model.loaded
			req := map[string]any{"type": "inspect", "cta": mc.sel[0], "warp": mc.sel[1]}
			var bufs []int // the buffers with bytes to view
			for bi, b := range l.Buffers {
				if b.Count*elemBytes(b.Type) > 0 {
					bufs = append(bufs, bi)
				}
			}
			if len(bufs) > 0 && (l.SharedBytes == 0 || rnd.Intn(2) == 0) {
				b := l.Buffers[bufs[rnd.Intn(len(bufs))]]
				size := b.Count * elemBytes(b.Type)
				off := rnd.Intn(size)
				n := min(size-off, 1+rnd.Intn(4096))
				req["memory"] = map[string]any{"space": "global", "buffer": b.Name, "offset": off, "bytes": n}
				desc = fmt.Sprintf("view %s+%d:%d", b.Name, off, n)
			} else if l.SharedBytes > 0 && len(mc.model.ctas) > 0 {
				sc := rnd.Intn(len(mc.model.ctas))
				// At most maxInspectBytes at a time (a Hopper kernel may use
				// more shared memory than that).
				off, n := 0, min(l.SharedBytes, maxInspectBytes)
				if l.SharedBytes > n {
					off = rnd.Intn(l.SharedBytes - n + 1)
				}
				req["memory"] = map[string]any{"space": "shared", "cta": sc, "offset": off, "bytes": n}
				desc = fmt.Sprintf("view shared %d+%d:%d", sc, off, n)
			} else {
				continue
			}
			c.send(req)
			wantState = false
		case x < 18 && opts.longRuns && rnd.Intn(2) == 0:
			for line := range bpOn {
				c.send(map[string]any{"type": "breakpoint", "line": line, "on": false})
				if _, err := mc.apply(false); err != nil {
					t.Fatal(err)
				}
			}
			clear(bpOn)
			desc = "run (no breakpoints)"
			c.send(map[string]any{"type": "run"})
		case x < 18:
			line := lines[rnd.Intn(len(lines))]
			on := rnd.Intn(3) > 0
			c.send(map[string]any{"type": "breakpoint", "line": line, "on": on})
			if _, err := mc.apply(false); err != nil {
				t.Fatal(err)
			}
			if on {
				bpOn[line] = true
			} else {
				delete(bpOn, line)
			}
			desc = fmt.Sprintf("breakpoint %d %v; run", line, on)
			c.send(map[string]any{"type": "run"})
		case x < 19:
			desc = "reset"
			c.send(map[string]any{"type": "reset"})
		default:
			desc = "pause"
			c.send(map[string]any{"type": "pause"})
		}
		log = append(log, desc)
		st, err := mc.apply(wantState)
		if err != nil {
			t.Fatalf("command %d (%s): %v", i, desc, err)
		}
		if opts.walkStops != nil && st != nil && st.Reason == "interrupted" &&
			(strings.HasPrefix(desc, "back") || strings.HasPrefix(desc, "seek")) {
			*opts.walkStops++
			desc += " (interrupted)"
			log[len(log)-1] = desc
		}
		if desc == "reset" {
			mc.sel = [2]int{0, 0}
		}
		var s *Session
		c.do(func() { s = c.s })
		var lastStep lastStepObserver
		dobs := &divObserver{last: &lastStep}
		var agg *analysis.Aggregator
		c.do(func() { agg = analysis.NewAggregator(c.s.prog.prog) })
		fm := c.freshMachineObserved(mc.model.step, observers{dobs, agg})
		c.do(func() {
			err = mc.model.check(s, fm, mc.sel)
			if err == nil {
				err = mc.model.checkLast(s, lastStep.info)
			}
			if err == nil {
				err = mc.model.checkDivergence(s, fm, dobs, divOn, mc.sel)
				if divOn {
					divChecks++
				}
			}
			if err == nil {
				err = mc.model.checkLineMemory(agg)
			}
			if err == nil {
				err = mc.model.checkPrintf(s, fm)
			}
		})
		if opts.printfLines != nil {
			*opts.printfLines = max(*opts.printfLines, mc.model.printfLines)
			*opts.printfDropped = max(*opts.printfDropped, mc.model.printfDropped)
		}
		if err == nil && opts.longRuns && mc.model.loaded != nil {
			want := c.freshWarnings(mc.model.step)
			got := mc.model.warns
			if got == nil {
				got = []warningJSON{}
			}
			if !reflect.DeepEqual(got, want) {
				err = fmt.Errorf("warnings\n got %+v\nwant %+v", got, want)
			}
			if len(want) > 0 {
				warnChecks++
			}
		}
		if mc.model.last != nil && mc.model.last.Tensor != nil {
			tensorLasts++
		}
		maxFirst = max(maxFirst, mc.model.first)
		if mc.model.last != nil {
			for _, a := range mc.model.last.Accesses {
				accessLasts[a.Space]++
			}
		}
		if mc.model.last != nil && mc.model.last.Swizzle != nil {
			swizzleLasts++
		}
		for _, cm := range mc.model.ctas {
			for _, wm := range cm.Warps {
				if wm["async"] != nil {
					asyncStates++
					break
				}
			}
		}
		if err != nil {
			from := max(0, len(log)-12)
			t.Fatalf("after command %d (%s) at step %d: %v\nlast commands: %s", i, desc, mc.model.step, err, strings.Join(log[from:], "; "))
		}
	}
	t.Logf("%d full states, %d deltas (%d with registers, %d with predicates), %d after a tensor-core instruction, %d after a swizzled access, %d with copies in flight, %d divergence checks, %d states with the memory analysis, accesses %v",
		mc.model.fullStates, mc.model.deltas, mc.model.regDeltas, mc.model.predDeltas, tensorLasts, swizzleLasts, asyncStates, divChecks, mc.model.lineMemSent, accessLasts)
	if lim.MaxHistoryBytes == 0 && strings.HasPrefix(ex.name, "transpose") && (accessLasts["shared"] == 0 || accessLasts["global"] == 0) {
		t.Errorf("no state followed a shared and a global access: %v", accessLasts)
	}
	if strings.HasPrefix(ex.name, "cp-async") && asyncStates == 0 {
		t.Errorf("no state had cp.async copies in flight")
	}
	if divChecks == 0 {
		t.Errorf("the divergence data was never checked")
	}
	if opts.longRuns {
		t.Logf("%d states with warnings checked", warnChecks)
	}
	if strings.HasPrefix(ex.name, "mma") && tensorLasts == 0 {
		t.Errorf("no state followed a tensor-core instruction")
	}
	return maxFirst
}

// focusPositions lists the positions (up to limit) right after a
// tensor-core instruction or a shared-memory access of the loaded launch.
func focusPositions(c *client, limit int64) []int64 {
	var out []int64
	var o lastStepObserver
	m := c.freshMachineObserved(0, &o)
	for m.Stats().WarpInstructions < limit && m.Step(emu.StepWarpInstruction) == emu.StopStepped {
		if o.info != nil && (o.info.Tensor != nil || slices.ContainsFunc(o.info.Accesses, func(a emu.Access) bool { return a.Space == isa.Shared })) {
			out = append(out, m.Stats().WarpInstructions)
		}
	}
	return out
}

// lastStepObserver keeps the machine's report of the last instruction
// executed (valid until the machine executes again).
type lastStepObserver struct{ info *emu.StepInfo }

func (o *lastStepObserver) Step(in *emu.StepInfo) { o.info = in }

// checkLast compares the model's last instruction, with its tensor-core
// report and its exact memory accesses (every lane's offset, the bank and
// sector verdicts), with the one a fresh machine executed last (info; nil
// when it executed none).
func (c *clientModel) checkLast(s *Session, info *emu.StepInfo) error {
	var want *lastJSON
	if info != nil && c.step > 0 {
		lr := s.lastOf(info)
		want = s.lastJSON(&lr)
	}
	got, _ := json.Marshal(c.last)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		return fmt.Errorf("last instruction %s, machine %s", got, exp)
	}
	return nil
}

func elemBytes(t string) int {
	n, seen := 0, false
	for _, r := range t {
		if r >= '0' && r <= '9' {
			n, seen = n*10+int(r-'0'), true
		} else if seen {
			break
		}
	}
	if n == 0 {
		return 4
	}
	if strings.HasSuffix(t, "x2") {
		return n / 8 * 2
	}
	return max(1, n/8)
}

// TestTensorReport: stepping over the gallery tile's ldmatrix.x4 reports,
// in the state's last instruction, the lane and address of every row and
// the register of every matrix; the mma reports its operands' registers;
// stepping back shows the report of the instruction now last.
func TestTensorReport(t *testing.T) {
	var ex example
	for _, e := range galleryExamples(t) {
		if e.name == "mma-tile" {
			ex = e
		}
	}
	c := newClient(t, newManager(t, Limits{MaxWarpInstructions: 5000}))
	c.load(ex.src, ex.spec)
	var names map[int]string
	var ldPC, mmaPC int
	tensorPC := map[int]bool{}
	c.do(func() {
		names = map[int]string{}
		for i, r := range c.s.prog.prog.Regs {
			names[i] = r.Name
		}
		for pc, op := range c.s.prog.prog.Ops {
			switch op.Code.String() {
			case "ldmatrix", "mma":
				tensorPC[pc] = true
			}
			switch op.Code.String() {
			case "ldmatrix":
				if op.Vec == 4 {
					ldPC = pc
				}
			case "mma":
				mmaPC = pc
			}
		}
	})
	var atLd, atMma int64 = -1, -1
	for i := 0; i < 200 && atMma < 0; i++ {
		st := c.step("warp", 1)
		if st.Last == nil {
			t.Fatalf("step %d: no last instruction", st.Step)
		}
		if tensorPC[st.Last.PC] != (st.Last.Tensor != nil) {
			t.Fatalf("pc %d: tensor report %+v", st.Last.PC, st.Last.Tensor)
		}
		switch st.Last.PC {
		case ldPC:
			atLd = st.Step
			tj := st.Last.Tensor
			b, _ := json.Marshal(tj)
			if len(b) > 800 {
				t.Errorf("the ldmatrix.x4 report is %d bytes: %s", len(b), b)
			}
			if tj.Key != "ldmatrix.m8n8.x4.b16" || len(tj.Matrices) != 4 || len(tj.Operands) != 0 {
				t.Fatalf("ldmatrix report %s", b)
			}
			for j, m := range tj.Matrices {
				if m.Index != j || !m.Write || names[m.Reg] != fmt.Sprintf("%%fa%d", j) || m.Space != "shared" || m.RowBytes != 16 || len(m.Lanes) != 8 || len(m.Addrs) != 8 {
					t.Errorf("matrix %d: %+v (register %s)", j, m, names[m.Reg])
					continue
				}
				for r := range 8 {
					if m.Lanes[r] != 8*j+r {
						t.Errorf("matrix %d row %d from lane %d, want %d", j, r, m.Lanes[r], 8*j+r)
					}
				}
			}
		case mmaPC:
			atMma = st.Step
			var got []string
			for _, o := range st.Last.Tensor.Operands {
				s := o.Name
				for _, r := range o.Regs {
					s += " " + names[r]
				}
				if o.Write != (o.Name == "d") {
					t.Errorf("operand %s written %v", o.Name, o.Write)
				}
				got = append(got, s)
			}
			if len(got) != 4 || got[0][0] != 'd' || got[1][0] != 'a' || got[2][0] != 'b' || got[3][0] != 'c' || !strings.Contains(got[1], "%fa0 %fa1 %fa2 %fa3") {
				t.Errorf("mma operands %q", got)
			}
		}
	}
	if atLd < 0 || atMma < 0 {
		t.Fatalf("ldmatrix at %d, mma at %d", atLd, atMma)
	}
	// Back to just after the ldmatrix: its report again.
	c.send(map[string]any{"type": "seek", "step": atLd})
	st, _ := c.state()
	if st.Last == nil || st.Last.PC != ldPC || st.Last.Tensor == nil || len(st.Last.Tensor.Matrices) != 4 {
		t.Errorf("after seeking back to %d: last %+v", atLd, st.Last)
	}
	st = c.step("warp", 1)
	if st.Last == nil || (st.Last.Tensor != nil) != tensorPC[st.Last.PC] {
		t.Errorf("after a step: last %+v", st.Last)
	}
}

// TestWmmaTensorOps: the loaded message lists the wmma instructions with
// the register slots of their fragments, for the fragment explorer.
func TestWmmaTensorOps(t *testing.T) {
	c := newClient(t, newManager(t, Limits{MaxWarpInstructions: 5000}))
	mc := &modelClient{client: c, model: newClientModel()}
	c.send(map[string]any{"type": "load", "id": 1, "source": wmmaPTX, "spec": json.RawMessage(wmmaSpec)})
	if _, err := mc.apply(true); err != nil {
		t.Fatal(err)
	}
	var ops []tensorOpJSON
	c.do(func() { ops = c.s.tensorOps() })
	want := map[string][]string{
		"wmma.load.a.m16n16k16.f16":      {"a"},
		"wmma.load.b.m16n16k16.f16":      {"b"},
		"wmma.load.c.m16n16k16.f32":      {"c"},
		"wmma.m16n16k16.f32.f16.f16.f32": {"d", "a", "b", "c"},
		"wmma.store.d.m16n16k16.f32":     {"d"},
	}
	seen := map[string]int{}
	for _, o := range ops {
		names, ok := want[o.Key]
		if !ok {
			t.Errorf("unexpected tensor op %s", o.Key)
			continue
		}
		seen[o.Key]++
		for _, n := range names {
			if len(o.Regs[n]) != 8 {
				t.Errorf("%s: operand %s has %d registers", o.Key, n, len(o.Regs[n]))
			}
		}
	}
	if len(seen) != len(want) || seen["wmma.store.d.m16n16k16.f32"] != 2 {
		t.Errorf("tensor ops %v", seen)
	}
}

// divObserver records what a fresh machine executed, for the divergence
// data: per position, the warp, pc, active lanes and divergence events.
type divObserver struct {
	last *lastStepObserver
	recs []divStep
}

type divStep struct {
	wi                   int64
	cta, warp, pc, lanes int
	marks                int
}

func (o *divObserver) Step(in *emu.StepInfo) {
	o.last.Step(in)
	marks := 0
	for _, e := range in.Events {
		if e.Kind == emu.EvDiverge {
			marks |= 1
		}
		if e.Kind == emu.EvReconverge {
			marks |= 2
		}
	}
	o.recs = append(o.recs, divStep{wi: int64(len(o.recs)) + 1, cta: in.CTALin, warp: in.Warp, pc: in.PC,
		lanes: bits.OnesCount32(in.Mask), marks: marks})
}

// checkDivergence compares the model's divergence data with what the
// fresh machine executed: per line the lane- and warp-executions of the
// positions covered, and the selected warp's latest instructions.
func (c *clientModel) checkDivergence(s *Session, fm *emu.Machine, o *divObserver, on bool, sel [2]int) error {
	if !on {
		if c.div != nil {
			return fmt.Errorf("divergence data while off")
		}
		return nil
	}
	d := c.div
	if d == nil {
		return fmt.Errorf("no divergence data while on")
	}
	if d.Truncated || d.UpTo != c.step || d.From > c.step || d.From < 0 {
		return fmt.Errorf("divergence covers %d..%d (truncated %v) at step %d", d.From, d.UpTo, d.Truncated, c.step)
	}
	type agg struct{ lanes, warps int64 }
	want := map[int]*agg{}
	var tl []divStep
	for _, r := range o.recs {
		if r.wi <= d.From || r.wi > d.UpTo {
			continue
		}
		line := s.prog.line(r.pc)
		a := want[line]
		if a == nil {
			a = &agg{}
			want[line] = a
		}
		a.lanes += int64(r.lanes)
		a.warps++
		if r.cta == d.Timeline.CTA && r.warp == d.Timeline.Warp {
			tl = append(tl, r)
		}
	}
	if len(d.Lines) != len(want) {
		return fmt.Errorf("divergence: %d lines executed, machine %d", len(d.Lines), len(want))
	}
	for _, l := range d.Lines {
		if a := want[l.Line]; a == nil || a.lanes != l.Lanes || a.warps != l.Warps {
			return fmt.Errorf("divergence: line %d %d lanes in %d warp-instructions, machine %+v", l.Line, l.Lanes, l.Warps, a)
		}
	}
	// The timeline is the selected warp's (clamped like the registers).
	if ctas := fm.CTAs(); len(ctas) > 0 {
		ci := sel[0]
		if ci < 0 || ci >= len(ctas) {
			ci = 0
		}
		ws := ctas[ci].Warps
		wi := sel[1]
		if wi < 0 || wi >= len(ws) {
			wi = 0
		}
		if d.Timeline.CTA != ctas[ci].Linear || d.Timeline.Warp != ws[wi].ID {
			return fmt.Errorf("divergence timeline of CTA %d warp %d, selected CTA %d warp %d", d.Timeline.CTA, d.Timeline.Warp, ctas[ci].Linear, ws[wi].ID)
		}
	}
	tl = tl[max(0, len(tl)-maxTimeline):]
	tj := d.Timeline
	if len(tj.Steps) != len(tl) || len(tj.PCs) != len(tl) || len(tj.Active) != len(tl) || len(tj.Marks) != len(tl) {
		return fmt.Errorf("divergence timeline of %d steps, machine %d", len(tj.Steps), len(tl))
	}
	for i, r := range tl {
		if tj.Steps[i] != r.wi || tj.PCs[i] != r.pc || tj.Active[i] != r.lanes || tj.Marks[i] != r.marks {
			return fmt.Errorf("divergence timeline entry %d: step %d pc %d active %d marks %d, machine %+v", i, tj.Steps[i], tj.PCs[i], tj.Active[i], tj.Marks[i], r)
		}
	}
	return nil
}

// observers calls several observers in turn (a fresh machine's).
type observers []emu.Observer

func (os observers) Step(in *emu.StepInfo) {
	for _, o := range os {
		o.Step(in)
	}
}

// lineMemOf converts analysis.Aggregator's per-line table to the wire form.
func lineMemOf(ls []analysis.LineStats) []lineMemJSON {
	out := []lineMemJSON{}
	for _, l := range ls {
		out = append(out, lineMemJSON{Line: l.Line, Shared: l.Shared, Global: l.Global, Executions: l.Executions,
			Wavefronts: l.Wavefronts, IdealWavefronts: l.IdealWavefronts, Sectors: l.Sectors, Lines: l.Lines,
			BytesRequested: l.BytesRequested})
	}
	return out
}

// checkLineMemory compares the model's per-line memory analysis with the
// table of an aggregator that observed a fresh run to the same step.
func (c *clientModel) checkLineMemory(agg *analysis.Aggregator) error {
	want := lineMemOf(agg.Lines())
	if !slices.Equal(c.lineMem, want) {
		return fmt.Errorf("lineMemory at step %d:\n  model %+v\n  fresh %+v", c.step, c.lineMem, want)
	}
	return nil
}

// checkPrintf compares the Console the client merged with the printf
// output of a fresh run to the same step.
func (c *clientModel) checkPrintf(s *Session, fm *emu.Machine) error {
	lines, dropped := fm.Printf()
	want := []printfLineJSON{}
	for i := range lines {
		want = append(want, s.printfLineJSON(&lines[i]))
	}
	got := c.printf
	if got == nil {
		got = []printfLineJSON{}
	}
	if !reflect.DeepEqual(got, want) || c.printfDropped != dropped {
		return fmt.Errorf("printf: %d lines (%d dropped), fresh run %d (%d dropped)", len(got), c.printfDropped, len(want), dropped)
	}
	c.printfLines = max(c.printfLines, len(got))
	return nil
}

// The Console follows steps, back, seek, runs and resets exactly: nvcc's
// printf module (CUDA's printf and assert) under random command
// sequences, with a printf limit that drops lines too.
func TestClientModelPrintf(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "engine", "emu", "testdata", "printf_nvcc.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	spec := `{"entry":"_Z5helloPKfi","grid":[3],"block":[64],"buffers":[{"name":"x","type":"f32","count":150,"init":{"iota":{"start":0,"step":0.25}}}],"params":[{"buffer":"x"},{"u32":150}]}`
	for i, lim := range []Limits{{MaxWarpInstructions: 5000}, {MaxWarpInstructions: 5000, MaxPrintfBytes: 40 * (emu.PrintfLineOverhead + 40)}} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var n int
			var dropped int64
			runModelSequenceOpts(t, example{"printf", string(src), spec}, int64(i+1), 200, lim, modelOpts{printfLines: &n, printfDropped: &dropped})
			if want := []int{150, 40}[i]; n != want || (dropped > 0) != (i == 1) {
				t.Errorf("the Console held at most %d lines (%d dropped), want %d", n, dropped, want)
			}
		})
	}
}
