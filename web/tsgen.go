package web

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/launchspec"
	"github.com/ptxplayground/ptxplay/sessions/share"
	"github.com/ptxplayground/ptxplay/sessions/tsgen"
)

// The TypeScript declarations of the REST answers and the editor's word
// lists are generated from the Go types and tables (ui/api_gen.ts;
// `go generate ./ui`), as the websocket protocol's are (ui/proto_gen.ts).

// apiTypes are the REST answers' types.
var apiTypes = []tsgen.Decl{
	{Name: "IsaOpcode", V: isaOpcode{}},
	{Name: "IsaSpecial", V: isaSpecial{}},
	{Name: "IsaDoc", V: isaDoc{}},
	{Name: "FragElem", V: isa.FragElem{}},
	{Name: "FragOperand", V: isa.FragOperand{}},
	{Name: "SparseInfo", V: isa.SparseInfo{}},
	{Name: "FragInstr", V: isa.FragInstr{}},
	{Name: "FragmentDoc", V: fragmentDoc{}},
	{Name: "SwizzleLane", V: isa.SwizzleLane{}},
	{Name: "SwizzleAccess", V: isa.SwizzleAccess{}},
	{Name: "SwizzleDoc", V: swizzleDoc{}},
	{Name: "HintShows", V: HintShows{}},
	{Name: "LessonHint", V: LessonHint{}},
	{Name: "ExpectIota", V: ExpectIota{}},
	{Name: "ExpectBuffer", V: ExpectBuffer{}},
	{Name: "LessonExpect", V: LessonExpect{}},
	{Name: "Lesson", V: Lesson{}},
	{Name: "CUDAInfo", V: CUDAInfo{}},
	{Name: "ExampleInfo", V: ExampleInfo{}},
	{Name: "CUDAOptions", V: launchspec.CUDAOptions{}},
	{Name: "CUDAExample", V: CUDAExample{}},
	{Name: "ExampleData", V: Example{}},
	{Name: "ShareCuda", V: share.CUDA{}},
	{Name: "ShareData", V: sharePayload{}},
	{Name: "ShareResponse", V: shareResponse{}},
	{Name: "ApiError", V: apiError{}},
}

// apiFields narrows fields whose Go type is wider than their values.
var apiFields = map[string]string{
	"IsaOpcode.status":      "OpStatus",
	"LessonHint.panel":      "LessonPanel",
	"ExampleData.spec":      "Spec",
	"ShareData.spec":        "Spec",
	"ShareData.view":        "Record<string, unknown>",
	"SwizzleAccess.pattern": "SwizzlePattern",
	"FragElem":              "[number, number, number, number, number]",
}

// TypeScript returns ui/api_gen.ts.
func TypeScript() ([]byte, error) {
	g := tsgen.New(apiFields, nil)
	g.Header("web/*.go and engine/isa", "The answers of the REST API (/api/isa, /api/fragments, /api/swizzle, /api/examples,\n// /api/share) and the PTX words the editor highlights.")
	g.B.WriteString("import type { Spec } from \"./proto_gen\";\n")
	g.Enum(tsgen.Enum{Name: "OpStatus", Values: []string{statusName(isa.Supported), statusName(isa.Planned), statusName(isa.Unsupported)}})
	g.Enum(tsgen.Enum{Name: "SwizzlePattern", Values: []string{isa.AccessRows.String(), isa.AccessColumn.String(), isa.AccessLdmatrix.String()}})
	g.Enum(tsgen.Enum{Name: "LessonPanel", Values: LessonPanels})
	g.Interfaces(apiTypes)
	words := func(name, doc string, ws []string) {
		fmt.Fprintf(&g.B, "\n/** %s */\nexport const %s: readonly string[] = [\n", doc, name)
		for i := 0; i < len(ws); i += 8 {
			fmt.Fprintf(&g.B, "  %s,\n", quoteAll(ws[i:min(i+8, len(ws))]))
		}
		g.B.WriteString("];\n")
	}
	words("ptxTypes", "PTX type names (engine/isa: the emulator's types, then the ISA's alternate formats it does not implement).",
		append(isa.TypeNames(), isa.AlternateTypes...))
	words("ptxVectorWidths", "The vector modifiers (engine/isa).", isa.VectorWidths)
	words("ptxSpaces", "The state spaces (engine/isa).", isa.SpaceNames())
	words("ptxSpecialRegisters", "The special registers (engine/isa), with the vector registers' bare names (%tid).", specialNames())
	return g.Bytes()
}

// specialNames lists every special register's name, and %tid for %tid.x.
func specialNames() []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, sr := range isa.Specials {
		if sr.Name == "" {
			continue
		}
		if base, c, ok := strings.Cut(sr.Name, "."); ok && len(c) == 1 {
			add(base)
		}
		add(sr.Name)
	}
	sort.Strings(out)
	return out
}

func quoteAll(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = fmt.Sprintf("%q", w)
	}
	return strings.Join(q, ", ")
}
