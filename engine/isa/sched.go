package isa

import "fmt"

// Scheduling is the model by which the lanes of a warp that diverged are
// scheduled (see docs/emulator.md, "Scheduling models"). It is data here,
// beside the ISA tables, so that the launch spec can be checked without
// the emulator; engine/emu implements the models.
type Scheduling string

const (
	// SchedDefault picks the model from the module's .target:
	// SchedIndependent for sm_70 and later, SchedSIMTStack before.
	SchedDefault Scheduling = ""
	// SchedIndependent is independent thread scheduling (sm_70+): the
	// divergent paths of a warp are thread groups that take turns, and
	// lanes waiting to reconverge never block the others for long.
	SchedIndependent Scheduling = "independent"
	// SchedSIMTStack is the pre-Volta reconvergence stack: the top path
	// runs until it reaches its reconvergence point.
	SchedSIMTStack Scheduling = "simt-stack"
)

// ParseScheduling accepts "", "independent" and "simt-stack".
func ParseScheduling(s string) (Scheduling, error) {
	switch Scheduling(s) {
	case SchedDefault, SchedIndependent, SchedSIMTStack:
		return Scheduling(s), nil
	}
	return "", fmt.Errorf("scheduling %q: must be \"independent\" or \"simt-stack\"", s)
}
