package sessions

import (
	"encoding/json"
	"math/rand"
	"testing"
)

// A keyed type with every kind of field a warp has: merging the delta
// from a to b into a's full form by the client's rule (null deletes, a
// value replaces) gives b's full form, for random pairs.
type deltaProbe struct {
	Key   int          `json:"key" delta:"key"`
	N     int          `json:"n"`
	S     string       `json:"s"`
	P     *int         `json:"p,omitempty"`
	L     []int        `json:"l"`
	LO    []string     `json:"lo,omitempty"`
	O     int          `json:"o,omitempty"`
	A     *asyncJSON   `json:"a,omitempty"`
	St    []stackJSON  `json:"st"`
	Inner *deltaProbe2 `json:"inner,omitempty"`
}

type deltaProbe2 struct {
	X int `json:"x"`
}

func randomProbe(r *rand.Rand) deltaProbe {
	p := deltaProbe{Key: 7, N: r.Intn(3), S: []string{"", "a", "b"}[r.Intn(3)], O: r.Intn(2)}
	if r.Intn(2) == 0 {
		v := r.Intn(2)
		p.P = &v
	}
	if r.Intn(3) > 0 {
		p.L = make([]int, r.Intn(3))
	}
	for i := r.Intn(3); i > 0; i-- {
		p.LO = append(p.LO, "x")
	}
	if r.Intn(2) == 0 {
		p.A = &asyncJSON{Copies: r.Intn(2), Groups: []asyncGroupJSON{}, Items: []asyncCopyJSON{}}
	}
	p.St = make([]stackJSON, r.Intn(2))
	if r.Intn(2) == 0 {
		p.Inner = &deltaProbe2{X: r.Intn(2)}
	}
	return p
}

func fullOf(t *testing.T, v *deltaProbe) map[string]json.RawMessage {
	d, _ := diffKeyed(nil, v)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(encode(d), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestKeyedDeltaMerge(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 5000; i++ {
		a, b := randomProbe(r), randomProbe(r)
		held := fullOf(t, &a)
		d, changed := diffKeyed(&a, &b)
		var dm map[string]json.RawMessage
		if err := json.Unmarshal(encode(d), &dm); err != nil {
			t.Fatal(err)
		}
		if string(dm["key"]) != "7" {
			t.Fatalf("delta %s has no key", encode(d))
		}
		for k, v := range dm {
			if string(v) == "null" {
				delete(held, k)
			} else {
				held[k] = v
			}
		}
		want := fullOf(t, &b)
		if string(encode(held)) != string(encode(want)) {
			t.Fatalf("%+v -> %+v: delta %s merges to %s, want %s", a, b, encode(d), encode(held), encode(want))
		}
		if same := string(encode(fullOf(t, &a))) == string(encode(want)); same == changed {
			t.Fatalf("%+v -> %+v: changed %v, but the full forms are equal: %v", a, b, changed, same)
		}
	}
}
