package ptx

import (
	"math"
	"strings"
	"testing"
)

// parseExprString parses src as an initializer expression.
func parseExprString(t *testing.T, src string) (*Expr, int32) {
	t.Helper()
	prefix := ".global .u64 x = "
	s := NewSource("e", []byte(prefix+src+";"))
	m, diags := Parse(s)
	if len(diags) > 0 {
		t.Fatalf("%q: %s", src, FormatAll(s, diags))
	}
	return m.Decls[0].(*VarDecl).Names[0].Init.Expr, int32(len(prefix))
}

func TestEval(t *testing.T) {
	i := func(v int64) Value { return Value{Kind: ValInt, Int: uint64(v)} }
	u := func(v uint64) Value { return Value{Kind: ValUint, Int: v} }
	f := func(v float64) Value { return Value{Kind: ValFloat, Float: v} }
	tests := []struct {
		src  string
		want Value
	}{
		// Literals.
		{"42", i(42)}, {"0x1234", i(0x1234)}, {"0123", i(0123)}, {"0b11", i(3)},
		{"42U", u(42)}, {"0x1234U", u(0x1234)}, {"0xfabc123400000000", u(0xfabc123400000000)},
		{"9223372036854775807", i(math.MaxInt64)}, {"9223372036854775808", u(1 << 63)},
		{"1.5", f(1.5)}, {"0f3F800000", f(1)}, {"0f3DCCCCCD", f(float64(float32(0.1)))},
		{"0d3FB999999999999A", f(0.1)}, {"1e3", f(1000)},
		// Unary.
		{"+123", i(123)}, {"-1", i(-1)}, {"-(-42)", i(42)}, {"-1U", u(math.MaxUint64)},
		{"-0xfabc123400000000", u(0x543edcc00000000)}, {"-1.5", f(-1.5)},
		{"!0", i(1)}, {"!5", i(0)}, {"!1U", i(0)}, {"~0", u(math.MaxUint64)}, {"~0U", u(math.MaxUint64)},
		{"(.u64) -1", u(math.MaxUint64)}, {"(.s64) 0xFFFFFFFFFFFFFFFF", i(-1)},
		// Arithmetic and the usual conversions.
		{"1 + 2 * 3", i(7)}, {"(1 + 2) * 3", i(9)}, {"7 / 2", i(3)}, {"-7 / 2", i(-3)}, {"-7 % 3", i(-1)},
		{"7 % 3", i(1)}, {"1 - 2", i(-1)}, {"1U - 2", u(math.MaxUint64)}, {"2 * 3U", u(6)},
		{"-1 / 2U", u(math.MaxUint64 / 2)}, {"1 + 0.5", f(1.5)}, {"3 / 2.0", f(1.5)}, {"1.5 * 2U", f(3)},
		{"9223372036854775807 + 1", i(math.MinInt64)}, {"-9223372036854775807 - 1", i(math.MinInt64)},
		{"(-9223372036854775807 - 1) / -1", i(math.MinInt64)}, {"(-9223372036854775807 - 1) % -1", i(0)},
		// Shifts keep the left type; the count is .u32.
		{"1 << 4", i(16)}, {"1U << 4", u(16)}, {"1 << 4U", i(16)}, {"-16 >> 2", i(-4)},
		{"-16U >> 60", u(15)}, {"1 << 64", i(0)}, {"-1 >> 100", i(-1)}, {"1 << 0x100000001", i(2)},
		// Comparisons yield .s64.
		{"1 < 2", i(1)}, {"2 < 1", i(0)}, {"-1 < 0", i(1)}, {"-1 < 0U", i(0)}, {"1.5 > 1", i(1)},
		{"1 <= 1", i(1)}, {"1 >= 2", i(0)}, {"3 == 3U", i(1)}, {"3 != 3", i(0)}, {"0.5 == 0.5", i(1)},
		// Bitwise operators yield .u64.
		{"6 & 3", u(2)}, {"6 | 3", u(7)}, {"6 ^ 3", u(5)}, {"-1 & 0xFF", u(255)},
		// Logical operators.
		{"1 && 2", i(1)}, {"1 && 0", i(0)}, {"0 || 3", i(1)}, {"0 || 0", i(0)},
		{"0 && 1 / 0", i(0)}, {"1 || 1 / 0", i(1)},
		// Conditional.
		{"1 ? 2 : 3", i(2)}, {"0 ? 2 : 3", i(3)}, {"1 ? 2 : 3U", u(2)}, {"0 ? 2 : 1.5", f(1.5)},
		{"1 ? 2 : 1.5", f(2)}, {"1 ? 2 : 1 / 0", i(2)},
		// Names.
		{"WARP_SZ", i(32)}, {"WARP_SZ * 4", i(128)}, {"N + 1", i(11)}, {"M * 2", u(4)},
	}
	lookup := func(name string) (Value, bool) {
		switch name {
		case "N":
			return i(10), true
		case "M":
			return u(2), true
		}
		return Value{}, false
	}
	for _, tt := range tests {
		e, _ := parseExprString(t, tt.src)
		got, err := Eval(e, lookup)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s = %v (%v), want %v (%v)", tt.src, got, got.Kind, tt.want, tt.want.Kind)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		src, msg, at string // at: the text of the offending span
	}{
		{"1 / 0", "division by zero", "1 / 0"},
		{"1 + 5 % 0", "division by zero", "5 % 0"},
		{"1.0 / 0", "division by zero", "1.0 / 0"},
		{"1 + undefined", "undefined is not a constant", "undefined"},
		{"generic(a)", "generic(...) is not a constant expression", "generic(a)"},
		{"0xFF(a)", "0xFF(...) is not a constant expression", "0xFF(a)"},
		{"~1.5", "operator ~ requires an integer operand", "~1.5"},
		{"!1.5", "operator ! requires an integer operand", "!1.5"},
		{"1.5 % 2", "operator % requires integer operands", "1.5 % 2"},
		{"1 << 1.5", "operator << requires integer operands", "1 << 1.5"},
		{"1.5 & 1", "operator & requires integer operands", "1.5 & 1"},
		{"1 && 1.5", "operator && requires integer operands", "1.5"},
		{"1.5 ? 1 : 2", "condition of ?: must be an integer", "1.5"},
		{"(.u64) 1.5", "operator (.u64) requires an integer operand", "(.u64) 1.5"},
	}
	for _, tt := range tests {
		e, off := parseExprString(t, tt.src)
		_, err := Eval(e, nil)
		if err == nil {
			t.Errorf("%s: no error", tt.src)
			continue
		}
		ee, ok := err.(*EvalError)
		if !ok {
			t.Errorf("%s: error %T", tt.src, err)
			continue
		}
		at := tt.src[ee.Span.Start-off : ee.Span.End-off]
		if !strings.Contains(ee.Msg, tt.msg) || at != tt.at {
			t.Errorf("%s: got %q at %q, want %q at %q", tt.src, ee.Msg, at, tt.msg, tt.at)
		}
	}
	if _, err := Eval(nil, nil); err == nil {
		t.Error("Eval(nil) succeeded")
	}
	// Deeply nested trees are refused, not a stack overflow.
	e := &Expr{Kind: ExprInt, Int: 1}
	for range maxEvalDepth + 10 {
		e = &Expr{Kind: ExprUnary, Op: "-", X: e}
	}
	if _, err := Eval(e, nil); err == nil || !strings.Contains(err.Error(), "too deeply nested") {
		t.Errorf("deep: %v", err)
	}
}

// Array sizes and register counts are evaluated while parsing.
func TestParseTimeEval(t *testing.T) {
	m := parseOK(t, ".shared .b8 s[WARP_SZ * 4 + (1 << 3)];")
	if d := m.Decls[0].(*VarDecl).Names[0].Dims; d[0] != 136 {
		t.Errorf("dims %v", d)
	}
	s := NewSource("x", []byte(".shared .b8 s[1/0];\n.shared .b8 t[-1];\n.shared .b8 u[1.5];\n"))
	_, diags := Parse(s)
	got := FormatAll(s, diags)
	for _, want := range []string{"x:1:15: error[invalid-constant-expression]: array size: division by zero", "x:2:15: error[invalid-constant-expression]: invalid array size -1", "x:3:15: error[invalid-constant-expression]: invalid array size 1.5"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

func TestValueString(t *testing.T) {
	for _, tt := range []struct {
		v    Value
		want string
	}{
		{Value{Kind: ValInt, Int: math.MaxUint64}, "-1"},
		{Value{Kind: ValUint, Int: 7}, "7U"},
		{Value{Kind: ValFloat, Float: 0.5}, "0.5"},
	} {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
}
