package launchspec

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

func TestEncodeValue(t *testing.T) {
	ok := []struct {
		v    string
		t    isa.Type
		want uint64
	}{
		{"1", isa.F32, 0x3f800000},
		{"2.5", isa.F32, 0x40200000},
		{"0.1", isa.F32, 0x3dcccccd},
		{"-0", isa.F32, 0x80000000},
		{"NaN", isa.F32, 0x7fc00000},
		{"nan", isa.F64, 0x7ff8000000000000},
		{"Inf", isa.F32, 0x7f800000},
		{"-Inf", isa.F64, 0xfff0000000000000},
		{"+Inf", isa.F16, 0x7c00},
		{"NaN", isa.F16, 0x7e00},
		{"NaN", isa.BF16, 0x7fc0},
		{"0x7f800001", isa.F32, 0x7f800001},
		{"0X3C00", isa.F16, 0x3c00},
		{"1e400", isa.F64, 0x7ff0000000000000},
		{"1e-400", isa.F64, 0},
		{"3.4028235e38", isa.F32, 0x7f7fffff},
		{"1e39", isa.F32, 0x7f800000},
		{"1e-46", isa.F32, 0},
		{"1.4e-45", isa.F32, 1},
		{"0.1", isa.F64, math.Float64bits(0.1)},
		{"0.1", isa.F16, 0x2e66},
		{"65504", isa.F16, 0x7bff},
		{"65519.99", isa.F16, 0x7bff},
		{"65520", isa.F16, 0x7c00},
		{"-65520", isa.F16, 0xfc00},
		{"5.960464477539063e-8", isa.F16, 0x0001},
		{"2.98e-8", isa.F16, 0x0000},
		{"2.99e-8", isa.F16, 0x0001},
		{"1", isa.BF16, 0x3f80},
		// 1 + 2^-8 is halfway between two bf16 values: ties to even.
		{"1.00390625", isa.BF16, 0x3f80},
		// Just above the tie, but the nearest float64 is the tie itself:
		// rounding through float64 naively would give 0x3f80.
		{"1.00390625000000000001", isa.BF16, 0x3f81},
		{"1.00048828125000000001", isa.F16, 0x3c01},
		{"1.00048828125", isa.F16, 0x3c00},
		{"1.0009765625", isa.F16, 0x3c01},
		// Small integers take a fast path (exact in float64): still
		// rounded to nearest even.
		{"-2", isa.F16, 0xc000},
		{"2049", isa.F16, 0x6800},
		{"2051", isa.F16, 0x6802},
		{"65519", isa.F16, 0x7bff},
		{"257", isa.BF16, 0x4380},
		{"259", isa.BF16, 0x4382},
		{"999999999999999", isa.BF16, 0x5863},
		{"-9007199254740993", isa.BF16, 0xda00},
		{"0", isa.U8, 0},
		{"255", isa.U8, 255},
		{"-128", isa.S8, 0x80},
		{"127", isa.S8, 0x7f},
		{"-1", isa.B8, 0xff},
		{"255", isa.B8, 0xff},
		{"0xff", isa.U8, 0xff},
		{"-1", isa.S32, 0xffffffff},
		{"1e3", isa.U32, 1000},
		{"4.0", isa.S16, 4},
		{"18446744073709551615", isa.U64, math.MaxUint64},
		{"-9223372036854775808", isa.S64, 1 << 63},
		{"9223372036854775807", isa.S64, 1<<63 - 1},
		{"-9223372036854775808", isa.B64, 1 << 63},
		{"0xffffffffffffffff", isa.S64, math.MaxUint64},
	}
	for _, c := range ok {
		got, err := EncodeValue(Value(c.v), c.t)
		if err != nil || got != c.want {
			t.Errorf("encode %q as %s = %#x, %v; want %#x", c.v, c.t, got, err, c.want)
		}
	}
	bad := []struct {
		v    string
		t    isa.Type
		want string
	}{
		{"256", isa.U8, "out of range for u8 [0, 255]"},
		{"-1", isa.U32, "out of range for u32"},
		{"-129", isa.S8, "out of range for s8 [-128, 127]"},
		{"128", isa.S8, "out of range"},
		{"18446744073709551616", isa.U64, "out of range"},
		{"1.5", isa.U32, "not an integer"},
		{"NaN", isa.S32, "not valid for the integer type s32"},
		{"0x100", isa.U8, "do not fit in 8-bit u8"},
		{"0x1ffff", isa.F16, "do not fit"},
		{"0xg", isa.U32, "not valid hexadecimal"},
		{"abc", isa.F32, `"abc" is not a number`},
		{"1.", isa.F32, "not a number"},
		{" 1", isa.F64, "not a number"},
		{"true", isa.U32, "not a number"},
		{"", isa.U32, "empty value"},
	}
	for _, c := range bad {
		_, err := EncodeValue(Value(c.v), c.t)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("encode %q as %s: error %v, want one containing %q", c.v, c.t, err, c.want)
		}
	}
}

func TestValueJSON(t *testing.T) {
	cases := []struct {
		bits uint64
		t    isa.Type
		want string
	}{
		{0x3f800000, isa.F32, "1"},
		{0x3dcccccd, isa.F32, "0.1"},
		{0x40200000, isa.F32, "2.5"},
		{0x80000000, isa.F32, "-0"},
		{0x7fc00000, isa.F32, `"NaN"`},
		{0x7fffffff, isa.F32, `"NaN"`},
		{0x7f800000, isa.F32, `"Inf"`},
		{0xff800000, isa.F32, `"-Inf"`},
		{0x33d6bf95, isa.F32, "1e-7"},
		{0x7f7fffff, isa.F32, "3.4028235e+38"},
		{1, isa.F32, "1e-45"},
		{math.Float64bits(0.1), isa.F64, "0.1"},
		{math.Float64bits(1e21), isa.F64, "1e+21"},
		{math.Float64bits(123456789), isa.F64, "123456789"},
		{0x3c00, isa.F16, "1"},
		{0x2e66, isa.F16, "0.1"},
		{0x7bff, isa.F16, "65500"},
		{0x0001, isa.F16, "6e-8"},
		{0x7c01, isa.F16, `"NaN"`},
		{0xfc00, isa.F16, `"-Inf"`},
		{0x3f80, isa.BF16, "1"},
		{0x3dcd, isa.BF16, "0.1"},
		{0xffc0, isa.BF16, `"NaN"`},
		{0xff, isa.U8, "255"},
		{0xff, isa.S8, "-1"},
		{0xff, isa.B8, "255"},
		{0xffffffff, isa.S32, "-1"},
		{0x80000000, isa.S32, "-2147483648"},
		{math.MaxUint64, isa.U64, "18446744073709551615"},
		{1 << 63, isa.S64, "-9223372036854775808"},
	}
	for _, c := range cases {
		if got := string(AppendValueJSON(nil, c.bits, c.t)); got != c.want {
			t.Errorf("value of %#x as %s = %s, want %s", c.bits, c.t, got, c.want)
		}
		// Every printed number converts back to the same bits.
		if c.want[0] != '"' {
			back, err := EncodeValue(Value(c.want), c.t)
			if err != nil || back != c.bits&widthMask(c.t) {
				t.Errorf("%s as %s reads back as %#x, %v; want %#x", c.want, c.t, back, err, c.bits)
			}
		}
	}
	if got := string(AppendBitsHex(nil, 0x3c00, isa.F16)); got != "3c00" {
		t.Errorf("bits hex = %s", got)
	}
	if got := string(AppendBitsHex(nil, 1, isa.U64)); got != "0000000000000001" {
		t.Errorf("bits hex = %s", got)
	}
	for _, c := range []struct {
		bits uint64
		t    isa.Type
	}{{0xfedcba9876543210, isa.U64}, {0x9abcdef0, isa.F32}, {0xa5, isa.U8}, {0xffffffff12345678, isa.S32}, {0xabc, isa.B16}, {1, isa.Pred}, {0x1234, isa.B128}} {
		w := min(c.t.Bits()/4, 16) // up to 64 bits
		want := fmt.Sprintf("x%0*x", w, c.bits&widthMask(c.t))
		if w == 0 {
			want = "x"
		}
		if got := string(AppendBitsHex([]byte("x"), c.bits, c.t)); got != want {
			t.Errorf("bits hex of %#x as %s = %s, want %s", c.bits, c.t, got, want)
		}
	}
	// Every byte value in every position, and widths of odd digit counts.
	for x := uint64(0); x < 256; x++ {
		for _, ty := range []isa.Type{isa.U8, isa.B16, isa.U32, isa.B64} {
			for sh := 0; sh < ty.Bits(); sh += 8 {
				bits := x<<sh | 0x5a5a5a5a5a5a5a5a&^(0xff<<sh)
				if got, want := string(AppendBitsHex(nil, bits, ty)), fmt.Sprintf("%0*x", ty.Bits()/4, bits&widthMask(ty)); got != want {
					t.Fatalf("bits hex of %#x as %s = %s, want %s", bits, ty, got, want)
				}
			}
		}
	}
}

// The table of every f16 and bf16 value holds what AppendValueJSON prints
// without it (appendValue).
func TestHalfTable(t *testing.T) {
	for _, ty := range []isa.Type{isa.F16, isa.BF16} {
		want := make([]string, 1<<16)
		for h := range uint64(1 << 16) {
			want[h] = string(appendValue(nil, h, ty))
		}
		UseHalfTable(ty)
		if !halfTableOf(ty).ready.Load() {
			t.Fatalf("%s: no table", ty)
		}
		for h := range uint64(1 << 16) {
			if got := string(AppendValueJSON([]byte("x"), h|0xabcd0000, ty)); got != "x"+want[h] {
				t.Fatalf("%s %#x: %s from the table, want %s", ty, h, got, want[h])
			}
		}
	}
	UseHalfTable(isa.F32) // nothing
}

// Every f16 value prints as a number that reads back as the same value.
func TestF16RoundTrip(t *testing.T) {
	for _, ty := range []isa.Type{isa.F16, isa.BF16} {
		for h := uint64(0); h < 1<<16; h++ {
			s := string(AppendValueJSON(nil, h, ty))
			if s[0] == '"' {
				continue
			}
			back, err := EncodeValue(Value(s), ty)
			if err != nil || back != h {
				t.Fatalf("%s %#04x prints as %s, reads back as %#04x (%v)", ty, h, s, back, err)
			}
		}
	}
}

func TestIsJSONNumber(t *testing.T) {
	for _, s := range []string{"0", "-0", "1.5", "1e3", "1E+3", "-2.5e-7", "123"} {
		if !isJSONNumber(s) {
			t.Errorf("%q should be a JSON number", s)
		}
	}
	for _, s := range []string{"", "-", "01", "1.", ".5", "1e", "+1", "NaN", "0x10", "1 "} {
		if isJSONNumber(s) {
			t.Errorf("%q should not be a JSON number", s)
		}
	}
}

func TestSplitMix64(t *testing.T) {
	// Reference outputs of SplitMix64 seeded with 1234567.
	r := splitmix64{1234567}
	for i, want := range []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431, 16408922859458223821} {
		if got := r.next(); got != want {
			t.Fatalf("output %d = %d, want %d", i, got, want)
		}
	}
}

func TestRandomInit(t *testing.T) {
	lo, hi := Value("-1"), Value("1")
	b := &Buffer{Name: "r", Type: "f32", Count: 1000, Init: &Init{Random: &Random{Seed: 1, Min: &lo, Max: &hi}}}
	d1 := make([]byte, 4000)
	d2 := make([]byte, 4000)
	if err := FillBuffer(b, isa.F32, d1); err != nil {
		t.Fatal(err)
	}
	if err := FillBuffer(b, isa.F32, d2); err != nil {
		t.Fatal(err)
	}
	if string(d1) != string(d2) {
		t.Fatal("random init is not deterministic")
	}
	var sum float64
	for i := 0; i < 1000; i++ {
		f := float64(math.Float32frombits(uint32(GetElem(d1, i, 4))))
		if f < -1 || f >= 1 {
			t.Fatalf("element %d = %v outside [-1, 1)", i, f)
		}
		sum += f
	}
	if math.Abs(sum/1000) > 0.1 {
		t.Errorf("mean %v is far from 0", sum/1000)
	}
	// Integers: both ends of [min, max] occur.
	mn, mx := Value("-2"), Value("1")
	b = &Buffer{Name: "i", Type: "s8", Count: 1000, Init: &Init{Random: &Random{Seed: 7, Min: &mn, Max: &mx}}}
	d := make([]byte, 1000)
	if err := FillBuffer(b, isa.S8, d); err != nil {
		t.Fatal(err)
	}
	seen := map[int8]int{}
	for _, x := range d {
		seen[int8(x)]++
	}
	if len(seen) != 4 || seen[-2] == 0 || seen[1] == 0 {
		t.Errorf("s8 in [-2, 1]: saw %v", seen)
	}
	// The whole 64-bit range.
	b = &Buffer{Name: "w", Type: "u64", Count: 4, Init: &Init{Random: &Random{Seed: 1234567}}}
	d = make([]byte, 32)
	if err := FillBuffer(b, isa.U64, d); err != nil {
		t.Fatal(err)
	}
	if got := GetElem(d, 0, 8); got != 6457827717110365317 {
		t.Errorf("u64 full range: first element %d, want the generator's first output", got)
	}
	// A different seed gives different data.
	b = &Buffer{Name: "r", Type: "f32", Count: 1000, Init: &Init{Random: &Random{Seed: 2, Min: &lo, Max: &hi}}}
	if err := FillBuffer(b, isa.F32, d2); err != nil {
		t.Fatal(err)
	}
	if string(d1) == string(d2) {
		t.Error("seeds 1 and 2 gave the same data")
	}
}

func TestIotaInit(t *testing.T) {
	cases := []struct {
		typ         string
		start, step Value
		want        []uint64
	}{
		{"u32", "", "", []uint64{0, 1, 2, 3}},
		{"u8", "254", "1", []uint64{254, 255, 0, 1}},
		{"s16", "1", "-2", []uint64{1, 0xffff, 0xfffd, 0xfffb}},
		{"u32", "10", "-1", []uint64{10, 9, 8, 7}},
		{"f32", "0.5", "0.25", []uint64{0x3f000000, 0x3f400000, 0x3f800000, 0x3fa00000}},
		{"f16", "-1", "1", []uint64{0xbc00, 0, 0x3c00, 0x4000}},
	}
	for _, c := range cases {
		ty, _ := LookupType(c.typ)
		b := &Buffer{Name: "x", Type: c.typ, Count: 4, Init: &Init{Iota: &Iota{Start: c.start, Step: c.step}}}
		d := make([]byte, 4*ty.Size())
		if err := FillBuffer(b, ty, d); err != nil {
			t.Errorf("%s iota: %v", c.typ, err)
			continue
		}
		for i, w := range c.want {
			if got := GetElem(d, i, ty.Size()); got != w {
				t.Errorf("%s iota start %q step %q: element %d = %#x, want %#x", c.typ, c.start, c.step, i, got, w)
			}
		}
	}
}
