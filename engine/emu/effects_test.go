package emu

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// corpusPrograms lowers every PTX file of the test corpora (the shared
// ZLUDA, gpuocelot and ptx-ir corpora, the gallery and this package's
// testdata) that compiles.
func corpusPrograms(t *testing.T) map[string]*Program {
	t.Helper()
	var files []string
	for _, dir := range []string{"../../../shared/conformance/zluda", "../../../shared/corpus/gpuocelot",
		"../../../shared/corpus/ptx-ir", "../../web/examples", "testdata", "testdata/errors", "../../cmd/ptxplay/testdata"} {
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(path) == ".ptx" {
				files = append(files, path)
			}
			return nil
		})
	}
	out := map[string]*Program{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(b) > 4<<20 {
			continue
		}
		p, _ := CompileSource(ptx.NewSource(f, b))
		if p != nil && len(p.Ops) > 0 {
			out[f] = p
		}
	}
	if len(out) < 50 {
		t.Logf("only %d corpus programs found", len(out))
	}
	return out
}

// TestEveryOpHasEffects: every opcode the emulator executes has its
// effects declared, and every lowered instruction of the corpora has
// effects and its register operands recorded: each slot its fields name
// is among them, in the right file, read or written as the instruction
// does.
func TestEveryOpHasEffects(t *testing.T) {
	for c := isa.Opcode(1); c < isa.NumOpcodes; c++ {
		if isa.Info[c].Status == isa.Supported && binders[c] != nil && opEffects[c].eff == 0 && opEffects[c].mem == memNone {
			t.Errorf("%s is executed but has no effects declared", isa.Info[c].Name)
		}
	}
	seen := map[isa.Opcode]bool{}
	for name, p := range corpusPrograms(t) {
		if len(p.Operands) != len(p.Ops) {
			t.Fatalf("%s: %d operand lists for %d ops", name, len(p.Operands), len(p.Ops))
		}
		for pc := range p.Ops {
			op := &p.Ops[pc]
			seen[op.Code] = true
			if op.Eff == 0 {
				t.Errorf("%s pc %d (%s): no effects", name, pc, isa.Info[op.Code].Name)
			}
			if op.Eff.Has(EffFault) {
				continue
			}
			has := func(slot int32, pred, def bool) bool {
				for _, o := range p.Operands[pc] {
					if o.Slot == slot && o.Pred == pred && o.Def == def {
						return true
					}
				}
				return false
			}
			want := func(what string, slot int32, pred, def bool) {
				if slot >= 0 && !has(slot, pred, def) {
					t.Errorf("%s pc %d (%s): %s slot %d (pred %v, def %v) not among its operands %+v", name, pc, isa.Info[op.Code].Name, what, slot, pred, def, p.Operands[pc])
				}
			}
			want("guard", op.Guard, true, false)
			if op.Eff.Has(EffWarpSync) {
				want("membermask", op.Mask, false, false)
			}
			for _, o := range p.Operands[pc] {
				n := len(p.Regs)
				if o.Pred {
					n = len(p.Preds)
				}
				if o.Slot < 0 || int(o.Slot) >= n || o.Bits == 0 {
					t.Errorf("%s pc %d (%s): bad operand %+v", name, pc, isa.Info[op.Code].Name, o)
				}
				if !o.Pred && o.Def && p.Regs[o.Slot].Kind == RegSpecial {
					t.Errorf("%s pc %d (%s): writes special register slot %d", name, pc, isa.Info[op.Code].Name, o.Slot)
				}
			}
			// The fields of the value-computing instructions, as the
			// launch analysis reads them: D written, A, B, C read.
			if op.Eff.Has(EffRegs) && op.Type != isa.Pred {
				switch op.Code {
				case isa.OpAdd, isa.OpSub, isa.OpMul, isa.OpMad, isa.OpAnd, isa.OpOr, isa.OpXor, isa.OpShl, isa.OpShr,
					isa.OpCvt, isa.OpCvta, isa.OpMin, isa.OpMax, isa.OpFma, isa.OpSelp:
					if len(op.Regs) == 0 {
						want("D", op.D, false, true)
					}
					want("A", op.A, false, false)
					if op.Code != isa.OpSelp {
						want("B", op.B, false, false)
					}
				}
			}
			if op.Eff.Has(EffAccess) && op.A >= 0 {
				want("address", op.A, false, false)
			}
			// A store's data ("st [a], r + 1" too) is read.
			if memAccessKind(op) == accessStore {
				want("stored value", op.B, false, false)
				for _, r := range op.Regs {
					want("stored element", r, false, false)
				}
			}
		}
	}
	for c := isa.Opcode(1); c < isa.NumOpcodes; c++ {
		if isa.Info[c].Status == isa.Supported && binders[c] != nil && !seen[c] {
			t.Logf("the corpora do not use %s", isa.Info[c].Name)
		}
	}
}

// isWgmmaCode reports whether c is one of the warpgroup MMA instructions.
func isWgmmaCode(c isa.Opcode) bool {
	switch c {
	case isa.OpWgmmaFence, isa.OpWgmmaCommitGroup, isa.OpWgmmaWaitGroup, isa.OpWgmmaMmaAsync:
		return true
	}
	return false
}

// TestEffectsClassifyAsBefore: the classifiers that read effects classify
// every instruction of the corpora as the opcode switches they replace
// did (kept here, as they were, for the comparison).
func TestEffectsClassifyAsBefore(t *testing.T) {
	n := 0
	for name, p := range corpusPrograms(t) {
		entry := map[int]bool{}
		for _, f := range p.Funcs {
			for pc := f.Entry; pc < f.End; pc++ {
				entry[pc] = f.Kind == ptx.KindEntry
			}
		}
		for pc := range p.Ops {
			op := &p.Ops[pc]
			n++
			where := func() string { return name + ": " + isa.Info[op.Code].Name + " " + op.Eff.String() }
			if a, b := isPure(op), oldIsPure(op); a != b {
				t.Errorf("%s: isPure %v, was %v", where(), a, b)
			}
			for _, e := range []bool{false, true} {
				if a, b := quietKind(op, e), oldQuietKind(op, e); a != b {
					t.Errorf("%s: quietKind(entry %v) %d, was %d", where(), e, a, b)
				}
			}
			// Such a form (EffFault) is no longer run by a lead either: it
			// faults when a warp reaches it, at its own turn.
			if a, b := warpLocal(op), oldWarpLocal(op); a != b && !op.Eff.Has(EffFault) {
				t.Errorf("%s: warpLocal %v, was %v", where(), a, b)
			}
			if a, b := sharedLoad(op), oldSharedLoad(op); a != b {
				t.Errorf("%s: sharedLoad %v, was %v", where(), a, b)
			}
			// The warpgroup instructions (wgmma.*) were not executed when
			// the old switches were written: they called them unsynchronised,
			// where every wgmma form is a .sync.aligned collective of its warp.
			scan := newWarpSyncScan(p, nil, 0x0000ffff)
			if isWgmmaCode(op.Code) {
				if s, ok := warpSyncSlot(op); !ok || s != -2 || !scan.syncs(op) {
					t.Errorf("%s: warpSyncSlot %d %v, want an aligned warp collective", where(), s, ok)
				}
			} else {
				s1, ok1 := warpSyncSlot(op)
				s2, ok2 := oldWarpSyncSlot(op)
				if s1 != s2 || ok1 != ok2 {
					t.Errorf("%s: warpSyncSlot %d %v, was %d %v", where(), s1, ok1, s2, ok2)
				}
				// A recognised tensor-core form the emulator does not execute
				// faults when reached: it waits for no lane (the family switch
				// said it did).
				if a, b := scan.syncs(op), oldSyncs(scan, op); a != b && !op.Eff.Has(EffFault) {
					t.Errorf("%s: syncs %v, was %v", where(), a, b)
				}
			}
			if a, b := memAccessKind(op), oldMemAccessKind(op); a != b {
				t.Errorf("%s: memory access kind %d, was %d", where(), a, b)
			}
			if a, b := flowKind(op), oldFlowKind(op); a != b {
				t.Errorf("%s: flow kind %d, was %d", where(), a, b)
			}
			if a, b := stopsBatch(op), op.Dyn || op.Code == isa.OpBrkpt; a != b {
				t.Errorf("%s: stopsBatch %v, was %v", where(), a, b)
			}
		}
	}
	t.Logf("%d instructions compared", n)
}

// The classifiers as they were, switching on opcodes and families.

func oldIsPure(op *Op) bool {
	if op.Exec == nil || op.Dyn || int(op.Code) >= len(isa.Info) || isa.Info[op.Code].Status != isa.Supported {
		return false
	}
	switch op.Code {
	case isa.OpBra:
		return true
	case isa.OpCvta, isa.OpIsspacep:
		return !op.Ctrl
	}
	if op.Ctrl {
		return false
	}
	switch isa.Info[op.Code].Family {
	case isa.FamInt, isa.FamExtInt, isa.FamFloat, isa.FamHalf, isa.FamCompare, isa.FamLogic, isa.FamMove, isa.FamConvert:
		return true
	}
	return false
}

func oldQuietKind(op *Op, entry bool) uint8 {
	if op.Exec == nil || op.Dyn || int(op.Code) >= len(isa.Info) || isa.Info[op.Code].Status != isa.Supported {
		return 1
	}
	switch op.Code {
	case isa.OpBra:
		return 0
	case isa.OpExit, isa.OpRet, isa.OpBar, isa.OpBarrier:
		if op.Guard >= 0 {
			if k := oldQuietKind(&Op{Exec: op.Exec, Code: op.Code, Sub: op.Sub, B: op.B, Guard: -1}, entry); k != 1 {
				return 0
			}
			return 1
		}
	}
	switch op.Code {
	case isa.OpExit:
		return 3
	case isa.OpRet:
		if entry {
			return 3
		}
		return 1
	case isa.OpBar, isa.OpBarrier:
		if op.Sub == isa.SubSync && op.B < 0 {
			return 2
		}
		return 1
	case isa.OpLd, isa.OpLdu:
		return 0
	case isa.OpSt:
		switch op.Space {
		case isa.Global, isa.Local, isa.Param:
			return 0
		}
		return 1
	case isa.OpTensormapReplace:
		// Added with the instruction: a store of the map, like st.
		if op.Space == isa.Global {
			return 0
		}
		return 1
	}
	if oldIsPure(op) {
		return 0
	}
	return 1
}

func oldSharedLoad(op *Op) bool {
	return op.Code == isa.OpLd && op.Space == isa.Shared && !op.Ctrl && !op.Dyn &&
		op.Exec != nil && (op.D >= 0 || len(op.Regs) > 0) && isa.Info[op.Code].Status == isa.Supported && op.Type.Size() > 0
}

func oldWarpLocal(op *Op) bool {
	if op.Exec == nil || op.Ctrl || op.Dyn || int(op.Code) >= len(isa.Info) || isa.Info[op.Code].Status != isa.Supported {
		return false
	}
	switch op.Code {
	case isa.OpBarWarpSync, isa.OpMma, isa.OpWmmaMma, isa.OpMovmatrix:
		return true
	}
	return isa.Info[op.Code].Family == isa.FamWarp
}

func oldWarpSyncSlot(op *Op) (int32, bool) {
	switch op.Code {
	case isa.OpShfl, isa.OpVote, isa.OpMatch, isa.OpRedux, isa.OpElect:
		if op.Flags.Has(isa.FSync) && op.E >= 0 {
			return op.E, true
		}
	case isa.OpBarWarpSync:
		if op.A >= 0 {
			return op.A, true
		}
	case isa.OpTensormapCpFenceproxy: // added with the instruction: .sync.aligned
		return wholeWarp, true
	default:
		if isa.Info[op.Code].Family == isa.FamTensor && op.Flags.Has(isa.FAligned) {
			return wholeWarp, true
		}
	}
	return -1, false
}

func oldSyncs(s *warpSyncScan, op *Op) bool {
	mm := int32(-1)
	switch op.Code {
	case isa.OpShfl, isa.OpVote, isa.OpMatch, isa.OpRedux, isa.OpElect:
		if !op.Flags.Has(isa.FSync) {
			return false
		}
		mm = op.E
	case isa.OpBarWarpSync:
		mm = op.A
	case isa.OpTensormapCpFenceproxy: // added with the instruction: .sync.aligned
		return true
	default:
		return isa.Info[op.Code].Family == isa.FamTensor
	}
	if v, ok := s.consts[mm]; ok {
		return uint32(v)&s.lanes != 0
	}
	return true
}

// oldMemAccessKind: 0 no per-lane access, 1 a load, 2 a store, 3 an
// atomic (faultlanes.go).
func oldMemAccessKind(op *Op) int {
	switch op.Code {
	case isa.OpLd, isa.OpLdu:
		return 1
	case isa.OpSt:
		return 2
	case isa.OpAtom, isa.OpRed:
		return 3
	}
	return 0
}

// oldFlowKind: how cfg.go and cfg_blocks.go treated op: 1 bra, 2 brx, 3
// ret or exit, 0 falls through.
func oldFlowKind(op *Op) int {
	switch op.Code {
	case isa.OpBra:
		return 1
	case isa.OpBrx:
		return 2
	case isa.OpRet, isa.OpExit:
		return 3
	}
	return 0
}

// An Op stays within 128 bytes (two cache lines): the scheduler's loops
// index Program.Ops on every instruction.
func TestOpSize(t *testing.T) {
	if n := unsafe.Sizeof(Op{}); n > 128 {
		t.Fatalf("Op is %d bytes, more than 128", n)
	}
}
