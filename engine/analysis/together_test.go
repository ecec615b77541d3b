package analysis

import (
	"math/rand"
	"testing"
)

// together answers, after any sequence of instructions and active lanes,
// the last step at which two different lanes both ran, as a full history of the
// steps does: with runs of the whole warp (which the table does not
// record pair by pair), of parts of it, and steps skipped (instructions
// with the lanes of the one before).
func TestWarpTogether(t *testing.T) {
	rng := rand.New(rand.NewSource(26))
	for _, init := range []uint32{^uint32(0), 1<<20 - 1, 0x3} {
		for iter := 0; iter < 200; iter++ {
			ws := warpState{init: init, live: init}
			var hist []uint32 // hist[s-1]: the lanes of step s
			step := uint32(0)
			for k := 0; k < 40; k++ {
				var mask uint32
				switch rng.Intn(4) {
				case 0:
					mask = init
				case 1:
					mask = init & (1 << rng.Intn(32))
				default:
					mask = init & rng.Uint32()
				}
				if mask == 0 {
					mask = init
				}
				// The steps in between ran with the lanes of the last.
				skip := uint32(rng.Intn(3))
				for i := uint32(0); i < skip && len(hist) > 0; i++ {
					hist = append(hist, hist[len(hist)-1])
					step++
				}
				step++
				hist = append(hist, mask)
				ws.advanceTo(step, mask)
				for q := 0; q < 20; q++ {
					a, b := rng.Intn(32), rng.Intn(32)
					if a == b || init>>a&1 == 0 || init>>b&1 == 0 {
						continue
					}
					want := uint32(0)
					for s := len(hist); s >= 1; s-- {
						if hist[s-1]>>a&1 != 0 && hist[s-1]>>b&1 != 0 {
							want = uint32(s)
							break
						}
					}
					if got := ws.together(a, b); got != want {
						t.Fatalf("init %x, steps %x: together(%d, %d) = %d, want %d", init, hist, a, b, got, want)
					}
				}
			}
		}
	}
}
