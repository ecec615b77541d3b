package ptx

import (
	"math"
	"strings"
	"testing"
)

// lexString lexes src and returns "kind:text" strings and the diagnostics.
func lexString(src string) ([]string, []Diagnostic) {
	toks, diags := Tokenize([]byte(src))
	var out []string
	for _, t := range toks {
		if t.Kind == TokEOF {
			break
		}
		out = append(out, dbgKindAbbrev(t.Kind)+":"+src[t.Span.Start:t.Span.End])
	}
	return out, diags
}

func dbgKindAbbrev(k TokKind) string {
	switch k {
	case TokIdent:
		return "id"
	case TokDirective:
		return "dir"
	case TokInt:
		return "int"
	case TokFloat:
		return "flt"
	case TokString:
		return "str"
	}
	return "p"
}

func TestLexTokens(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{"%r1 $L__BB0_2 __cudart_i2opi_f %tid abc$d _", "id:%r1 id:$L__BB0_2 id:__cudart_i2opi_f id:%tid id:abc$d id:_"},
		{".reg .shared::cta .L2::cache_hint .L1::evict_last .m16n8k16 .b32 .x .L2::128B .1d",
			"dir:.reg dir:.shared::cta dir:.L2::cache_hint dir:.L1::evict_last dir:.m16n8k16 dir:.b32 dir:.x dir:.L2::128B dir:.1d"},
		{"ld.global.v4.f32", "id:ld dir:.global dir:.v4 dir:.f32"},
		{"%tid.x", "id:%tid dir:.x"},
		{"0 42 0x1F 017 0b101 42U 0xFFU", "int:0 int:42 int:0x1F int:017 int:0b101 int:42U int:0xFFU"},
		{"1.5 1e-3 1.0e+10 .5 1. 0f3F800000 0d3FF0000000000000 0F3f800000",
			"flt:1.5 flt:1e-3 flt:1.0e+10 flt:.5 flt:1. flt:0f3F800000 flt:0d3FF0000000000000 flt:0F3f800000"},
		{`"a.ptx" "esc\"aped"`, `str:"a.ptx" str:"esc\"aped"`},
		{", ; : ( ) [ ] { } < > + - * / % ! ~ & | ^ ? = @",
			"p:, p:; p:: p:( p:) p:[ p:] p:{ p:} p:< p:> p:+ p:- p:* p:/ p:% p:! p:~ p:& p:| p:^ p:? p:= p:@"},
		{"&& || == != <= >= << >>", "p:&& p:|| p:== p:!= p:<= p:>= p:<< p:>>"},
		{"a // comment\nb /* multi\nline */ c", "id:a id:b id:c"},
		{"16%5 (a)%b x%y", "int:16 p:% int:5 p:( id:a p:) p:% id:b id:x p:% id:y"},
		{"%r<10>", "id:%r p:< int:10 p:>"},
		{"@%p1 bra $L1;", "p:@ id:%p1 id:bra id:$L1 p:;"},
		{"@!p ret;", "p:@ p:! id:p id:ret p:;"},
		{"@@DWARF .byte 0x1, 0x2\nx", "id:x"},
		{"[%rd1+-4]", "p:[ id:%rd1 p:+ p:- int:4 p:]"},
		{"setp.eq.s32 p|q, 1, 2", "id:setp dir:.eq dir:.s32 id:p p:| id:q p:, int:1 p:, int:2"},
	}
	for _, tt := range tests {
		got, diags := lexString(tt.src)
		if len(diags) > 0 {
			t.Errorf("%q: unexpected diagnostics %v", tt.src, diags)
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("%q:\n got  %s\n want %s", tt.src, g, tt.want)
		}
	}
}

func TestLexNewlineFlag(t *testing.T) {
	src := "a b\nc /* x\n */ d // e\nf"
	toks, _ := Tokenize([]byte(src))
	want := map[string]bool{"a": true, "b": false, "c": true, "d": true, "f": true}
	for _, tk := range toks[:len(toks)-1] {
		text := src[tk.Span.Start:tk.Span.End]
		if tk.NL != want[text] {
			t.Errorf("token %q: NL = %v, want %v", text, tk.NL, want[text])
		}
	}
}

func TestLexErrors(t *testing.T) {
	tests := []struct {
		src, msg string
		start    int32
	}{
		{"a # b", "invalid character '#'", 2},
		{"a \"unterminated\nb", "string literal not terminated", 2},
		{"a /* never closed", "comment not terminated", 2},
		{"0f3F80", "malformed floating-point literal", 0},
		{"0d3FF0", "want 16 hex digits", 0},
		{"0x", "malformed integer literal", 0},
		{"09", "malformed integer literal", 0},
		{"0b102", "malformed integer literal", 0},
		{"12abc", "malformed integer literal", 0},
		{"99999999999999999999", "overflows 64 bits", 0},
		{"x $ y", "invalid identifier '$'", 2},
		{"x . y", "invalid character '.'", 2},
		{"\xff", "invalid byte 0xff", 0},
		{"x é", "invalid character 'é'", 2},
	}
	for _, tt := range tests {
		_, diags := lexString(tt.src)
		if len(diags) != 1 {
			t.Errorf("%q: got %d diagnostics %v, want 1", tt.src, len(diags), diags)
			continue
		}
		if !strings.Contains(diags[0].Message, tt.msg) || diags[0].Span.Start != tt.start {
			t.Errorf("%q: got %q at %d, want %q at %d", tt.src, diags[0].Message, diags[0].Span.Start, tt.msg, tt.start)
		}
	}
}

// An invalid character does not hide the line break before the next token.
func TestLexNewlineAfterInvalid(t *testing.T) {
	toks, diags := Tokenize([]byte("a #\nb"))
	if len(diags) != 1 || len(toks) != 3 || !toks[1].NL {
		t.Fatalf("toks %v diags %v", toks, diags)
	}
}

func TestDecodeLiterals(t *testing.T) {
	ints := []struct {
		text     string
		v        uint64
		unsigned bool
	}{
		{"0", 0, false}, {"42", 42, false}, {"0x1F", 31, false}, {"017", 15, false}, {"0b101", 5, false},
		{"42U", 42, true}, {"0xFFFFFFFFFFFFFFFF", math.MaxUint64, false}, {"18446744073709551615", math.MaxUint64, false},
	}
	for _, tt := range ints {
		v, u, ok := decodeInt([]byte(tt.text))
		if !ok || v != tt.v || u != tt.unsigned {
			t.Errorf("decodeInt(%q) = %d, %v, %v", tt.text, v, u, ok)
		}
	}
	f, f32, ok := decodeHexFloat([]byte("0f3F800000"))
	if !ok || !f32 || f != 1 {
		t.Errorf("0f3F800000 = %v %v %v", f, f32, ok)
	}
	f, f32, ok = decodeHexFloat([]byte("0dBFF8000000000000"))
	if !ok || f32 || f != -1.5 {
		t.Errorf("0dBFF8000000000000 = %v %v %v", f, f32, ok)
	}
	f, _, _ = decodeHexFloat([]byte("0f7F800000"))
	if !math.IsInf(f, 1) {
		t.Errorf("0f7F800000 = %v", f)
	}
	if f, ok := decodeDecimalFloat([]byte("1e-3")); !ok || f != 0.001 {
		t.Errorf("1e-3 = %v %v", f, ok)
	}
}
