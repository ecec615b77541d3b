package launchspec

import "testing"

// An empty cudaOptions compiles at the same level as none: -O2; an
// explicit 0 is -O0.
func TestCUDAOptionsLevel(t *testing.T) {
	for _, c := range []struct {
		spec string
		want int
	}{
		{`{"cuda":"k.cu","entry":"k","grid":[1],"block":[1]}`, 2},
		{`{"cuda":"k.cu","entry":"k","grid":[1],"block":[1],"cudaOptions":{}}`, 2},
		{`{"cuda":"k.cu","entry":"k","grid":[1],"block":[1],"cudaOptions":{"opt":0}}`, 0},
		{`{"cuda":"k.cu","entry":"k","grid":[1],"block":[1],"cudaOptions":{"opt":3,"arch":"sm_90"}}`, 3},
	} {
		s, err := ParseSpec([]byte(c.spec))
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if got := s.CUDAOptions.Level(); got != c.want {
			t.Errorf("%s: level %d, want %d", c.spec, got, c.want)
		}
	}
	if _, err := ParseSpec([]byte(`{"cuda":"k.cu","entry":"k","grid":[1],"block":[1],"cudaOptions":{"opt":4}}`)); err == nil {
		t.Error("opt 4 accepted")
	}
}
