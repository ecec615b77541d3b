package cuda

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Loc is a place in the user's CUDA file (1-based line and column).
// Inherited marks a PTX line whose .loc is in the prelude (an inlined
// prelude function such as expf) or has no line (line 0): it is
// attributed to the user's line that was current before it in the same
// function.
type Loc struct {
	Line      int  `json:"line"`
	Col       int  `json:"col"`
	Inherited bool `json:"inherited,omitempty"`
}

// SourceMap maps PTX lines to the user's CUDA lines and back, built from
// the PTX's .file and .loc directives. Only the user's file (KernelFile)
// appears in it; lines from the prelude or clang's headers do not.
type SourceMap struct {
	byPTX  []Loc         // byPTX[i] is PTX line i+1's loc (Line 0: none)
	byCUDA map[int][]int // CUDA line -> PTX lines, ascending
}

// MapPTX builds the map of PTX text compiled from KernelFile.
func MapPTX(ptxText string) *SourceMap { return MapPTXFile(ptxText, KernelFile) }

// MapPTXFile builds the map for the user file named file (matched by its
// base name against the .file directives).
func MapPTXFile(ptxText, file string) *SourceMap {
	lines := strings.Split(ptxText, "\n")
	m := &SourceMap{byPTX: make([]Loc, len(lines)), byCUDA: map[int][]int{}}
	user := map[int]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == ".file" {
			n, err := strconv.Atoi(f[1])
			name := strings.Trim(f[2], "\",")
			if err == nil && path.Base(name) == path.Base(file) {
				user[n] = true
			}
		}
	}
	var cur Loc
	inherit := false
	depth := 0
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if c := strings.Index(t, "//"); c >= 0 {
			t = strings.TrimSpace(t[:c])
		}
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, ".loc") {
			f := strings.Fields(strings.ReplaceAll(t, ",", " "))
			if len(f) >= 3 {
				fn, _ := strconv.Atoi(f[1])
				ln, _ := strconv.Atoi(f[2])
				col := 0
				if len(f) >= 4 {
					col, _ = strconv.Atoi(f[3])
				}
				if user[fn] && ln > 0 {
					cur = Loc{Line: ln, Col: col}
					inherit = false
				} else {
					inherit = true
				}
			}
			continue
		}
		opens, closes := strings.Count(t, "{"), strings.Count(t, "}")
		if depth == 0 && opens == 0 {
			// Outside a function body: directives and declarations.
			if strings.HasPrefix(t, ".entry") || strings.HasPrefix(t, ".visible") || strings.HasPrefix(t, ".func") || strings.HasPrefix(t, ".weak") {
				cur, inherit = Loc{}, false
			}
			continue
		}
		depth += opens - closes
		if depth < 0 {
			depth = 0
		}
		if depth == 0 {
			cur, inherit = Loc{}, false
			continue
		}
		if t[0] == '.' || t[0] == '{' || t[0] == '}' || t[0] == ')' || t[0] == '(' || strings.HasSuffix(t, ":") {
			continue
		}
		if cur.Line == 0 {
			continue
		}
		loc := cur
		loc.Inherited = inherit
		m.byPTX[i] = loc
		m.byCUDA[loc.Line] = append(m.byCUDA[loc.Line], i+1)
	}
	return m
}

// CUDA returns the CUDA location of a 1-based PTX line.
func (m *SourceMap) CUDA(ptxLine int) (Loc, bool) {
	if m == nil || ptxLine < 1 || ptxLine > len(m.byPTX) || m.byPTX[ptxLine-1].Line == 0 {
		return Loc{}, false
	}
	return m.byPTX[ptxLine-1], true
}

// PTXLines returns the PTX lines (1-based, ascending) compiled from a CUDA
// line, including inherited ones.
func (m *SourceMap) PTXLines(cudaLine int) []int {
	if m == nil {
		return nil
	}
	return m.byCUDA[cudaLine]
}

// CUDALines returns the CUDA lines that have PTX, ascending.
func (m *SourceMap) CUDALines() []int {
	if m == nil {
		return nil
	}
	out := make([]int, 0, len(m.byCUDA))
	for l := range m.byCUDA {
		out = append(out, l)
	}
	sort.Ints(out)
	return out
}

// PCLines returns the CUDA line of each pc of a program compiled from the
// mapped PTX (src is the ptx.Source it was compiled from): PCLines(...)[pc]
// is 0 where the instruction has no CUDA line.
func (m *SourceMap) PCLines(prog *emu.Program, src *ptx.Source) []int32 {
	out := make([]int32, len(prog.Spans))
	for pc, sp := range prog.Spans {
		if sp.End <= sp.Start && sp.Start == 0 {
			continue
		}
		if loc, ok := m.CUDA(src.Position(sp.Start).Line); ok {
			out[pc] = int32(loc.Line)
		}
	}
	return out
}

func (m *SourceMap) size() int64 {
	return int64(len(m.byPTX))*24 + int64(len(m.byCUDA))*48
}

// Lines returns the whole table: Lines()[i] is PTX line i+1's location
// (Line 0 where it has none). It is a copy, for sending to a client.
func (m *SourceMap) Lines() []Loc {
	if m == nil {
		return nil
	}
	return append([]Loc(nil), m.byPTX...)
}
