package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The contract with the server is generated (proto_gen.ts, api_gen.ts):
// no other module declares a type or a constant of the same name, which
// would be a hand-written copy that can go stale.
func TestNoHandWrittenContract(t *testing.T) {
	decl := regexp.MustCompile(`(?m)^export (?:interface|type|const) (\w+).*$`)
	generated := map[string]string{}
	for _, f := range []string{"proto_gen.ts", "api_gen.ts"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			generated[m[1]] = f
		}
	}
	if len(generated) < 50 {
		t.Fatalf("found only %d generated declarations; the pattern is out of date", len(generated))
	}
	files, err := filepath.Glob("*.ts")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_gen.ts") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			// A client-side shape of the same name derives from the
			// generated one (Omit<api.ShareData, ...>).
			if g, ok := generated[m[1]]; ok && !strings.Contains(m[0], "api."+m[1]) {
				t.Errorf("%s declares %s by hand; %s generates it", f, m[1], g)
			}
		}
	}
	// The highlighter's word lists come from the generated ones.
	src, err := os.ReadFile(filepath.Join("ptxlang.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"u32"`, `"global"`, `tid|`} {
		if strings.Contains(string(src), w) {
			t.Errorf("ptxlang.ts lists %s by hand; use api_gen.ts's word lists", w)
		}
	}
}
