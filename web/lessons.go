package web

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/launch"
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
type LessonHint struct {
	// Line is the 1-based line of the PTX source: an instruction, a label
	// or a declaration, never a blank or comment-only line.
	Line int `json:"line"`
	// Code is a piece of the line's text, so that a hint that no longer
	// points where it meant to (the source was edited) is caught.
	Code string `json:"code,omitempty"`
	// Panel is one of LessonPanels.
	Panel string `json:"panel"`
	Text  string `json:"text"`
}

// LessonPanels are the parts of the playground a hint can point at: the
// editor, the warps pane, and the inspector tabs by their ids (data-tab in
// web/playground.templ).
var LessonPanels = []string{"editor", "warps", "regs", "memory", "launch", "events", "fragments", "divergence", "swizzle", "console"}

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

// check validates the lesson against its kernel's source and launch spec.
func (l *Lesson) check(src string, spec *launch.Spec) error {
	if strings.TrimSpace(l.Explanation) == "" {
		return errors.New("no explanation")
	}
	if len(l.Hints) == 0 {
		return errors.New("no hints")
	}
	lines := strings.Split(src, "\n")
	for i, h := range l.Hints {
		if h.Line < 1 || h.Line > len(lines) {
			return fmt.Errorf("hints[%d]: line %d is outside the source (%d lines)", i, h.Line, len(lines))
		}
		text := strings.TrimSpace(lines[h.Line-1])
		if text == "" || strings.HasPrefix(text, "//") {
			return fmt.Errorf("hints[%d]: line %d is blank or only a comment", i, h.Line)
		}
		if h.Code != "" && !strings.Contains(lines[h.Line-1], h.Code) {
			return fmt.Errorf("hints[%d]: line %d (%q) does not contain %q", i, h.Line, text, h.Code)
		}
		if !isLessonPanel(h.Panel) {
			return fmt.Errorf("hints[%d]: unknown panel %q (want one of %s)", i, h.Panel, strings.Join(LessonPanels, ", "))
		}
		if strings.TrimSpace(h.Text) == "" {
			return fmt.Errorf("hints[%d]: no text", i)
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
