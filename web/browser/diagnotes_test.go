package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// editorCursorLineJS evaluates to the line (1-based) of the editor's
// cursor, read from CodeMirror's view as editorTextJS reads the document.
const editorCursorLineJS = `(() => {
	const c = document.querySelector(".cm-content");
	if (!c) return 0;
	const t = c.cmTile || c.cmView;
	const v = t && (t.root ? t.root.view : t.rootView ? t.rootView.view : t.view);
	return v && v.state ? v.state.doc.lineAt(v.state.selection.main.head).number : 0;
})()`

// TestDiagnosticIDAndNotes: a label defined twice is an error with its
// stable ID and a note at the first definition, in the problems list and
// in the editor's lint tooltip; the note's line:col goes to that line, at
// the three sizes.
func TestDiagnosticIDAndNotes(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")

	src := example(t, "vector-add").Source
	at := "\t// Byte offset of element i"
	if !strings.Contains(src, at) || !strings.Contains(src, "\nDONE:\n") {
		t.Fatalf("vector-add has no %q or no DONE label", at)
	}
	broken := strings.Replace(src, at, "DONE:\n"+at, 1)
	_, bsrc, diags := launch.Compile("vector-add.ptx", []byte(broken))
	if len(diags) != 1 {
		t.Fatalf("reference: %s", ptx.FormatAll(bsrc, diags))
	}
	want := diags[0].ToMessage(bsrc)
	if want.ID != "duplicate-label" || len(want.Notes) != 1 {
		t.Fatalf("reference: %+v", want)
	}
	note := want.Notes[0]
	if note.Line != lineOf(t, broken, "DONE:") || want.Line <= note.Line {
		t.Fatalf("reference: error at %d, note at %d", want.Line, note.Line)
	}

	tb.replaceEditorText(broken)
	tb.waitStatus("the compile error", func(s status) string {
		if s.Diag != "1 error" || s.Status != "error" {
			return "no error shown"
		}
		return ""
	})

	// The problems list: the message, the ID and the note with its place.
	type item struct {
		Loc, Msg, ID, NoteLoc, NoteMsg string
	}
	var got item
	tb.eval(`(() => {
		const li = document.querySelector("#pg-problems li.diag");
		const q = (s) => { const e = li && li.querySelector(s); return e ? e.textContent : ""; };
		return {Loc: q(".diag-loc"), Msg: q(".diag-msg"), ID: q(".diag-id"), NoteLoc: q(".diag-note-loc"), NoteMsg: q(".diag-note-msg")};
	})()`, &got)
	wantItem := item{Loc: fmt.Sprintf("%d:%d", want.Line, want.Col), Msg: want.Message, ID: "duplicate-label",
		NoteLoc: fmt.Sprintf("%d:%d", note.Line, note.Col), NoteMsg: note.Message}
	if got != wantItem {
		t.Fatalf("problem %+v, want %+v", got, wantItem)
	}
	tb.atEverySize("a duplicate label with its ID and note", "problems-note")

	// The note's line:col moves the cursor to the first definition.
	tb.click("#pg-problems li.diag .diag-loc")
	tb.waitJS("the cursor on the error's line", fmt.Sprintf("%s === %d", editorCursorLineJS, want.Line))
	tb.click("#pg-problems li.diag .diag-note-loc")
	tb.waitJS("the cursor on the note's line", fmt.Sprintf("%s === %d", editorCursorLineJS, note.Line))

	// The editor's lint tooltip shows the ID and the note, which goes there too.
	tb.click("#pg-problems li.diag .diag-loc")
	tb.waitJS("the cursor back on the error's line", fmt.Sprintf("%s === %d", editorCursorLineJS, want.Line))
	tb.expectMarks(".cm-lintRange-error", "the error underline", want.Line)
	tooltip := fmt.Sprintf(`(() => {
		const t = document.querySelector(".cm-tooltip-lint");
		if (!t) return false;
		const id = t.querySelector(".diag-id"), n = t.querySelector(".diag-note-loc");
		return !!id && id.textContent === "duplicate-label" && !!n && n.textContent === %q && t.textContent.includes(%q);
	})()`, wantItem.NoteLoc, note.Message)
	// The editor shows a hover tooltip after the pointer rests; a hover
	// that lands while the editor still scrolls or lays out is lost, so the
	// pointer leaves and comes back every second until it shows.
	polls := 0
	tb.waitFor("the lint tooltip with the ID and the note", func() string {
		if polls%60 == 0 {
			tb.do("pointer away", chromedp.MouseEvent(chromedp.MouseMoved, 1, 1))
			tb.hover(".cm-lintRange-error")
		}
		polls++
		var ok bool
		if err := tb.tryEval(tooltip, &ok); err != nil {
			return err.Error()
		}
		if !ok {
			return "no tooltip with the ID and the note"
		}
		return ""
	})
	tb.expectNoOverflow("the lint tooltip")
	tb.screenshot("lint-tooltip-note")
	tb.click(".cm-tooltip-lint .diag-note-loc")
	tb.waitJS("the cursor on the note's line from the tooltip", fmt.Sprintf("%s === %d", editorCursorLineJS, note.Line))
}
