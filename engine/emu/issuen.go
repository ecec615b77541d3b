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
	if m.issueNBatchable(n) {
		return m.issueNBatched(n)
	}
	return m.issueNPlain(checkBreakpoints, n)
}

// issueNPlain is IssueN one instruction at a time.
func (m *Machine) issueNPlain(checkBreakpoints bool, n int) (r StopReason, before int64) {
	before = m.stats.WarpInstructions
	for ; n > 0; n-- {
		before = m.stats.WarpInstructions
		if r = m.issueNext(checkBreakpoints); r != StopStepped {
			return r, before
		}
	}
	return StopStepped, before
}

// issueNBatchable reports whether IssueN may run n instructions with
// batched dispatch (batch.go): Run could batch from here (no breakpoint,
// no observer of every step), n leaves room for leads (leadRoom's margin
// with n as the budget), and the snapshot a fault replay needs is small:
// at most issueNSnapshotMax bytes, and issueNSnapshotPerInst per
// instruction it may run (so that its copy costs little next to them and
// the garbage it leaves stays a small rate).
func (m *Machine) issueNBatchable(n int) bool {
	if int64(n) <= 4*int64(leadMax+1)*int64(len(m.warps)+1) || !m.batchable() {
		return false
	}
	if m.fast.noReplay {
		return true
	}
	b := m.snapshotBytes()
	return b <= issueNSnapshotMax && b <= issueNSnapshotPerInst*n
}

// The bounds of a batched IssueN's snapshot: the session that runs the
// machine does not account it (it is garbage once the call returns), so it
// is kept small whatever the launch: launches with more state issue one
// instruction at a time through IssueN (Run, which takes one snapshot per
// call, batches up to maxBatchSnapshot).
const (
	issueNSnapshotMax     = 1 << 20
	issueNSnapshotPerInst = 4
)

// issueNBatched is IssueN with batched dispatch, under issueNBatchable:
// the n instructions run with leads, which stop early enough (leadRoom,
// with the end of the n as a budget) that the n-th is issued at a turn no
// warp is ahead of, so the machine stops exactly where n Issue calls
// leave it, its last instruction (LastIssued) included. A fault while
// warps are ahead restores the state IssueN started from and issues one
// instruction at a time to it, as Run does.
func (m *Machine) issueNBatched(n int) (r StopReason, before int64) {
	var start *Snapshot
	if !m.fast.noReplay {
		start = m.Snapshot(true)
	}
	end := m.stats.WarpInstructions + int64(n)
	m.fast.issueEnd = end
	defer func() { m.fast.issueEnd = 0 }()
	for {
		before = m.stats.WarpInstructions
		if before >= end && m.ahead == 0 && m.picked == 0 {
			return StopStepped, before - 1
		}
		r = m.issueBatched(true)
		if r == StopStepped {
			continue
		}
		if m.ahead == 0 && m.picked == 0 || start == nil {
			return r, before
		}
		last := m.obsLast
		m.Restore(start)
		m.ahead, m.picked, m.consumed = 0, 0, 0
		m.fast.replays++
		if m.obs != nil {
			m.obsMuteTo = last
		}
		m.fast.issueEnd = 0
		return m.issueNPlain(true, n)
	}
}
