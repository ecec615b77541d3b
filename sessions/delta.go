package sessions

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
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
		switch v := f.val.(type) {
		case nil:
			b.WriteString("null")
			continue
		case int:
			b.WriteString(strconv.Itoa(v))
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
// the key differs. An unchanged value costs no allocation.
func diffKeyed[T any](prev, cur *T) (keyedDelta, bool) {
	cv := reflect.ValueOf(cur).Elem()
	fs := deltaFieldsOf(cv.Type())
	var pv reflect.Value
	if prev != nil {
		pv = reflect.ValueOf(prev).Elem()
		same := true
		for _, f := range fs {
			if !f.key && !fieldSame(f, pv.Field(f.index), cv.Field(f.index)) {
				same = false
				break
			}
		}
		if same {
			return nil, false
		}
	}
	d := make(keyedDelta, 0, len(fs))
	changed := false
	for _, f := range fs {
		c := cv.Field(f.index)
		switch {
		case f.key:
			d = append(d, deltaField{f.name, c.Interface()})
			continue
		case prev == nil && absent(f, c):
			continue
		case prev != nil && fieldSame(f, pv.Field(f.index), c):
			continue
		}
		changed = true
		if absent(f, c) {
			d = append(d, deltaField{f.name, nil})
		} else {
			d = append(d, deltaField{f.name, c.Interface()})
		}
	}
	return d, changed
}

// fieldSame reports whether a field has the same value in two versions
// (two absent values are the same).
func fieldSame(f deltaInfo, p, c reflect.Value) bool {
	pa, ca := absent(f, p), absent(f, c)
	if pa || ca {
		return pa == ca
	}
	return valueEqual(p, c)
}

// valueEqual is reflect.DeepEqual for the plain data of protocol types
// (no cycles, no funcs or channels), without boxing the values.
func valueEqual(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.String:
		return a.String() == b.String()
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return valueEqual(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return false
		}
		fallthrough
	case reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !valueEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !valueEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		it := a.MapRange()
		for it.Next() {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() || !valueEqual(it.Value(), bv) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}
