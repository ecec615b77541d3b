package web

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"

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
	// Wgmma names every wgmma.mma_async form the emulator executes
	// (isa.WgmmaFormKeys); each form's layout (64 x N accumulator over
	// the warpgroup's 128 threads: large) is served on its own at
	// /api/fragments/wgmma/{key}.
	Wgmma []string `json:"wgmma"`
}

// wgmmaDocs holds the /api/fragments/wgmma/{key} documents: one per form of
// isa.WgmmaFormKeys, built on first request (a fixed, bounded set).
type wgmmaDocs struct {
	forms map[string]isa.WgmmaForm
	docs  sync.Map // key -> *jsonDoc
}

func newWgmmaDocs() *wgmmaDocs {
	d := &wgmmaDocs{forms: map[string]isa.WgmmaForm{}}
	for _, f := range isa.WgmmaForms() {
		d.forms[f.Key()] = f
	}
	return d
}

// serve answers /api/fragments/wgmma/{key}: the form's FragInstr, or a JSON
// 404 naming the key.
func (d *wgmmaDocs) serve(s *Server) http.HandlerFunc {
	doc := s.serveDoc(func(r *http.Request) *jsonDoc {
		key := chi.URLParam(r, "key")
		if v, ok := d.docs.Load(key); ok {
			return v.(*jsonDoc)
		}
		j, err := newJSONDoc(isa.WgmmaFragments(d.forms[key]))
		if err != nil {
			return nil
		}
		v, _ := d.docs.LoadOrStore(key, j)
		return v.(*jsonDoc)
	})
	return func(w http.ResponseWriter, r *http.Request) {
		key := chi.URLParam(r, "key")
		if _, ok := d.forms[key]; !ok {
			writeJSONError(w, http.StatusNotFound, fmt.Sprintf("no wgmma form named %.80q: /api/fragments lists them (wgmma)", key))
			return
		}
		doc(w, r)
	}
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
