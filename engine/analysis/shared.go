package analysis

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// The shared-memory model.
//
// Shared memory is divided into 32 banks of 4-byte words: the word at
// byte offset o is in bank (o/4) % 32, and every bank serves one word per
// cycle. A warp's request is served in wavefronts (NVIDIA's name for the
// unit of work the L1/shared pipeline processes in one cycle); the rules
// the model follows are:
//
//   - Lanes are served in phases: all 32 lanes at once for accesses of up
//     to 32 bits, two half-warps (lanes 0–15, 16–31) for 64-bit accesses
//     and four quarter-warps (lanes 0–7, 8–15, ...) for 128-bit accesses,
//     so that a phase moves at most 128 bytes. ldmatrix/stmatrix rows are
//     16 bytes per lane (lane 8j+r gives row r of matrix j): each phase is
//     one 8×8 matrix.
//   - Within a phase, a bank that must deliver k distinct words needs k
//     wavefronts (a k-way bank conflict); the phase takes the maximum over
//     its banks. Lanes that read the same word share it (broadcast, no
//     conflict); lanes that store to the same word do not conflict either
//     (one of the writes wins). Atomics to the same word are modelled as
//     serialised, one wavefront per lane, since each update must be
//     applied.
//   - The access takes the sum of its phases' wavefronts.
//
// The ideal is the least number of wavefronts that can move the bytes the
// active lanes asked for: ceil(active lanes × size / 128), at least 1.
//
// Sources: NVIDIA CUDA C++ Programming Guide, "Shared Memory" in the
// compute capability 5.x+ sections (32 banks of successive 32-bit words,
// broadcast on reads of one word, a single writer on stores to one word;
// docs.nvidia.com/cuda/cuda-c-programming-guide/#shared-memory-5-x); the
// Nsight Compute Profiling Guide, "Memory Tables" (shared-memory
// wavefronts and ideal wavefronts, L1TEX sectors and requests;
// docs.nvidia.com/nsight-compute/ProfilingGuide/#memory-tables) and the
// NVIDIA developer forum's explanation of wavefronts versus sectors
// (forums.developer.nvidia.com/t/165293). The half- and quarter-warp
// phases of 64- and 128-bit accesses are the behaviour those documents
// and NVIDIA's forum answers describe for Volta and later; they are a
// model, not a measurement of a particular GPU.

// Banks is the number of shared-memory banks; BankBytes the width of one.
const (
	Banks     = 32
	BankBytes = 4
)

// Bank returns the bank of the shared-memory byte at offset off.
func Bank(off uint64) int { return int(off/BankBytes) % Banks }

// LaneBanks returns the bank of each lane's first byte (-1 for lanes that
// did not take part).
func LaneBanks(a *WarpAccess) [32]int {
	var b [32]int
	for l := range b {
		b[l] = -1
		if a.Lanes&(1<<l) != 0 {
			b[l] = Bank(a.Offset[l])
		}
	}
	return b
}

// phaseLanes returns the number of lanes served together for accesses of
// size bytes per lane.
func phaseLanes(size int) int {
	switch {
	case size <= 4:
		return 32
	case size <= 8:
		return 16
	}
	return 8
}

// SharedCost is the model's verdict on one shared-memory warp access.
type SharedCost struct {
	Wavefronts int // wavefronts the access takes
	Ideal      int // the least it could take for its size and active lanes
}

// Degree returns the conflict degree, wavefronts per ideal wavefront (1:
// conflict-free; 0 for an empty access).
func (c SharedCost) Degree() float64 {
	if c.Ideal == 0 {
		return 0
	}
	return float64(c.Wavefronts) / float64(c.Ideal)
}

// SharedWavefronts applies the model to a (its Space is not checked).
func SharedWavefronts(a *WarpAccess) SharedCost {
	return sharedCost(a.Kind, a.Size, a.Lanes, &a.Offset)
}

// sharedCost applies the model to the access of size bytes by every lane
// in lanes at offsets off[lane].
func sharedCost(kind emu.AccessKind, size int, lanes uint32, off *[32]uint64) SharedCost {
	if lanes == 0 || size <= 0 {
		return SharedCost{}
	}
	active := bits.OnesCount32(lanes)
	ideal := (active*size + Banks*BankBytes - 1) / (Banks * BankBytes)
	pl := phaseLanes(size)
	atomic := kind == emu.AccessAtomic
	if !atomic {
		if phases, ok := sharedConflictFree(size, lanes, off, pl); ok {
			return SharedCost{Wavefronts: phases, Ideal: max(ideal, 1)}
		}
	}
	return SharedCost{Wavefronts: sharedCounted(atomic, size, lanes, off, pl), Ideal: max(ideal, 1)}
}

// sharedCounted counts the wavefronts of an access with pl lanes per
// phase: the sum over its phases of the most distinct words one bank must
// deliver.
func sharedCounted(atomic bool, size int, lanes uint32, off *[32]uint64, pl int) int {
	total := 0
	var extra [64]uint64 // words beyond each bank's first, in this phase
	for p := 0; p < 32; p += pl {
		mask := lanes & phaseMask(p, pl)
		if mask == 0 {
			continue
		}
		// Count the distinct words each bank must deliver (every lane's
		// word for atomics). A bank's first word is kept apart so that
		// the common, conflict-free case compares once per word.
		var first [Banks]uint64
		var count [Banks]int
		used := uint32(0)
		more := extra[:0]
		worst := 0
		for m := mask; m != 0; m &= m - 1 {
			l := trailing(m)
			lo := off[l] / BankBytes
			hi := (off[l] + uint64(size) - 1) / BankBytes
			for w := lo; w <= hi; w++ {
				b := int(w % Banks)
				switch {
				case used&(1<<b) == 0:
					used |= 1 << b
					first[b] = w
				case !atomic && (first[b] == w || contains(more, w)):
					continue // broadcast (loads) or one winning write (stores)
				default:
					more = append(more, w)
				}
				count[b]++
				worst = max(worst, count[b])
			}
		}
		total += worst
	}
	return total
}

// sharedConflictFree counts the phases of a load or store that has no
// bank conflict: every bank delivers at most one distinct word per phase,
// so each phase that has lanes takes one wavefront. It reports false on
// the first conflict (sharedCost then counts the wavefronts).
func sharedConflictFree(size int, lanes uint32, off *[32]uint64, pl int) (int, bool) {
	if size == 4 && lanes == ^uint32(0) {
		if free, known := sharedRegular4(off, ^uint64(0), 0); known {
			return 1, free
		}
	}
	if size == 4 || size == 2 || size == 1 {
		// One phase; an aligned access is one word.
		var first [Banks]uint64
		used := uint32(0)
		for m := lanes; m != 0; m &= m - 1 {
			o := off[trailing(m)]
			w := o / BankBytes
			if o&(uint64(size)-1) != 0 {
				return 0, false // unaligned: the general count handles it
			}
			b := w % Banks
			if used&(1<<b) == 0 {
				used |= 1 << b
				first[b] = w
			} else if first[b] != w {
				return 0, false
			}
		}
		return 1, true
	}
	phases := 0
	span := uint64(size) - 1
	for p := 0; p < 32; p += pl {
		mask := lanes & phaseMask(p, pl)
		if mask == 0 {
			continue
		}
		phases++
		var first [Banks]uint64
		used := uint32(0)
		for m := mask; m != 0; m &= m - 1 {
			o := off[trailing(m)]
			hi := (o + span) / BankBytes
			for w := o / BankBytes; w <= hi; w++ {
				bit := uint32(1) << (w % Banks)
				if used&bit == 0 {
					used |= bit
					first[w%Banks] = w
				} else if first[w%Banks] != w {
					return 0, false
				}
			}
		}
	}
	return phases, true
}

// sharedRegular4 decides a full warp's aligned 4-byte access without a
// bank table when each half-warp reads one word (a broadcast, or a tile's
// row read by two rows of threads) or consecutive words from the same or
// consecutive starts (a row of 32 words, or a tile's column read twice):
// known reports whether it applied, free whether the access is then
// conflict-free (two broadcast words conflict when they are different
// words of one bank). Lane l's offset is off + base[l]&am.
func sharedRegular4(base *[32]uint64, am, off uint64) (free, known bool) {
	return patternCost(emu.ClassifyWarp(base, am, off))
}

// patternCost is sharedRegular4 for offsets of pattern p from o0 and o16.
func patternCost(p emu.WarpPattern, o0, o16 uint64) (free, known bool) {
	switch p {
	case emu.PatternBroadcastHalves:
		w0, w16 := o0/4, o16/4
		return w0 == w16 || w0%Banks != w16%Banks, true
	case emu.PatternRunHalves:
		return true, true
	}
	return false, false
}

func phaseMask(first, n int) uint32 {
	if n >= 32 {
		return ^uint32(0)
	}
	return (uint32(1)<<n - 1) << first
}

func contains(ws []uint64, w uint64) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

func trailing(m uint32) int { return bits.TrailingZeros32(m) }

// SharedLanes is the model's verdict on every lane of one shared-memory
// warp access: the cost of SharedWavefronts and, for each lane, the
// wavefront that serves it.
type SharedLanes struct {
	SharedCost
	// Wave[l] is the wavefront (0-based, counted across the phases in
	// lane order) in which the last of lane l's words is delivered; -1 for
	// lanes that did not take part. Within a phase, the distinct words a
	// bank delivers are numbered in the order the lanes ask for them (every
	// lane's word for atomics), so the phase's lanes use wavefronts base
	// .. base+worst-1, and the largest Wave plus one is Wavefronts.
	Wave [32]int
	// Conflict holds the lanes that share a bank with another word (or,
	// for atomics, another update) in their phase: the lanes the conflict
	// serialises.
	Conflict uint32
	// Broadcast holds the lanes of a load that read a word another lane of
	// their phase reads too (served once); for stores, the lanes that
	// write the same word as another (one write wins).
	Broadcast uint32
}

// SharedLaneWavefronts applies the model of SharedWavefronts to every lane
// of a (its Space is not checked); its SharedCost always equals
// SharedWavefronts(a).
func SharedLaneWavefronts(a *WarpAccess) SharedLanes {
	var r SharedLanes
	for l := range r.Wave {
		r.Wave[l] = -1
	}
	if a.Lanes == 0 || a.Size <= 0 {
		return r
	}
	active := bits.OnesCount32(a.Lanes)
	ideal := (active*a.Size + Banks*BankBytes - 1) / (Banks * BankBytes)
	pl := phaseLanes(a.Size)
	atomic := a.Kind == emu.AccessAtomic
	// One entry per distinct word a bank delivers in the phase (per lane
	// for atomics): its wavefront within the phase and the first lane
	// that asked for it.
	type word struct {
		w     uint64
		index int
		lane  int
	}
	var buf [128]word
	base := 0
	for p := 0; p < 32; p += pl {
		mask := a.Lanes & phaseMask(p, pl)
		if mask == 0 {
			continue
		}
		var count [Banks]int
		words := buf[:0]
		var laneBanks [32]uint32 // the banks each lane's words are in
		worst := 0
		for m := mask; m != 0; m &= m - 1 {
			l := trailing(m)
			lo := a.Offset[l] / BankBytes
			hi := (a.Offset[l] + uint64(a.Size) - 1) / BankBytes
			wave := 0
			for w := lo; w <= hi; w++ {
				b := int(w % Banks)
				laneBanks[l] |= 1 << b
				index := -1
				if !atomic {
					for i := range words {
						if words[i].w == w {
							index = words[i].index
							r.Broadcast |= 1<<l | 1<<words[i].lane
							break
						}
					}
				}
				if index < 0 {
					index = count[b]
					count[b]++
					words = append(words, word{w: w, index: index, lane: l})
					worst = max(worst, count[b])
				}
				wave = max(wave, index)
			}
			r.Wave[l] = base + wave
		}
		var crowded uint32 // banks that deliver more than one word
		for b, n := range count {
			if n > 1 {
				crowded |= 1 << b
			}
		}
		for m := mask; m != 0; m &= m - 1 {
			l := trailing(m)
			if laneBanks[l]&crowded != 0 {
				r.Conflict |= 1 << l
			}
		}
		base += worst
	}
	r.SharedCost = SharedCost{Wavefronts: base, Ideal: max(ideal, 1)}
	return r
}
