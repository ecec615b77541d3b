package launch

import (
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// ParamRole is how a kernel uses a parameter, as far as the analysis sees.
type ParamRole string

const (
	// RolePointer: the parameter is the base address of global loads,
	// stores or atomics (or is declared .ptr.global).
	RolePointer ParamRole = "pointer"
	// RoleScalar: the kernel reads the parameter as a value.
	RoleScalar ParamRole = "scalar"
	// RoleUnused: the kernel never reads the parameter (or never uses the
	// value it reads).
	RoleUnused ParamRole = "unused"
)

// Scalar uses, the reason behind the default value Infer gives.
const (
	UseCount  = "count"  // compared with a thread index: the element count n
	UseOffset = "offset" // added to a global address (and not scaled)
	UseFloat  = "float"  // a floating-point value
)

// Kernel describes a kernel of a program and its parameters.
type Kernel struct {
	Name   string        `json:"name"`
	Params []KernelParam `json:"params"`
	// ReqNTID and MaxNTID are the kernel's .reqntid and .maxntid (x, y, z),
	// when declared.
	ReqNTID []int `json:"reqntid,omitempty"`
	MaxNTID []int `json:"maxntid,omitempty"`
}

// KernelParam is one parameter of a kernel, with what the analysis found.
type KernelParam struct {
	Name string `json:"name"`
	// Type is the PTX type without the dot ("u64", "f32", "b8").
	Type string `json:"type"`
	// Size is the parameter's size in bytes; Array the number of elements
	// of an array parameter (0 for a scalar).
	Size  int       `json:"size"`
	Array int       `json:"array,omitempty"`
	Role  ParamRole `json:"role"`
	// ElemType is the element type of a pointer ("f32", "s32", "u8", ...),
	// "" when no typed access was found; Access says whether the kernel
	// reads, writes or does both through it ("read", "write", "readWrite").
	ElemType string `json:"elemType,omitempty"`
	Access   string `json:"access,omitempty"`
	// Use says how a scalar is used: "count", "offset", "float" or "".
	Use string `json:"use,omitempty"`
}

// Kernels lists the kernels of p (the .entry functions with a body, in
// module order) with their parameters and their inferred roles.
func Kernels(p *emu.Program) []Kernel {
	if p == nil {
		return nil
	}
	out := []Kernel{}
	for _, fn := range p.Entries() {
		out = append(out, describeKernel(analyzeKernel(p, fn)))
	}
	return out
}

func describeKernel(kf *kernelFacts) Kernel {
	fn := kf.fn
	k := Kernel{Name: fn.Name, Params: []KernelParam{}}
	if r := fn.ReqNTID; r[0] > 0 {
		k.ReqNTID = []int{r[0], max(r[1], 1), max(r[2], 1)}
	}
	if r := fn.MaxNTID; r[0] > 0 {
		k.MaxNTID = []int{r[0], max(r[1], 1), max(r[2], 1)}
	}
	for i, p := range fn.Params {
		kp := KernelParam{Name: p.Name, Type: p.Type.String(), Size: p.Size, Role: kf.role(i)}
		if n := p.Type.Size(); n > 0 && p.Size != n {
			kp.Array = p.Size / n
		}
		pf := &kf.params[i]
		switch kp.Role {
		case RolePointer:
			if t := pf.elemType(); t != isa.TNone {
				kp.ElemType = t.String()
			}
			switch {
			case pf.reads > 0 && pf.writes > 0:
				kp.Access = "readWrite"
			case pf.reads > 0:
				kp.Access = "read"
			case pf.writes > 0:
				kp.Access = "write"
			}
		case RoleScalar:
			kp.Use = kf.use(i)
		}
		k.Params = append(k.Params, kp)
	}
	return k
}

// role is the role of parameter i.
func (kf *kernelFacts) role(i int) ParamRole {
	pf := &kf.params[i]
	switch {
	case pf.pointer:
		return RolePointer
	case !pf.loaded || !pf.consumed:
		return RoleUnused
	}
	return RoleScalar
}

// use is how scalar parameter i is used (see the Use constants).
func (kf *kernelFacts) use(i int) string {
	pf := &kf.params[i]
	t := kf.fn.Params[i].Type
	switch {
	case t.IsFloat() || t.Kind() == isa.KindBits && pf.float && !pf.compared:
		return UseFloat
	case pf.compared:
		return UseCount
	case pf.offset && !pf.scaled:
		return UseOffset
	}
	return ""
}

// bindable reports whether kernel parameter i can hold a buffer's address
// (8 bytes: the emulator's global addresses are 64-bit).
func (kf *kernelFacts) bindable(i int) bool { return kf.fn.Params[i].Size == 8 }
