package cuda

import (
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Loc is a place in the user's CUDA file (1-based line and column).
// Inherited marks a PTX line whose .loc is in the prelude or clang's CUDA
// headers (an inlined function such as expf or __shfl_down_sync, or a
// built-in variable such as threadIdx) or has no line (line 0): it is
// attributed to a user line next to it (see MapPTXSource).
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

// MapPTX builds the map of PTX text compiled from KernelFile, without its
// source (inlined header code goes to the user line before it).
func MapPTX(ptxText string) *SourceMap { return MapPTXSource(ptxText, KernelFile, "") }

// MapPTXFile builds the map for the user file named file (matched by its
// base name against the .file directives), without its source.
func MapPTXFile(ptxText, file string) *SourceMap { return MapPTXSource(ptxText, file, "") }

// specialRegVar names the CUDA built-in variable a special register is
// read for (clang-19 inlines its accessors from __clang_cuda_builtin_vars.h).
var specialRegVar = []struct{ reg, name string }{
	{"%nctaid.", "gridDim"}, {"%ctaid.", "blockIdx"}, {"%ntid.", "blockDim"}, {"%tid.", "threadIdx"}, {"WARP_SZ", "warpSize"},
}

func isSpecialRead(ins string) bool {
	for _, sr := range specialRegVar {
		if strings.Contains(ins, sr.reg) {
			return true
		}
	}
	return false
}

// preludeFuncAt maps a line of ptxplay_libdevice.h to the name the user
// writes for the __nv_* function defined there ("expf" for __nv_expf; ""
// for helpers and lines outside a function). It is made on first use.
var preludeFuncAt = sync.OnceValue(func() []string {
	b, _ := preludeFS.ReadFile("prelude/ptxplay_libdevice.h")
	var out []string
	name := ""
	def := regexp.MustCompile(`^(?:__PTXPLAY_NV|__device__)\b[^(]*?\b([A-Za-z_][A-Za-z0-9_]*)\(`)
	for _, l := range strings.Split(string(b), "\n") {
		if d := def.FindStringSubmatch(l); d != nil {
			name = ""
			if strings.HasPrefix(d[1], "__nv_") {
				name = strings.TrimPrefix(strings.TrimPrefix(d[1], "__nv_"), "fast_")
			}
		} else if !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "}") {
			name = ""
		}
		out = append(out, name)
	}
	return out
})

// callRE finds a call (or a function-style cast) on a source line.
var callRE = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

var notCalls = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "return": true, "sizeof": true, "alignof": true, "__attribute__": true, "__launch_bounds__": true, "asm": true, "volatile": true}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// firstCol is the 1-based column of a line's first non-blank character.
func firstCol(text string) int {
	return len(text) - len(strings.TrimLeft(text, " \t")) + 1
}

// lineCalls reports whether a source line calls a function.
func lineCalls(text string) bool {
	for _, m := range callRE.FindAllStringSubmatch(text, -1) {
		if !notCalls[m[1]] {
			return true
		}
	}
	return false
}

// MapPTXSource builds the map for the user file named file, given its
// source text src ("" when unknown). clang-19 emits no .loc inlined_at,
// so the instructions of an inlined header function (a run of .loc lines
// in the prelude or clang's headers) carry no user line. Such a run is
// attributed to a user line next to it: the line after it when that line
// is what uses it and the line before does not (the line after reads the
// built-in variable the run reads, or calls a function, and the line
// before does not), else the line before. A run at the start of a
// function (before any user line but the function's opening one) goes to
// the line after it. Without src the line before is used wherever there
// is one. Instructions at .loc line 0 keep the line before them.
func MapPTXSource(ptxText, file, src string) *SourceMap {
	lines := strings.Split(ptxText, "\n")
	srcLines := strings.Split(src, "\n")
	srcLine := func(n int) string {
		if src == "" || n < 1 || n > len(srcLines) {
			return ""
		}
		return srcLines[n-1]
	}
	m := &SourceMap{byPTX: make([]Loc, len(lines)), byCUDA: map[int][]int{}}
	user := map[int]bool{}
	libdevice := map[int]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == ".file" {
			n, err := strconv.Atoi(f[1])
			name := strings.Trim(f[2], "\",")
			if err == nil && path.Base(name) == path.Base(file) {
				user[n] = true
			}
			if err == nil && path.Base(name) == "ptxplay_libdevice.h" {
				libdevice[n] = true
			}
		}
	}
	// Each instruction of a function body, in order, with what its .loc says.
	type ins struct {
		line   int  // PTX line index
		loc    Loc  // the user loc in force (Line 0: none)
		header bool // .loc in a header: resolved as a run
		zero   bool // .loc line 0: keeps the line before
		open   bool // loc is the function's opening line
		text   string
		name   string // the user's name of the prelude function it is in
	}
	var fn []ins
	flush := func() {
		// Resolve each run of header instructions.
		for a := 0; a < len(fn); {
			if !fn[a].header {
				a++
				continue
			}
			// A special-register read is a run of its own (clang emits the
			// reads of several built-in variables together).
			b := a + 1
			for !isSpecialRead(fn[a].text) && b < len(fn) && fn[b].header && !isSpecialRead(fn[b].text) {
				b++
			}
			prev := fn[a].loc
			prevOpen := fn[a].open
			var next Loc
			c := b
			for c < len(fn) && fn[c].header {
				c++
			}
			if c < len(fn) && fn[c].loc.Line > 0 && !fn[c].open {
				next = fn[c].loc
			}
			// The names the user wrote for what the run computes.
			names := map[string]bool{}
			for _, x := range fn[a:b] {
				for _, sr := range specialRegVar {
					if strings.Contains(x.text, sr.reg) {
						names[sr.name] = true
					}
				}
				if x.name != "" {
					names[x.name] = true
				}
			}
			uses := func(n int) bool {
				t := srcLine(n)
				if c := strings.Index(t, "//"); c >= 0 {
					t = t[:c]
				}
				if len(names) > 0 {
					for _, w := range identRE.FindAllString(t, -1) {
						if names[w] {
							return true
						}
					}
					return false
				}
				return lineCalls(t)
			}
			pick := prev
			switch {
			case next.Line == 0:
			case prev.Line == 0:
				pick = next
			case !prevOpen && uses(prev.Line):
			default:
				// The first line after prev, up to next, that uses it.
				lo := prev.Line + 1
				if lo > next.Line {
					lo = next.Line
				}
				if prevOpen {
					pick = next
				}
				for n := lo; n <= next.Line; n++ {
					if uses(n) {
						pick = Loc{Line: n, Col: firstCol(srcLine(n))}
						if n == next.Line {
							pick = next
						}
						break
					}
				}
			}
			for i := a; i < b; i++ {
				fn[i].loc = pick
			}
			a = b
		}
		for _, x := range fn {
			if x.loc.Line == 0 {
				continue
			}
			loc := x.loc
			loc.Inherited = x.header || x.zero
			m.byPTX[x.line] = loc
			m.byCUDA[loc.Line] = append(m.byCUDA[loc.Line], x.line+1)
		}
		fn = fn[:0]
	}
	var cur Loc
	header, lineZero, open, seenLoc := false, false, false, false
	name := ""
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
				fnum, _ := strconv.Atoi(f[1])
				ln, _ := strconv.Atoi(f[2])
				col := 0
				if len(f) >= 4 {
					col, _ = strconv.Atoi(f[3])
				}
				switch {
				case user[fnum] && ln > 0:
					cur = Loc{Line: ln, Col: col}
					header, lineZero = false, false
					// The first .loc of a function is its opening line.
					open = !seenLoc && depth > 0
				case user[fnum]:
					lineZero, header = true, false
				default:
					header, lineZero = true, false
					name = ""
					if at := preludeFuncAt(); libdevice[fnum] && ln >= 1 && ln <= len(at) {
						name = at[ln-1]
					}
				}
				seenLoc = true
			}
			continue
		}
		opens, closes := strings.Count(t, "{"), strings.Count(t, "}")
		if depth == 0 && opens == 0 {
			// Outside a function body: directives and declarations.
			if strings.HasPrefix(t, ".entry") || strings.HasPrefix(t, ".visible") || strings.HasPrefix(t, ".func") || strings.HasPrefix(t, ".weak") {
				cur, header, lineZero, open, seenLoc = Loc{}, false, false, false, false
			}
			continue
		}
		depth += opens - closes
		if depth < 0 {
			depth = 0
		}
		if depth == 0 {
			flush()
			cur, header, lineZero, open, seenLoc = Loc{}, false, false, false, false
			continue
		}
		if t[0] == '{' || t[0] == '}' {
			// A scoped block on one line, as inline asm writes it
			// ("{ .reg .pred p; mbarrier.try_wait... p, ...; selp... }"):
			// its instructions are the line's.
			if t = scopedInstructions(t); t == "" {
				continue
			}
		}
		if t[0] == '.' || t[0] == ')' || t[0] == '(' || strings.HasSuffix(t, ":") {
			continue
		}
		fn = append(fn, ins{line: i, loc: cur, header: header, zero: lineZero, open: open, text: t, name: name})
	}
	flush()
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

// scopedInstructions is what a line that opens or closes a scope holds
// besides braces and declarations: its instructions, "" when none.
func scopedInstructions(t string) string {
	var out []string
	for _, st := range strings.Split(strings.NewReplacer("{", ";", "}", ";").Replace(t), ";") {
		if st = strings.TrimSpace(st); st != "" && st[0] != '.' {
			out = append(out, st)
		}
	}
	return strings.Join(out, "; ")
}
