package sessions

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// Keyed deltas. A state message's warps are keyed deltas of the warp as
// the client holds it (warpJSON): the key field ("warp") and every field
// whose value differs from what the client was sent, with null for a field
// that became absent (an omitempty field that became empty). A full state
// is the delta against nothing: every field that is not absent. The client
// merges every delta with one rule (ui/model.ts mergeKeyed): null deletes
// the field, any other value replaces it. So a new warp field is one
// struct field of warpJSON: the diff, the merge, the generated TypeScript
// and the property tests follow from it.

// deltaField is one field of a keyed delta; val nil: the field became
// absent (null on the wire).
type deltaField struct {
	name string
	val  any
}

// keyedDelta is the key and the changed fields of a value, in field order.
type keyedDelta []deltaField

// MarshalJSON writes the delta as one JSON object.
func (d keyedDelta) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		n, _ := json.Marshal(f.name)
		b.Write(n)
		b.WriteByte(':')
		if f.val == nil {
			b.WriteString("null")
			continue
		}
		v, err := json.Marshal(f.val)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// deltaInfo describes one JSON field of a keyed type.
type deltaInfo struct {
	index int
	name  string
	omit  bool // omitempty: absent when empty
	key   bool // `delta:"key"`: always present
}

var deltaFields sync.Map // reflect.Type -> []deltaInfo

func deltaFieldsOf(t reflect.Type) []deltaInfo {
	if fs, ok := deltaFields.Load(t); ok {
		return fs.([]deltaInfo)
	}
	var fs []deltaInfo
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fs = append(fs, deltaInfo{index: i, name: name, omit: opts == "omitempty", key: f.Tag.Get("delta") == "key"})
	}
	deltaFields.Store(t, fs)
	return fs
}

// absent reports whether a field is left out of a full value: a nil
// pointer, slice or map (an empty, non-nil list is present: "groups": []
// says a warp has no thread groups left), or a zero omitempty scalar.
func absent(f deltaInfo, v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return v.IsNil()
	}
	return f.omit && v.IsZero()
}

// diffKeyed returns the keyed delta that turns prev into cur (every
// present field of cur when prev is nil) and whether any field besides
// the key differs.
func diffKeyed[T any](prev, cur *T) (keyedDelta, bool) {
	cv := reflect.ValueOf(cur).Elem()
	var pv reflect.Value
	if prev != nil {
		pv = reflect.ValueOf(prev).Elem()
	}
	var d keyedDelta
	changed := false
	for _, f := range deltaFieldsOf(cv.Type()) {
		c := cv.Field(f.index)
		cAbsent := absent(f, c)
		switch {
		case f.key:
			d = append(d, deltaField{f.name, c.Interface()})
			continue
		case prev == nil:
			if cAbsent {
				continue
			}
		default:
			p := pv.Field(f.index)
			pAbsent := absent(f, p)
			if pAbsent && cAbsent || !pAbsent && !cAbsent && reflect.DeepEqual(p.Interface(), c.Interface()) {
				continue
			}
		}
		changed = true
		if cAbsent {
			d = append(d, deltaField{f.name, nil})
		} else {
			d = append(d, deltaField{f.name, c.Interface()})
		}
	}
	return d, changed
}
