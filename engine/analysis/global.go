package analysis

import "math/bits"

// The global-memory model: memory moves between DRAM/L2 and the SM in
// 32-byte sectors, grouped in 128-byte cache lines. A warp access needs
// every sector that holds a byte one of its lanes asked for; the bytes it
// moves are sectors × 32. Efficiency is the bytes the lanes requested over
// the bytes moved, at most 1 (lanes that read the same bytes are served
// from the same sector, so requested bytes can exceed moved bytes; they
// count as fully efficient). Source: Nsight Compute Profiling Guide,
// "Memory Tables" (sectors per request, 32-byte sectors of 128-byte lines)
// and the CUDA C++ Best Practices Guide, "Coalesced Access to Global
// Memory".

// SectorBytes and LineBytes are the sizes of a sector and a cache line.
const (
	SectorBytes = 32
	LineBytes   = 128
)

// GlobalCost is the model's verdict on one global-memory warp access.
type GlobalCost struct {
	Sectors   int // distinct 32-byte sectors touched
	Lines     int // distinct 128-byte lines touched
	Requested int // bytes the active lanes asked for (lanes × size)
}

// Moved returns the bytes the sectors carry.
func (c GlobalCost) Moved() int { return c.Sectors * SectorBytes }

// Efficiency returns requested / moved bytes, at most 1 (0 when nothing
// moved).
func (c GlobalCost) Efficiency() float64 {
	if c.Sectors == 0 {
		return 0
	}
	return min(1, float64(c.Requested)/float64(c.Moved()))
}

// GlobalSectors applies the model to a (its Space is not checked).
func GlobalSectors(a *WarpAccess) GlobalCost {
	return globalCost(a.Size, a.Lanes, &a.Offset)
}

// globalCost applies the model to the access of size bytes by every lane
// in lanes at addresses off[lane].
func globalCost(size int, lanes uint32, off *[32]uint64) GlobalCost {
	var c GlobalCost
	if lanes == 0 || size <= 0 {
		return c
	}
	// At most 32 lanes × 2 sectors (16-byte accesses are aligned, but a
	// wider or unaligned access can straddle), so a small list suffices;
	// neighbouring lanes mostly share a sector and line, which is checked
	// first.
	var secBuf, lineBuf [64]uint64
	secs, lines := secBuf[:0], lineBuf[:0]
	lastSec, lastLine := ^uint64(0), ^uint64(0)
	c.Requested = bits.OnesCount32(lanes) * size
	span := uint64(size) - 1
	for m := lanes; m != 0; m &= m - 1 {
		lo := off[trailing(m)]
		sLo, sHi := lo/SectorBytes, (lo+span)/SectorBytes
		if sLo == lastSec && sHi == lastSec {
			continue // the previous lane's sector, and so its line
		}
		for s := sLo; s <= sHi; s++ {
			if s != lastSec {
				lastSec = s
				if !contains(secs, s) {
					secs = append(secs, s)
				}
			}
		}
		for ln := lo / LineBytes; ln <= (lo+span)/LineBytes; ln++ {
			if ln != lastLine {
				lastLine = ln
				if !contains(lines, ln) {
					lines = append(lines, ln)
				}
			}
		}
	}
	c.Sectors, c.Lines = len(secs), len(lines)
	return c
}
