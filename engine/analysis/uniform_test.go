package analysis

import (
	"math/rand"
	"testing"
)

// uniform agrees with a word-by-word look at the uni bits, across the
// boundaries of its uint64s.
func TestUniformWords(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	cs := &ctaState{uni: make([]uint64, 4)}
	for range 2000 {
		for i := range cs.uni {
			cs.uni[i] = ^uint64(0)
			for range rng.Intn(3) {
				cs.uni[i] &^= 1 << rng.Intn(64)
			}
		}
		n := uint64(1 + rng.Intn(64))
		k := uint64(rng.Intn(4*64 - int(n) + 1))
		want := true
		for j := k; j < k+n; j++ {
			if cs.uni[j>>6]>>(j&63)&1 == 0 {
				want = false
			}
		}
		if got := cs.uniform(k, n); got != want {
			t.Fatalf("uniform(%d, %d) = %v, want %v (uni %x)", k, n, got, want, cs.uni)
		}
	}
}
