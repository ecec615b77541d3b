package ptx

import (
	"os"
	"testing"
)

// FuzzParse checks that Parse never panics or hangs and that every
// diagnostic span lies within the source. It is seeded with the shared
// corpus (when present), the error test files and a few inline modules.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<4>;\n\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\t@%p1 bra $L__BB0_1;\n$L__BB0_1:\n\tret;\n}\n",
		".global .u32 a = 1, b[2] = {1, 2};\n.global .u64 p = generic(a);\n.global .u32 m[2] = {0xFF(a), a+4};\n",
		".entry k() { mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4}; }",
		".entry k() { call.uni (retval0), vprintf, (param0, param1); p: .callprototype (.param .b32 _) _ (.param .b64 _); }",
		".entry k() { tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tex, {%f5,%f6}]; setp.eq.s32 p|q, 1, 0; }",
		".global .u64 x = (1 << 3) * WARP_SZ ? -1 : ~0U;\n",
		".section .debug_info { .b8 1 }\n@@DWARF .byte 1\n.loc 1 2 3\n.file 1 \"a.cu\"\n",
		".entry k() { .loc 1 2 3, function_name $L__info_string0, inlined_at 1 2 3\n ret; }",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	for _, dir := range append(corpusDirs, "testdata/errors") {
		for _, path := range corpusFiles(f, dir) {
			if text, err := os.ReadFile(path); err == nil && len(text) <= 32<<10 {
				f.Add(text)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkParse(t, src)
	})
}
