package sessions

import (
	"slices"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// A warp's asynchronous work in flight, as states report it: today the
// cp.async copies that have not landed (emu.Warp.PendingCopies), by commit
// group. The summary counts every copy; the list of copies is bounded.

// maxAsyncItems bounds the copies a warp's async report lists, and
// maxAsyncGroups its commit groups (a loop that commits a group per
// iteration has thousands in flight).
const (
	maxAsyncItems  = 64
	maxAsyncGroups = 16
)

// asyncOf summarises w's asynchronous work in flight, or nil when there is
// none.
func (s *Session) asyncOf(w *emu.Warp) *asyncJSON {
	cs := w.PendingCopies()
	if len(cs) == 0 {
		return nil
	}
	a := &asyncJSON{Copies: len(cs), Groups: []asyncGroupJSON{}, Items: []asyncCopyJSON{}}
	type key struct {
		group     uint32
		committed bool
	}
	at := map[key]int{}
	for _, c := range cs {
		a.Bytes += c.Size
		line := s.prog.line(c.PC)
		k := key{c.Group, c.Committed}
		gi, ok := at[k]
		if !ok {
			gi = len(a.Groups)
			at[k] = gi
			a.Groups = append(a.Groups, asyncGroupJSON{Group: int(c.Group), Committed: c.Committed, Lines: []int{}})
		}
		g := &a.Groups[gi]
		g.Copies++
		g.Bytes += c.Size
		g.lanes |= 1 << c.Lane
		if !slices.Contains(g.Lines, line) {
			g.Lines = append(g.Lines, line)
			if s.cu != nil {
				g.CUDALines = append(g.CUDALines, s.cline(c.PC))
			}
		}
		if len(a.Items) < maxAsyncItems {
			a.Items = append(a.Items, asyncCopyJSON{Lane: c.Lane, PC: c.PC, Line: line, CUDALine: s.cline(c.PC), Group: int(c.Group), Committed: c.Committed,
				Src: hex64(c.Src), Dst: c.Dst, Size: c.Size})
		} else {
			a.More++
		}
	}
	// Oldest group first; a lane's open group comes after its committed ones.
	slices.SortStableFunc(a.Groups, func(x, y asyncGroupJSON) int {
		if x.Group != y.Group {
			return x.Group - y.Group
		}
		if x.Committed != y.Committed {
			if x.Committed {
				return -1
			}
			return 1
		}
		return 0
	})
	for i := range a.Groups {
		g := &a.Groups[i]
		g.Lanes = hex32(g.lanes)
		sortLinePairs(g.Lines, g.CUDALines)
		if g.Committed {
			a.Committed++
		} else {
			a.Open++
		}
	}
	if len(a.Groups) > maxAsyncGroups {
		a.GroupsMore = len(a.Groups) - maxAsyncGroups
		a.Groups = a.Groups[:maxAsyncGroups:maxAsyncGroups]
	}
	return a
}

// wgmmaOf summarises w's wgmma.mma_async results in flight, or nil when
// there are none.
func (s *Session) wgmmaOf(w *emu.Warp) *wgmmaAsyncJSON {
	gs := w.PendingWgmma()
	if len(gs) == 0 {
		return nil
	}
	a := &wgmmaAsyncJSON{Groups: []wgmmaGroupJSON{}}
	for _, g := range gs {
		a.Ops += len(g.PCs)
		if g.Committed {
			a.Committed++
		} else {
			a.Open++
		}
		if len(a.Groups) == maxAsyncGroups {
			a.GroupsMore++
			continue
		}
		j := wgmmaGroupJSON{Group: int(g.Group), Committed: g.Committed, Ops: len(g.PCs), Lines: []int{}}
		for _, pc := range g.PCs {
			if l := s.prog.line(pc); !slices.Contains(j.Lines, l) {
				j.Lines = append(j.Lines, l)
			}
		}
		slices.Sort(j.Lines)
		a.Groups = append(a.Groups, j)
	}
	return a
}

// sortLinePairs sorts PTX lines ascending, keeping cuda (nil, or one CUDA
// line per PTX line) beside them.
func sortLinePairs(lines, cuda []int) {
	if len(cuda) != len(lines) {
		slices.Sort(lines)
		return
	}
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return lines[a] - lines[b] })
	l, c := slices.Clone(lines), slices.Clone(cuda)
	for i, k := range idx {
		lines[i], cuda[i] = l[k], c[k]
	}
}
