package launch

import (
	"errors"
	"strings"
	"testing"
)

// Module .global variables count against MaxBufferBytes with the buffers,
// and initialized ones keep their values though the image holds only the
// initialized prefix of the segment.
func TestGlobalsAgainstBufferBudget(t *testing.T) {
	src := []byte(".version 8.0\n.target sm_80\n.address_size 64\n" +
		".global .u32 init[2] = {11, 22};\n.global .b8 big[1048576];\n.global .u32 last = 33;\n" +
		".visible .entry k(.param .u64 out) {\n .reg .u32 %r<4>; .reg .u64 %rd<2>;\n" +
		" ld.param.u64 %rd1, [out];\n ld.global.u32 %r1, [init+4];\n ld.global.u32 %r2, [last];\n" +
		" add.u32 %r3, %r1, %r2;\n st.global.u32 [%rd1], %r3;\n ret;\n}\n")
	prog, _, diags := Compile("g.ptx", src)
	if prog == nil {
		t.Fatal(diags)
	}
	if prog.GlobalSize < 1<<20 {
		t.Fatalf("global segment %d bytes", prog.GlobalSize)
	}
	spec := `{"source":"g.ptx","grid":[1],"block":[1],"buffers":[{"name":"out","type":"u32","count":4}],"params":[{"buffer":"out"}]}`
	s, err := ParseSpecLimits([]byte(spec), Limits{MaxBufferBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Prepare(prog, s)
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), ".global variables") || !strings.Contains(err.Error(), "limit is 1048576") {
		t.Fatalf("Prepare: %v", err)
	}
	s, err = ParseSpecLimits([]byte(spec), Limits{MaxBufferBytes: 2 << 20})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Prepare(prog, s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Buffer("out").Bits(0); got != 55 {
		t.Fatalf("init[1] + last = %d, want 55", got)
	}
}
