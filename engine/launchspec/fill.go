package launchspec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// PutElem stores the low bytes of bits as element i of data (little-endian).
func PutElem(data []byte, i, size int, bits uint64) {
	b := data[i*size : i*size+size]
	switch size {
	case 1:
		b[0] = byte(bits)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(bits))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(bits))
	default:
		binary.LittleEndian.PutUint64(b, bits)
	}
}

// GetElem reads element i of data.
func GetElem(data []byte, i, size int) uint64 {
	b := data[i*size : i*size+size]
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// iotaGen produces Start + i*Step.
type iotaGen struct {
	t           isa.Type
	start, step uint64  // integer types: two's-complement bits
	fstart      float64 // float types
	fstep       float64
}

func newIota(in *Iota, t isa.Type) (*iotaGen, error) {
	g := &iotaGen{t: t, step: 1, fstep: 1}
	if t.IsFloat() {
		var err error
		if in.Start != "" {
			if g.fstart, err = parseFloat64(string(in.Start)); err != nil {
				return nil, fmt.Errorf("start: %v", err)
			}
		}
		if in.Step != "" {
			if g.fstep, err = parseFloat64(string(in.Step)); err != nil {
				return nil, fmt.Errorf("step: %v", err)
			}
		}
		return g, nil
	}
	var err error
	if in.Start != "" {
		if g.start, err = encodeInt(string(in.Start), t); err != nil {
			return nil, fmt.Errorf("start: %v", err)
		}
	}
	if in.Step != "" {
		if g.step, err = parseStep(string(in.Step)); err != nil {
			return nil, fmt.Errorf("step: %v", err)
		}
	}
	return g, nil
}

func (g *iotaGen) at(i int) uint64 {
	if g.t.IsFloat() {
		return floatBits(g.fstart+float64(i)*g.fstep, g.t)
	}
	return (g.start + uint64(i)*g.step) & widthMask(g.t)
}

// splitmix64 is the generator of random init: Steele, Lea and Flood's
// SplitMix64 (the seeding generator of xoshiro), one stream per buffer
// started from its seed.
type splitmix64 struct{ s uint64 }

func (r *splitmix64) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// randGen draws elements: floats uniform in [min, max) as
// min + u*(max-min) with u = (next()>>11) * 2^-53, computed in float64 and
// rounded to nearest even in the element type; integers uniform in
// [min, max] by rejection (a draw x is used when x >= 2^64 mod n, giving
// min + x mod n, where n = max-min+1; the whole 64-bit range uses x as is).
type randGen struct {
	t        isa.Type
	rng      splitmix64
	lo       uint64 // integer min (two's complement)
	n        uint64 // integer range size (0: all 2^64 values)
	thresh   uint64
	flo, fhi float64
}

func newRandom(in *Random, t isa.Type) (*randGen, error) {
	g := &randGen{t: t, rng: splitmix64{in.Seed}}
	if t.IsFloat() {
		g.flo, g.fhi = 0, 1
		var err error
		if in.Min != nil {
			if g.flo, err = parseFloat64(string(*in.Min)); err != nil {
				return nil, fmt.Errorf("min: %v", err)
			}
		}
		if in.Max != nil {
			if g.fhi, err = parseFloat64(string(*in.Max)); err != nil {
				return nil, fmt.Errorf("max: %v", err)
			}
		}
		if math.IsNaN(g.flo) || math.IsInf(g.flo, 0) || math.IsNaN(g.fhi) || math.IsInf(g.fhi, 0) {
			return nil, errors.New("min and max must be finite")
		}
		if g.flo > g.fhi {
			return nil, fmt.Errorf("min %v is greater than max %v", g.flo, g.fhi)
		}
		return g, nil
	}
	lo, hi := intRange(t)
	mask := widthMask(t)
	signed := t.Kind() == isa.KindSigned
	var minv, maxv uint64
	if signed {
		minv, maxv = uint64(lo.Int64())&mask, uint64(hi.Int64())
	} else {
		minv, maxv = 0, mask
	}
	var err error
	if in.Min != nil {
		if minv, err = encodeInt(string(*in.Min), t); err != nil {
			return nil, fmt.Errorf("min: %v", err)
		}
	}
	if in.Max != nil {
		if maxv, err = encodeInt(string(*in.Max), t); err != nil {
			return nil, fmt.Errorf("max: %v", err)
		}
	}
	// Compare as the type's integers (b types compare as unsigned).
	sx := func(x uint64) int64 {
		n := uint(64 - t.Bits())
		return int64(x<<n) >> n
	}
	if signed && sx(minv) > sx(maxv) || !signed && minv > maxv {
		return nil, fmt.Errorf("min %s is greater than max %s", AppendValueJSON(nil, minv, t), AppendValueJSON(nil, maxv, t))
	}
	if signed {
		g.lo = uint64(sx(minv))
		g.n = uint64(sx(maxv)-sx(minv)) + 1
	} else {
		g.lo = minv
		g.n = maxv - minv + 1
	}
	if g.n != 0 {
		g.thresh = -g.n % g.n
	}
	return g, nil
}

func (g *randGen) nextElem() uint64 {
	if g.t.IsFloat() {
		u := float64(g.rng.next()>>11) * 0x1p-53
		return floatBits(g.flo+u*(g.fhi-g.flo), g.t)
	}
	if g.n == 0 {
		return g.rng.next() & widthMask(g.t)
	}
	for {
		x := g.rng.next()
		if x >= g.thresh {
			return (g.lo + x%g.n) & widthMask(g.t)
		}
	}
}

// FillBuffer writes the initial contents of b (already validated) into
// data, which is zeroed.
func FillBuffer(b *Buffer, t isa.Type, data []byte) error {
	in := b.Init
	if in == nil {
		return nil
	}
	size := t.Size()
	switch {
	case in.Values != nil:
		for i, v := range in.Values {
			x, err := EncodeValue(v, t)
			if err != nil {
				return fmt.Errorf("values[%d]: %v", i, err)
			}
			PutElem(data, i, size, x)
		}
	case in.Fill != nil:
		x, err := EncodeValue(*in.Fill, t)
		if err != nil {
			return fmt.Errorf("fill: %v", err)
		}
		if x != 0 {
			for i := 0; i < b.Count; i++ {
				PutElem(data, i, size, x)
			}
		}
	case in.Bytes != nil:
		raw, err := DecodeHex(*in.Bytes)
		if err != nil {
			return fmt.Errorf("bytes: %v", err)
		}
		if len(raw) > len(data) {
			return fmt.Errorf("bytes: %d bytes for a buffer of %d bytes", len(raw), len(data))
		}
		copy(data, raw)
	case in.Iota != nil:
		g, err := newIota(in.Iota, t)
		if err != nil {
			return fmt.Errorf("iota: %v", err)
		}
		for i := 0; i < b.Count; i++ {
			PutElem(data, i, size, g.at(i))
		}
	case in.Random != nil:
		g, err := newRandom(in.Random, t)
		if err != nil {
			return fmt.Errorf("random: %v", err)
		}
		for i := 0; i < b.Count; i++ {
			PutElem(data, i, size, g.nextElem())
		}
	}
	return nil
}
