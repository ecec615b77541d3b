package emu

import (
	"slices"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// What an mma_async reports to observers, for the race and memory
// checker's rules of the asynchronous proxy (engine/analysis).
//
// An mma_async reads its shared-memory operands (A and B through their
// descriptors) in the asynchronous proxy (PTX ISA §9.7.15: "the wgmma
// operations ... are performed in the async proxy"), so its reads are
// noted as asynchronous-proxy loads (Access.Async, AsyncPC the
// mma_async): a generic-proxy write of those bytes needs a
// fence.proxy.async in the writing thread before the mma_async reads
// them (the checker's missing-proxy-fence), besides the synchronisation
// that orders the write before the read.

// noteWgmmaRead notes the warp's read of rows lo..lo+rows-1 of operand o
// laid out as l: the bytes of those elements, as 16-byte pieces (a core
// matrix row, aligned: a descriptor's start address is in 16-byte units)
// where every byte of the piece is an element's, byte by byte otherwise.
// The pieces are spread over the lanes (piece i as lane i%32) so that
// each Access holds 32 of them; every lane of the warp executes an
// mma_async, so any lane stands for the warp.
func (w *Warp) noteWgmmaRead(l *isa.WgmmaLayout, o isa.WgmmaOperand, lo, rows int) {
	if !w.m.obsAcc || !w.m.obsShared {
		return
	}
	size := max(o.ElemBits/8, 1)
	// used: per 16-byte piece, the bytes of it the elements cover.
	used := map[uint64]uint16{}
	for r := lo; r < lo+rows; r++ {
		for k := 0; k < o.K; k++ {
			a := l.At(r, k)
			for b := uint64(0); b < uint64(size); b++ {
				used[(a+b)&^15] |= 1 << ((a + b) & 15)
			}
		}
	}
	pieces := make([]uint64, 0, len(used))
	for p := range used {
		pieces = append(pieces, p)
	}
	slices.Sort(pieces)
	sh := w.cta.shared
	done := w.m.asyncAccesses(w.m.curPC)
	defer done()
	i := 0
	note := func(a uint64, n int) {
		w.noteAccess(AccessLoad, isa.Shared, isa.Shared, i%32, a, sh[a:a+uint64(n)])
		i++
	}
	for _, p := range pieces {
		if m := used[p]; m == 0xffff {
			note(p, 16)
		} else {
			for b := uint64(0); b < 16; b++ {
				if m>>b&1 != 0 {
					note(p+b, 1)
				}
			}
		}
	}
}

// wgDescs is the descriptors of a warpgroup's k-th wgmma instruction (an
// mma_async) as the first of its warps to execute it passed them (a: the
// A descriptor, 0 for A in registers).
type wgDescs struct {
	k    uint32
	a, b uint64
}

// wgmmaWarpDescs checks that the warp passes the descriptors a and b
// that the warpgroup's other warps passed to the same mma_async (the
// warp's wgmma instruction just counted: wgmmaCollective), faulting
// when they differ, and logs them for the warps still to execute it
// (wgSeq.descs, dropped once every warp has).
//
// A fault, not a warning: the ISA requires the same descriptors in every
// thread of the warpgroup, and each warp's part of the product would be
// read through its own descriptor, a product no GPU computes.
func (w *Warp) wgmmaWarpDescs(mask uint32, a, b uint64) *Fault {
	u := &w.cta.async
	k := u.warp(w.ID).wgCount - 1
	s := u.seq(w.Warpgroup())
	var f *Fault
	found := false
	for _, d := range s.descs {
		if d.k != k {
			continue
		}
		found = true
		for _, x := range [...]struct {
			which     string
			mine, its uint64
		}{{"A", a, d.a}, {"B", b, d.b}} {
			if x.mine != x.its {
				f = w.faultAll(FaultIllegal, mask, "wgmma.mma_async: the %s descriptor differs between the warps of warpgroup %d (%#016x in warp %d, %#016x in a warp that executed it before): every thread of the warpgroup passes the same descriptor", x.which, w.Warpgroup(), x.mine, w.ID, x.its)
				break
			}
		}
		break
	}
	if !found {
		s.descs = append(s.descs, wgDescs{k: k, a: a, b: b})
	}
	// Drop what every warp has executed.
	out := s.descs[:0]
	for _, d := range s.descs {
		if d.k >= s.base {
			out = append(out, d)
		}
	}
	s.descs = out
	return f
}

// WgmmaRegs returns the register slots of the wgmma.mma_async at pc: its
// accumulator and its A fragment (none when A comes from a descriptor);
// ok is false for any other instruction. The race and memory checker
// follows the ISA's register rules with them.
func (p *Program) WgmmaRegs(pc int) (acc, a []int32, ok bool) {
	if pc < 0 || pc >= len(p.Ops) {
		return nil, nil, false
	}
	op := &p.Ops[pc]
	if op.Code != isa.OpWgmmaMmaAsync || op.Exec == nil {
		return nil, nil, false
	}
	d, n := int(op.Parts[0]), 0
	if op.Imm&wgRegA != 0 {
		n = int(op.Parts[1])
	}
	if d+n > len(op.Regs) {
		return nil, nil, false
	}
	return op.Regs[:d:d], op.Regs[d : d+n : d+n], true
}
