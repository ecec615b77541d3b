package emu

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
	"unsafe"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// printfArg is one argument of a printf call as C passes it (after the
// default promotions): kind 'i' int, 'l' long long, 'd' double, 's' a
// string (its address), 'p' a pointer.
type printfArg struct {
	kind byte
	v    uint64
	s    string
}

func pi(v int32) printfArg   { return printfArg{kind: 'i', v: uint64(uint32(v))} }
func pl(v int64) printfArg   { return printfArg{kind: 'l', v: uint64(v)} }
func pd(v float64) printfArg { return printfArg{kind: 'd', v: math.Float64bits(v)} }
func ps(s string) printfArg  { return printfArg{kind: 's', s: s} }
func pp(v uint64) printfArg  { return printfArg{kind: 'p', v: v} }

// printfKernel calls vprintf with the format and argument buffer its
// parameters point at and stores the result in out[0], as nvcc emits a
// printf call.
const printfKernel = ctlHeader + `
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.visible .entry k(.param .u64 out, .param .u64 fmt, .param .u64 args) {
	.reg .b32 %r<2>; .reg .b64 %rd<4>;
	ld.param.u64 %rd1, [fmt];
	ld.param.u64 %rd2, [args];
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b64 param1;
	st.param.b64 [param1+0], %rd2;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	ld.param.b32 %r1, [retval0+0];
	} // callseq 0
	ld.param.u64 %rd3, [out];
	st.global.u32 [%rd3], %r1;
	ret;
}
`

// runPrintf runs one call of printf(format, args...) and returns its
// output line and return value.
func runPrintf(t *testing.T, prog *Program, format string, args []printfArg) (PrintfLine, int32) {
	t.Helper()
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{1, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	out := m.Global.Alloc("out", 4, 256)
	f := m.Global.Alloc("fmt", len(format)+1, 1)
	copy(f.Data, format)
	// The argument buffer: each argument aligned to its size.
	var buf []byte
	var strs []printfArg
	for _, a := range args {
		size := 8
		if a.kind == 'i' {
			size = 4
		}
		for len(buf)%size != 0 {
			buf = append(buf, 0)
		}
		if a.kind == 's' {
			strs = append(strs, a)
		}
		buf = binary.LittleEndian.AppendUint64(buf, a.v)[:len(buf)+size]
	}
	ab := m.Global.Alloc("args", max(len(buf), 8), 8)
	copy(ab.Data, buf)
	// Strings: patch their addresses into the buffer.
	off, si := 0, 0
	for _, a := range args {
		size := 8
		if a.kind == 'i' {
			size = 4
		}
		off = (off + size - 1) / size * size
		if a.kind == 's' {
			s := m.Global.Alloc("str", len(strs[si].s)+1, 1)
			copy(s.Data, strs[si].s)
			binary.LittleEndian.PutUint64(ab.Data[off:], s.Base)
			si++
		}
		off += size
	}
	p := m.Params()
	binary.LittleEndian.PutUint64(p[0:], out.Base)
	binary.LittleEndian.PutUint64(p[8:], f.Base)
	binary.LittleEndian.PutUint64(p[16:], ab.Base)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("%q: stopped with %v: %+v", format, r, m.Fault())
	}
	lines, _ := m.Printf()
	if len(lines) != 1 {
		t.Fatalf("%q: %d lines", format, len(lines))
	}
	return lines[0], int32(binary.LittleEndian.Uint32(out.Data))
}

func compilePrintf(t testing.TB, src string) *Program {
	t.Helper()
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	return prog
}

// Every conversion, flag, width, precision and size CUDA's printf
// supports, against glibc's output for the same call (the host C library
// formats CUDA's printf output).
func TestPrintfConversionsMatchC(t *testing.T) {
	prog := compilePrintf(t, printfKernel)
	cases := []struct {
		format string
		args   []printfArg
		want   string
	}{
		{"%d|%i|%u", []printfArg{pi(-42), pi(7), pi(-1)}, "-42|7|4294967295"},
		{"%5d|%-5d|%05d|%+d|% d|%+05d", []printfArg{pi(42), pi(42), pi(-42), pi(0), pi(9), pi(-3)}, "   42|42   |-0042|+0| 9|-0003"},
		{"%-8d|", []printfArg{pi(123)}, "123     |"},
		{"%.0d|%.3d|%5.3d|%-05d|", []printfArg{pi(0), pi(7), pi(-7), pi(7)}, "|007| -007|7    |"},
		{"%x|%X|%#x|%#X|%#x|%o|%#o|%#o|%#.0o", []printfArg{pi(255), pi(255), pi(255), pi(255), pi(0), pi(8), pi(8), pi(0), pi(0)}, "ff|FF|0xff|0XFF|0|10|010|0|0"},
		{"%08x|%#010x|%-#10x|", []printfArg{pi(48879), pi(48879), pi(48879)}, "0000beef|0x0000beef|0xbeef    |"},
		{"%hhd|%hhu|%hhx|%hd|%hu|%hx", []printfArg{pi(300), pi(-1), pi(-1), pi(70000), pi(-1), pi(-2)}, "44|255|ff|4464|65535|fffe"},
		{"%lld|%llu|%ld|%lx|%llo", []printfArg{pl(-9223372036854775808), pl(-1), pl(1234567890123), pl(-1), pl(8)}, "-9223372036854775808|18446744073709551615|1234567890123|ffffffffffffffff|10"},
		{"%c|%3c|%-3c|%05c", []printfArg{pi(65), pi(66), pi(67), pi(68)}, "A|  B|C  |    D"},
		{"%s|%5.2s|%-6s|%.3s|%s", []printfArg{ps("hello"), ps("hello"), ps("ab"), ps("ab"), pp(0x0)}, "hello|   he|ab    |ab|(null)"},
		{"%.3s|%10s|", []printfArg{pp(0x0), pp(0x0)}, "|    (null)|"},
		{"%p|%20p|%-20p|%+p|%020p|%p", []printfArg{pp(0x7f0000000100), pp(0x7f0000000100), pp(0x10), pp(0x10), pp(0x10), pp(0x0)}, "0x7f0000000100|      0x7f0000000100|0x10                |+0x10|0x000000000000000010|(nil)"},
		{"%f|%F|%.2f|%08.3f|%-10.1f|%+f|% f|%#.0f|%.0f|%.0f|%.0f", []printfArg{pd(3.14159), pd(-2.5), pd(1.005), pd(-3.14159), pd(2.25), pd(1.0), pd(1.0), pd(2.0), pd(0.5), pd(1.5), pd(2.5)}, "3.141590|-2.500000|1.00|-003.142|2.2       |+1.000000| 1.000000|2.|0|2|2"},
		{"%e|%E|%+.3e|%.0e|%#.0e|%12.4e|%-12.2E|", []printfArg{pd(12345.678), pd(0.000123), pd(12345.678), pd(5.0), pd(3.0), pd(-1e-300), pd(6.02e+23)}, "1.234568e+04|1.230000E-04|+1.235e+04|5e+00|3.e+00|-1.0000e-300|6.02E+23    |"},
		{"%g|%g|%g|%g|%g|%g|%G|%g|%g", []printfArg{pd(100000.0), pd(1000000.0), pd(0.0001), pd(1e-05), pd(0.0), pd(123456789.0), pd(1e-10), pd(1e+300), pd(math.Copysign(0, -1))}, "100000|1e+06|0.0001|1e-05|0|1.23457e+08|1E-10|1e+300|-0"},
		{"%#g|%.0g|%.3g|%10.4g|%#.3g|%.15g|%.17g|%g|%G", []printfArg{pd(1.5), pd(123.0), pd(3.14159), pd(3.14159265), pd(1.0), pd(0.1), pd(0.1), pd(100.0), pd(2.5e-05)}, "1.50000|1e+02|3.14|     3.142|1.00|0.1|0.10000000000000001|100|2.5E-05"},
		{"%a|%A|%a|%a|%a|%a|%a", []printfArg{pd(1.0), pd(-255.5), pd(0.1), pd(5e-324), pd(0.0), pd(math.Copysign(0, -1)), pd(2.2250738585072014e-308)}, "0x1p+0|-0X1.FFP+7|0x1.999999999999ap-4|0x0.0000000000001p-1022|0x0p+0|-0x0p+0|0x1p-1022"},
		{"%.0a|%.0a|%.1a|%.3a|%#.0a|%.2a|%12.1a|%-12a|%012a", []printfArg{pd(1.5), pd(2.5), pd(1.96875), pd(1.7976931348623157e+308), pd(1.0), pd(0.3333333333333333), pd(1.0), pd(1.0), pd(1.0)}, "0x2p+0|0x1p+1|0x2.0p+0|0x2.000p+1023|0x1.p+0|0x1.55p-2|    0x1.0p+0|0x1p+0      |0x0000001p+0"},
		{"%f|%F|%e|%E|%g|%010f|%-10f|%+f", []printfArg{pd(math.Inf(1)), pd(math.Inf(-1)), pd(math.Copysign(math.NaN(), 1)), pd(math.Copysign(math.NaN(), 1)), pd(math.Inf(1)), pd(math.Inf(1)), pd(math.Copysign(math.NaN(), 1)), pd(math.Inf(1))}, "inf|-INF|nan|NAN|inf|       inf|nan       |+inf"},
		{"%*d|%-*d|%*d|", []printfArg{pi(5), pi(42), pi(5), pi(42), pi(-4), pi(7)}, "   42|42   |7   |"},
		{"100%% done %5%|", []printfArg{}, "100% done %|"},
		{"%d %f %d", []printfArg{pi(1), pd(2.0), pi(3)}, "1 2.000000 3"},
		{"%.10f|%.20e|%.40f", []printfArg{pd(1e-11), pd(0.1), pd(0.1)}, "0.0000000000|1.00000000000000005551e-01|0.1000000000000000055511151231257827021182"},
		{"%f", []printfArg{pd(1e+22)}, "10000000000000000000000.000000"},
		{"%f|%E", []printfArg{pd(math.Copysign(math.NaN(), -1)), pd(math.Copysign(math.NaN(), -1))}, "-nan|-NAN"},
	}
	for _, c := range cases {
		line, ret := runPrintf(t, prog, c.format, c.args)
		if line.Text != c.want {
			t.Errorf("printf(%q):\n got %q\nwant %q", c.format, line.Text, c.want)
		}
		if int(ret) != len(c.args) {
			t.Errorf("printf(%q) returned %d, want %d (the arguments parsed)", c.format, ret, len(c.args))
		}
		if line.Note != "" || line.Cut {
			t.Errorf("printf(%q): note %q cut %v", c.format, line.Note, line.Cut)
		}
	}
}

// PrintfLineOverhead covers a line's fields.
func TestPrintfLineOverhead(t *testing.T) {
	if n := unsafe.Sizeof(PrintfLine{}); n > PrintfLineOverhead {
		t.Fatalf("a PrintfLine takes %d bytes, more than the %d each line counts", n, PrintfLineOverhead)
	}
}
