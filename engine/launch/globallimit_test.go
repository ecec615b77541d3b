package launch

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// A module whose .global variables exceed the emulator's segment is valid
// PTX: it compiles with a warning, and every launch of it fails with a
// launch-limit error instead of allocating the memory.
func TestGlobalOverSegmentIsLaunchLimit(t *testing.T) {
	src := launchHeader + `
.global .b8 big[268435457];
.visible .entry k(.param .u64 out)
{
	ret;
}
`
	prog, s, diags := Compile("t.ptx", []byte(src))
	if prog == nil {
		t.Fatalf("compile failed:\n%s", ptx.FormatAll(s, diags))
	}
	if len(diags) != 1 || diags[0].Severity != ptx.SevWarning || !strings.Contains(diags[0].Message, "cannot be launched") {
		t.Fatalf("want one warning, got:\n%s", ptx.FormatAll(s, diags))
	}
	if prog.GlobalOver != 268435457 || len(prog.GlobalImg) > emu.MaxGlobalSegment {
		t.Errorf("GlobalOver %d, image %d bytes", prog.GlobalOver, len(prog.GlobalImg))
	}
	if _, err := emu.NewMachine(prog, "k", emu.Config{}); err == nil || !strings.Contains(err.Error(), "launch limit") {
		t.Errorf("NewMachine: %v", err)
	}
	spec, err := ParseSpec([]byte(`{"version":1,"source":"x","grid":[1,1,1],"block":[1,1,1],"buffers":[{"name":"o","type":"u32","count":1}],"params":[{"buffer":"o"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), prog, spec); err == nil || !strings.Contains(err.Error(), "launch limit") {
		t.Errorf("Run: %v", err)
	}
	ms := Check(prog, spec)
	found := false
	for _, m := range ms {
		found = found || m.Blocking && m.Field == "module" && strings.Contains(m.Message, "launch limit")
	}
	if !found {
		t.Errorf("Check: %+v", ms)
	}
	// Inference does not loop over launch shapes that cannot help.
	if _, _, err := Infer(prog, nil, ""); err != nil && !strings.Contains(err.Error(), "launch limit") {
		t.Errorf("Infer: %v", err)
	}
}
