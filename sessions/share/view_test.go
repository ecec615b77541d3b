package share

import (
	"fmt"
	"strings"
	"testing"
)

func withView(view string) string {
	return fmt.Sprintf(`{"source":%q,"spec":{"grid":[1],"block":[32]},"view":%s}`, testPTX, view)
}

// Equivalent swizzle explorer settings normalise to one view (one ID);
// settings that differ keep their own.
func TestSwizzleViewNormalized(t *testing.T) {
	canon := `{"swizzle":{"mode":"128B","rowBytes":128,"rows":8,"base":0,"row":1,"col":2,"chunk":3},"tab":"swizzle"}`
	same := []string{
		`{"tab":"swizzle","swizzle":{"mode":"128B","rowBytes":128,"rows":8,"base":0,"row":1,"col":2,"chunk":3}}`,
		// Mode spelled in lower case, the 16B atom named, b/m/s that 128B does not use.
		`{"tab":"swizzle","swizzle":{"mode":"128b","atom":"16B","b":2,"m":4,"s":3,"rowBytes":128,"rows":8,"base":0,"row":1,"col":2,"chunk":3}}`,
		// Selectors beyond the tile, reduced as the explorer reduces them; the default focus and live.
		`{"tab":"swizzle","swizzle":{"mode":"128B","rowBytes":128,"rows":8,"base":0,"row":9,"col":34,"chunk":11,"focus":"column","live":true}}`,
		// The default cell, 16-byte chunks, named.
		`{"tab":"swizzle","swizzle":{"mode":"128B","rowBytes":128,"rows":8,"base":0,"row":1,"col":2,"chunk":3,"unit":16}}`,
	}
	want, _ := snap(t, withView(canon)).Encode()
	for _, v := range same {
		s := snap(t, withView(v))
		if id, _ := s.Encode(); id != want {
			t.Errorf("%s normalised to %s, want the view of %s", v, s.View, canon)
		}
	}
	// Keys sorted, as every canonical view.
	sorted := `{"swizzle":{"base":0,"chunk":3,"col":2,"mode":"128B","row":1,"rowBytes":128,"rows":8},"tab":"swizzle"}`
	if got := string(snap(t, withView(canon)).View); got != sorted {
		t.Errorf("canonical view %s, want %s", got, sorted)
	}
	// Different settings: different views.
	other := []string{
		`{"tab":"swizzle","swizzle":{"mode":"128B","atom":"32B","rowBytes":128,"rows":8,"base":0,"row":1,"col":2,"chunk":3}}`,
		`{"tab":"swizzle","swizzle":{"mode":"xor","b":3,"m":4,"s":3,"rowBytes":128,"rows":8,"base":0,"row":1,"col":2,"chunk":3}}`,
		`{"tab":"swizzle","swizzle":{"mode":"128B","rowBytes":128,"rows":8,"base":0,"row":1,"col":2,"chunk":3,"focus":"ldmatrix"}}`,
		`{"tab":"swizzle","swizzle":{"mode":"128B","rowBytes":128,"rows":8,"base":0,"row":1,"col":2,"chunk":3,"live":false}}`,
		`{"tab":"swizzle","swizzle":{"mode":"128B","rowBytes":128,"rows":8,"base":0,"row":1,"col":2,"chunk":3,"unit":4}}`,
	}
	seen := map[string]string{want: canon}
	for _, v := range other {
		id, _ := snap(t, withView(v)).Encode()
		if prev, ok := seen[id]; ok {
			t.Errorf("%s and %s share an ID", v, prev)
		}
		seen[id] = v
	}
	xor := snap(t, withView(other[1])).View
	if !strings.Contains(string(xor), `"b":3,`) || !strings.Contains(string(xor), `"m":4,`) || !strings.Contains(string(xor), `"s":3}`) || !strings.Contains(string(xor), `"mode":"xor"`) {
		t.Errorf("Swizzle<3,4,3> view %s", xor)
	}
	// A view without the explorer is kept as it is.
	if got := string(snap(t, withView(`{"tab":"regs","warp":1}`)).View); got != `{"tab":"regs","warp":1}` {
		t.Errorf("view %s", got)
	}
}

// Settings the explorer would refuse are refused with the reason.
func TestSwizzleViewRefused(t *testing.T) {
	for _, c := range []struct{ view, want string }{
		{`{"swizzle":{"mode":"256B","rowBytes":128,"rows":8}}`, "mode"},
		{`{"swizzle":{"mode":"64B","atom":"32B","rowBytes":128,"rows":8}}`, "16-byte atomicity"},
		{`{"swizzle":{"mode":"xor","b":3,"m":4,"s":1,"rowBytes":128,"rows":8}}`, "S must be at least B"},
		{`{"swizzle":{"mode":"xor","b":3,"rowBytes":128,"rows":8}}`, "needs b, m and s"},
		{`{"swizzle":{"mode":"none","rowBytes":24,"rows":8}}`, "row width"},
		{`{"swizzle":{"mode":"none","rowBytes":128,"rows":0}}`, "rows must be"},
		{`{"swizzle":{"mode":"none","rowBytes":128,"rows":8,"base":100}}`, "base address"},
		{`{"swizzle":{"mode":"none","rowBytes":128,"rows":8,"base":-128}}`, "negative"},
		{`{"swizzle":{"mode":"none","rowBytes":128,"rows":8,"row":-1}}`, "row -1 is negative"},
		{`{"swizzle":{"mode":"none","rowBytes":128,"rows":8,"focus":"diagonal"}}`, "focus"},
		{`{"swizzle":{"mode":"none","rowBytes":128,"rows":8,"unit":12}}`, "unit 12"},
		{`{"swizzle":{"mode":"none","rowBytes":128,"rows":8,"extra":1}}`, "unknown field"},
		{`{"swizzle":"128B"}`, "swizzle:"},
	} {
		_, err := Decode(strings.NewReader(withView(c.view)), DefaultLimits)
		if err == nil || !IsInvalid(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an InvalidError containing %q", c.view, err, c.want)
		}
	}
}
