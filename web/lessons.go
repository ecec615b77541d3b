package web

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/launchspec"
)

// Lesson is the teaching material of a gallery example: what the kernel
// shows, where to look while stepping it, and the result it produces.
type Lesson struct {
	// Explanation is a short paragraph (2–4 sentences) for a student.
	Explanation string `json:"explanation"`
	// Hints say what to watch, in the order a student meets them.
	Hints []LessonHint `json:"hints"`
	// Expect is the result the launch produces, stated in words and in a
	// form a test checks.
	Expect LessonExpect `json:"expect"`
}

// LessonHint points at one line of the kernel and the part of the
// playground where its effect shows.
//
// A hint names a PTX line with Line (the lessons of PTX examples) or a
// CUDA line with CUDALine (the lessons of CUDA twins, CUDAExample), never
// both: a CUDA lesson's hints all have CUDALine and PTX, and no Line; a PTX
// lesson's hints have Line and neither CUDALine nor PTX.
type LessonHint struct {
	// Line is the 1-based line of the PTX source: an instruction, a label
	// or a declaration, never a blank or comment-only line. It is 0 in a
	// CUDA lesson (index.json leaves it out there).
	Line int `json:"line"`
	// CUDALine is the 1-based line of the CUDA source (kernel.cu) of a
	// CUDA lesson: a line with code, never a blank or comment-only line.
	CUDALine int `json:"cudaLine,omitempty"`
	// PTX, in a CUDA lesson, is the start of the PTX instruction the hint
	// is about ("bar.sync", "shfl.sync.down", "mma.sync"): the compiled
	// CUDA line maps to at least one PTX instruction that begins with it
	// (a predicated "@%p1 bra" counts as "bra"). The tests compile the
	// lesson and check it through the source map; the UI may use it to
	// light the PTX line up next to the CUDA one.
	PTX string `json:"ptx,omitempty"`
	// Code is a piece of the line's text (of the PTX line, or of the CUDA
	// line for CUDALine), so that a hint that no longer points where it
	// meant to (the source was edited) is caught.
	Code string `json:"code,omitempty"`
	// Panel is one of LessonPanels.
	Panel string `json:"panel"`
	Text  string `json:"text"`
	// Shows is what the Banks and Swizzle views say when a breakpoint on
	// the line stops a run (CTA 0, warp 0, its first pass) and one warp
	// step runs the line, for a hint on
	// a shared-memory access: the tests run the kernel there and compare
	// the views with it, and the text must say it (HintShows.check).
	Shows *HintShows `json:"shows,omitempty"`
}

// HintShows is the verdict of the line's first shared-memory access.
type HintShows struct {
	// Wavefronts is the bank model's count and Ideal the least the access
	// could take for its size (0 means 1: a warp's 4-byte access; a warp's
	// 16-byte access is served 8 lanes at a time, ideally 4). Wavefronts
	// equal to Ideal is "no conflict", n times Ideal an "n-way" conflict;
	// the text says which.
	Wavefronts int `json:"wavefronts"`
	Ideal      int `json:"ideal,omitempty"`
	// Swizzle is the pattern the Swizzle tab names ("Swizzle<5,2,5>"), or
	// "none"; the text names a pattern it gives.
	Swizzle string `json:"swizzle"`
}

// check reports a hint text that does not say what the views show.
func (s *HintShows) check(text string) error {
	ideal := s.IdealOrOne()
	switch {
	case s.Ideal < 0 || s.Ideal > 32:
		return fmt.Errorf("shows: ideal %d wavefronts (want 1 to 32)", s.Ideal)
	case s.Wavefronts < ideal || s.Wavefronts > 32*ideal || s.Wavefronts%ideal != 0:
		return fmt.Errorf("shows: %d wavefronts (want a multiple of the ideal %d, 1 to 32 times it)", s.Wavefronts, ideal)
	case s.Wavefronts == ideal && !strings.Contains(text, "no conflict"):
		return errors.New(`shows the ideal wavefronts, but the text does not say "no conflict"`)
	case s.Wavefronts > ideal && !strings.Contains(text, fmt.Sprintf("%d-way", s.Wavefronts/ideal)):
		return fmt.Errorf("shows %d wavefronts for an ideal %d, but the text does not say \"%d-way\"", s.Wavefronts, ideal, s.Wavefronts/ideal)
	case s.Swizzle == "":
		return errors.New(`shows: no swizzle (want a pattern's name or "none")`)
	case s.Swizzle != "none" && !strings.Contains(text, s.Swizzle):
		return fmt.Errorf("shows %s, but the text does not name it", s.Swizzle)
	}
	return nil
}

// IdealOrOne is Ideal, with 0 read as 1.
func (s *HintShows) IdealOrOne() int { return max(1, s.Ideal) }

// LessonPanels are the parts of the playground a hint can point at: the
// editor, the warps pane, and the inspector tabs by their ids (data-tab in
// web/playground.templ).
var LessonPanels = []string{"editor", "warps", "regs", "memory", "launch", "events", "fragments", "divergence", "swizzle", "tma", "console"}

// LessonExpect is a lesson's stated result.
type LessonExpect struct {
	// Result says it in words.
	Result string `json:"result"`
	// Buffers are the checks on the launch's output buffers.
	Buffers []ExpectBuffer `json:"buffers"`
}

// ExpectBuffer is the expected content of one buffer after the launch,
// given in exactly one of four forms:
//   - Iota: element i is Start + i*Step (as for a spec's iota init);
//   - Fill: every element is the value;
//   - Values: the elements, as many as the buffer has;
//   - Check: a reference computation from the buffers named in Of, such as
//     "matmul" (a product of row-major matrices), which the gallery's tests
//     compute independently of the emulator.
type ExpectBuffer struct {
	Buffer string      `json:"buffer"`
	Iota   *ExpectIota `json:"iota,omitempty"`
	Fill   *float64    `json:"fill,omitempty"`
	Values []float64   `json:"values,omitempty"`
	Check  string      `json:"check,omitempty"`
	Of     []string    `json:"of,omitempty"`
}

// ExpectIota is an arithmetic sequence.
type ExpectIota struct {
	Start float64 `json:"start"`
	Step  float64 `json:"step"`
}

// check validates the lesson against its kernel's source and launch spec:
// a PTX lesson (cuda false) against the PTX text, a CUDA lesson (cuda
// true) against the CUDA text.
func (l *Lesson) check(src string, spec *launchspec.Spec, cuda bool) error {
	if strings.TrimSpace(l.Explanation) == "" {
		return errors.New("no explanation")
	}
	if len(l.Hints) == 0 {
		return errors.New("no hints")
	}
	lines := strings.Split(src, "\n")
	for i, h := range l.Hints {
		line := h.Line
		switch {
		case cuda && (h.Line != 0 || h.CUDALine == 0):
			return fmt.Errorf("hints[%d]: a CUDA lesson's hint names its line with \"cudaLine\", not \"line\"", i)
		case cuda && strings.TrimSpace(h.PTX) == "":
			return fmt.Errorf("hints[%d]: no \"ptx\" (the PTX instruction the CUDA line compiles to)", i)
		case !cuda && (h.CUDALine != 0 || h.PTX != ""):
			return fmt.Errorf("hints[%d]: a PTX lesson's hint has no \"cudaLine\" or \"ptx\"", i)
		case cuda && h.Shows != nil:
			return fmt.Errorf("hints[%d]: \"shows\" is for PTX lessons (it names a PTX line's access)", i)
		case cuda:
			line = h.CUDALine
		}
		if line < 1 || line > len(lines) {
			return fmt.Errorf("hints[%d]: line %d is outside the source (%d lines)", i, line, len(lines))
		}
		text := strings.TrimSpace(lines[line-1])
		if text == "" || strings.HasPrefix(text, "//") {
			return fmt.Errorf("hints[%d]: line %d is blank or only a comment", i, line)
		}
		if h.Code != "" && !strings.Contains(lines[line-1], h.Code) {
			return fmt.Errorf("hints[%d]: line %d (%q) does not contain %q", i, line, text, h.Code)
		}
		if !isLessonPanel(h.Panel) {
			return fmt.Errorf("hints[%d]: unknown panel %q (want one of %s)", i, h.Panel, strings.Join(LessonPanels, ", "))
		}
		if strings.TrimSpace(h.Text) == "" {
			return fmt.Errorf("hints[%d]: no text", i)
		}
		if h.Shows != nil {
			if err := h.Shows.check(h.Text); err != nil {
				return fmt.Errorf("hints[%d]: %v", i, err)
			}
		}
	}
	if strings.TrimSpace(l.Expect.Result) == "" {
		return errors.New("expect: no result")
	}
	if len(l.Expect.Buffers) == 0 {
		return errors.New("expect: no buffers")
	}
	counts := map[string]int{}
	outputs := map[string]bool{}
	for _, b := range spec.Buffers {
		counts[b.Name] = b.Count
		outputs[b.Name] = b.Output == nil || *b.Output
	}
	for i, b := range l.Expect.Buffers {
		n, ok := counts[b.Buffer]
		if !ok {
			return fmt.Errorf("expect.buffers[%d]: the spec has no buffer %q", i, b.Buffer)
		}
		if !outputs[b.Buffer] {
			return fmt.Errorf("expect.buffers[%d]: buffer %q is not an output of the launch", i, b.Buffer)
		}
		forms := 0
		if b.Iota != nil {
			forms++
		}
		if b.Fill != nil {
			forms++
		}
		if b.Values != nil {
			forms++
			if len(b.Values) != n {
				return fmt.Errorf("expect.buffers[%d] (%s): %d values for %d elements", i, b.Buffer, len(b.Values), n)
			}
		}
		if b.Check != "" {
			forms++
		} else if len(b.Of) > 0 {
			return fmt.Errorf("expect.buffers[%d] (%s): \"of\" without a check", i, b.Buffer)
		}
		if forms != 1 {
			return fmt.Errorf("expect.buffers[%d] (%s): give exactly one of iota, fill, values and check", i, b.Buffer)
		}
		for _, o := range b.Of {
			if !outputs[o] {
				return fmt.Errorf("expect.buffers[%d] (%s): of: the launch has no output buffer %q", i, b.Buffer, o)
			}
		}
	}
	return nil
}

func isLessonPanel(p string) bool { return slices.Contains(LessonPanels, p) }
