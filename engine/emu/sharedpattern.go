package emu

import "encoding/binary"

// Whole-warp 4-byte shared-memory accesses of a regular pattern
// (ClassifyWarp): the fast ld/st paths classify a full warp's offsets
// once, move its words by the pattern and apply the phase filter and the
// sink by it, instead of lane by lane. Each is what the lane-by-lane path
// does for the same offsets (TestSharedPatternFilter,
// TestSharedPatternAccesses).

// patternIn reports whether the words of pattern p at o0 and o16 lie in a
// shared window of n bytes.
func patternIn(p WarpPattern, o0, o16 uint64, n int) bool {
	switch p {
	case PatternBroadcastHalves:
		return n >= 4 && o0 <= uint64(n-4) && o16 <= uint64(n-4)
	case PatternRunHalves:
		return n >= 64 && o0 <= uint64(n-64) && o16 <= uint64(n-64)
	}
	return false
}

// loadShared4 loads a full warp's 4-byte words of sh at offsets
// off + base[l]&am when they follow a pattern of ClassifyWarp inside sh,
// and returns the pattern and the offsets of lanes 0 and 16; PatternNone
// when they do not (nothing loaded). It reads all the addresses before it
// writes d, so d may be base.
func loadShared4(d, base *[32]uint64, am, off uint64, sh []byte) (WarpPattern, uint64, uint64) {
	if ixVec && len(sh) > 0 {
		return loadSharedVec(d, base, am, off, &sh[0], uint64(len(sh)))
	}
	return loadSharedGo(d, base, am, off, sh)
}

// loadSharedGo is loadShared4 in Go (TestSharedPatternVec compares it with
// the vector routine).
func loadSharedGo(d, base *[32]uint64, am, off uint64, sh []byte) (WarpPattern, uint64, uint64) {
	p, o0, o16 := classifyWarpGo(base, am, off)
	switch {
	case !patternIn(p, o0, o16, len(sh)):
		return PatternNone, o0, o16
	case p == PatternBroadcastHalves:
		fillHalvesGo(d, uint64(binary.LittleEndian.Uint32(sh[o0:])), uint64(binary.LittleEndian.Uint32(sh[o16:])))
	default:
		loadRunsGo(d, sh[o0:o0+64], sh[o16:o16+64])
	}
	return p, o0, o16
}

func fillHalvesGo(d *[32]uint64, v0, v16 uint64) {
	for l := range 16 {
		d[l], d[l+16] = v0, v16
	}
}

func loadRunsGo(d *[32]uint64, lo, hi []byte) {
	lo, hi = lo[:64], hi[:64]
	for l := range 16 {
		d[l] = uint64(binary.LittleEndian.Uint32(lo[4*l:]))
		d[l+16] = uint64(binary.LittleEndian.Uint32(hi[4*l:]))
	}
}

// storeRow4 stores the low words of src to the 32 consecutive words of sh
// from o (a full warp's store of a row: PatternRunHalves with o16 = o + 64,
// in bounds).
func storeRow4(sh []byte, o uint64, src *[32]uint64) {
	row := sh[o : o+128]
	if ixVec {
		storeRowVec(&row[0], src)
		return
	}
	storeRowGo(row, src)
}

func storeRowGo(row []byte, src *[32]uint64) {
	row = row[:128]
	for l := range 32 {
		binary.LittleEndian.PutUint32(row[4*l:], uint32(src[l]))
	}
}

// patternWrite applies a full warp's 4-byte store of pattern p (lane l at
// off + base[l]&am) to the phase filter and the sink.
func (w *Warp) patternWrite(base *[32]uint64, am, off uint64, p WarpPattern, o0, o16 uint64) {
	if c := w.sfBegin(); c != nil {
		if l := sfWritesPattern(c.sfAcc, c.sfWr, base, am, off, uint32(w.ID)*32+1, p, o0, o16); l >= 0 {
			w.m.sfSuspect(w, l, off+base[l]&am, sfWhat(true))
		}
	}
	if w.m.plainSink {
		w.m.sink.PlainShared(w.m.curPC, AccessStore, 4, ixAll, base, am, off)
	}
}

// patternRead applies a full warp's 4-byte load of pattern p, lanes 0-15
// from offset o0 and 16-31 from o16, to the phase filter and the sink
// (loadShared4 loaded it: the addresses may be gone).
func (w *Warp) patternRead(p WarpPattern, o0, o16 uint64) {
	m := w.m
	if c := w.sfBegin(); c != nil {
		me0 := uint32(w.ID)*32 + 1
		if !sfReadsPattern(c.sfAcc, c.sfWr, me0, p, o0, o16) {
			// Lane by lane from the start, to find the first suspect
			// lane.
			base := &m.addrCopy
			p.Offsets(o0, o16, base)
			if l := sfReadsLanes(c.sfAcc, c.sfWr, ixAll, base, ^uint64(0), 0, me0); l >= 0 {
				m.sfSuspect(w, l, base[l], sfWhat(false))
			}
		}
	}
	if m.plainSink {
		m.sink.PlainSharedPattern(m.curPC, AccessLoad, p, o0, o16)
	}
}

// sfReadsPattern applies a full warp's reads of pattern p (threads me0 +
// lane) to a CTA's words acc and wr by the pattern, and reports whether
// none was suspect; else it reports false with some of them applied
// (applying a read again changes nothing), for the lane-by-lane path to
// decide. Words read by several threads and nothing else in the phase
// (sfMany) need nothing more.
func sfReadsPattern(acc []uint32, wr []uint8, me0 uint32, p WarpPattern, o0, o16 uint64) bool {
	i0, i16 := o0>>2, o16>>2
	switch {
	case p == PatternBroadcastHalves:
		if i0 < uint64(len(acc)) && i16 < uint64(len(acc)) && acc[i0] == sfMany && acc[i16] == sfMany {
			return true
		}
		return sfManyWords(acc, wr, i0, 1) && sfManyWords(acc, wr, i16, 1)
	case p == PatternRunHalves && o16 == o0:
		if i0+16 <= uint64(len(acc)) && allMany(acc[i0:i0+16]) {
			return true
		}
		return sfManyWords(acc, wr, i0, 16)
	case p == PatternRunHalves && o16 == o0+64:
		return sfOwnReads(acc, wr, i0, me0)
	}
	return false
}

// sfWritesPattern is sfWrites for a full warp's writes of pattern p.
func sfWritesPattern(acc []uint32, wr []uint8, base *[32]uint64, am, off uint64, me0 uint32, p WarpPattern, o0, o16 uint64) int {
	if p == PatternRunHalves && o16 == o0+64 && sfOwnWrites(acc, wr, o0>>2, me0) {
		return -1
	}
	return sfWrites(acc, wr, ixAll, base, am, off, me0)
}

// allMany reports whether the 16 words of acc were each read by several
// threads (sfMany): reads by several threads change nothing there.
func allMany(acc []uint32) bool {
	if ixVec {
		return allManyVec(&acc[:16][0])
	}
	return allManyGo(acc)
}

func allManyGo(acc []uint32) bool {
	var d uint32
	for _, x := range acc[:16] {
		d |= x ^ sfMany
	}
	return d == 0
}

// sfOwnReads applies the reads of the 32 words from i, word i+l by thread
// me0+l (sfRead of each), and reports whether none was suspect; else it
// reports false with some of the words applied (applying a read again
// changes nothing), for the lane-by-lane path to decide.
func sfOwnReads(acc []uint32, wr []uint8, i uint64, me0 uint32) bool {
	if i+32 > uint64(len(acc)) || len(wr) != len(acc) {
		return false
	}
	if ixVec {
		return ownReadsVec(&acc[i], &wr[i], me0)
	}
	return ownReadsGo(acc[i:i+32], wr[i:i+32], me0)
}

func ownReadsGo(a []uint32, r []uint8, me0 uint32) bool {
	r = r[:len(a)]
	for l := range a {
		x, me := a[l], me0+uint32(l)
		if x == sfMany {
			continue
		}
		if r[l] != 0xf {
			return false // bytes never written, or a copy in flight
		}
		if w := x >> 16; w != 0 && w != me {
			return false
		}
		if rd := x & sfReaderMask; rd == 0 {
			a[l] = x | me
		} else if rd != me {
			a[l] = x | sfMany
		}
	}
	return true
}

// sfOwnWrites applies the writes of the 32 words from i, word i+l by thread
// me0+l (sfWord's rule for each), and reports whether none was suspect;
// else it reports false with some of the words applied (applying a write
// again changes nothing), for the lane-by-lane path to decide.
func sfOwnWrites(acc []uint32, wr []uint8, i uint64, me0 uint32) bool {
	if i+32 > uint64(len(acc)) || len(wr) != len(acc) {
		return false
	}
	if ixVec {
		return ownWritesVec(&acc[i], &wr[i], me0)
	}
	return ownWritesGo(acc[i:i+32], wr[i:i+32], me0)
}

func ownWritesGo(a []uint32, r []uint8, me0 uint32) bool {
	r = r[:len(a)]
	for l := range a {
		x, me := a[l], me0+uint32(l)
		// Only this thread's own read or write before, and no copy to
		// it in flight.
		if w, rd := x>>16, x&sfReaderMask; w != 0 && w != me || rd != 0 && rd != me || r[l]&sfPend != 0 {
			return false
		}
		a[l] = me<<16 | x&(sfReaderMask|sfPart)
		r[l] = 0xf
	}
	return true
}
