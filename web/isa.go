package web

import (
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// isaOpcode is one opcode of /api/isa.
type isaOpcode struct {
	Name   string `json:"name"`
	Family string `json:"family"`
	// Status is "supported", "planned" (recognised; arrives with a later
	// feature) or "unsupported" (recognised; not emulated).
	Status string `json:"status"`
	Syntax string `json:"syntax"`
	Doc    string `json:"doc"`
}

// isaSpecial is one special register of /api/isa.
type isaSpecial struct {
	Name string `json:"name"`
	Bits int    `json:"bits"`
	// Dynamic registers change while the kernel runs (%clock, ...).
	Dynamic bool   `json:"dynamic,omitempty"`
	Doc     string `json:"doc"`
}

// fragmentDoc is the /api/fragments document: which lane holds which
// element of every tensor-core instruction's operands (isa.FragmentTable),
// for the fragment explorer.
type fragmentDoc struct {
	Instructions []isa.FragInstr `json:"instructions"`
}

// isaDoc is the /api/isa document: hover documentation for the editor.
type isaDoc struct {
	Opcodes  []isaOpcode  `json:"opcodes"`
	Specials []isaSpecial `json:"specials"`
}

func statusName(s isa.Status) string {
	switch s {
	case isa.Supported:
		return "supported"
	case isa.Planned:
		return "planned"
	}
	return "unsupported"
}

// isaTable collects the opcode table (opcodes with a name, in table order)
// and the special registers.
func isaTable() isaDoc {
	d := isaDoc{Opcodes: []isaOpcode{}, Specials: []isaSpecial{}}
	for _, in := range isa.Info {
		if in.Name == "" {
			continue
		}
		d.Opcodes = append(d.Opcodes, isaOpcode{Name: in.Name, Family: in.Family.String(), Status: statusName(in.Status), Syntax: in.Syntax, Doc: in.Doc})
	}
	for _, sr := range isa.Specials {
		if sr.Name == "" {
			continue
		}
		d.Specials = append(d.Specials, isaSpecial{Name: sr.Name, Bits: sr.Bits, Dynamic: sr.Dynamic, Doc: sr.Doc})
	}
	return d
}
