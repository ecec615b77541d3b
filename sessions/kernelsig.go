package sessions

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// A launch belongs to one kernel: its name and the types and sizes of its
// parameters (its signature). An edit of the kernel's body keeps the
// user's launch; a kernel of another name or other parameters gets the
// launch inferred from it alone, so nothing of an unrelated launch (its
// grid, buffers, dynamic shared memory) carries over.

// kernelSig is the signature of a kernel: "name(u64:8,u32:4,b8:16)".
func kernelSig(fn *emu.Function) string {
	if fn == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(fn.Name)
	b.WriteByte('(')
	for i, p := range fn.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.Type.String())
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(p.Size))
	}
	b.WriteByte(')')
	return b.String()
}

// specKernel is the kernel a spec launches in p: the kernel its entry
// names, else the module's only kernel; nil when there is none such.
func specKernel(p *emu.Program, entry string) *emu.Function {
	if p == nil {
		return nil
	}
	if entry != "" {
		if fn := p.Function(entry); fn != nil && fn.Kind == ptx.KindEntry && fn.HasBody {
			return fn
		}
		return nil
	}
	if ks := p.Entries(); len(ks) == 1 {
		return ks[0]
	}
	return nil
}

// inferLaunch is the launch inferred from p's kernel alone (what
// `ptxplay init` writes): the kernel spec's entry names when the module
// has it, else the module's first kernel. Nil when the module has no
// kernel (Prepare says so).
func inferLaunch(p *emu.Program, entry string) *launchFixJSON {
	if specKernel(p, entry) == nil {
		entry = ""
	}
	inferred, notes, err := launch.Infer(p, nil, entry)
	if err != nil {
		return nil
	}
	raw, err := inferred.MarshalIndent()
	if err != nil {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return nil
	}
	fix := &launchFixJSON{Mismatches: []launch.Mismatch{}, Notes: []launch.Note{}, Spec: buf.Bytes(), Applied: true, Inferred: true}
	fix.Notes = append(fix.Notes, notes...)
	return fix
}
