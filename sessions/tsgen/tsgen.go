// Package tsgen writes TypeScript declarations from Go types by
// reflection, so that a contract with the browser is written once, in Go:
// sessions generates the websocket protocol's (ui/proto_gen.ts) and web
// the REST answers' (ui/api_gen.ts), both through cmd/protogen. It
// imports nothing of ours.
package tsgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Decl names a Go type for TypeScript: an interface of its JSON fields.
// Lit, for a message type, is its "type" field's literal.
type Decl struct {
	Name string
	V    any
	Lit  string
}

// Enum is a union of string literals, exported with its values as
// <name>Values. Of, when set, is a Go string type that stands for it.
type Enum struct {
	Name   string
	Values []string
	Of     any
}

// Gen writes TypeScript declarations from Go types by reflection (the
// JSON names, omitempty as optional, pointers as nullable). Its output is
// in B; Bytes returns it or names the Go types it had no TypeScript for.
type Gen struct {
	B        bytes.Buffer
	names    map[reflect.Type]string
	fields   map[string]string
	optional map[string]bool
	unknown  []string
}

// New returns a generator with field overrides ("Type.field" to a
// TypeScript type; "Type" alone replaces a whole declaration) and optional
// fields ("Type.field": true makes it optional, false required).
func New(fields map[string]string, optional map[string]bool) *Gen {
	return &Gen{names: map[reflect.Type]string{}, fields: fields, optional: optional}
}

// Header writes the generated-file header.
func (g *Gen) Header(from, what string) {
	fmt.Fprintf(&g.B, "// Code generated from %s by cmd/protogen; DO NOT EDIT.\n// %s\n\n", from, what)
}

// Declare names Go types without writing them (types another generated
// file declares, or ones Interfaces writes later).
func (g *Gen) Declare(ds ...Decl) {
	for _, d := range ds {
		g.names[reflect.TypeOf(d.V)] = d.Name
	}
}

// Enum writes a union and the list of its values.
func (g *Gen) Enum(e Enum) {
	lits := make([]string, len(e.Values))
	for i, v := range e.Values {
		lits[i] = fmt.Sprintf("%q", v)
	}
	fmt.Fprintf(&g.B, "\nexport const %sValues = [%s] as const;\n", lowerFirst(e.Name), strings.Join(lits, ", "))
	fmt.Fprintf(&g.B, "export type %s = (typeof %sValues)[number];\n", e.Name, lowerFirst(e.Name))
	if e.Of != nil {
		g.names[reflect.TypeOf(e.Of)] = e.Name
	}
}

func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// Interfaces writes an interface per declaration (a declaration whose name
// the field overrides map is a type alias instead) and returns the names of the
// message types (those with a Lit).
func (g *Gen) Interfaces(ds []Decl) (msgs []string) {
	g.Declare(ds...)
	for _, t := range ds {
		typ := reflect.TypeOf(t.V)
		if o, ok := g.fields[t.Name]; ok {
			fmt.Fprintf(&g.B, "\nexport type %s = %s;\n", t.Name, o)
			continue
		}
		if typ.Kind() != reflect.Struct {
			g.unknown = append(g.unknown, typ.String())
			continue
		}
		fmt.Fprintf(&g.B, "\nexport interface %s {\n", t.Name)
		g.fieldsOf(t, typ)
		g.B.WriteString("}\n")
		if t.Lit != "" {
			msgs = append(msgs, t.Name)
		}
	}
	return msgs
}

// fieldsOf writes the JSON fields of struct type typ, those of an
// untagged embedded struct among them (as encoding/json promotes them).
func (g *Gen) fieldsOf(t Decl, typ reflect.Type) {
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				g.fieldsOf(t, et)
				continue
			}
		}
		if tag == "-" || !f.IsExported() {
			continue
		}
		parts := strings.Split(tag, ",")
		name := parts[0]
		if name == "" {
			name = f.Name
		}
		omit := len(parts) > 1 && (parts[1] == "omitempty" || parts[1] == "omitzero")
		ts := g.tsType(f.Type)
		if name == "type" && t.Lit != "" {
			ts = fmt.Sprintf("%q", t.Lit)
		}
		key := t.Name + "." + name
		if o, ok := g.fields[key]; ok {
			ts = o
		}
		if o, ok := g.optional[key]; ok {
			omit = o
		}
		opt := ""
		switch {
		case f.Type.Kind() == reflect.Pointer && !omit:
			ts += " | null"
		case omit:
			opt = "?"
		}
		fmt.Fprintf(&g.B, "  %s%s: %s;\n", name, opt, ts)
	}
}

// Bytes returns what was written, or an error naming the Go types that
// have no TypeScript.
func (g *Gen) Bytes() ([]byte, error) {
	if len(g.unknown) > 0 {
		return nil, fmt.Errorf("no TypeScript for the Go types %s", strings.Join(g.unknown, ", "))
	}
	return g.B.Bytes(), nil
}

var rawMessage = reflect.TypeOf(json.RawMessage{})

func (g *Gen) tsType(t reflect.Type) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	if t == rawMessage {
		return "unknown"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.tsType(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		e := g.tsType(t.Elem())
		if strings.Contains(e, " ") {
			e = "(" + e + ")"
		}
		return e + "[]"
	case reflect.Map:
		return fmt.Sprintf("Record<string, %s>", g.tsType(t.Elem()))
	}
	g.unknown = append(g.unknown, t.String())
	return "unknown"
}
