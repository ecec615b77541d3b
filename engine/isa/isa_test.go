package isa

import "testing"

func TestOpcodeTable(t *testing.T) {
	seen := map[string]Opcode{}
	for o := Opcode(1); o < NumOpcodes; o++ {
		in := Info[o]
		if in.Name == "" || in.Doc == "" || in.Syntax == "" {
			t.Errorf("opcode %d: incomplete entry %+v", o, in)
		}
		if p, dup := seen[in.Name]; dup {
			t.Errorf("%s named twice (%d and %d)", in.Name, p, o)
		}
		seen[in.Name] = o
		if o.String() != in.Name {
			t.Errorf("String of %d = %q", o, o.String())
		}
	}
}

func TestLookup(t *testing.T) {
	cases := []struct {
		base string
		mods []string
		want Opcode
		used int
	}{
		{"add", []string{"s32"}, OpAdd, 0},
		{"cp", []string{"async", "bulk", "tensor", "2d"}, OpCpAsyncBulkTensor, 3},
		{"cp", []string{"async", "ca", "shared", "global"}, OpCpAsync, 1},
		{"bar", []string{"warp", "sync"}, OpBarWarpSync, 2},
		{"bar", []string{"sync"}, OpBar, 0},
		{"mbarrier", []string{"try_wait", "parity", "b64"}, OpMbarrierTryWait, 1},
		{"brx", []string{"idx"}, OpBrx, 1},
		{"frob", nil, OpInvalid, 0},
	}
	for _, c := range cases {
		if o, n := Lookup(c.base, c.mods); o != c.want || n != c.used {
			t.Errorf("Lookup(%s, %v) = %v, %d; want %v, %d", c.base, c.mods, o, n, c.want, c.used)
		}
	}
	if !Known("cp") || !Known("mbarrier") || Known("frob") {
		t.Error("Known")
	}
}

func TestModifierDecoding(t *testing.T) {
	cases := map[string]Mod{
		"u32":         {ModType, uint8(U32)},
		"shared::cta": {ModSpace, uint8(Shared)},
		"rn":          {ModRnd, uint8(RN)},
		"ltu":         {ModCmp, uint8(LTU)},
		"bfly":        {ModSub, uint8(SubBfly)},
		"all":         {ModSub, uint8(SubAll)},
		"sync":        {ModFlag, uint8(FSync)},
		"ftz":         {ModFlag, uint8(FFtz)},
		"v4":          {ModVec, 4},
		"L2::128B":    {ModHint, 0},
		"m16n8k16":    {ModShape, uint8(M16N8K16)},
		"m8n8":        {ModShape, uint8(M8N8)},
		"row":         {ModLayout, uint8(Row)},
		"col":         {ModLayout, uint8(Col)},
		"x4":          {ModNum, 4},
		"trans":       {ModFlag, uint8(FTrans)},
		"satfinite":   {ModFlag, uint8(FSatfinite)},
		"s4":          {ModElem, uint8(ElemS4)},
		"b1":          {ModElem, uint8(ElemB1)},
		"im2col":      {ModTensor, uint8(TensorIm2col)},
		"3d":          {ModTensor, uint8(Tensor3D)},
	}
	for word, want := range cases {
		if got, ok := LookupMod(word); !ok || got != want {
			t.Errorf("LookupMod(%q) = %+v, %v; want %+v", word, got, ok, want)
		}
	}
	if _, ok := LookupMod("nonsense"); ok {
		t.Error("nonsense decoded")
	}
	for ty := Type(1); ty < NumTypes; ty++ {
		if TypeByName[ty.String()] != ty || ty.Kind() == KindNone || ty.Bits() == 0 {
			t.Errorf("type %v: kind %v bits %d", ty, ty.Kind(), ty.Bits())
		}
	}
}

// The tcgen05 family (sm_100a, planned) and tensormap.cp_fenceproxy (executed) are recognised,
// including the opcodes whose second word carries "::" (wait::ld,
// fence::before_thread_sync) and the compound mma.ws.sp.
func TestLookupBlackwell(t *testing.T) {
	cases := []struct {
		base string
		mods []string
		want Opcode
		used int
	}{
		{"tcgen05", []string{"mma", "cta_group::1", "kind::f16"}, OpTcgen05Mma, 1},
		{"tcgen05", []string{"mma", "ws", "cta_group::1", "kind::f16"}, OpTcgen05MmaWs, 2},
		{"tcgen05", []string{"mma", "sp", "cta_group::1"}, OpTcgen05MmaSp, 2},
		{"tcgen05", []string{"mma", "ws", "sp", "cta_group::1"}, OpTcgen05MmaWsSp, 3},
		{"tcgen05", []string{"wait::ld", "sync", "aligned"}, OpTcgen05WaitLd, 1},
		{"tcgen05", []string{"wait::st", "sync", "aligned"}, OpTcgen05WaitSt, 1},
		{"tcgen05", []string{"fence::before_thread_sync"}, OpTcgen05FenceBefore, 1},
		{"tcgen05", []string{"fence::after_thread_sync"}, OpTcgen05FenceAfter, 1},
		{"tcgen05", []string{"relinquish_alloc_permit", "cta_group::2", "sync", "aligned"}, OpTcgen05RelinquishAllocPermit, 1},
		{"tensormap", []string{"cp_fenceproxy", "global", "shared::cta"}, OpTensormapCpFenceproxy, 1},
	}
	for _, c := range cases {
		if o, n := Lookup(c.base, c.mods); o != c.want || n != c.used {
			t.Errorf("Lookup(%s, %v) = %v, %d; want %v, %d", c.base, c.mods, o, n, c.want, c.used)
		}
		if c.want == OpTensormapCpFenceproxy {
			if Info[c.want].Status != Supported {
				t.Errorf("%s is not Supported", Info[c.want].Name)
			}
		} else if Info[c.want].Status != Planned {
			t.Errorf("%s is not Planned", Info[c.want].Name)
		}
	}
}
