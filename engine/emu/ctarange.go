package emu

import "fmt"

// RestrictCTAs makes the machine run only the CTAs of the grid launched
// n-th for n in [first, end) (LaunchOrder; the linear order when
// clusters are one CTA; the range holds whole clusters): they are made
// resident in that order,
// ResidentCTAs at a time, as in the whole launch, and the launch is done
// when they have all exited (NumCTAs then reports end). It must be called
// before the first instruction issues.
//
// A CTA's own execution does not depend on the other CTAs resident beside
// it: the round-robin scheduler visits its warps in the same order
// whichever CTAs share the machine (warps become ready or wait only
// through their own CTA's instructions), so a CTA run on a restricted
// machine executes exactly the instructions, in the same order, that it
// executes in the whole launch, as long as it reads no global memory that
// other CTAs write. engine/launch runs independent CTAs of a launch on
// several machines this way.
func (m *Machine) RestrictCTAs(first, end int) error {
	if m.nextCTA != 0 || len(m.ctas) > 0 || m.stats.WarpInstructions > 0 || m.Stopped() {
		return fmt.Errorf("RestrictCTAs: the launch has already started")
	}
	if first < 0 || end < first || end > m.numCTAs {
		return fmt.Errorf("RestrictCTAs: CTA range [%d, %d) is not within the grid's %d CTAs", first, end, m.numCTAs)
	}
	if first%m.csize != 0 || end%m.csize != 0 {
		return fmt.Errorf("RestrictCTAs: CTA range [%d, %d) does not hold whole clusters of %d CTAs", first, end, m.csize)
	}
	m.nextCTA, m.numCTAs = first, end
	return nil
}

// Relaunch makes a machine whose launch is done run the grid's CTAs with
// linear indices in [first, end) from the start, as a new machine
// restricted to them with RestrictCTAs would: the statistics, the stop
// state and the scheduler start over, and the CTAs resident at the end
// give their memory to the new ones (each new CTA starts zeroed). Global
// memory, parameters, the constant bank, observers and breakpoints are
// left as they are: the caller restores the global memory the CTAs must
// see. It saves a machine per range, and its memory, where many ranges
// run one after the other (engine/launch's parallel workers).
func (m *Machine) Relaunch(first, end int) error {
	if !m.done || m.fault != nil {
		return fmt.Errorf("Relaunch: the launch has not ended")
	}
	g := m.cfg.Grid
	if n := g[0] * g[1] * g[2]; first < 0 || end < first || end > n {
		return fmt.Errorf("Relaunch: CTA range [%d, %d) is not within the grid's %d CTAs", first, end, n)
	}
	if first%m.csize != 0 || end%m.csize != 0 {
		return fmt.Errorf("Relaunch: CTA range [%d, %d) does not hold whole clusters of %d CTAs", first, end, m.csize)
	}
	for _, c := range m.ctas {
		m.leaveCTA(c)
	}
	if !m.obsEvery {
		// As when a CTA retires during a run: a debugger may keep the
		// CTAs it was shown.
		m.free = append(m.free, m.ctas...)
	}
	clear(m.ctas)
	m.ctas = m.ctas[:0]
	m.rebuildWarps()
	m.cursor, m.nextCTA, m.numCTAs, m.finished = 0, first, end, 0
	m.stats, m.sleptNS, m.fault, m.done = Stats{}, 0, nil, false
	m.printf = printfLog{}
	m.bpResume, m.released, m.brkpt = false, false, false
	m.stepOpen, m.lastIssued = false, 0
	m.pendReconv = m.pendReconv[:0]
	m.ahead, m.picked, m.consumed = 0, 0, 0
	m.cur, m.curPC = nil, 0
	return nil
}
