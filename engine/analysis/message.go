package analysis

import (
	"fmt"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"strings"
)

// WarningKinds lists every WarningKind, for code that must say something
// about each (Warning.Message).
var WarningKinds = []WarningKind{
	WarnReadAfterWrite, WarnWriteAfterRead, WarnWriteAfterWrite,
	WarnAsyncRead, WarnUninitShared, WarnUninitGlobal,
	WarnMbarrierPlain, WarnMbarrierInitWaiting, WarnProxyFence, WarnAsyncWriteRead,
	WarnWgmmaInFlight, WarnWgmmaFence,
}

// ThreadName writes a thread as "32 of CTA 0" (or with (x,y,z) indices
// when a y or z index is not 0).
func ThreadName(t Thread) string {
	d := func(v [3]int) string {
		if v[1] == 0 && v[2] == 0 {
			return fmt.Sprint(v[0])
		}
		return fmt.Sprintf("(%d,%d,%d)", v[0], v[1], v[2])
	}
	return d(t.Tid) + " of CTA " + d(t.CTA)
}

// Message says what the warning found, in one sentence that names its
// instructions' lines and threads: the command line prints it and the
// session sends it to the browser, so every kind has its own wording in
// one place.
func (w *Warning) Message() string {
	me, prev := "thread "+ThreadName(w.Thread), "thread "+ThreadName(w.PrevThread)
	mem := "shared memory"
	if w.Space == isa.Global {
		mem = "global memory"
	}
	switch w.Kind {
	case WarnReadAfterWrite:
		return fmt.Sprintf("%s reads at line %d what %s wrote at line %d, with no barrier between them", me, w.Line, prev, w.PrevLine)
	case WarnWriteAfterRead:
		return fmt.Sprintf("%s writes at line %d what %s read at line %d, with no barrier between them", me, w.Line, prev, w.PrevLine)
	case WarnWriteAfterWrite:
		return fmt.Sprintf("%s writes at line %d what %s wrote at line %d, with no barrier between them", me, w.Line, prev, w.PrevLine)
	case WarnAsyncRead:
		return fmt.Sprintf("%s reads at line %d what %s's cp.async (line %d) has not written yet: no cp.async.wait_group or wait_all between them", me, w.Line, prev, w.PrevLine)
	case WarnUninitShared:
		return fmt.Sprintf("%s reads at line %d shared memory that no thread of its CTA has written", me, w.Line)
	case WarnUninitGlobal:
		return fmt.Sprintf("%s loads at line %d global memory that the launch did not initialise and the kernel has not written", me, w.Line)
	case WarnMbarrierPlain:
		return fmt.Sprintf("%s's %s at line %d is an ordinary access to the mbarrier that %s initialised at line %d: only mbarrier instructions may touch its 8 bytes", me, opcode(w.Instruction), w.Line, prev, w.PrevLine)
	case WarnMbarrierInitWaiting:
		return fmt.Sprintf("%s's mbarrier.init at line %d re-initialises an mbarrier that %s is waiting on at line %d", me, w.Line, prev, w.PrevLine)
	case WarnProxyFence:
		return fmt.Sprintf("the %s at line %d (%s) reads %s that %s wrote at line %d through the generic proxy, with no fence.proxy.async between them", asyncOpName(w.Instruction), w.Line, me, mem, prev, w.PrevLine)
	case WarnWgmmaInFlight:
		if w.Instruction != "" && strings.HasPrefix(opcode(w.Instruction), "wgmma.mma_async") {
			return fmt.Sprintf("%s's wgmma.mma_async at line %d uses register %s, which the wgmma.mma_async at line %d still uses in flight (not as the same accumulator): no wgmma.wait_group waits for it between them", me, w.Line, w.Register, w.PrevLine)
		}
		return fmt.Sprintf("%s's %s at line %d accesses register %s while the wgmma.mma_async at line %d still uses it: no wgmma.wait_group waits for that mma_async between them (undefined: the emulator gives the value from before the mma_async)", me, opcode(w.Instruction), w.Line, w.Register, w.PrevLine)
	case WarnWgmmaFence:
		return fmt.Sprintf("the wgmma.mma_async at line %d (%s) reads register %s, which %s wrote at line %d, with no wgmma.fence between them", w.Line, me, w.Register, prev, w.PrevLine)
	case WarnAsyncWriteRead:
		return fmt.Sprintf("%s reads at line %d %s that the %s at line %d (%s) has not completed yet: no wait on the mbarrier phase it completes", me, w.Line, mem, asyncOpName(w.PrevInstruction), w.PrevLine, prev)
	}
	if w.HasPrev() {
		return fmt.Sprintf("%s at line %d, %s at line %d", me, w.Line, prev, w.PrevLine)
	}
	return fmt.Sprintf("%s at line %d", me, w.Line)
}

// opcode is the first word of an instruction's text, without its guard.
func opcode(inst string) string {
	f := strings.Fields(inst)
	if len(f) > 1 && strings.HasPrefix(f[0], "@") {
		f = f[1:]
	}
	if len(f) == 0 {
		return "access"
	}
	return f[0]
}

// asyncOpName names an asynchronous-proxy instruction for a student.
func asyncOpName(inst string) string {
	op := opcode(inst)
	dst := func(s string) bool { return strings.Contains(op, "."+s) }
	switch {
	case strings.HasPrefix(op, "cp.reduce.async.bulk.tensor"):
		return "TMA reduction"
	case strings.HasPrefix(op, "cp.async.bulk.tensor") && dst("global.shared"):
		return "TMA store"
	case strings.HasPrefix(op, "cp.async.bulk.tensor"):
		return "TMA load"
	case strings.HasPrefix(op, "cp.reduce.async.bulk"):
		return "bulk reduction"
	case strings.HasPrefix(op, "cp.async.bulk") && dst("global.shared"):
		return "bulk store"
	case strings.HasPrefix(op, "cp.async.bulk"):
		return "bulk copy"
	case strings.HasPrefix(op, "wgmma.mma_async"):
		return "wgmma.mma_async"
	}
	return op
}
