package ptx

import (
	"fmt"
	"math"
	"strconv"
)

// ValueKind is the type of a constant-expression value: integer constants
// are .s64 or .u64 and floating-point constants are .f64 (PTX ISA §4.5).
type ValueKind uint8

const (
	ValInt   ValueKind = iota // .s64
	ValUint                   // .u64
	ValFloat                  // .f64
)

func (k ValueKind) String() string {
	switch k {
	case ValInt:
		return "s64"
	case ValUint:
		return "u64"
	case ValFloat:
		return "f64"
	}
	return "?"
}

// Value is the result of evaluating a constant expression.
type Value struct {
	Kind  ValueKind
	Int   uint64  // bits of the .s64 or .u64 value (ValInt, ValUint)
	Float float64 // ValFloat
}

func (v Value) String() string {
	switch v.Kind {
	case ValInt:
		return strconv.FormatInt(int64(v.Int), 10)
	case ValUint:
		return strconv.FormatUint(v.Int, 10) + "U"
	}
	return strconv.FormatFloat(v.Float, 'g', -1, 64)
}

func (v Value) isInt() bool { return v.Kind != ValFloat }

// float converts v to float64.
func (v Value) float() float64 {
	switch v.Kind {
	case ValInt:
		return float64(int64(v.Int))
	case ValUint:
		return float64(v.Int)
	}
	return v.Float
}

// EvalError is an error in a constant expression, with the span of the
// offending subexpression.
type EvalError struct {
	Span Span
	Msg  string
}

func (e *EvalError) Error() string { return e.Msg }

// maxEvalDepth bounds the recursion of Eval on degenerate trees.
const maxEvalDepth = 10000

// Eval evaluates a constant expression by the rules of PTX ISA §4.5:
//   - integer literals are .s64 unless they have a U suffix or do not fit
//     in .s64 (then .u64); floating-point literals are .f64 (a 0f literal is
//     the exact float32 value, widened);
//   - unary + and - keep the operand type; ! yields .s64 0/1; ~ yields .u64;
//     the casts (.s64) and (.u64) reinterpret an integer;
//   - + - * / and comparisons use the usual arithmetic conversions (.u64 if
//     either operand is .u64; .f64 if either is floating point); % and the
//     bitwise operators accept integers only (& | ^ yield .u64); shifts keep
//     the type of the left operand and take the count as .u32;
//   - comparisons, && and || yield .s64 0 or 1; && and || short-circuit;
//   - division or remainder by zero is an error;
//   - WARP_SZ is 32; other names are resolved by lookup (which may be nil).
//
// Address forms (generic(a), masks 0xFF(a)) and strings are not constants
// and yield an error.
func Eval(e *Expr, lookup func(name string) (Value, bool)) (Value, error) {
	ev := evaluator{lookup: lookup}
	v, err := ev.eval(e)
	if err != nil {
		return Value{}, err
	}
	return v, nil
}

type evaluator struct {
	lookup func(string) (Value, bool)
	depth  int
}

func errAt(e *Expr, format string, args ...any) *EvalError {
	return &EvalError{Span: e.Span, Msg: fmt.Sprintf(format, args...)}
}

func boolVal(b bool) Value {
	if b {
		return Value{Kind: ValInt, Int: 1}
	}
	return Value{Kind: ValInt}
}

func (ev *evaluator) eval(e *Expr) (Value, *EvalError) {
	if e == nil {
		return Value{}, &EvalError{Msg: "missing expression"}
	}
	ev.depth++
	defer func() { ev.depth-- }()
	if ev.depth > maxEvalDepth {
		return Value{}, errAt(e, "constant expression too deeply nested")
	}
	switch e.Kind {
	case ExprInt:
		if e.Unsigned || e.Int > math.MaxInt64 {
			return Value{Kind: ValUint, Int: e.Int}, nil
		}
		return Value{Kind: ValInt, Int: e.Int}, nil
	case ExprFloat:
		return Value{Kind: ValFloat, Float: e.Float}, nil
	case ExprName:
		if e.Name == "WARP_SZ" {
			return Value{Kind: ValInt, Int: 32}, nil
		}
		if ev.lookup != nil {
			if v, ok := ev.lookup(e.Name); ok {
				return v, nil
			}
		}
		return Value{}, errAt(e, "%s is not a constant", e.Name)
	case ExprUnary:
		return ev.unary(e)
	case ExprBinary:
		return ev.binary(e)
	case ExprCond:
		return ev.cond(e)
	case ExprCall:
		return Value{}, errAt(e, "%s(...) is not a constant expression", e.Name)
	case ExprString:
		return Value{}, errAt(e, "string literal is not a constant expression")
	}
	return Value{}, errAt(e, "invalid expression")
}

func (ev *evaluator) unary(e *Expr) (Value, *EvalError) {
	x, err := ev.eval(e.X)
	if err != nil {
		return x, err
	}
	switch e.Op {
	case "+":
		return x, nil
	case "-":
		if x.Kind == ValFloat {
			x.Float = -x.Float
		} else {
			x.Int = -x.Int
		}
		return x, nil
	}
	if !x.isInt() {
		return Value{}, errAt(e, "operator %s requires an integer operand", e.Op)
	}
	switch e.Op {
	case "!":
		return boolVal(x.Int == 0), nil
	case "~":
		return Value{Kind: ValUint, Int: ^x.Int}, nil
	case "(.s64)":
		return Value{Kind: ValInt, Int: x.Int}, nil
	case "(.u64)":
		return Value{Kind: ValUint, Int: x.Int}, nil
	}
	return Value{}, errAt(e, "invalid unary operator %q", e.Op)
}

func (ev *evaluator) binary(e *Expr) (Value, *EvalError) {
	x, err := ev.eval(e.X)
	if err != nil {
		return x, err
	}
	switch e.Op {
	case "&&", "||":
		if !x.isInt() {
			return Value{}, errAt(e.X, "operator %s requires integer operands", e.Op)
		}
		if (e.Op == "&&") == (x.Int == 0) {
			return boolVal(e.Op == "||"), nil // short circuit
		}
		y, err := ev.eval(e.Y)
		if err != nil {
			return y, err
		}
		if !y.isInt() {
			return Value{}, errAt(e.Y, "operator %s requires integer operands", e.Op)
		}
		return boolVal(y.Int != 0), nil
	}
	y, err := ev.eval(e.Y)
	if err != nil {
		return y, err
	}
	if x.Kind == ValFloat || y.Kind == ValFloat {
		a, b := x.float(), y.float()
		switch e.Op {
		case "+":
			return Value{Kind: ValFloat, Float: a + b}, nil
		case "-":
			return Value{Kind: ValFloat, Float: a - b}, nil
		case "*":
			return Value{Kind: ValFloat, Float: a * b}, nil
		case "/":
			if b == 0 {
				return Value{}, errAt(e, "division by zero")
			}
			return Value{Kind: ValFloat, Float: a / b}, nil
		case "<":
			return boolVal(a < b), nil
		case ">":
			return boolVal(a > b), nil
		case "<=":
			return boolVal(a <= b), nil
		case ">=":
			return boolVal(a >= b), nil
		case "==":
			return boolVal(a == b), nil
		case "!=":
			return boolVal(a != b), nil
		}
		return Value{}, errAt(e, "operator %s requires integer operands", e.Op)
	}
	// Shifts: the result has the type of the left operand; the count is
	// taken as .u32 (counts of 64 or more shift everything out).
	switch e.Op {
	case "<<":
		x.Int <<= uint32(y.Int)
		return x, nil
	case ">>":
		if x.Kind == ValInt {
			x.Int = uint64(int64(x.Int) >> uint32(y.Int))
		} else {
			x.Int >>= uint32(y.Int)
		}
		return x, nil
	case "&":
		return Value{Kind: ValUint, Int: x.Int & y.Int}, nil
	case "|":
		return Value{Kind: ValUint, Int: x.Int | y.Int}, nil
	case "^":
		return Value{Kind: ValUint, Int: x.Int ^ y.Int}, nil
	}
	// The usual arithmetic conversions.
	kind := ValInt
	if x.Kind == ValUint || y.Kind == ValUint {
		kind = ValUint
	}
	a, b := x.Int, y.Int
	switch e.Op {
	case "+":
		return Value{Kind: kind, Int: a + b}, nil
	case "-":
		return Value{Kind: kind, Int: a - b}, nil
	case "*":
		return Value{Kind: kind, Int: a * b}, nil
	case "/", "%":
		if b == 0 {
			return Value{}, errAt(e, "division by zero")
		}
		if kind == ValUint {
			if e.Op == "/" {
				return Value{Kind: kind, Int: a / b}, nil
			}
			return Value{Kind: kind, Int: a % b}, nil
		}
		// Go defines MinInt64 / -1 == MinInt64 and MinInt64 % -1 == 0.
		if e.Op == "/" {
			return Value{Kind: kind, Int: uint64(int64(a) / int64(b))}, nil
		}
		return Value{Kind: kind, Int: uint64(int64(a) % int64(b))}, nil
	}
	var r bool
	if kind == ValUint {
		switch e.Op {
		case "<":
			r = a < b
		case ">":
			r = a > b
		case "<=":
			r = a <= b
		case ">=":
			r = a >= b
		case "==":
			r = a == b
		case "!=":
			r = a != b
		default:
			return Value{}, errAt(e, "invalid binary operator %q", e.Op)
		}
	} else {
		sa, sb := int64(a), int64(b)
		switch e.Op {
		case "<":
			r = sa < sb
		case ">":
			r = sa > sb
		case "<=":
			r = sa <= sb
		case ">=":
			r = sa >= sb
		case "==":
			r = sa == sb
		case "!=":
			r = sa != sb
		default:
			return Value{}, errAt(e, "invalid binary operator %q", e.Op)
		}
	}
	return boolVal(r), nil
}

// cond evaluates "x ? y : z". Only the chosen branch must be a valid
// constant; the other one is evaluated (when it can be) for the result type.
func (ev *evaluator) cond(e *Expr) (Value, *EvalError) {
	c, err := ev.eval(e.X)
	if err != nil {
		return c, err
	}
	if !c.isInt() {
		return Value{}, errAt(e.X, "condition of ?: must be an integer")
	}
	chosen, other := e.Y, e.Z
	if c.Int == 0 {
		chosen, other = e.Z, e.Y
	}
	v, err := ev.eval(chosen)
	if err != nil {
		return v, err
	}
	o, oerr := ev.eval(other)
	if oerr != nil {
		return v, nil
	}
	switch {
	case v.Kind == ValFloat || o.Kind == ValFloat:
		return Value{Kind: ValFloat, Float: v.float()}, nil
	case v.Kind == ValUint || o.Kind == ValUint:
		v.Kind = ValUint
	}
	return v, nil
}
