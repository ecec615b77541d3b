package emu

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Every place the front end and the compiler report a diagnostic names
// its ID with a ptx.Diag* constant (each is in the ptx.IDs table, see
// engine/ptx's tests), or passes on an id parameter: never a string
// literal, which would be an ID outside the table.
func TestDiagnosticCallsNameIDConstants(t *testing.T) {
	// The reporting functions and the index of their ID argument.
	idArg := map[string]int{"errorf": 1, "Errorf": 1, "Warnf": 1, "errorNotes": 1, "errorID": 0, "operrID": 1}
	calls := 0
	for _, dir := range []string{".", filepath.Join("..", "ptx"), filepath.Join("..", "launch")} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				i, ok := idArg[sel.Sel.Name]
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "fmt" || x.Name == "t") {
					return true // fmt.Errorf, t.Errorf
				}
				if sel.Sel.Name == "errorf" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "b" {
						return true // binder.errorf: always DiagInvalidForm
					}
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "lx" {
					i = 2 // lexer errorf(start, end, id, ...)
				}
				calls++
				pos := fset.Position(call.Pos())
				if len(call.Args) <= i {
					t.Errorf("%s: %s has no ID argument", pos, sel.Sel.Name)
					return true
				}
				switch a := call.Args[i].(type) {
				case *ast.Ident:
					if !strings.HasPrefix(a.Name, "Diag") && a.Name != "id" {
						t.Errorf("%s: ID argument %s is not a Diag* constant", pos, a.Name)
					}
				case *ast.SelectorExpr:
					if x, ok := a.X.(*ast.Ident); !ok || x.Name != "ptx" || !strings.HasPrefix(a.Sel.Name, "Diag") {
						t.Errorf("%s: ID argument is not a ptx.Diag* constant", pos)
					}
				default:
					t.Errorf("%s: ID argument of %s is not a named constant", pos, sel.Sel.Name)
				}
				return true
			})
		}
	}
	if calls < 100 {
		t.Fatalf("found only %d reporting calls", calls)
	}
}

// A redeclared register and a function defined twice carry a note at the
// first declaration or definition.
func TestRedeclarationNotes(t *testing.T) {
	src := ctlHeader + `
.func f() { ret; }
.func f() { ret; }
.visible .entry k() {
	.reg .u32 %a;
	.reg .u32 %a;
	ret;
}`
	s := ptx.NewSource("r.ptx", []byte(src))
	_, diags := CompileSource(s)
	out := ptx.FormatAll(s, diags)
	line := func(text string) int { return strings.Count(src[:strings.Index(src, text)], "\n") + 1 }
	fLine := line(".func f()")
	aLine := line(".reg .u32 %a;")
	for _, want := range []string{
		fmt.Sprintf("r.ptx:%d:7: error[function-redefined]: function f redefined\nr.ptx:%d:7: note: function f is first defined here\n", fLine+1, fLine),
		fmt.Sprintf("r.ptx:%d:12: error[redeclared]: %%a redeclared in this scope (previous declaration at line %d)\nr.ptx:%d:12: note: %%a is first declared here\n", aLine+1, aLine, aLine),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing\n%s\nin\n%s", want, out)
		}
	}
}
