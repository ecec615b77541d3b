package emu

import (
	"math"
	"strconv"
	"strings"
)

// The C formatting of CUDA's device printf (vprintf). CUDA formats on the
// host with the C library; this is glibc's output for the conversions CUDA
// documents (%[flags][width][.precision][size]type with flags "#0+- ",
// width digits or '*', precision digits, sizes h, hh, l, ll and types
// c d i o u x X p e E f F g G a A s, and %%).

// printfConv is one parsed conversion.
type printfConv struct {
	minus, plus, space, hash, zero bool
	width, prec                    int
	hasPrec, starWidth             bool
	length                         string // "", "h", "hh", "l", "ll"
	conv                           byte
}

// printfMaxField bounds width and precision (the whole call's output is
// bounded by MaxPrintfLine anyway).
const printfMaxField = MaxPrintfLine

// parsePrintfConv parses the conversion that starts at f[i] == '%'. It
// returns the conversion, the index after it, and "" or why it is not one
// CUDA's printf supports (then the text f[i:end] is printed as written).
func parsePrintfConv(f string, i int) (c printfConv, end int, bad string) {
	j := i + 1
flags:
	for ; j < len(f); j++ {
		switch f[j] {
		case '-':
			c.minus = true
		case '+':
			c.plus = true
		case ' ':
			c.space = true
		case '#':
			c.hash = true
		case '0':
			c.zero = true
		default:
			break flags
		}
	}
	if j < len(f) && f[j] == '*' {
		c.starWidth = true
		j++
	} else {
		for ; j < len(f) && f[j] >= '0' && f[j] <= '9'; j++ {
			c.width = min(c.width*10+int(f[j]-'0'), printfMaxField)
		}
	}
	if j < len(f) && f[j] == '.' {
		c.hasPrec = true
		j++
		if j < len(f) && f[j] == '*' {
			return c, j + 1, "a '*' precision is not supported by CUDA's printf"
		}
		for ; j < len(f) && f[j] >= '0' && f[j] <= '9'; j++ {
			c.prec = min(c.prec*10+int(f[j]-'0'), printfMaxField)
		}
	}
	switch {
	case strings.HasPrefix(f[j:], "hh"), strings.HasPrefix(f[j:], "ll"):
		c.length = f[j : j+2]
		j += 2
	case j < len(f) && (f[j] == 'h' || f[j] == 'l'):
		c.length = f[j : j+1]
		j++
	}
	if j >= len(f) {
		return c, j, "the format string ends inside a conversion"
	}
	c.conv = f[j]
	j++
	switch c.conv {
	case 'c', 'd', 'i', 'o', 'u', 'x', 'X', 'p', 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A', 's', '%':
		return c, j, ""
	case 'n':
		return c, j, "%n is not supported by CUDA's printf"
	}
	return c, j, "%" + string(c.conv) + " is not a conversion CUDA's printf supports"
}

// argSize is the size (and alignment) of the conversion's argument in the
// argument buffer: C's default argument promotions (char and short as int,
// float as double) on a 64-bit host.
func (c *printfConv) argSize() int {
	switch c.conv {
	case 'd', 'i', 'o', 'u', 'x', 'X':
		if c.length == "l" || c.length == "ll" {
			return 8
		}
		return 4
	case 'c':
		return 4
	case '%':
		return 0
	}
	return 8 // doubles, strings, pointers
}

// pad applies the field width to body, with prefix (sign, 0x) before it;
// zeros go between the prefix and the body.
func (c *printfConv) pad(prefix, body string, zeros bool) string {
	n := c.width - len(prefix) - len(body)
	if n <= 0 {
		return prefix + body
	}
	switch {
	case c.minus:
		return prefix + body + strings.Repeat(" ", n)
	case zeros:
		return prefix + strings.Repeat("0", n) + body
	}
	return strings.Repeat(" ", n) + prefix + body
}

// formatInt formats an integer conversion of the raw argument v.
func (c *printfConv) formatInt(v uint64) string {
	signed := c.conv == 'd' || c.conv == 'i'
	neg := false
	var mag uint64
	switch c.length {
	case "hh":
		v = uint64(uint8(v))
		if signed {
			v = uint64(int64(int8(v)))
		}
	case "h":
		v = uint64(uint16(v))
		if signed {
			v = uint64(int64(int16(v)))
		}
	case "l", "ll":
	default:
		v = uint64(uint32(v))
		if signed {
			v = uint64(int64(int32(v)))
		}
	}
	mag = v
	if signed && int64(v) < 0 {
		neg = true
		mag = -v
	}
	base := 10
	switch c.conv {
	case 'o':
		base = 8
	case 'x', 'X':
		base = 16
	}
	digits := strconv.FormatUint(mag, base)
	if c.conv == 'X' {
		digits = strings.ToUpper(digits)
	}
	if c.hasPrec {
		if c.prec == 0 && mag == 0 {
			digits = ""
		}
		if len(digits) < c.prec {
			digits = strings.Repeat("0", c.prec-len(digits)) + digits
		}
	}
	prefix := ""
	switch {
	case signed && neg:
		prefix = "-"
	case signed && c.plus:
		prefix = "+"
	case signed && c.space:
		prefix = " "
	case c.hash && c.conv == 'o' && !strings.HasPrefix(digits, "0"):
		digits = "0" + digits
	case c.hash && mag != 0 && c.conv == 'x':
		prefix = "0x"
	case c.hash && mag != 0 && c.conv == 'X':
		prefix = "0X"
	}
	return c.pad(prefix, digits, c.zero && !c.minus && !c.hasPrec)
}

// formatFloat formats a floating-point conversion of the double with bits v.
func (c *printfConv) formatFloat(v uint64) string {
	x := math.Float64frombits(v)
	upper := c.conv == 'E' || c.conv == 'F' || c.conv == 'G' || c.conv == 'A'
	sign := ""
	switch {
	case v>>63 != 0:
		sign = "-"
	case c.plus:
		sign = "+"
	case c.space:
		sign = " "
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		s := "inf"
		if math.IsNaN(x) {
			s = "nan"
		}
		if upper {
			s = strings.ToUpper(s)
		}
		return c.pad(sign, s, false)
	}
	x = math.Abs(x)
	prec := 6
	if c.hasPrec {
		prec = c.prec
	}
	var body, prefix string
	switch c.conv {
	case 'f', 'F':
		body = strconv.FormatFloat(x, 'f', prec, 64)
		if c.hash && prec == 0 {
			body += "."
		}
	case 'e', 'E':
		body = cExp(x, prec, c.hash)
	case 'g', 'G':
		body = cGeneral(x, prec, c.hash)
	case 'a', 'A':
		prefix = "0x"
		body = cHexFloat(v&^(1<<63), c.hasPrec, prec, c.hash)
	}
	if upper {
		body = strings.ToUpper(body)
		prefix = strings.ToUpper(prefix)
	}
	return c.pad(sign+prefix, body, c.zero && !c.minus)
}

// cExp is %e of a non-negative finite x: at least two exponent digits.
func cExp(x float64, prec int, hash bool) string {
	s := strconv.FormatFloat(x, 'e', prec, 64) // d.ddde±XX (Go also writes at least two digits)
	if hash && prec == 0 {
		i := strings.IndexByte(s, 'e')
		s = s[:i] + "." + s[i:]
	}
	return s
}

// cGeneral is %g of a non-negative finite x (C11 7.21.6.1): P significant
// digits (6 if omitted, 1 if zero); style e when the exponent X of the %e
// form is < -4 or >= P, else f with P-1-X decimals; trailing zeros (and a
// trailing point) removed unless '#'.
func cGeneral(x float64, prec int, hash bool) string {
	p := prec
	if p == 0 {
		p = 1
	}
	e := strconv.FormatFloat(x, 'e', p-1, 64)
	xp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	var s string
	if xp < -4 || xp >= p {
		s = cExp(x, p-1, hash)
	} else {
		s = strconv.FormatFloat(x, 'f', p-1-xp, 64)
		if hash && p-1-xp == 0 {
			s += "."
		}
	}
	if hash {
		return s
	}
	mant, exp := s, ""
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp = s[:i], s[i:]
	}
	if strings.IndexByte(mant, '.') >= 0 {
		mant = strings.TrimRight(mant, "0")
		mant = strings.TrimSuffix(mant, ".")
	}
	return mant + exp
}

// cHexFloat is glibc's %a of the non-negative double with bits v, without
// the "0x": the leading digit is 1 for normal numbers and 0 for zero and
// subnormals (exponent -1022); without a precision, the fraction's
// trailing zeros are dropped; with one, the fraction is rounded to prec
// hex digits, ties to even (a carry out of the leading digit makes it 2).
func cHexFloat(v uint64, hasPrec bool, prec int, hash bool) string {
	exp := int(v >> 52 & 0x7ff)
	frac := v & (1<<52 - 1)
	lead := uint64(1)
	e := exp - 1023
	switch {
	case exp == 0 && frac == 0:
		lead, e = 0, 0
	case exp == 0:
		lead, e = 0, -1022
	}
	digits := 13 // hex digits of the 52-bit fraction
	if hasPrec && prec < digits {
		shift := uint(4 * (digits - prec))
		m := lead<<52 | frac
		rem := m & (1<<shift - 1)
		m >>= shift
		half := uint64(1) << (shift - 1)
		if rem > half || rem == half && m&1 != 0 {
			m++
		}
		lead = m >> (4 * uint(prec))
		frac = m & (1<<(4*uint(prec)) - 1)
		digits = prec
	}
	fs := ""
	if digits > 0 {
		fs = strconv.FormatUint(frac, 16)
		fs = strings.Repeat("0", digits-len(fs)) + fs
	}
	if !hasPrec {
		fs = strings.TrimRight(fs, "0")
	} else if prec > digits {
		fs += strings.Repeat("0", prec-digits)
	}
	s := strconv.FormatUint(lead, 16)
	if fs != "" || hash {
		s += "." + fs
	}
	sign := "+"
	if e < 0 {
		sign, e = "-", -e
	}
	return s + "p" + sign + strconv.Itoa(e)
}

// formatString formats %s of the bytes s (already cut at the precision).
func (c *printfConv) formatString(s string) string { return c.pad("", s, false) }

// formatChar formats %c of the int argument v.
func (c *printfConv) formatChar(v uint64) string { return c.pad("", string([]byte{byte(v)}), false) }

// formatPointer formats %p as glibc does: (nil) for 0, else 0x and
// lowercase hex digits (with the integer flags and precision).
func (c *printfConv) formatPointer(v uint64) string {
	if v == 0 {
		return c.pad("", "(nil)", false)
	}
	digits := strconv.FormatUint(v, 16)
	if c.hasPrec && len(digits) < c.prec {
		digits = strings.Repeat("0", c.prec-len(digits)) + digits
	}
	// glibc formats a pointer as %#lx with a sign: '+' and ' ' apply.
	prefix := "0x"
	switch {
	case c.plus:
		prefix = "+0x"
	case c.space:
		prefix = " 0x"
	}
	return c.pad(prefix, digits, c.zero && !c.minus && !c.hasPrec)
}
