package isa

// The names of types, state spaces and vector widths as PTX source writes
// them (without the dot): what the editor's highlighter knows
// (ui/api_gen.ts is generated from them).

// TypeNames lists every Type's name, in Type order.
func TypeNames() []string {
	out := make([]string, 0, NumTypes-1)
	for t := Type(1); t < NumTypes; t++ {
		out = append(out, typeNames[t])
	}
	return out
}

// AlternateTypes are the packed alternate floating-point formats of the
// PTX ISA (§5.2.3, §5.2.4.1) that are instruction types of instructions
// the emulator does not implement (cvt to and from the narrow formats of
// sm_100): names the source may contain, not Types.
var AlternateTypes = []string{
	"f32x2", "e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2",
	"e4m3x4", "e5m2x4", "e2m1x4", "e2m3x4", "e3m2x4",
}

// SpaceNames lists the state spaces' names (generic addressing and every
// spelling SpaceByName accepts).
func SpaceNames() []string {
	out := []string{}
	for s := SpaceNone; s < NumSpaces; s++ {
		out = append(out, s.String())
	}
	return append(out, "shared::cta")
}

// VectorWidths are the vector modifiers (.v2, .v4, .v8).
var VectorWidths = []string{"v2", "v4", "v8"}
