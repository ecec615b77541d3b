package ptx

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// dbgCanonTokens lexes text and returns its tokens in a canonical form for
// the round-trip comparison: numbers by value, and without parentheses,
// semicolons, .loc/.file lines, .address_size and .section blocks.
func dbgCanonTokens(text []byte) []string {
	toks, _ := Tokenize(text)
	var out []string
	proto, depth := false, 0 // in a .callprototype; parenthesis depth
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		s := string(text[t.Span.Start:t.Span.End])
		switch t.Kind {
		case TokLParen:
			depth++
			continue
		case TokRParen:
			depth--
			continue
		case TokEOF, TokSemi:
			proto = false
			continue
		case TokIdent:
			// The AST does not keep the name after .callprototype.
			if proto && depth == 0 {
				s = "_"
			}
		case TokDirective:
			switch s {
			case ".callprototype":
				proto = true
			case ".loc", ".file":
				for i+1 < len(toks) && !toks[i+1].NL && toks[i+1].Kind != TokEOF {
					i++
				}
				continue
			case ".address_size":
				i++
				continue
			case ".section":
				for i < len(toks) && toks[i].Kind != TokLBrace {
					i++
				}
				depth := 0
				for ; i < len(toks); i++ {
					if toks[i].Kind == TokLBrace {
						depth++
					} else if toks[i].Kind == TokRBrace {
						depth--
						if depth == 0 {
							break
						}
					}
				}
				continue
			}
		case TokInt:
			v, u, _ := decodeInt([]byte(s))
			s = fmt.Sprint(v)
			if u {
				s += "U"
			}
		case TokFloat:
			if len(s) > 1 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F') {
				f, _, _ := decodeHexFloat([]byte(s))
				s = fmt.Sprintf("f%08X", fmtF32Bits(f))
			} else {
				var f float64
				if len(s) > 1 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D') {
					f, _, _ = decodeHexFloat([]byte(s))
				} else {
					f, _ = decodeDecimalFloat([]byte(s))
				}
				s = fmt.Sprintf("d%016X", fmtF64Bits(f))
			}
		}
		// "+ -" (from "[r + -4]" or the printer's "[r+-4]") is "-".
		if s == "-" && len(out) > 0 && out[len(out)-1] == "+" {
			out = out[:len(out)-1]
		}
		out = append(out, s)
	}
	return out
}

// TestCorpusRoundTrip prints every parsed corpus module back as PTX and
// checks that it has the same tokens as the original, so that the parser
// drops or misplaces nothing.
func TestCorpusRoundTrip(t *testing.T) {
	n := 0
	for _, dir := range corpusDirs {
		for _, path := range corpusFiles(t, dir) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, diags := Parse(NewSource(path, text))
			if len(diags) > 0 {
				continue // reported by TestCorpus
			}
			n++
			printed := dbgModule(m)
			a, b := dbgCanonTokens(text), dbgCanonTokens([]byte(printed))
			if i := dbgFirstDiff(a, b); i >= 0 {
				lo := max(i-8, 0)
				t.Errorf("%s: token %d differs after printing:\n original: %s\n printed:  %s", path, i,
					strings.Join(a[lo:min(i+8, len(a))], " "), strings.Join(b[lo:min(i+8, len(b))], " "))
			}
		}
	}
	if n == 0 {
		t.Skip("no corpus")
	}
}

func dbgFirstDiff(a, b []string) int {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	if len(b) > len(a) {
		return len(a)
	}
	return -1
}
