package sessions

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The committed ui/proto_gen.ts matches the Go types.
func TestTypeScriptUpToDate(t *testing.T) {
	want, err := TypeScript()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "ui", "proto_gen.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("ui/proto_gen.ts is stale: run go generate ./ui")
	}
}

// Every constant of a Go string type that stands for a generated union is
// in the union's table (so a new outcome or notice reaches the TypeScript).
func TestEnumTablesHaveEveryConstant(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	consts := map[string][]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if !ok {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						u, _ := strconv.Unquote(lit.Value)
						consts[id.Name] = append(consts[id.Name], u)
					}
				}
			}
		}
	}
	enums := map[string][]string{}
	for _, e := range tsEnums() {
		if e.Of != nil {
			enums[reflect.TypeOf(e.Of).Name()] = e.Values
		}
	}
	for _, typ := range []string{"compareOutcome", "noticeCode"} {
		if len(consts[typ]) == 0 {
			t.Errorf("no constants of type %s found", typ)
		}
		for _, c := range consts[typ] {
			if !slices.Contains(enums[typ], c) {
				t.Errorf("the constant %q of type %s is not in its table (the generated union)", c, typ)
			}
		}
	}
}
