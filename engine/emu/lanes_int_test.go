package emu

import (
	"math/rand"
	"testing"
)

// TestIntLanesVec: each whole-warp integer routine (in AVX2 where the
// processor has it) computes its Go loop's lanes, on random values with
// bits above the operation's width set, for masks of every width, shift
// amounts 0 – 31 and immediates of every size, with the destination one
// of the sources too.
func TestIntLanesVec(t *testing.T) {
	if !ixVec {
		t.Log("no vector integer routines on this processor: the Go loops against themselves")
	}
	rng := rand.New(rand.NewSource(7))
	masks := []uint64{0xff, 0xffff, 0xffffffff, ^uint64(0)}
	type fn struct {
		name     string
		vec, ref func(d, a, b, c *[32]uint64, m uint64)
		masks    []uint64 // the m the callers pass (nil: any)
	}
	fns := []fn{
		{"and", func(d, a, b, c *[32]uint64, m uint64) { vecAndM(d, a, b, m) }, func(d, a, b, c *[32]uint64, m uint64) { andAllGo(d, a, b, m) }, nil},
		{"or", func(d, a, b, c *[32]uint64, m uint64) { vecOrM(d, a, b, m) }, func(d, a, b, c *[32]uint64, m uint64) { orAllGo(d, a, b, m) }, nil},
		{"xor", func(d, a, b, c *[32]uint64, m uint64) { vecXorM(d, a, b, m) }, func(d, a, b, c *[32]uint64, m uint64) { xorAllGo(d, a, b, m) }, nil},
		{"add", func(d, a, b, c *[32]uint64, m uint64) { vecAddM(d, a, b, m) }, func(d, a, b, c *[32]uint64, m uint64) { addAllGo(d, a, b, m) }, nil},
		{"sub", func(d, a, b, c *[32]uint64, m uint64) { vecSubM(d, a, b, m) }, func(d, a, b, c *[32]uint64, m uint64) { subAllGo(d, a, b, m) }, nil},
		{"mad.lo", func(d, a, b, c *[32]uint64, m uint64) { vecMadLoM(d, a, b, c, m) }, func(d, a, b, c *[32]uint64, m uint64) { madLoAllGo(d, a, b, c, m) }, masks[:3]},
		{"add imm", func(d, a, b, c *[32]uint64, m uint64) { vecAddImm32(d, a, m) }, func(d, a, b, c *[32]uint64, m uint64) { addImm32AllGo(d, a, m) }, nil},
		{"shl imm", func(d, a, b, c *[32]uint64, m uint64) { vecShlImm32(d, a, m&31) }, func(d, a, b, c *[32]uint64, m uint64) { shlImm32AllGo(d, a, m&31) }, nil},
		{"shr imm", func(d, a, b, c *[32]uint64, m uint64) { vecShrImm32(d, a, m&31) }, func(d, a, b, c *[32]uint64, m uint64) { shrImm32AllGo(d, a, m&31) }, nil},
	}
	for _, f := range fns {
		for iter := 0; iter < 2000; iter++ {
			var src [3][32]uint64
			for i := range src {
				for l := range src[i] {
					switch rng.Intn(4) {
					case 0:
						src[i][l] = uint64(rng.Uint32())
					case 1:
						src[i][l] = uint64(rng.Intn(64)) - 32
					default:
						src[i][l] = rng.Uint64()
					}
				}
			}
			m := rng.Uint64()
			if f.masks != nil || rng.Intn(2) == 0 {
				ms := masks
				if f.masks != nil {
					ms = f.masks
				}
				m = ms[rng.Intn(len(ms))]
			}
			for alias := range 4 {
				want, got := src, src
				var dw, dg [32]uint64
				pw, pg := &dw, &dg
				if alias < 3 {
					pw, pg = &want[alias], &got[alias]
				}
				f.ref(pw, &want[0], &want[1], &want[2], m)
				f.vec(pg, &got[0], &got[1], &got[2], m)
				if *pw != *pg || want != got {
					for l := range 32 {
						if pw[l] != pg[l] {
							t.Fatalf("%s, m %#x, alias %d, lane %d: a %#x b %#x c %#x: vector %#x, Go %#x", f.name, m, alias, l, src[0][l], src[1][l], src[2][l], pg[l], pw[l])
						}
					}
					t.Fatalf("%s, m %#x, alias %d: the sources differ afterwards", f.name, m, alias)
				}
			}
		}
	}
}

// TestCmpLanesVec: the compares of up to 32 bits that the full-warp setp
// kernels call where the processor has vectors give, lane by lane, the
// comparison of the operands read at their width (signed through the
// bias), registers and immediates alike.
func TestCmpLanesVec(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for _, wb := range [][2]uint64{{0xffff, 0}, {0xffff, 0x8000}, {0xffffffff, 0}, {0xffffffff, 0x80000000}} {
		w, bias := wb[0], wb[1]
		signed := bias != 0
		// val reads a lane as the compare does.
		val := func(v uint64) int64 {
			v &= w
			if signed && v&bias != 0 {
				return int64(v) - int64(2*bias)
			}
			return int64(v)
		}
		for iter := 0; iter < 3000; iter++ {
			var a, b [32]uint64
			for l := range a {
				a[l], b[l] = rng.Uint64(), rng.Uint64()
				switch rng.Intn(4) {
				case 0:
					b[l] = a[l]
				case 1:
					b[l] = a[l] + uint64(rng.Intn(3)) - 1
				}
			}
			k := b[rng.Intn(32)]
			y := k&w ^ bias
			var lt, le, gt, ge, eq, ltK, leK, gtK, geK, eqK uint32
			for l := range a {
				x, z, kk := val(a[l]), val(b[l]), val(k)
				bit := func(c bool) uint32 {
					if c {
						return 1 << l
					}
					return 0
				}
				lt |= bit(x < z)
				le |= bit(x <= z)
				gt |= bit(x > z)
				ge |= bit(x >= z)
				eq |= bit(x == z)
				ltK |= bit(x < kk)
				leK |= bit(x <= kk)
				gtK |= bit(x > kk)
				geK |= bit(x >= kk)
				eqK |= bit(a[l]&w == k&w)
			}
			for _, c := range []struct {
				name      string
				got, want uint32
			}{
				{"lt", vecCmpLT(&a, &b, w, bias), lt}, {"le", ^vecCmpLT(&b, &a, w, bias), le},
				{"gt", vecCmpLT(&b, &a, w, bias), gt}, {"ge", ^vecCmpLT(&a, &b, w, bias), ge},
				{"eq", vecCmpEq(&a, &b, w), eq},
				{"lt imm", vecCmpLTK(&a, y, w, bias), ltK}, {"le imm", vecCmpLTK(&a, y+1, w, bias), leK},
				{"gt imm", ^vecCmpLTK(&a, y+1, w, bias), gtK}, {"ge imm", ^vecCmpLTK(&a, y, w, bias), geK},
				{"eq imm", vecCmpEqK(&a, k&w, w), eqK},
			} {
				if c.got != c.want {
					t.Fatalf("width %#x bias %#x %s: %032b, want %032b", w, bias, c.name, c.got, c.want)
				}
			}
		}
	}
}
