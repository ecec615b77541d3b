package emu

import "fmt"

// RestrictCTAs makes the machine run only the CTAs of the grid with linear
// indices in [first, end): they are made resident in linear order,
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
	m.nextCTA, m.numCTAs = first, end
	return nil
}
