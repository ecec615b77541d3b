package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launchspec"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Hand-written kernels for the inference tests.
const (
	// c[i] = a[i] + b[i] for i < n, as nvcc writes it.
	inferVecAdd = launchHeader + `
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<11>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [c];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd4, %rd1;
	cvta.to.global.u64 %rd5, %rd2;
	cvta.to.global.u64 %rd6, %rd3;
	mul.wide.u32 %rd7, %r1, 4;
	add.s64 %rd8, %rd4, %rd7;
	add.s64 %rd9, %rd5, %rd7;
	add.s64 %rd10, %rd6, %rd7;
	ld.global.f32 %f1, [%rd8];
	ld.global.f32 %f2, [%rd9];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd10], %f3;
DONE:
	ret;
}
`
	// y[i] = a*x[i] + y[i] for i < n: a float scalar, y read and written.
	inferSaxpy = launchHeader + `
.visible .entry saxpy(.param .u32 n, .param .f32 a, .param .u64 x, .param .u64 y)
{
	.reg .pred %p1;
	.reg .b32 %r<4>;
	.reg .f32 %f<5>;
	.reg .b64 %rd<6>;
	ld.param.u32 %r1, [n];
	ld.param.f32 %f1, [a];
	ld.param.u64 %rd1, [x];
	ld.param.u64 %rd2, [y];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mad.lo.u32 %r2, %r3, 64, %r2;
	setp.lt.u32 %p1, %r2, %r1;
	@!%p1 bra END;
	mul.wide.u32 %rd3, %r2, 4;
	add.u64 %rd4, %rd1, %rd3;
	add.u64 %rd5, %rd2, %rd3;
	ld.global.f32 %f2, [%rd4];
	ld.global.f32 %f3, [%rd5];
	fma.rn.f32 %f4, %f1, %f2, %f3;
	st.global.f32 [%rd5], %f4;
END:
	ret;
}
`
	// bins[data[i] & 15]++ with atomics, for i < n.
	inferHistogram = launchHeader + `
.visible .entry hist(.param .u64 data, .param .u64 bins, .param .s32 n)
{
	.reg .pred %p1;
	.reg .s32 %r<6>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [data];
	ld.param.u64 %rd2, [bins];
	ld.param.s32 %r1, [n];
	mov.u32 %r2, %tid.x;
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 ret;
	mul.wide.s32 %rd3, %r2, 4;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.s32 %r3, [%rd4];
	and.b32 %r3, %r3, 15;
	mul.wide.s32 %rd5, %r3, 4;
	add.s64 %rd5, %rd2, %rd5;
	atom.global.add.s32 %r4, [%rd5], 1;
	ret;
}
`
	// dst[y*width + x] = 255 - src[...] on a 2-D u8 image.
	inferImage = launchHeader + `
.visible .entry invert(.param .u64 src, .param .u64 dst, .param .u32 width, .param .u32 height)
{
	.reg .pred %p<3>;
	.reg .b32 %r<10>;
	.reg .b16 %rs<3>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [dst];
	ld.param.u32 %r1, [width];
	ld.param.u32 %r2, [height];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r6, %r3, %r4, %r5;
	mov.u32 %r3, %ctaid.y;
	mov.u32 %r4, %ntid.y;
	mov.u32 %r5, %tid.y;
	mad.lo.s32 %r7, %r3, %r4, %r5;
	setp.ge.u32 %p1, %r6, %r1;
	setp.ge.u32 %p2, %r7, %r2;
	or.pred %p1, %p1, %p2;
	@%p1 bra DONE;
	mad.lo.s32 %r8, %r7, %r1, %r6;
	cvt.u64.u32 %rd3, %r8;
	add.s64 %rd4, %rd1, %rd3;
	add.s64 %rd5, %rd2, %rd3;
	ld.global.u8 %rs1, [%rd4];
	sub.s16 %rs2, 255, %rs1;
	st.global.u8 [%rd5], %rs2;
DONE:
	ret;
}
`
	// Two kernels; the second adds an offset to its output index.
	inferTwo = launchHeader + `
.visible .entry fill(.param .u64 out, .param .s32 v)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.param.s32 %r1, [v];
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.s32 [%rd3], %r1;
	ret;
}
.visible .entry copy(.param .u64 in, .param .u64 out, .param .u32 off, .param .u64 unused)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<6>;
	.reg .f64 %fd1;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r1, [off];
	mov.u32 %r2, %tid.x;
	add.u32 %r3, %r2, %r1;
	mul.wide.u32 %rd3, %r3, 8;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.f64 %fd1, [%rd4];
	mul.wide.u32 %rd3, %r2, 8;
	add.s64 %rd5, %rd2, %rd3;
	st.global.f64 [%rd5], %fd1;
	ret;
}
`
	inferNoParams = launchHeader + `
.visible .entry nop()
{
	ret;
}
`
	// 32-bit addressing: the pointer is a .u32.
	inferAddr32 = `.version 8.0
.target sm_80
.address_size 32
.visible .entry k32(.param .u32 p, .param .u32 n)
{
	.reg .pred %p1;
	.reg .b32 %r<6>;
	.reg .f32 %f1;
	ld.param.u32 %r1, [p];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %tid.x;
	setp.ge.u32 %p1, %r3, %r2;
	@%p1 bra DONE;
	shl.b32 %r4, %r3, 2;
	add.u32 %r5, %r1, %r4;
	ld.global.f32 %f1, [%r5];
	add.f32 %f1, %f1, 0f3F800000;
	st.global.f32 [%r5], %f1;
DONE:
	ret;
}
`
	// The pointer reaches the store in a device function, through a .param.
	inferCall = launchHeader + `
.func store_at(.param .b64 p, .param .b32 i)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	ld.param.b64 %rd1, [p];
	ld.param.b32 %r1, [i];
	mul.wide.u32 %rd2, %r1, 2;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u16 [%rd3], %r1;
	ret;
}
.visible .entry caller(.param .u64 out)
{
	.reg .b32 %r1;
	.reg .b64 %rd1;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	{
	.param .b64 a0;
	.param .b32 a1;
	st.param.b64 [a0], %rd1;
	st.param.b32 [a1], %r1;
	call.uni store_at, (a0, a1);
	}
	ret;
}
`
)

// kernelJSON is Kernels(p) for one kernel, as JSON.
func kernelJSON(t *testing.T, p *emu.Program, name string) string {
	t.Helper()
	for _, k := range Kernels(p) {
		if k.Name == name {
			b, err := json.Marshal(k)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	t.Fatalf("no kernel %s in Kernels", name)
	return ""
}

// specJSON is the spec without the fields the tests do not look at.
func specJSON(t *testing.T, s *Spec) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// inferAndRun infers a spec for entry, checks that it fits (Check is
// empty, and Infer returns it unchanged), prepares it and runs it.
func inferAndRun(t *testing.T, p *emu.Program, prev *Spec, entry string) (*Spec, []Note, *Result) {
	t.Helper()
	s, notes, err := Infer(p, prev, entry)
	if err != nil {
		t.Fatalf("Infer: %v", err)
	}
	if ms := Check(p, s); len(ms) != 0 {
		t.Errorf("Check of the inferred spec: %v", ms)
	}
	if again, more, err := Infer(p, s, ""); err != nil || again != s || len(more) != 0 {
		t.Errorf("Infer of the inferred spec changed it: %v %v", more, err)
	}
	s.MaxWarpInstructions = 100000
	res, err := Run(context.Background(), p, s)
	s.MaxWarpInstructions = 0
	if err != nil {
		t.Fatalf("Run: %v\nspec %s", err, specJSON(t, s))
	}
	return s, notes, res
}

func bufferValues(t *testing.T, res *Result, name string) string {
	t.Helper()
	b := res.Buffer(name)
	if b == nil {
		t.Fatalf("no buffer %s in the result", name)
	}
	var vs []string
	for i := 0; i < b.Len(); i++ {
		vs = append(vs, b.ValueJSON(i))
	}
	return strings.Join(vs, ",")
}

func seq(n int, f func(i int) int) string {
	var vs []string
	for i := 0; i < n; i++ {
		vs = append(vs, fmt.Sprint(f(i)))
	}
	return strings.Join(vs, ",")
}

func notesText(notes []Note) string {
	var lines []string
	for _, n := range notes {
		lines = append(lines, n.Text)
	}
	return strings.Join(lines, "\n")
}

func TestInferKernels(t *testing.T) {
	cases := []struct {
		name, src, entry string
		kernel           string // Kernels JSON
		spec             string // Infer(nil) JSON
		notes            []string
		check            func(t *testing.T, res *Result)
	}{
		{
			name: "vector add", src: inferVecAdd,
			kernel: `{"name":"vadd","params":[` +
				`{"name":"a","type":"u64","size":8,"role":"pointer","elemType":"f32","access":"read"},` +
				`{"name":"b","type":"u64","size":8,"role":"pointer","elemType":"f32","access":"read"},` +
				`{"name":"c","type":"u64","size":8,"role":"pointer","elemType":"f32","access":"write"},` +
				`{"name":"n","type":"u32","size":4,"role":"scalar","use":"count"}]}`,
			spec: `{"version":1,"entry":"vadd","grid":[1,1,1],"block":[64,1,1],"buffers":[` +
				`{"name":"a","type":"f32","count":64,"init":{"iota":{"start":0,"step":1}}},` +
				`{"name":"b","type":"f32","count":64,"init":{"iota":{"start":0,"step":2}}},` +
				`{"name":"c","type":"f32","count":64}],` +
				`"params":[{"buffer":"a"},{"buffer":"b"},{"buffer":"c"},{"u32":64}]}`,
			notes: []string{
				`entry "vadd" (the module's only kernel)`,
				`block [64, 1, 1] (default), grid [1, 1, 1]`,
				`param 0 "a": pointer (the kernel loads f32 through it) → buffer "a": 64 × f32, iota 0, 1, 2, …`,
				`param 3 "n": scalar u32 = 64 (compared with the thread index)`,
			},
			check: func(t *testing.T, res *Result) {
				if got, want := bufferValues(t, res, "c"), seq(64, func(i int) int { return 3 * i }); got != want {
					t.Errorf("c = %s\nwant %s", got, want)
				}
			},
		},
		{
			name: "saxpy", src: inferSaxpy,
			kernel: `{"name":"saxpy","params":[` +
				`{"name":"n","type":"u32","size":4,"role":"scalar","use":"count"},` +
				`{"name":"a","type":"f32","size":4,"role":"scalar","use":"float"},` +
				`{"name":"x","type":"u64","size":8,"role":"pointer","elemType":"f32","access":"read"},` +
				`{"name":"y","type":"u64","size":8,"role":"pointer","elemType":"f32","access":"readWrite"}]}`,
			spec: `{"version":1,"entry":"saxpy","grid":[1,1,1],"block":[64,1,1],"buffers":[` +
				`{"name":"x","type":"f32","count":64,"init":{"iota":{"start":0,"step":1}}},` +
				`{"name":"y","type":"f32","count":64}],` +
				`"params":[{"u32":64},{"f32":2},{"buffer":"x"},{"buffer":"y"}]}`,
			notes: []string{
				`param 1 "a": scalar f32 = 2 (floating-point parameters default to 2)`,
				`param 3 "y": pointer (the kernel loads and stores f32 through it) → buffer "y": 64 × f32, zeros`,
			},
			check: func(t *testing.T, res *Result) {
				if got, want := bufferValues(t, res, "y"), seq(64, func(i int) int { return 2 * i }); got != want {
					t.Errorf("y = %s\nwant %s", got, want)
				}
			},
		},
		{
			name: "histogram", src: inferHistogram,
			kernel: `{"name":"hist","params":[` +
				`{"name":"data","type":"u64","size":8,"role":"pointer","elemType":"s32","access":"read"},` +
				`{"name":"bins","type":"u64","size":8,"role":"pointer","elemType":"s32","access":"readWrite"},` +
				`{"name":"n","type":"s32","size":4,"role":"scalar","use":"count"}]}`,
			spec: `{"version":1,"entry":"hist","grid":[1,1,1],"block":[64,1,1],"buffers":[` +
				`{"name":"data","type":"s32","count":64,"init":{"iota":{"start":0,"step":1}}},` +
				`{"name":"bins","type":"s32","count":64}],` +
				`"params":[{"buffer":"data"},{"buffer":"bins"},{"s32":64}]}`,
			check: func(t *testing.T, res *Result) {
				want := seq(64, func(i int) int {
					if i < 16 {
						return 4
					}
					return 0
				})
				if got := bufferValues(t, res, "bins"); got != want {
					t.Errorf("bins = %s\nwant %s", got, want)
				}
			},
		},
		{
			name: "u8 image", src: inferImage,
			kernel: `{"name":"invert","params":[` +
				`{"name":"src","type":"u64","size":8,"role":"pointer","elemType":"u8","access":"read"},` +
				`{"name":"dst","type":"u64","size":8,"role":"pointer","elemType":"u8","access":"write"},` +
				`{"name":"width","type":"u32","size":4,"role":"scalar","use":"count"},` +
				`{"name":"height","type":"u32","size":4,"role":"scalar","use":"count"}]}`,
			spec: `{"version":1,"entry":"invert","grid":[1,1,1],"block":[8,8,1],"buffers":[` +
				`{"name":"src","type":"u8","count":64,"init":{"iota":{"start":0,"step":1}}},` +
				`{"name":"dst","type":"u8","count":64}],` +
				`"params":[{"buffer":"src"},{"buffer":"dst"},{"u32":8},{"u32":8}]}`,
			notes: []string{`block [8, 8, 1] (the kernel uses %tid.y), grid [1, 1, 1]`},
			check: func(t *testing.T, res *Result) {
				if got, want := bufferValues(t, res, "dst"), seq(64, func(i int) int { return 255 - i }); got != want {
					t.Errorf("dst = %s\nwant %s", got, want)
				}
			},
		},
		{
			name: "two entries, first", src: inferTwo,
			kernel: `{"name":"fill","params":[` +
				`{"name":"out","type":"u64","size":8,"role":"pointer","elemType":"s32","access":"write"},` +
				`{"name":"v","type":"s32","size":4,"role":"scalar"}]}`,
			spec: `{"version":1,"entry":"fill","grid":[1,1,1],"block":[64,1,1],"buffers":[` +
				`{"name":"out","type":"s32","count":64}],"params":[{"buffer":"out"},{"s32":1}]}`,
			notes: []string{`entry "fill" (the first of 2 kernels: fill, copy)`, `param 1 "v": scalar s32 = 1`},
			check: func(t *testing.T, res *Result) {
				if got, want := bufferValues(t, res, "out"), seq(64, func(int) int { return 1 }); got != want {
					t.Errorf("out = %s", got)
				}
			},
		},
		{
			name: "two entries, second", src: inferTwo, entry: "copy",
			kernel: `{"name":"copy","params":[` +
				`{"name":"in","type":"u64","size":8,"role":"pointer","elemType":"f64","access":"read"},` +
				`{"name":"out","type":"u64","size":8,"role":"pointer","elemType":"f64","access":"write"},` +
				`{"name":"off","type":"u32","size":4,"role":"scalar","use":"offset"},` +
				`{"name":"unused","type":"u64","size":8,"role":"unused"}]}`,
			spec: `{"version":1,"entry":"copy","grid":[1,1,1],"block":[64,1,1],"buffers":[` +
				`{"name":"in","type":"f64","count":64,"init":{"iota":{"start":0,"step":1}}},` +
				`{"name":"out","type":"f64","count":64}],"params":[{"buffer":"in"},{"buffer":"out"},{"u32":0},{"u64":0}]}`,
			notes: []string{
				`entry "copy"`,
				`param 2 "off": scalar u32 = 0 (added to an address: an offset)`,
				`param 3 "unused": scalar u64 = 0 (unused by the kernel)`,
			},
			check: func(t *testing.T, res *Result) {
				if got, want := bufferValues(t, res, "out"), seq(64, func(i int) int { return i }); got != want {
					t.Errorf("out = %s", got)
				}
			},
		},
		{
			name: "register reuse", src: launchHeader + `
.visible .entry reuse(.param .u64 in, .param .u64 out)
{
	.reg .b32 %r1;
	.reg .f32 %f1;
	.reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	ld.param.u64 %rd1, [in];
	add.s64 %rd2, %rd1, %rd3;
	ld.global.f32 %f1, [%rd2];
	ld.param.u64 %rd1, [out];
	add.s64 %rd2, %rd1, %rd3;
	st.global.f32 [%rd2], %f1;
	ret;
}
`,
			kernel: `{"name":"reuse","params":[` +
				`{"name":"in","type":"u64","size":8,"role":"pointer","elemType":"f32","access":"read"},` +
				`{"name":"out","type":"u64","size":8,"role":"pointer","elemType":"f32","access":"write"}]}`,
			spec: `{"version":1,"entry":"reuse","grid":[1,1,1],"block":[64,1,1],"buffers":[` +
				`{"name":"in","type":"f32","count":64,"init":{"iota":{"start":0,"step":1}}},` +
				`{"name":"out","type":"f32","count":64}],"params":[{"buffer":"in"},{"buffer":"out"}]}`,
			check: func(t *testing.T, res *Result) {
				if got, want := bufferValues(t, res, "out"), seq(64, func(i int) int { return i }); got != want {
					t.Errorf("out = %s", got)
				}
			},
		},
		{
			name: "no params", src: inferNoParams,
			kernel: `{"name":"nop","params":[]}`,
			spec:   `{"version":1,"entry":"nop","grid":[1,1,1],"block":[64,1,1]}`,
		},
		{
			name: "device function", src: inferCall,
			kernel: `{"name":"caller","params":[{"name":"out","type":"u64","size":8,"role":"pointer","elemType":"u16","access":"write"}]}`,
			spec: `{"version":1,"entry":"caller","grid":[1,1,1],"block":[64,1,1],"buffers":[` +
				`{"name":"out","type":"u16","count":64}],"params":[{"buffer":"out"}]}`,
			check: func(t *testing.T, res *Result) {
				if got, want := bufferValues(t, res, "out"), seq(64, func(i int) int { return i }); got != want {
					t.Errorf("out = %s", got)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := compileLaunchTest(t, c.src)
			entry := c.entry
			if entry == "" {
				entry = p.Entries()[0].Name
			}
			if got := kernelJSON(t, p, entry); got != c.kernel {
				t.Errorf("Kernels:\n got %s\nwant %s", got, c.kernel)
			}
			s, notes, res := inferAndRun(t, p, nil, c.entry)
			if got := specJSON(t, s); got != c.spec {
				t.Errorf("spec:\n got %s\nwant %s", got, c.spec)
			}
			all := notesText(notes)
			for _, n := range c.notes {
				if !strings.Contains(all, n) {
					t.Errorf("no note %q in\n%s", n, all)
				}
			}
			if res.Status != StatusOK {
				t.Errorf("status %s %+v", res.Status, res.Fault)
			}
			if c.check != nil {
				c.check(t, res)
			}
		})
	}
}

func TestInferAddressSize32(t *testing.T) {
	p := compileLaunchTest(t, inferAddr32)
	want := `{"name":"k32","params":[` +
		`{"name":"p","type":"u32","size":4,"role":"pointer","elemType":"f32","access":"readWrite"},` +
		`{"name":"n","type":"u32","size":4,"role":"scalar","use":"count"}]}`
	if got := kernelJSON(t, p, "k32"); got != want {
		t.Errorf("Kernels:\n got %s\nwant %s", got, want)
	}
	s, notes, err := Infer(p, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	// The emulator's global addresses do not fit in 32 bits: no buffer.
	if got := specJSON(t, s); got != `{"version":1,"entry":"k32","grid":[1,1,1],"block":[64,1,1],"params":[{"u32":0},{"u32":64}]}` {
		t.Errorf("spec %s", got)
	}
	if !strings.Contains(notesText(notes), `param 0 "p": scalar u32 = 0 (a pointer, but the emulator's 64-bit global addresses do not fit in it`) {
		t.Errorf("notes:\n%s", notesText(notes))
	}
	if ms := Check(p, s); len(ms) != 0 {
		t.Errorf("Check: %v", ms)
	}
	if _, err := Prepare(p, s); err != nil {
		t.Errorf("Prepare: %v", err)
	}
}

func TestInferLimits(t *testing.T) {
	// reqntid sets the block; maxntid bounds it; buffers stay within the
	// limit on their total size.
	src := launchHeader + `
.visible .entry r(.param .u64 out) .reqntid 96 { .reg .b64 %rd1; ld.param.u64 %rd1, [out]; st.global.u32 [%rd1], 1; ret; }
.visible .entry m(.param .u64 out) .maxntid 32, 1, 1 { .reg .b64 %rd1; ld.param.u64 %rd1, [out]; st.global.u32 [%rd1], 1; ret; }
.visible .entry y(.param .u64 out) .maxntid 16, 1, 1 { .reg .b64 %rd1; .reg .b32 %r1; mov.u32 %r1, %tid.y; ld.param.u64 %rd1, [out]; st.global.u32 [%rd1], %r1; ret; }
`
	p := compileLaunchTest(t, src)
	for entry, block := range map[string][3]int{"r": {96, 1, 1}, "m": {32, 1, 1}, "y": {16, 1, 1}} {
		s, _, err := Infer(p, nil, entry)
		if err != nil {
			t.Fatal(err)
		}
		if s.Block != block || s.Buffers[0].Count != block[0] {
			t.Errorf("%s: block %v, count %d", entry, s.Block, s.Buffers[0].Count)
		}
		if _, err := Prepare(p, s); err != nil {
			t.Errorf("%s: %v", entry, err)
		}
	}
	// A prev with a block the kernel forbids gets the kernel's.
	prev := &Spec{Entry: "r", Grid: [3]int{1, 1, 1}, Block: [3]int{64, 1, 1}}
	s, notes, err := Infer(p, prev, "")
	if err != nil || s.Block != [3]int{96, 1, 1} || !strings.Contains(notesText(notes), "block [96, 1, 1] (the kernel's .reqntid): kernel r requires a block of 96x1x1 threads") {
		t.Errorf("%v %v\n%s", s.Block, err, notesText(notes))
	}
	// A huge grid: the buffer is bounded by the limit.
	prev = &Spec{Entry: "m", Grid: [3]int{1 << 20, 1, 1}, Block: [3]int{32, 1, 1}}
	if err := prev.Validate(Limits{MaxBufferBytes: 1000}); err != nil {
		t.Fatal(err)
	}
	s, _, err = Infer(p, prev, "")
	if err != nil || s.Buffers[0].Count != 250 {
		t.Errorf("count %d, %v", s.Buffers[0].Count, err)
	}
}

func TestInferErrors(t *testing.T) {
	p := compileLaunchTest(t, inferTwo)
	if _, _, err := Infer(p, nil, "nope"); err == nil || err.Error() != `no kernel named "nope" (kernels: fill, copy)` {
		t.Errorf("unknown entry: %v", err)
	}
	p = compileLaunchTest(t, launchHeader+".func f() { ret; }\n")
	if _, _, err := Infer(p, nil, ""); err == nil || !strings.Contains(err.Error(), "no kernel") {
		t.Errorf("no kernel: %v", err)
	}
	if _, _, err := Infer(nil, nil, ""); err == nil {
		t.Error("nil program")
	}
}

// parseSpecT parses a spec or fails.
func parseSpecT(t *testing.T, text string) *Spec {
	t.Helper()
	s, err := ParseSpec([]byte(text))
	if err != nil {
		t.Fatalf("spec: %v", err)
	}
	return s
}

const vectorAddSpec = `{"version": 1, "source": "-", "entry": "vadd", "grid": [4], "block": [64], "comment": "mine",
	"buffers": [
		{"name": "a", "type": "f32", "count": 200, "init": {"iota": {"start": 0, "step": 1}}},
		{"name": "b", "type": "f32", "count": 200, "init": {"iota": {"start": 1000, "step": 2}}},
		{"name": "c", "type": "f32", "count": 200},
		{"name": "scratch", "type": "u8", "count": 3}
	],
	"params": [{"buffer": "a"}, {"buffer": "b"}, {"buffer": "c"}, {"u32": 200}]}`

// TestInferKeepsEdits pastes other kernels over a spec written for the
// vector addition: what still fits is kept.
func TestInferKeepsEdits(t *testing.T) {
	prev := parseSpecT(t, vectorAddSpec)

	// The same kernel: the spec fits and comes back unchanged.
	p := compileLaunchTest(t, inferVecAdd)
	if s, notes, err := Infer(p, prev, ""); err != nil || s != prev || notes != nil {
		t.Errorf("fitting spec: %v %v %v", s, notes, err)
	}

	// A kernel with another name and three parameters: in, out, n.
	scale := launchHeader + `
.visible .entry scale(.param .u64 in, .param .u64 out, .param .u32 n)
{
	.reg .pred %p1;
	.reg .b32 %r<4>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r2, %r2, 64, %r3;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 ret;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.f32 %f1, [%rd4];
	mul.f32 %f2, %f1, 0f40400000;
	add.s64 %rd4, %rd2, %rd3;
	st.global.f32 [%rd4], %f2;
	ret;
}
`
	p = compileLaunchTest(t, scale)
	ms := Check(p, prev)
	if len(ms) != 1 || ms[0].Field != "entry" || !ms[0].Blocking || ms[0].Message != `no kernel named "vadd" (kernels: scale)` {
		t.Errorf("Check: %+v", ms)
	}
	s, notes, res := inferAndRun(t, p, prev, "")
	want := `{"version":1,"comment":"mine","source":"-","entry":"scale","grid":[4,1,1],"block":[64,1,1],"buffers":[` +
		`{"name":"a","type":"f32","count":200,"init":{"iota":{"start":0,"step":1}}},` +
		`{"name":"b","type":"f32","count":200,"init":{"iota":{"start":1000,"step":2}}},` +
		`{"name":"scratch","type":"u8","count":3}],` +
		`"params":[{"buffer":"a"},{"buffer":"b"},{"u32":200}]}`
	if got := specJSON(t, s); got != want {
		t.Errorf("spec:\n got %s\nwant %s", got, want)
	}
	wantNotes := `entry "scale": the module has no kernel "vadd" (kernels: scale)
kernel scale takes 3 parameters; the spec gave 4
buffer "c" dropped (no parameter uses it any more)
param 2 "n": scalar u32 = 200 (compared with the thread index), replacing the address of buffer "c"`
	if got := notesText(notes); got != wantNotes {
		t.Errorf("notes:\n%s\nwant\n%s", got, wantNotes)
	}
	if got, want := bufferValues(t, res, "b"), seq(200, func(i int) int { return 3 * i }); got != want {
		t.Errorf("b = %s", got)
	}
	if prev.Entry != "vadd" || len(prev.Buffers) != 4 || *prev.Buffers[1].Init.Iota != (Iota{Start: "1000", Step: "2"}) {
		t.Error("Infer modified prev")
	}

	// The same kernel on s32 data: the f32 buffers do not fit any more;
	// the count n still does.
	p = compileLaunchTest(t, strings.NewReplacer("f32", "s32", "%f", "%r1", ".reg .s32 %r1<4>;", "").Replace(inferVecAdd))
	ms = Check(p, prev)
	if len(ms) != 3 || ms[0].Blocking || ms[0].Message != `params[0]: parameter a of kernel vadd (.u64 a): the kernel accesses it as s32, but buffer "a" holds f32` {
		t.Errorf("Check: %+v", ms)
	}
	s, notes, _ = inferAndRun(t, p, prev, "")
	want = `{"version":1,"comment":"mine","source":"-","entry":"vadd","grid":[4,1,1],"block":[64,1,1],"buffers":[` +
		`{"name":"a","type":"s32","count":256,"init":{"iota":{"start":0,"step":1}}},` +
		`{"name":"b","type":"s32","count":256,"init":{"iota":{"start":0,"step":1}}},` +
		`{"name":"c","type":"s32","count":256},` +
		`{"name":"scratch","type":"u8","count":3}],` +
		`"params":[{"buffer":"a"},{"buffer":"b"},{"buffer":"c"},{"u32":200}]}`
	if got := specJSON(t, s); got != want {
		t.Errorf("spec:\n got %s\nwant %s\n%s", got, want, notesText(notes))
	}
}

// TestCheck lists the mismatches Check finds, and that Prepare rejects a
// spec exactly when one of them is blocking.
func TestCheck(t *testing.T) {
	src := inferTwo + `
.visible .entry sized(.param .u64 p, .param .u64 n, .param .f32 x, .param .align 4 .b8 blob[8]) .reqntid 32
{
	.reg .pred %p1;
	.reg .b32 %r1;
	.reg .b64 %rd<4>;
	.reg .f32 %f1;
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [n];
	ld.param.f32 %f1, [x];
	mov.u32 %r1, %tid.x;
	cvt.u64.u32 %rd3, %r1;
	setp.ge.u64 %p1, %rd3, %rd2;
	@%p1 ret;
	shl.b64 %rd3, %rd3, 2;
	add.s64 %rd3, %rd1, %rd3;
	st.global.f32 [%rd3], %f1;
	ret;
}
`
	p := compileLaunchTest(t, src)
	bufs := `"buffers": [{"name": "f", "type": "f32", "count": 32}, {"name": "u", "type": "u32", "count": 32}]`
	cases := []struct {
		spec     string
		field    string
		blocking bool
		want     string
	}{
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"buffer": "f"}, {"u64": 32}, {"f32": 1}, {"bytes": "0000000000000000"}]}`, "", false, ""},
		{`{"source": "-", "block": [32]}`, "entry", true, `the module has 3 kernels; choose one with "entry": fill, copy, sized`},
		{`{"source": "-", "entry": "nope"}`, "entry", true, `no kernel named "nope" (kernels: fill, copy, sized)`},
		{`{"source": "-", "entry": "sized", "block": [64], ` + bufs + `, "params": [{"buffer": "f"}, {"u64": 32}, {"f32": 1}, {"bytes": "0000000000000000"}]}`,
			"block", true, "kernel sized requires a block of 32x1x1 threads (.reqntid)"},
		{`{"source": "-", "entry": "sized", "block": [32], "grid": [1, 70000], ` + bufs + `, "params": [{"buffer": "f"}, {"u64": 32}, {"f32": 1}, {"bytes": "0000000000000000"}]}`,
			"grid", true, "grid[1] is 70000; at most 65535 (a grid is at most 2147483648 x 65535 x 65535)"},
		{`{"source": "-", "entry": "sized", "block": [224, 7905747460161236407, 1], ` + bufs + `, "params": [{"buffer": "f"}, {"u64": 32}, {"f32": 1}, {"bytes": "0000000000000000"}]}`,
			"block", true, "block[1] is 7905747460161236407; at most 1024 (a block is at most 1024 x 1024 x 64)"},
		{`{"source": "-", "entry": "sized", "block": [32], "grid": [4611686018427387904, 2, 1], ` + bufs + `, "params": [{"buffer": "f"}, {"u64": 32}, {"f32": 1}, {"bytes": "0000000000000000"}]}`,
			"grid", true, "grid[0] is 4611686018427387904; at most 2147483648 (a grid is at most 2147483648 x 65535 x 65535)"},
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"buffer": "f"}, {"u64": 32}, {"f32": 1}]}`,
			"params", true, "kernel sized takes 4 parameters (.u64 p, .u64 n, .f32 x, .b8 blob[8] (8 bytes)); the spec gives 3"},
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"u64": 0}, {"u64": 32}, {"f32": 1}, {"bytes": "0000000000000000"}]}`,
			"params[0]", false, "params[0]: parameter p of kernel sized (.u64 p): the kernel stores through it, but it gets a u64 value, not a buffer"},
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"buffer": "u"}, {"u64": 32}, {"f32": 1}, {"bytes": "0000000000000000"}]}`,
			"params[0]", false, `params[0]: parameter p of kernel sized (.u64 p): the kernel accesses it as f32, but buffer "u" holds u32`},
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"buffer": "f"}, {"buffer": "u"}, {"f32": 1}, {"bytes": "0000000000000000"}]}`,
			"params[1]", false, `params[1]: parameter n of kernel sized (.u64 n): the kernel uses it as an integer, not as an address, but it gets the address of buffer "u"`},
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"buffer": "f"}, {"f64": 32}, {"f32": 1}, {"bytes": "0000000000000000"}]}`,
			"params[1]", false, "params[1]: parameter n of kernel sized (.u64 n): is an integer parameter, but it gets an f64 value"},
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"buffer": "f"}, {"u64": 32}, {"u32": 1}, {"bytes": "0000000000000000"}]}`,
			"params[2]", false, "params[2]: parameter x of kernel sized (.f32 x): is a floating-point parameter, but it gets a u32 value"},
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"buffer": "f"}, {"u32": 32}, {"f32": 1}, {"bytes": "0000000000000000"}]}`,
			"params[1]", true, "params[1]: parameter n of kernel sized (.u64 n): a u32 value gives 4 bytes, the parameter has 8"},
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"buffer": "f"}, {"u64": 32}, {"buffer": "f"}, {"bytes": "0000000000000000"}]}`,
			"params[2]", true, `params[2]: parameter x of kernel sized (.f32 x): is not 8 bytes wide, so it cannot hold the address of buffer "f"`},
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"buffer": "f", "offset": 200}, {"u64": 32}, {"f32": 1}, {"bytes": "0000000000000000"}]}`,
			"params[0]", true, `params[0]: parameter p of kernel sized (.u64 p): offset 200 is past the end of buffer "f" (128 bytes)`},
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"buffer": "f"}, {"u64": 32}, {"f32": 1}, {"bytes": "00"}]}`,
			"params[3]", true, "params[3]: parameter blob of kernel sized (.b8 blob[8] (8 bytes)): 1 bytes given, the parameter has 8"},
		// Raw bytes and bit-size values fit any parameter of their size.
		{`{"source": "-", "entry": "sized", "block": [32], ` + bufs + `, "params": [{"buffer": "f"}, {"bytes": "2000000000000000"}, {"b32": "0x3f800000"}, {"u32": [0, 0]}]}`, "", false, ""},
	}
	for _, c := range cases {
		s := parseSpecT(t, c.spec)
		ms := Check(p, s)
		_, perr := Prepare(p, s)
		blocking := false
		for _, m := range ms {
			blocking = blocking || m.Blocking
		}
		if blocking != (perr != nil) {
			t.Errorf("%s:\n  Check %+v\n  Prepare %v", c.spec, ms, perr)
		}
		if c.want == "" {
			if len(ms) != 0 {
				t.Errorf("%s: %+v", c.spec, ms)
			}
			continue
		}
		if len(ms) != 1 || ms[0].Field != c.field || ms[0].Blocking != c.blocking || ms[0].Message != c.want {
			t.Errorf("%s:\n  got  %+v\n  want {Field:%s Blocking:%v Message:%s}", c.spec, ms, c.field, c.blocking, c.want)
		}
		if perr != nil && perr.Error() != c.want {
			t.Errorf("%s: Prepare says %q, Check %q", c.spec, perr, c.want)
		}
		// Each mismatch carries the stable ID of its kind.
		wantID := map[string]ptx.DiagID{"entry": ptx.DiagSpecEntry, "grid": ptx.DiagSpecConfig, "block": ptx.DiagSpecConfig, "params": ptx.DiagSpecParamCnt}[c.field]
		if strings.HasPrefix(c.field, "params[") {
			wantID = map[bool]ptx.DiagID{true: ptx.DiagSpecParam, false: ptx.DiagSpecParamHint}[c.blocking]
		}
		if ms[0].ID != wantID || !ptx.KnownID(ms[0].ID) {
			t.Errorf("%s: ID %q, want %q", c.spec, ms[0].ID, wantID)
		}
		// Infer fixes every mismatch.
		fixed, _, err := Infer(p, s, "")
		if err != nil {
			t.Errorf("%s: Infer: %v", c.spec, err)
			continue
		}
		if ms := Check(p, fixed); len(ms) != 0 {
			t.Errorf("%s: Check after Infer: %+v", c.spec, ms)
		}
	}
	if ms := Check(p, nil); len(ms) != 1 || !ms[0].Blocking {
		t.Errorf("nil spec: %v", ms)
	}
	// An invalid spec is a blocking mismatch too.
	s := &Spec{Entry: "fill", Buffers: []Buffer{{Name: "x", Type: "f99"}}, Params: []Param{BufferParam("x"), ScalarParam("s32", "1")}}
	if ms := Check(p, s); len(ms) == 0 || ms[0].ID != ptx.DiagSpecInvalid {
		t.Errorf("invalid spec: ID %+v", ms)
	}
	if ms := Check(p, s); len(ms) == 0 || ms[0].Field != "spec" || !ms[0].Blocking {
		t.Errorf("invalid spec: %+v", ms)
	}
}

// TestCheckPackedBits: a pointer accessed only through bit-size types
// (st.global.v2.b32 of .b32 registers, as Triton stores packed halves)
// fits a buffer of any element that divides the access; a typed access
// (an .f32 register) still decides the type.
func TestCheckPackedBits(t *testing.T) {
	src := `
.version 8.0
.target sm_80
.address_size 64
.visible .entry packed(.param .u64 p, .param .u64 q) .reqntid 32
{
	.reg .b32 %r<4>;
	.reg .f32 %f1;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [q];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 8;
	add.s64 %rd1, %rd1, %rd3;
	mov.b32 %r2, 0x3c003c00;
	mov.b32 %r3, %r2;
	st.global.v2.b32 [%rd1], {%r2, %r3};
	mov.b32 %f1, %r2;
	add.s64 %rd2, %rd2, %rd3;
	st.global.b32 [%rd2], %f1;
	ret;
}
`
	p := compileLaunchTest(t, src)
	for _, c := range []struct{ p, q, want string }{
		{"f16", "f32", ""},
		{"u8", "f32", ""},
		{"u32", "f32", ""},
		{"f64", "f32", `params[0]: parameter p of kernel packed (.u64 p): the kernel accesses it as u32, but buffer "p" holds f64`},
		{"f16", "f16", `params[1]: parameter q of kernel packed (.u64 q): the kernel accesses it as f32, but buffer "q" holds f16`},
	} {
		spec := fmt.Sprintf(`{"source": "-", "block": [32], "buffers": [{"name": "p", "type": %q, "count": 256}, {"name": "q", "type": %q, "count": 64}], "params": [{"buffer": "p"}, {"buffer": "q"}]}`, c.p, c.q)
		ms := Check(p, parseSpecT(t, spec))
		got := ""
		if len(ms) > 0 {
			got = ms[0].Message
		}
		if len(ms) > 1 || got != c.want {
			t.Errorf("p %s, q %s: Check %+v, want %q", c.p, c.q, ms, c.want)
		}
	}
}

// TestMarshalIndent: the indented form parses back to the same spec.
func TestMarshalIndent(t *testing.T) {
	s := parseSpecT(t, vectorAddSpec)
	s.Buffers[2].Output = new(bool)
	s.Params = append(s.Params, Param{Buffer: "b", Offset: 8}, BytesParam([]byte{1, 2}), launchspec.ArrayParam("u16", "1", "2"))
	b, err := s.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 1,
  "comment": "mine",
  "source": "-",
  "entry": "vadd",
  "grid": [4, 1, 1],
  "block": [64, 1, 1],
  "buffers": [
    {"name": "a", "type": "f32", "count": 200, "init": {"iota": {"start": 0, "step": 1}}},
    {"name": "b", "type": "f32", "count": 200, "init": {"iota": {"start": 1000, "step": 2}}},
    {"name": "c", "type": "f32", "count": 200, "output": false},
    {"name": "scratch", "type": "u8", "count": 3}
  ],
  "params": [
    {"buffer": "a"},
    {"buffer": "b"},
    {"buffer": "c"},
    {"u32": 200},
    {"buffer": "b", "offset": 8},
    {"bytes": "0102"},
    {"u16": [1, 2]}
  ]
}
`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
	back := parseSpecT(t, string(b))
	if specJSON(t, back) != specJSON(t, s) {
		t.Errorf("round trip:\n%s\n%s", specJSON(t, back), specJSON(t, s))
	}
	empty, _ := (&Spec{Source: "x <&> y"}).MarshalIndent()
	if string(empty) != "{\n  \"source\": \"x <&> y\",\n  \"grid\": [1, 1, 1],\n  \"block\": [1, 1, 1],\n  \"buffers\": [],\n  \"params\": []\n}\n" {
		t.Errorf("empty spec:\n%s", empty)
	}
}

// TestInferLargeKernel: a kernel too large for the flow-sensitive
// analysis is analysed flow-insensitively, with the same findings here.
func TestInferLargeKernel(t *testing.T) {
	for _, n := range []int{50, 3000} {
		var b strings.Builder
		fmt.Fprintf(&b, "%s.visible .entry big(.param .u64 a, .param .u64 b, .param .u32 n)\n{\n", launchHeader)
		fmt.Fprintf(&b, ".reg .b64 %%rd<%d>;\n.reg .b32 %%r<%d>;\n.reg .pred %%p<%d>;\n", n+2, n+2, n+2)
		b.WriteString("ld.param.u64 %rd0, [a];\nld.param.u32 %r0, [n];\nmov.u32 %r1, %tid.x;\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "add.s64 %%rd%d, %%rd%d, 4;\nadd.u32 %%r%d, %%r%d, 1;\nsetp.ge.u32 %%p%d, %%r%d, %%r0;\n@%%p%d bra L%d;\nst.global.u32 [%%rd%d], %%r%d;\nL%d:\n",
				i, i-1, i+1, i, i, i+1, i, i, i, i, i)
		}
		b.WriteString("ret;\n}\n")
		p := compileLaunchTest(t, b.String())
		want := `{"name":"big","params":[` +
			`{"name":"a","type":"u64","size":8,"role":"pointer","elemType":"u32","access":"write"},` +
			`{"name":"b","type":"u64","size":8,"role":"unused"},` +
			`{"name":"n","type":"u32","size":4,"role":"scalar","use":"count"}]}`
		if got := kernelJSON(t, p, "big"); got != want {
			t.Errorf("%d blocks:\n got %s\nwant %s", n, got, want)
		}
	}
}

// TestPlainName: plainName is the pattern ^[A-Za-z_][A-Za-z0-9_]{0,31}$ on
// the edges of every class and on random strings.
func TestPlainName(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,31}$`)
	cases := []string{"", "a", "_", "Z9", "9a", "a-b", "in", "out_2", "@", "[", "`", "{", "/", ":", "é", "aé",
		strings.Repeat("a", 32), strings.Repeat("a", 33), "_" + strings.Repeat("9", 31), "_" + strings.Repeat("9", 32)}
	rng := rand.New(rand.NewSource(3))
	for range 20000 {
		b := make([]byte, rng.Intn(36))
		for i := range b {
			if rng.Intn(4) == 0 {
				b[i] = byte(rng.Intn(256))
			} else {
				b[i] = "aZ_09@[`{/:"[rng.Intn(11)]
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := plainName(s), re.MatchString(s); got != want {
			t.Errorf("plainName(%q) = %v, want %v", s, got, want)
		}
	}
}
