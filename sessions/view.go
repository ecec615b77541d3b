package sessions

import (
	"bytes"
	"reflect"
	"slices"
	"strconv"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// clientView is what the client was last sent: the resident CTAs, their
// warps' summaries and barriers, and the selected warp's registers. A delta
// state carries only what differs from it.
type clientView struct {
	valid   bool
	ctaLin  []int
	warps   [][]*warpJSON // as sent; nil: not sent
	bars    [][]emu.BarrierState
	mbars   []mbarView
	selLin  int // CTA (linear) and warp whose registers were sent; -1: none
	selW    int
	regs    []uint64 // the page's registers: 32 lane values each
	preds   []uint32
	regPage int     // the page of regs and preds
	warns   warnSig // the warnings sent last
	threads []byte  // the selected warp's scheduling as sent last (JSON)
	tma     []byte  // the TMA view as sent last (JSON)
	// The printf lines the client holds (the first printfN of the
	// launch's trajectory) and the dropped count it was sent.
	printfN       int
	printfDropped int64
}

// warnSig identifies a list of warnings at a step: the same signature,
// the same list (each warning's count only grows).
type warnSig struct {
	n, total int64
	dropped  bool
}

// waitJSON renders what the waiting warp w waits for (t).
func (s *Session) waitJSON(w *emu.Warp, t emu.Wait) *waitJSON {
	j := &waitJSON{Kind: t.Kind.String(), PC: t.PC, Line: s.prog.line(t.PC), CUDALine: s.cline(t.PC), Lanes: hex32(t.Lanes), Text: w.WaitText()}
	switch t.Kind {
	case emu.WaitBarrier:
		b, c := t.Barrier, t.Count
		j.Barrier, j.Count = &b, &c
	case emu.WaitAsyncGroup, emu.WaitWgmmaGroup:
		g := t.Groups
		j.Groups = &g
	case emu.WaitWarpSync:
		j.Members = hex32(t.Members)
	case emu.WaitMbarrier:
		p := int(t.Parity)
		j.Addr, j.Parity = strconv.FormatUint(t.Addr, 16), &p
	case emu.WaitClusterBarrier:
		if cl := w.CTA().Cluster(); cl != nil {
			a, live := cl.Arrivals()
			j.Arrived, j.Expected = &a, &live
		}
	}
	return j
}

// ctaHead is a resident CTA of a state message without its warps: its
// slot ci, indices, cluster, barriers and mbarriers.
func ctaHead(ci int, c *emu.CTA, bars []emu.BarrierState, mbars mbarView) ctaJSON {
	j := ctaJSON{CTA: ci, Idx: c.Idx, Linear: c.Linear, ClusterIdx: c.Idx, ClusterLinear: c.Linear, Rank: c.Rank, Barriers: barriersJSON(bars),
		Mbarriers: mbars.list, MbarriersOmitted: mbars.omitted}
	if cl := c.Cluster(); cl != nil {
		j.ClusterIdx, j.ClusterLinear = cl.Idx, cl.Linear
	}
	return j
}

func barsEqual(a, b []emu.BarrierState) bool {
	return slices.EqualFunc(a, b, func(x, y emu.BarrierState) bool {
		return x.ID == y.ID && x.Arrived == y.Arrived && x.Expected == y.Expected && slices.Equal(x.Waiting, y.Waiting)
	})
}

// stateOpts says what kind of state message to build.
type stateOpts struct {
	id        *int64
	full      bool
	running   bool
	reason    string
	message   string
	sharedAll bool // include every resident CTA's shared memory (after a restore)
	stale     bool // the client's copy of memory is out of date (load, reset)
}

func (s *Session) status(reason string) string {
	m := s.m
	switch {
	case m.Fault() != nil:
		return "fault"
	case m.Done():
		return "done"
	case reason == "limit":
		return "limit"
	}
	if b := m.Config().MaxWarpInstructions; b > 0 && m.Stats().WarpInstructions >= b {
		return "limit"
	}
	return "paused"
}

// buildState renders the machine's state for the client (a delta against
// the client view unless full) and updates the view. It returns the state
// message, followed by the line-memory messages of a per-line memory
// update too large for one message; they go out in this order.
func (s *Session) buildState(o stateOpts) [][]byte {
	m, h, v := s.m, s.h, &s.view
	if s.resync {
		o.full, o.sharedAll, s.resync = true, true, false
	}
	next := m.NextWarp()
	ctas := m.CTAs()
	full := o.full || !v.valid || len(ctas) != len(v.ctaLin)
	if !full {
		for i, c := range ctas {
			if c.Linear != v.ctaLin[i] {
				full = true
				break
			}
		}
	}
	msg := stateMsg{Type: "state", ID: o.id, Step: h.cur, Steps: h.head + 1, FirstStep: h.first,
		Running: o.running, Status: s.status(o.reason), Reason: o.reason, Message: o.message, Full: full,
		Stats: m.Stats(), FinishedCTAs: m.CTAsFinished(), TotalCTAs: m.NumCTAs(), Scheduling: string(m.Scheduling())}
	if o.running {
		wi := m.Stats().WarpInstructions
		msg.Step, msg.Steps = wi, wi+1
	}
	if next != nil {
		msg.Next = &warpRef{CTA: s.ctaIndex(next.CTA().Linear), Warp: next.ID}
	}

	// CTAs and warps. A CTA the client did not see resident gets its
	// whole shared memory: what the client holds of it, if anything, is
	// from another position (before a back or seek).
	var arrived []int
	for _, c := range ctas {
		if !slices.Contains(v.ctaLin, c.Linear) || !v.valid {
			arrived = append(arrived, c.Linear)
		}
	}
	if full {
		v.ctaLin = v.ctaLin[:0]
		v.warps = v.warps[:0]
		v.bars = v.bars[:0]
		v.mbars = v.mbars[:0]
	}
	for ci, c := range ctas {
		bars := c.Barriers()
		mbars := s.mbarriersJSON(c)
		if full {
			v.ctaLin = append(v.ctaLin, c.Linear)
			v.warps = append(v.warps, nil)
			v.bars = append(v.bars, nil)
			v.mbars = append(v.mbars, mbarView{})
		}
		var cj *ctaJSON
		add := func() {
			if cj == nil {
				msg.CTAs = append(msg.CTAs, ctaHead(ci, c, bars, mbars))
				cj = &msg.CTAs[len(msg.CTAs)-1]
			}
		}
		if full || !barsEqual(bars, v.bars[ci]) {
			add()
			v.bars[ci] = bars
		}
		if full || mbars.omitted != v.mbars[ci].omitted || !reflect.DeepEqual(mbars.list, v.mbars[ci].list) {
			add()
			v.mbars[ci] = mbars
		}
		if len(v.warps[ci]) != len(c.Warps) {
			v.warps[ci] = make([]*warpJSON, len(c.Warps))
		}
		for wi, w := range c.Warps {
			prev := v.warps[ci][wi]
			wj := s.warpJSON(w, prev)
			if full {
				prev = nil
			}
			d, changed := diffKeyed(prev, &wj)
			if prev != nil && !changed {
				continue
			}
			add()
			cj.Warps = append(cj.Warps, warpDelta{warpJSON: wj, delta: d})
			v.warps[ci][wi] = &wj
		}
	}

	// The selected warp's registers.
	if w := s.selected(); w != nil {
		lin := w.CTA().Linear
		same := v.selLin == lin && v.selW == w.ID
		rj, changed, anyDiff := s.regsJSON(w, !full && same, same)
		if full || anyDiff || !same {
			msg.Regs = rj
		}
		msg.ChangedRegs = changed
		v.selLin, v.selW = lin, w.ID
		// Its scheduling, when it changed.
		tj := s.threadsJSON(s.ctaIndex(lin), w)
		if b := encode(tj); full || !bytes.Equal(b, v.threads) {
			msg.Threads = tj
			v.threads = b
		}
	} else {
		v.selLin, v.selW = -1, -1
		v.threads = nil
	}
	// The TMA view of the selected CTA, when it changed.
	{
		ci, w := -1, s.selected()
		if w != nil {
			ci = s.ctaIndex(w.CTA().Linear)
		}
		tj := s.tmaView(ci, w)
		if b := encode(tj); full || !bytes.Equal(b, v.tma) {
			msg.TMA = tj
			v.tma = b
		}
	}

	// Events, memory, the last instruction, the fault.
	r := s.rec
	for _, e := range r.events {
		msg.Events = append(msg.Events, s.eventJSON(e))
	}
	s.memoryJSON(&msg, o.sharedAll, arrived)
	if o.stale {
		msg.Memory, msg.MemoryStale = nil, true
	}
	if o.running {
		if r.executed {
			if lr, ok := r.last(s.lastOf); ok {
				msg.Last = s.lastJSON(&lr)
			}
		}
	} else {
		msg.Last = s.lastJSON(&h.last)
	}
	if f := m.Fault(); f != nil {
		msg.Fault = s.faultJSON(f)
	}
	if s.trace != nil {
		if w := s.selected(); w != nil {
			msg.Divergence = s.divergenceJSON(s.ctaIndex(w.CTA().Linear), w.ID)
		} else {
			msg.Divergence = s.divergenceJSON(-1, 0)
		}
	}
	more := s.lineMemoryUpdate(&msg)
	morePrintf := s.printfUpdate(&msg, full)
	s.warningsJSON(&msg, full)
	v.valid = true
	r.resetReport()
	out := [][]byte{encode(&msg)}
	for _, d := range more {
		out = append(out, encode(&lineMemoryMsg{Type: "line-memory", ID: o.id, Delta: d}))
	}
	for _, p := range morePrintf {
		out = append(out, encode(&printfMsg{Type: "printf", ID: o.id, Lines: p}))
	}
	return out
}

// ctaIndex returns the index among resident CTAs of the CTA with linear
// index lin, or -1.
func (s *Session) ctaIndex(lin int) int {
	for i, c := range s.m.CTAs() {
		if c.Linear == lin {
			return i
		}
	}
	return -1
}

// selected returns the warp whose registers states carry (the client's
// selection, clamped to what is resident), or nil.
func (s *Session) selected() *emu.Warp {
	ctas := s.m.CTAs()
	if len(ctas) == 0 {
		return nil
	}
	ci := s.sel.cta
	if ci < 0 || ci >= len(ctas) {
		ci = 0
	}
	ws := ctas[ci].Warps
	if len(ws) == 0 {
		return nil
	}
	wi := s.sel.warp
	if wi < 0 || wi >= len(ws) {
		wi = 0
	}
	return ws[wi]
}

// maxMbarriers bounds the live mbarriers a CTA's state lists (a CTA may
// initialise one at every 8 bytes of its shared memory); the rest are
// counted in mbarriersOmitted.
const maxMbarriers = 64

// mbarView is a CTA's mbarriers as sent: the listed ones and how many
// more it has.
type mbarView struct {
	list    []mbarrierJSON
	omitted int
}

// mbarriersJSON renders the live mbarriers of c, at most maxMbarriers
// (the list is never nil: [] says it has none).
func (s *Session) mbarriersJSON(c *emu.CTA) mbarView {
	list, total := c.MbarriersUpTo(maxMbarriers)
	out := make([]mbarrierJSON, 0, len(list))
	for _, b := range list {
		st := b.State
		j := mbarrierJSON{Offset: strconv.FormatUint(b.Off, 16), Name: b.Name, Valid: st.Valid, Phase: int(st.Phase),
			Pending: st.Pending, Expected: st.Expected, Tx: st.Tx, Missing: st.Missing(), Waiting: []mbarrierWaitJSON{}}
		for _, w := range b.Waiting {
			j.Waiting = append(j.Waiting, mbarrierWaitJSON{Warp: w.Warp, Lanes: hex32(w.Lanes), Parity: int(w.Parity), PC: w.PC, Line: s.prog.line(w.PC), CUDALine: s.cline(w.PC)})
		}
		out = append(out, j)
	}
	return mbarView{list: out, omitted: total - len(list)}
}

func barriersJSON(bs []emu.BarrierState) []barrierJSON {
	out := make([]barrierJSON, 0, len(bs))
	for _, b := range bs {
		w := b.Waiting
		if w == nil {
			w = []int{}
		}
		out = append(out, barrierJSON{ID: b.ID, Arrived: b.Arrived, Expected: b.Expected, Waiting: w})
	}
	return out
}

// warpJSON renders a warp as the client holds it (every field; the state
// message carries its keyed delta against what the client was sent). prev,
// if not nil, is what was sent: an unchanged stack reuses its slice.
func (s *Session) warpJSON(w *emu.Warp, prev *warpJSON) warpJSON {
	pc := w.PC()
	j := warpJSON{Warp: w.ID, PC: pc, Line: s.prog.line(pc), CUDALine: s.cline(pc), State: w.State.String(),
		Active: hexMask(w.Active()), Valid: hexMask(w.Valid()), Exited: hexMask(w.Exited()), Depth: w.CallDepth(),
		Async: s.asyncOf(w), Wgmma: s.wgmmaOf(w)}
	if t, ok := w.Waiting(); ok {
		j.Wait = s.waitJSON(w, t)
		if b := w.Barrier(); b >= 0 {
			j.Barrier = &b
		}
	}
	if gw := w.GroupWaits(); len(gw) > 0 {
		j.GroupWaits = make([]waitJSON, len(gw))
		for i, t := range gw {
			j.GroupWaits[i] = *s.waitJSON(w, t)
			j.GroupWaits[i].Text = w.DescribeWait(t)
		}
	}
	st := w.Stack()
	if prev != nil && slices.EqualFunc(st, prev.Stack, func(e emu.StackEntry, p stackJSON) bool {
		return e.PC == p.PC && e.RPC == p.RPC && hexMask(e.Mask) == p.Mask
	}) {
		j.Stack = prev.Stack
	} else {
		j.Stack = make([]stackJSON, len(st))
		for i, e := range st {
			j.Stack[i] = stackJSON{PC: e.PC, RPC: e.RPC, Mask: hexMask(e.Mask)}
		}
	}
	if s.m.Scheduling() == emu.SchedIndependent {
		j.Groups, j.GroupsOmitted = s.groupsOf(w.Groups())
	}
	return j
}

// The register file of the selected warp goes out in pages of regPage
// registers and predPage predicates (a register's 32 lanes take about 700
// bytes of JSON).
const (
	regPage  = 2048
	predPage = 8192
)

// regPages is the number of pages of the register file.
func (s *Session) regPages() int {
	return max(1, (len(s.userRegs)+regPage-1)/regPage, (len(s.userPreds)+predPage-1)/predPage)
}

// pageSlots returns the register and predicate slots of page p.
func (s *Session) pageSlots(p int) (regs, preds []int32) {
	clip := func(all []int32, size int) []int32 {
		lo := min(p*size, len(all))
		return all[lo:min(lo+size, len(all))]
	}
	return clip(s.userRegs, regPage), clip(s.userPreds, predPage)
}

// regsJSON renders w's user registers and predicates of the selected page
// (s.regFrom): only the slots that differ from the client view when delta,
// else all. changed lists the register slots that differ from the view
// (when compare); anyDiff tells whether any register or predicate differs.
func (s *Session) regsJSON(w *emu.Warp, delta, compare bool) (rj *regsJSON, changed []int, anyDiff bool) {
	v := &s.view
	pages := s.regPages()
	page := min(s.regFrom, pages-1)
	regs, preds := s.pageSlots(page)
	n := len(regs)
	if len(v.regs) != n*32 || v.regPage != page {
		v.regs = make([]uint64, n*32)
		compare, delta = false, false
	}
	if len(v.preds) != len(preds) || v.regPage != page {
		v.preds = make([]uint32, len(preds))
		compare, delta = false, false
	}
	v.regPage = page
	rj = &regsJSON{CTA: s.ctaIndex(w.CTA().Linear), Warp: w.ID, Values: map[string][]string{}, Preds: map[string]string{}}
	if pages > 1 {
		rj.Page, rj.Pages = page, pages
		p := s.prog.prog
		for _, r := range regs {
			rj.Names = append(rj.Names, regJSON{Slot: int(r), Name: p.Regs[r].Name, Type: p.Regs[r].Type.String()})
		}
		for _, r := range preds {
			rj.PredNames = append(rj.PredNames, predJSON{Slot: int(r), Name: p.Preds[r].Name})
		}
	}
	for i, slot := range regs {
		vals := w.Reg(int(slot))
		old := (*[32]uint64)(v.regs[i*32:])
		diff := vals != *old
		anyDiff = anyDiff || diff
		if diff && compare {
			changed = append(changed, int(slot))
		}
		if diff || !delta {
			lanes := make([]string, 32)
			for l, x := range vals {
				lanes[l] = hex64(x)
			}
			rj.Values[strconv.Itoa(int(slot))] = lanes
		}
		*old = vals
	}
	for i, slot := range preds {
		p := w.Pred(int(slot))
		diff := p != v.preds[i]
		anyDiff = anyDiff || diff
		if diff || !delta {
			rj.Preds[strconv.Itoa(int(slot))] = hex32(p)
		}
		v.preds[i] = p
	}
	return rj, changed, anyDiff
}

func (s *Session) eventJSON(e evRec) eventJSON {
	j := eventJSON{Kind: e.ev.Kind.String(), Step: e.step, CTA: e.ctaLin, Warp: e.warp, PC: e.ev.PC, Line: s.prog.line(e.ev.PC), CUDALine: s.cline(e.ev.PC),
		Mask: hex32(e.ev.Mask)}
	switch e.ev.Kind {
	case emu.EvDiverge:
		j.Other = hex32(e.ev.Other)
		r := e.ev.Reconv
		j.Reconv = &r
	case emu.EvCall:
		tg := e.ev.Target
		j.Target = &tg
	case emu.EvBarrierArrive, emu.EvBarrierRelease, emu.EvClusterArrive, emu.EvClusterWait, emu.EvClusterRelease:
		// A CTA barrier's id, or the cluster barrier's phase; the threads
		// arrived of those expected.
		j.Relaxed = e.ev.Relaxed
		id, c, x := e.ev.ID, e.ev.Count, e.ev.Expected
		j.ID = &id
		j.Count, j.Expected = &c, &x
		for _, bw := range e.ev.Warps {
			j.Warps = append(j.Warps, s.barrierWarpJSON(bw))
		}
	case emu.EvMbarrierInit, emu.EvMbarrierInval, emu.EvMbarrierArrive, emu.EvMbarrierCompleteTx, emu.EvMbarrierComplete, emu.EvMbarrierWait:
		// The mbarrier's offset in its CTA's shared memory.
		j.Addr = strconv.FormatUint(e.ev.Addr, 16)
		j.Relaxed = e.ev.Relaxed
		for _, bw := range e.ev.Warps {
			j.Warps = append(j.Warps, s.barrierWarpJSON(bw))
		}
	}
	return j
}

func (s *Session) barrierWarpJSON(bw emu.BarrierWarp) barrierWarpJSON {
	ci := -1
	for i, c := range s.m.CTAs() {
		if c.Idx == bw.CTA {
			ci = i
		}
	}
	return barrierWarpJSON{CTA: ci, Warp: bw.Warp, Barrier: bw.Barrier, PC: bw.PC, Line: s.prog.line(bw.PC), CUDALine: s.cline(bw.PC), Lanes: hex32(bw.Lanes)}
}

// memoryJSON adds the memory written since the previous state, and the
// whole shared memory of every resident CTA (sharedAll) or of those with
// linear index in arrived.
func (s *Session) memoryJSON(msg *stateMsg, sharedAll bool, arrived []int) {
	d := &s.rec.dirty
	if !d.stale {
		d.merge()
	}
	if d.stale {
		msg.MemoryStale = true
		return
	}
	budget := maxInspectBytes
	add := func(j memJSON, b []byte) bool {
		if len(b) > budget {
			msg.MemoryStale = true
			msg.Memory = nil
			return false
		}
		budget -= len(b)
		j.Hex = hexBytes(b)
		msg.Memory = append(msg.Memory, j)
		return true
	}
	ctas := s.m.CTAs()
	for _, r := range d.r {
		switch r.space {
		case isa.Global:
			for r.n > 0 {
				a := s.m.Global.Find(r.addr, 1)
				if a == nil {
					break
				}
				o := r.addr - a.Base
				n := min(r.n, uint64(len(a.Data))-o)
				if !add(memJSON{Space: "global", Buffer: a.Name, Offset: o}, a.Data[o:o+n]) {
					return
				}
				r.addr += n
				r.n -= n
			}
		case isa.Shared:
			if sharedAll || slices.Contains(arrived, r.cta) {
				continue
			}
			for _, c := range ctas {
				if c.Linear != r.cta {
					continue
				}
				sh := c.Shared()
				if r.addr >= uint64(len(sh)) {
					break
				}
				n := min(r.n, uint64(len(sh))-r.addr)
				lin := c.Linear
				if !add(memJSON{Space: "shared", CTA: &lin, Offset: r.addr}, sh[r.addr:r.addr+n]) {
					return
				}
			}
		}
	}
	for _, c := range ctas {
		if sharedAll || slices.Contains(arrived, c.Linear) {
			if sh := c.Shared(); len(sh) > 0 {
				lin := c.Linear
				if !add(memJSON{Space: "shared", CTA: &lin, Offset: 0}, sh) {
					return
				}
			}
		}
	}
}

// lastOf summarises an executed instruction with its exact memory
// accesses.
func (s *Session) lastOf(in *emu.StepInfo) lastRec {
	lr := lastRec{valid: true, ctaLin: in.CTALin, warp: in.Warp, pc: in.PC, mask: in.Mask, execMask: in.ExecMask, tensor: tensorReport(in.Tensor)}
	for i := range in.Accesses {
		if lr.swizzle = liveSwizzle(&in.Accesses[i]); lr.swizzle != nil {
			break
		}
	}
	if len(in.Accesses) == 0 {
		return lr
	}
	ws, ctas := s.stepAccesses(in)
	if n := len(ws); n > 0 {
		k := min(n, maxAccesses)
		lr.accesses = make([]accessRec, k)
		for i := range k {
			lr.accesses[i] = accessRec{a: ws[i], cta: ctas[i]}
		}
		lr.omitted = n - k
	}
	return lr
}

// stepAccesses returns the warp-wide accesses of an executed instruction
// and, for each, the linear index of the CTA whose shared memory it is
// in: the executing CTA's, or a peer's of its cluster for a
// .shared::cluster address (emu.Access.CTA). Accesses to different CTAs
// are kept apart.
func (s *Session) stepAccesses(in *emu.StepInfo) ([]analysis.WarpAccess, []int) {
	peer := false
	for i := range in.Accesses {
		if a := &in.Accesses[i]; a.Space == isa.Shared && a.CTA != in.CTALin {
			peer = true
			break
		}
	}
	ws := s.accBuf[:0]
	ctas := s.accCTAs[:0]
	if !peer {
		ws = analysis.FromStep(in, ws)
		for range ws {
			ctas = append(ctas, in.CTALin)
		}
	} else {
		// One CTA at a time, in the order the accesses name them (global
		// accesses with the executing CTA's).
		sub := *in
		var seen []int
		for i := range in.Accesses {
			c := in.Accesses[i].CTA
			if in.Accesses[i].Space != isa.Shared {
				c = in.CTALin
			}
			if slices.Contains(seen, c) {
				continue
			}
			seen = append(seen, c)
			sub.Accesses = nil
			for j := range in.Accesses {
				a := &in.Accesses[j]
				if a.Space == isa.Shared && a.CTA == c || a.Space != isa.Shared && c == in.CTALin {
					sub.Accesses = append(sub.Accesses, *a)
				}
			}
			n := len(ws)
			ws = analysis.FromStep(&sub, ws)
			for range ws[n:] {
				ctas = append(ctas, c)
			}
		}
	}
	s.accBuf, s.accCTAs = ws[:0], ctas[:0]
	return ws, ctas
}

func (s *Session) lastJSON(lr *lastRec) *lastJSON {
	if !lr.valid {
		return nil
	}
	j := &lastJSON{CTA: s.ctaIndex(lr.ctaLin), Linear: lr.ctaLin, Warp: lr.warp, PC: lr.pc, Line: s.prog.line(lr.pc), CUDALine: s.cline(lr.pc),
		Mask: hex32(lr.mask), ExecMask: hex32(lr.execMask), Tensor: lr.tensor, Op: s.prog.op(lr.pc), AccessesOmitted: lr.omitted, Swizzle: lr.swizzle}
	for i := range lr.accesses {
		j.Accesses = s.accessJSON(j.Accesses, &lr.accesses[i])
	}
	return j
}

// accessJSON appends the wire form of an access: one entry for shared
// memory; for global memory one per buffer its lanes fall in (lanes
// outside every buffer are left out).
func (s *Session) accessJSON(out []accessJSON, r *accessRec) []accessJSON {
	a := &r.a
	j := accessJSON{Kind: accessKinds[a.Kind], Space: a.Space.String(), Size: a.Size}
	if a.Space == isa.Shared {
		lin := r.cta
		j.CTA = &lin
		j.Offsets, j.Lanes = laneOffsets(a, a.Lanes, 0), hex32(a.Lanes)
		v := analysis.SharedLaneWavefronts(a)
		banks := analysis.LaneBanks(a)
		j.Shared = &bankVerdict{Banks: banks[:], Waves: v.Wave[:], Wavefronts: v.Wavefronts, Ideal: v.Ideal,
			Conflict: hex32(v.Conflict), Broadcast: hex32(v.Broadcast)}
		return append(out, j)
	}
	left := a.Lanes
	for left != 0 {
		buf := s.m.Global.Find(a.Offset[trailingZeros(left)], 1)
		if buf == nil {
			left &= left - 1
			continue
		}
		end := buf.Base + uint64(len(buf.Data))
		var lanes uint32
		for m := left; m != 0; m &= m - 1 {
			l := trailingZeros(m)
			if o := a.Offset[l]; o >= buf.Base && o < end {
				lanes |= 1 << l
			}
		}
		left &^= lanes
		part := *a
		part.Lanes = lanes
		c := analysis.GlobalSectors(&part)
		p := j
		p.Buffer, p.Offsets, p.Lanes = buf.Name, laneOffsets(a, lanes, buf.Base), hex32(lanes)
		p.Global = &sectorVerdict{Sectors: c.Sectors, Lines: c.Lines, Requested: c.Requested, Moved: c.Moved(), Efficiency: c.Efficiency()}
		out = append(out, p)
	}
	return out
}

// laneOffsets returns the 32 lanes' offsets from base (nil for lanes not
// in lanes).
func laneOffsets(a *analysis.WarpAccess, lanes uint32, base uint64) []*uint64 {
	out := make([]*uint64, 32)
	vals := make([]uint64, 32)
	for m := lanes; m != 0; m &= m - 1 {
		l := trailingZeros(m)
		vals[l] = a.Offset[l] - base
		out[l] = &vals[l]
	}
	return out
}

// tensorReport converts the machine's tensor report (reused by the
// machine) to its wire form.
func tensorReport(t *emu.TensorStep) *tensorJSON {
	if t == nil {
		return nil
	}
	j := &tensorJSON{Key: t.Key}
	for _, m := range t.Matrices {
		mj := matrixJSON{Index: m.Index, Reg: int(m.Reg), Write: m.Write, RowBytes: m.RowBytes}
		generic := false
		for _, r := range m.Rows {
			mj.Lanes = append(mj.Lanes, r.Lane)
			mj.Addrs = append(mj.Addrs, hex64(r.Addr))
			mj.Offsets = append(mj.Offsets, hex64(r.Offset))
			generic = generic || r.Addr != r.Offset
			if mj.Space == "" || r.Space != isa.Shared {
				mj.Space = r.Space.String()
			}
		}
		if !generic {
			mj.Offsets = nil
		}
		j.Matrices = append(j.Matrices, mj)
	}
	for _, o := range t.Operands {
		oj := tensorRegJSON{Name: o.Name, Write: o.Write, Regs: make([]int, len(o.Regs))}
		for i, r := range o.Regs {
			oj.Regs[i] = int(r)
		}
		j.Operands = append(j.Operands, oj)
	}
	return j
}

var accessKinds = [...]string{emu.AccessLoad: "load", emu.AccessStore: "store", emu.AccessAtomic: "atomic"}

func (s *Session) faultJSON(f *emu.Fault) *faultJSON {
	j := &faultJSON{Kind: string(f.Kind), Message: f.Message, PC: f.PC, CUDALine: s.cline(f.PC), CTA: f.CTA, Thread: f.Thread, Warp: f.Warp, Lane: f.Lane}
	if f.PC >= 0 && f.PC < len(s.prog.pcLine) {
		j.Line, j.Col = int(s.prog.pcLine[f.PC]), int(s.prog.pcCol[f.PC])
	}
	if f.HasAddr {
		j.Address = hex64(f.Addr)
	}
	j.Lanes = hex32(f.Lanes)
	for _, bw := range f.Waiting {
		j.Waiting = append(j.Waiting, s.barrierWarpJSON(bw))
	}
	return j
}

// warningsJSON adds the checker's warnings at the machine's position when
// they differ from those the client has.
func (s *Session) warningsJSON(msg *stateMsg, full bool) {
	chk := s.rec.chk
	if chk == nil {
		return
	}
	ws, dropped := chk.WarningsAt(s.m.Stats().WarpInstructions)
	sig := warnSig{n: int64(len(ws)), dropped: dropped}
	for i := range ws {
		sig.total += ws[i].Count
	}
	if !full && s.view.valid && sig == s.view.warns {
		return
	}
	s.view.warns = sig
	out := &warningsJSON{List: make([]warningJSON, 0, len(ws)), Dropped: dropped}
	for i := range ws {
		w := &ws[i]
		wj := warningJSON{Kind: string(w.Kind), Space: w.Space.String(), PC: w.PC, Line: w.Line, CUDALine: s.cline(w.PC),
			CTA: w.Thread.CTA, Thread: w.Thread.Tid, PrevPC: w.PrevPC, Offset: w.Offset,
			Count: w.Count, Capped: w.Capped, Step: w.Step, Text: w.Message()}
		if w.HasPrev() {
			wj.PrevLine, wj.PrevCTA, wj.PrevThread = w.PrevLine, w.PrevThread.CTA, w.PrevThread.Tid
			wj.PrevCUDALine = s.cline(w.PrevPC)
		}
		out.List = append(out.List, wj)
	}
	msg.Warnings = out
}
