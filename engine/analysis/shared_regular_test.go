package analysis

import "testing"

// TestSharedRegular4: where the pattern shortcut decides a full warp's
// 4-byte access, it decides as the bank table does: broadcasts of each
// half-warp and runs of consecutive words, at starts that share banks or
// not, aligned and not.
func TestSharedRegular4(t *testing.T) {
	free := func(off *[32]uint64) bool {
		var first [Banks]uint64
		used := uint32(0)
		for _, o := range off {
			w := o / 4
			b := w % Banks
			if used&(1<<b) != 0 && first[b] != w {
				return false
			}
			used |= 1 << b
			first[b] = w
		}
		return true
	}
	known := 0
	starts := []uint64{0, 4, 8, 60, 64, 68, 124, 128, 132, 252, 256, 512, 2}
	for _, o0 := range starts {
		for _, o16 := range starts {
			for kind := range 5 {
				var off [32]uint64
				for l := range 16 {
					switch kind {
					case 0: // broadcast halves
						off[l], off[l+16] = o0, o16
					case 1: // consecutive words
						off[l], off[l+16] = o0+4*uint64(l), o16+4*uint64(l)
					case 2: // consecutive, one lane off the pattern
						off[l], off[l+16] = o0+4*uint64(l), o16+4*uint64(l)
						if l == 7 {
							off[l] += 128
						}
					case 3: // consecutive, one lane of the upper half off
						off[l], off[l+16] = o0+4*uint64(l), o16+4*uint64(l)
						if l == 9 {
							off[l+16] += 128
						}
					case 4: // broadcast halves, one lane of the upper half off
						off[l], off[l+16] = o0, o16
						if l == 5 {
							off[l+16] += 4
						}
					}
				}
				f, k := sharedRegular4(&off, ^uint64(0), 0)
				// As the fast paths give it: a 32-bit register's value
				// (high bits set, masked off) and an offset.
				var reg [32]uint64
				const at = 1024
				for l := range reg {
					reg[l] = 0xdead_0000_0000_0000 | (off[l]-at)&0xffffffff
				}
				if f2, k2 := sharedRegular4(&reg, 0xffffffff, at); f2 != f || k2 != k {
					t.Errorf("%d %d kind %d: through a register and an offset %v %v, directly %v %v", o0, o16, kind, f2, k2, f, k)
				}
				if !k {
					continue
				}
				known++
				if o0%4 != 0 || o16%4 != 0 {
					t.Errorf("%d %d kind %d: decided an unaligned access", o0, o16, kind)
				}
				if want := free(&off); f != want {
					t.Errorf("%d %d kind %d: free %v, the bank table says %v", o0, o16, kind, f, want)
				}
			}
		}
	}
	if known < 100 {
		t.Errorf("only %d patterns decided", known)
	}
}
