package emu

// IssueN issues up to n warp-instructions exactly as n calls of
// Issue(checkBreakpoints) would, stopping at the first that does not
// return StopStepped, and returns that call's result (StopStepped after n
// instructions, or when n <= 0 without issuing) and the machine's
// WarpInstructions before it: whether the stopping call executed an
// instruction (a brkpt, a faulting instruction) or stopped without
// executing (a breakpoint, the launch ending) is told by comparing it with
// WarpInstructions afterwards. Unlike Run, it never settles more than the
// next Issue would: after the n-th instruction the machine is exactly
// where n Issue calls leave it, whatever the observers installed.
func (m *Machine) IssueN(checkBreakpoints bool, n int) (r StopReason, before int64) {
	defer m.recoverInternal(&r)
	before = m.stats.WarpInstructions
	if r, stop := m.stopped(); stop {
		return r, before
	}
	for ; n > 0; n-- {
		before = m.stats.WarpInstructions
		if r = m.issueNext(checkBreakpoints); r != StopStepped {
			return r, before
		}
	}
	return StopStepped, before
}
