package launchspec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// elemTypes maps the element type names of the spec to PTX types. The
// bit-size types b8..b64 are aliases that accept both signed and unsigned
// values and print as unsigned.
var elemTypes = map[string]isa.Type{
	"u8": isa.U8, "s8": isa.S8, "u16": isa.U16, "s16": isa.S16,
	"u32": isa.U32, "s32": isa.S32, "u64": isa.U64, "s64": isa.S64,
	"f16": isa.F16, "bf16": isa.BF16, "f32": isa.F32, "f64": isa.F64,
	"b8": isa.B8, "b16": isa.B16, "b32": isa.B32, "b64": isa.B64,
}

// typeList is the list of type names for error messages.
const typeList = "u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64 (or b8 b16 b32 b64)"

// LookupType returns the element type named name.
func LookupType(name string) (isa.Type, error) {
	if t, ok := elemTypes[name]; ok {
		return t, nil
	}
	return 0, fmt.Errorf("unknown type %q (types: %s)", name, typeList)
}

// Value is a scalar in a spec: the text of a JSON number ("1", "-2.5e3"),
// or a string: "NaN", "Inf", "+Inf", "-Inf", "0x…" (the element's raw bits
// in hex) or a decimal number (useful for 64-bit integers beyond the
// precision of JavaScript numbers). It is kept as text so that no
// precision is lost before it is converted to its element type.
type Value string

// UnmarshalJSON accepts a JSON number or string.
func (v *Value) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s != "" && s[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		*v = Value(str)
		return nil
	}
	// Numbers are kept as their text; anything else (true, null, an
	// object) is kept too and rejected by validation, which knows where
	// the value is.
	if len(s) > 64 && !isJSONNumber(s) {
		s = s[:64] + "…"
	}
	*v = Value(s)
	return nil
}

// MarshalJSON writes numbers as JSON numbers and everything else as strings.
func (v Value) MarshalJSON() ([]byte, error) {
	if isJSONNumber(string(v)) {
		return []byte(v), nil
	}
	return json.Marshal(string(v))
}

// isJSONNumber reports whether s is a number in JSON syntax.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if !digits() {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

// widthMask returns the mask of the low bits of t.
func widthMask(t isa.Type) uint64 {
	if t.Bits() >= 64 {
		return math.MaxUint64
	}
	return 1<<t.Bits() - 1
}

// parseHexBits parses "0x…" raw bits that must fit in t.
func parseHexBits(s string, t isa.Type) (uint64, bool, error) {
	if len(s) < 2 || s[0] != '0' || s[1] != 'x' && s[1] != 'X' {
		return 0, false, nil
	}
	x, err := strconv.ParseUint(s[2:], 16, 64)
	if err != nil || strings.HasPrefix(s[2:], "+") || strings.Contains(s, "_") {
		return 0, true, fmt.Errorf("%q is not valid hexadecimal raw bits", s)
	}
	if x&^widthMask(t) != 0 {
		return 0, true, fmt.Errorf("raw bits %s do not fit in %d-bit %s", s, t.Bits(), t)
	}
	return x, true, nil
}

// special recognises "NaN" and the infinities (case-insensitively); sign
// is +1 or -1 for an infinity, 0 for NaN.
func special(s string) (sign int, ok bool) {
	if s == "" || s[0] >= '0' && s[0] <= '9' || len(s) > 9 {
		return 0, false
	}
	switch strings.ToLower(s) {
	case "nan":
		return 0, true
	case "inf", "+inf", "infinity", "+infinity":
		return 1, true
	case "-inf", "-infinity":
		return -1, true
	}
	return 0, false
}

// intRange returns the inclusive range of integer type t as big integers.
func intRange(t isa.Type) (lo, hi *big.Int) {
	n := uint(t.Bits())
	hi = new(big.Int).Lsh(big.NewInt(1), n)
	switch t.Kind() {
	case isa.KindSigned:
		lo = new(big.Int).Neg(new(big.Int).Rsh(hi, 1))
		hi = new(big.Int).Sub(new(big.Int).Rsh(hi, 1), big.NewInt(1))
	case isa.KindBits:
		lo = new(big.Int).Neg(new(big.Int).Rsh(hi, 1))
		hi.Sub(hi, big.NewInt(1))
	default:
		lo = new(big.Int)
		hi.Sub(hi, big.NewInt(1))
	}
	return lo, hi
}

// parseInteger parses a decimal integer (a JSON number with an integral
// value such as 1e3 is accepted) into a big integer.
func parseInteger(s string) (*big.Int, error) {
	if n, ok := new(big.Int).SetString(s, 10); ok && !strings.HasPrefix(s, "+") {
		return n, nil
	}
	if !isJSONNumber(s) || len(s) > 400 {
		return nil, fmt.Errorf("%q is not a number", s)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("%q is not a number", s)
	}
	if !r.IsInt() {
		return nil, fmt.Errorf("%s is not an integer", s)
	}
	return r.Num(), nil
}

// encodeInt converts an integer value to the raw bits of integer type t,
// checking its range.
func encodeInt(s string, t isa.Type) (uint64, error) {
	if x, ok, err := parseHexBits(s, t); ok {
		return x, err
	}
	if _, ok := special(s); ok {
		return 0, fmt.Errorf("%s is not valid for the integer type %s", s, t)
	}
	// Fast paths.
	if t.Kind() != isa.KindSigned {
		if x, err := strconv.ParseUint(s, 10, 64); err == nil {
			if x&^widthMask(t) != 0 {
				return 0, rangeErr(s, t)
			}
			return x, nil
		}
	}
	if x, err := strconv.ParseInt(s, 10, 64); err == nil {
		// Non-negative values of unsigned and bit-size types took the
		// path above.
		n := uint(t.Bits())
		switch t.Kind() {
		case isa.KindSigned:
			if n < 64 && (x < -1<<(n-1) || x > 1<<(n-1)-1) {
				return 0, rangeErr(s, t)
			}
		case isa.KindBits:
			if n < 64 && x < -1<<(n-1) {
				return 0, rangeErr(s, t)
			}
		default:
			if x < 0 {
				return 0, rangeErr(s, t)
			}
		}
		return uint64(x) & widthMask(t), nil
	}
	n, err := parseInteger(s)
	if err != nil {
		return 0, err
	}
	lo, hi := intRange(t)
	if n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
		return 0, rangeErr(s, t)
	}
	if n.Sign() < 0 {
		n = new(big.Int).Add(n, new(big.Int).Lsh(big.NewInt(1), 64))
	}
	return n.Uint64() & widthMask(t), nil
}

func rangeErr(s string, t isa.Type) error {
	lo, hi := intRange(t)
	return fmt.Errorf("%s is out of range for %s [%s, %s] (give raw bits as \"0x…\")", s, t, lo, hi)
}

// parseStep parses an iota step for an integer type: any integer in
// [-2^63, 2^64-1], as two's-complement bits (arithmetic wraps).
func parseStep(s string) (uint64, error) {
	if x, ok, err := parseHexBits(s, isa.U64); ok {
		return x, err
	}
	n, err := parseInteger(s)
	if err != nil {
		return 0, err
	}
	if n.Cmp(new(big.Int).Lsh(big.NewInt(1), 64)) >= 0 || n.Cmp(new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63))) < 0 {
		return 0, fmt.Errorf("step %s is out of the 64-bit range", s)
	}
	if n.Sign() < 0 {
		return uint64(n.Int64()), nil
	}
	return n.Uint64(), nil
}

// parseFloat64 parses a float value as float64 (NaN and infinities
// included); hex strings are not accepted here.
func parseFloat64(s string) (float64, error) {
	if sign, ok := special(s); ok {
		if sign == 0 {
			return math.NaN(), nil
		}
		return math.Inf(sign), nil
	}
	if !isJSONNumber(s) {
		return 0, fmt.Errorf("%q is not a number, \"NaN\", \"Inf\", \"-Inf\" or \"0x…\" raw bits", s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return f, nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// Quiet NaNs used for "NaN" in input values (the IEEE default NaNs).
const (
	qnan16 = 0x7e00
	qnanBF = 0x7fc0
	qnan32 = 0x7fc00000
	qnan64 = 0x7ff8000000000000
)

// encodeFloat converts a float value to the raw bits of float type t,
// correctly rounded to nearest even from the decimal text.
func encodeFloat(s string, t isa.Type) (uint64, error) {
	if x, ok, err := parseHexBits(s, t); ok {
		return x, err
	}
	if sign, ok := special(s); ok {
		if sign == 0 {
			switch t {
			case isa.F16:
				return qnan16, nil
			case isa.BF16:
				return qnanBF, nil
			case isa.F32:
				return qnan32, nil
			}
			return qnan64, nil
		}
		return floatBits(math.Inf(sign), t), nil
	}
	if !isJSONNumber(s) {
		return 0, fmt.Errorf("%q is not a number, \"NaN\", \"Inf\", \"-Inf\" or \"0x…\" raw bits", s)
	}
	switch t {
	case isa.F32:
		f, err := strconv.ParseFloat(s, 32)
		if err != nil && !isRangeErr(err) {
			return 0, fmt.Errorf("%q is not a number", s)
		}
		return uint64(math.Float32bits(float32(f))), nil
	case isa.F64:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !isRangeErr(err) {
			return 0, fmt.Errorf("%q is not a number", s)
		}
		return math.Float64bits(f), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return floatBits(roundToOdd(s, f), t), nil
}

// roundToOdd turns f, the float64 nearest to the decimal s, into s rounded
// to float64 with round-to-odd: if s is not exactly f, the neighbour of s
// with an odd significand. Rounding that value to nearest in a format with
// at least two fewer significand bits (f16, bf16) gives the correctly
// rounded result of s, avoiding double rounding.
func roundToOdd(s string, f float64) float64 {
	if f == 0 || math.IsInf(f, 0) || len(s) > 800 || math.Float64bits(f)&1 == 1 || smallInteger(s) {
		return f
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return f
	}
	c := r.Cmp(new(big.Rat).SetFloat64(f))
	switch {
	case c > 0:
		return math.Nextafter(f, math.Inf(1))
	case c < 0:
		return math.Nextafter(f, math.Inf(-1))
	}
	return f
}

// smallInteger reports whether s is a decimal integer of at most 15
// digits: below 2^53, so the float64 nearest to it is s exactly (the fast
// path of roundToOdd for the common small integer values).
func smallInteger(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	if s == "" || len(s) > 15 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// floatBits rounds f to nearest even in float type t and returns its bits.
func floatBits(f float64, t isa.Type) uint64 {
	switch t {
	case isa.F16:
		return uint64(fpx.F64ToF16(math.Float64bits(f), fpx.RN, 0))
	case isa.BF16:
		return uint64(fpx.F64ToBF16(math.Float64bits(f), fpx.RN, 0))
	case isa.F32:
		return uint64(math.Float32bits(float32(f)))
	}
	return math.Float64bits(f)
}

// EncodeValue converts v to the raw bits of element type t.
func EncodeValue(v Value, t isa.Type) (uint64, error) {
	s := string(v)
	if s == "" {
		return 0, fmt.Errorf("empty value")
	}
	if t.IsFloat() {
		return encodeFloat(s, t)
	}
	return encodeInt(s, t)
}

// asFloat64 converts the raw bits of float type t to float64 (exactly).
func asFloat64(bits uint64, t isa.Type) float64 {
	switch t {
	case isa.F16:
		if h := uint16(bits); h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			return math.NaN()
		}
		return math.Float64frombits(fpx.F16ToF64(uint16(bits)))
	case isa.BF16:
		return float64(math.Float32frombits(uint32(bits) << 16))
	case isa.F32:
		return float64(math.Float32frombits(uint32(bits)))
	}
	return math.Float64frombits(bits)
}

// AppendValueJSON appends the JSON form of an element: a number, or the
// strings "NaN", "Inf", "-Inf". Floats are printed with the fewest digits
// that convert back to the same bits.
func AppendValueJSON(b []byte, bits uint64, t isa.Type) []byte {
	if h := halfTableOf(t); h != nil && h.ready.Load() {
		i := bits & 0xffff
		return append(b, h.text[h.end[i]:h.end[i+1]]...)
	}
	return appendValue(b, bits, t)
}

// appendValue is AppendValueJSON without the table of UseHalfTable.
func appendValue(b []byte, bits uint64, t isa.Type) []byte {
	switch t.Kind() {
	case isa.KindSigned:
		n := uint(64 - t.Bits())
		return strconv.AppendInt(b, int64(bits<<n)>>n, 10)
	case isa.KindFloat:
	default:
		return strconv.AppendUint(b, bits&widthMask(t), 10)
	}
	f := asFloat64(bits, t)
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Inf"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Inf"`...)
	}
	switch t {
	case isa.F64:
		return AppendFloat(b, f, 64)
	case isa.F32:
		return AppendFloat(b, f, 32)
	}
	return appendHalf(b, f, bits, t)
}

// appendHalf is AppendValueJSON of a finite f16 or bf16 value f (bits).
func appendHalf(b []byte, f float64, bits uint64, t isa.Type) []byte {
	// f16/bf16: the shortest decimal that rounds back to the same value.
	for p := 1; p <= 17; p++ {
		d, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'e', p-1, 64), 64)
		if floatBits(d, t) == bits&0xffff {
			out := AppendFloat(nil, d, 64)
			if g, err := strconv.ParseFloat(string(out), 64); err == nil && floatBits(g, t) == bits&0xffff {
				return append(b, out...)
			}
			break
		}
	}
	return AppendFloat(b, f, 64)
}

// halfTable holds AppendValueJSON's form of every value of a 16-bit
// float type: value i is text[end[i]:end[i+1]].
type halfTable struct {
	once  sync.Once
	ready atomic.Bool
	text  []byte
	end   []uint32
}

var halfTables [2]halfTable // f16, bf16

func halfTableOf(t isa.Type) *halfTable {
	switch t {
	case isa.F16:
		return &halfTables[0]
	case isa.BF16:
		return &halfTables[1]
	}
	return nil
}

// UseHalfTable makes AppendValueJSON look up the values of t (f16 or
// bf16; other types: nothing) in a table of all 65536, which it builds
// the first time: worth it for buffers of many values (building costs
// about as much as printing 65536 of them; the table holds 0.7 MB for
// f16, 0.9 MB for bf16, for the life of the process).
func UseHalfTable(t isa.Type) {
	h := halfTableOf(t)
	if h == nil {
		return
	}
	h.once.Do(func() {
		h.end = make([]uint32, 1<<16+1)
		var text []byte
		for i := range uint64(1 << 16) {
			text = appendValue(text, i, t)
			h.end[i+1] = uint32(len(text))
		}
		h.text = slices.Clone(text) // no room to grow kept
		h.ready.Store(true)
	})
}

// AppendFloat formats f like encoding/json: shortest round-trip digits,
// exponent form only for very large or small magnitudes.
func AppendFloat(b []byte, f float64, bitSize int) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bitSize == 64 && (abs < 1e-6 || abs >= 1e21) || bitSize == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, bitSize)
	if format == 'e' {
		// Clean up e-09 to e-9.
		n := len(b) - start
		if n >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b
}

// AppendBitsHex appends the lowercase hex of bits, zero-padded to the
// width of t.
func AppendBitsHex(b []byte, bits uint64, t isa.Type) []byte {
	switch t.Size() {
	case 1: // a predicate's one bit: none
		if t == isa.Pred {
			return b
		}
		return binary.BigEndian.AppendUint16(b, uint16(hexDigits(bits&0xff)))
	case 2:
		return binary.BigEndian.AppendUint32(b, uint32(hexDigits(bits&0xffff)))
	case 4:
		return binary.BigEndian.AppendUint64(b, hexDigits(bits&0xffffffff))
	}
	b = binary.BigEndian.AppendUint64(b, hexDigits(bits>>32))
	return binary.BigEndian.AppendUint64(b, hexDigits(bits&0xffffffff))
}

// AppendHex32 appends the eight lowercase hex digits of x (AppendBitsHex
// of a 32-bit type).
func AppendHex32(b []byte, x uint32) []byte {
	return binary.BigEndian.AppendUint64(b, hexDigits(uint64(x)))
}

// hexDigits returns the eight lowercase hex digits of x (< 2^32), the
// most significant in the high byte: each nibble spread to a byte, then
// '0' added, and 'a' - '0' - 10 more to those above 9.
func hexDigits(x uint64) uint64 {
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	above9 := (x + 0x0606060606060606) >> 4 & 0x0101010101010101
	return x + 0x3030303030303030 + above9*('a'-'0'-10)
}
