package sessions

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The fragment explorer's descriptor view of a wgmma.mma_async (an
// inspect with wgmmaPC): for the inspected warp, each shared-memory
// operand's descriptor as its register holds it now, decoded, and where
// every element of the operand lives in the CTA's shared memory (through
// isa.WgmmaOperandLayout, the table the executor reads), with its bits.

// wgmmaFieldsJSON is a decoded matrix descriptor (isa.WgmmaDescriptor):
// start address, leading and stride byte offsets in bytes, the matrix
// base offset, the swizzle ("none", "32B", "64B", "128B") and the
// reserved bits that are set (hex; absent when none).
type wgmmaFieldsJSON struct {
	Start      uint32 `json:"start"`
	LBO        uint32 `json:"lbo"`
	SBO        uint32 `json:"sbo"`
	BaseOffset int    `json:"baseOffset"`
	Swizzle    string `json:"swizzle"`
	Reserved   string `json:"reserved,omitempty"`
}

// wgmmaViewJSON is the descriptor view of the wgmma.mma_async at pc.
type wgmmaViewJSON struct {
	PC   int `json:"pc"`
	Line int `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int    `json:"cudaLine,omitempty"`
	Form     string `json:"form"`
	// SharedBytes is the size of the CTA's shared memory.
	SharedBytes int `json:"sharedBytes"`
	// Operands: A (when it comes from shared memory), then B.
	Operands []wgmmaDescJSON `json:"operands"`
}

// wgmmaDescJSON is one descriptor operand. Rows × k elements of type
// (elemBits bits), major "K-major" or "MN-major" (A: rows are M; B: rows
// are N, so element (n, k) is B[k][n]). reg and value: the descriptor's
// register and its lane-0 value (hex); differs: the first lane whose
// value differs, when one does (the executor faults). desc: the decoded
// fields (bytes). error: why the layout cannot be drawn (an invalid
// descriptor, an overlap, a tile outside shared memory); notes: remarks
// that do not stop it. Without error: addr[r*k+kk] is the physical shared
// byte of element (r, kk), logical the address before the swizzle, core
// the element's core matrix (strided*coreCols + contiguous), bits the
// element's bits now (absent past the end of shared memory).
type wgmmaDescJSON struct {
	Name     string          `json:"name"`
	Reg      string          `json:"reg"`
	Value    string          `json:"value"`
	Differs  *int            `json:"differs,omitempty"`
	Desc     wgmmaFieldsJSON `json:"desc"`
	Major    string          `json:"major"`
	Type     string          `json:"type"`
	ElemBits int             `json:"elemBits"`
	Rows     int             `json:"rows"`
	K        int             `json:"k"`
	Error    string          `json:"error,omitempty"`
	Notes    []string        `json:"notes,omitempty"`
	Addr     []uint64        `json:"addr,omitempty"`
	Logical  []uint64        `json:"logical,omitempty"`
	Core     []int           `json:"core,omitempty"`
	CoreCols int             `json:"coreCols,omitempty"`
	Bits     []uint32        `json:"bits,omitempty"`
}

// wgmmaView builds the descriptor view of the wgmma.mma_async at pc for
// warp w of resident CTA c, or says why there is none.
func (s *Session) wgmmaView(pc int, c *emu.CTA, w *emu.Warp) (*wgmmaViewJSON, error) {
	p := s.prog.prog
	if pc < 0 || pc >= len(p.Ops) {
		return nil, fmt.Errorf("wgmmaPC %d: no such instruction", pc)
	}
	info, ok := p.Ops[pc].Wgmma()
	if !ok {
		return nil, fmt.Errorf("wgmmaPC %d (line %d) is not a wgmma.mma_async", pc, s.prog.line(pc))
	}
	sh := c.Shared()
	v := &wgmmaViewJSON{PC: pc, Line: s.prog.line(pc), CUDALine: s.cline(pc), Form: info.Form.Key(), SharedBytes: len(sh), Operands: []wgmmaDescJSON{}}
	for _, d := range info.Descs {
		vals := w.Reg(int(d.Slot))
		o := d.Operand
		j := wgmmaDescJSON{Name: d.Name, Reg: p.Regs[d.Slot].Name, Value: strconv.FormatUint(vals[0], 16),
			Major: o.Major.String(), Type: info.Form.AType, ElemBits: o.ElemBits, Rows: o.Rows, K: o.K}
		for l := 1; l < 32; l++ {
			if vals[l] != vals[0] {
				j.Differs = &l
				break
			}
		}
		desc := isa.DecodeWgmmaDescriptor(vals[0])
		j.Desc = wgmmaFieldsJSON{Start: desc.Start, LBO: desc.LBO, SBO: desc.SBO, BaseOffset: int(desc.BaseOffset), Swizzle: desc.Swizzle.String()}
		if desc.Reserved != 0 {
			j.Desc.Reserved = strconv.FormatUint(desc.Reserved, 16)
		}
		l, err := isa.WgmmaOperandLayout(desc, o)
		if err == nil {
			err = l.CheckShared(uint64(len(sh)))
		}
		if err != nil {
			j.Error = err.Error()
			v.Operands = append(v.Operands, j)
			continue
		}
		j.Notes = l.Notes
		j.Addr, j.Logical = l.Addr, l.Logical
		size := o.ElemBits / 8
		j.CoreCols = max(1, o.K*o.ElemBits/128)
		if o.Major == isa.WgmmaMNMajor {
			j.CoreCols = max(1, o.Rows*o.ElemBits/128)
		}
		j.Core = make([]int, len(l.Addr))
		j.Bits = make([]uint32, len(l.Addr))
		for i, a := range l.Addr {
			r, k := i/o.K, i%o.K
			st, ct := o.CoreMatrix(r, k)
			j.Core[i] = st*j.CoreCols + ct
			switch size {
			case 2:
				j.Bits[i] = uint32(binary.LittleEndian.Uint16(sh[a:]))
			case 4:
				j.Bits[i] = binary.LittleEndian.Uint32(sh[a:])
			default:
				j.Bits[i] = uint32(sh[a])
			}
		}
		v.Operands = append(v.Operands, j)
	}
	return v, nil
}
