// Package share keeps share links: immutable snapshots of a kernel, its
// launch, the view and optionally a moment of its execution, stored under
// short content-derived IDs in SQLite (the default, one file in the data
// folder) or PostgreSQL (for several servers).
package share

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ptxplayground/ptxplay/engine/launchspec"
)

// Version is the snapshot format version stored with every snapshot.
const Version = 1

// Snapshot is what a share link holds. It never changes once stored: the
// ID is derived from its canonical encoding.
type Snapshot struct {
	// Title and Description label the link (page title, link previews).
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Source is the PTX text.
	Source string `json:"source"`
	// Spec is the launch spec without "ptx"/"source" (docs/launch-spec.md):
	// what the websocket `load` message carries next to the source.
	Spec json.RawMessage `json:"spec"`
	// View is the UI's view state (open tab, selected CTA/warp/lane,
	// breakpoints, explorer settings): a JSON object the server keeps
	// as it is, bounded in size.
	View json.RawMessage `json:"view,omitempty"`
	// Step is the position to open at, in warp-instructions (0: the start).
	Step int64 `json:"step,omitempty"`
	// Example is the gallery example the kernel came from, if any.
	Example string `json:"example,omitempty"`
	// CUDA is the CUDA C++ the PTX (Source) was compiled from, with its
	// compile options; absent for a PTX kernel. The link keeps the PTX
	// too, so that it opens where clang is not installed.
	CUDA *CUDA `json:"cuda,omitempty"`
}

// CUDA is a snapshot's CUDA source and compile options (normalized: the
// target and optimisation level always set).
type CUDA struct {
	Source   string `json:"source"`
	Arch     string `json:"arch,omitempty"`
	Opt      *int   `json:"opt,omitempty"` // 0..3; absent: 2
	FastMath bool   `json:"fastMath,omitempty"`
}

// normalize checks c and fills the defaults.
func (c *CUDA) normalize(l Limits) error {
	if c.Source == "" {
		return invalid("the CUDA source is empty")
	}
	if len(c.Source) > l.MaxSourceBytes {
		return invalid("the CUDA source is %d bytes; the limit is %d", len(c.Source), l.MaxSourceBytes)
	}
	if !utf8.ValidString(c.Source) {
		return invalid("the CUDA source is not valid UTF-8")
	}
	arch, opt := c.Arch, 2
	if arch == "" {
		arch = launchspec.CUDADefaultArch
	}
	if c.Opt != nil {
		opt = *c.Opt
	}
	if err := launchspec.CheckCUDAOptions(arch, opt); err != nil {
		return invalid("CUDA options: %v", err)
	}
	c.Arch, c.Opt = arch, &opt
	return nil
}

// Limits bound a snapshot.
type Limits struct {
	MaxSourceBytes int   // the PTX text
	MaxSpecBytes   int   // the launch spec, as sent
	MaxViewBytes   int   // the view state
	MaxStep        int64 // the position
	// Launch bounds the spec's buffers (launchspec.ParseSpecLimits).
	Launch launchspec.Limits
}

// DefaultLimits match the web session's defaults.
var DefaultLimits = Limits{
	MaxSourceBytes: 1 << 20,
	MaxSpecBytes:   256 << 10,
	MaxViewBytes:   16 << 10,
	MaxStep:        1 << 40,
	Launch:         launchspec.Limits{MaxBufferBytes: 16 << 20},
}

// MaxEncodedBytes is the largest request body that can hold a snapshot
// within l (the parts, JSON escaping of the PTX and CUDA sources, and the
// labels).
func (l Limits) MaxEncodedBytes() int64 {
	return int64(l.MaxSourceBytes)*4 + int64(l.MaxSpecBytes) + int64(l.MaxViewBytes) + 64<<10
}

const (
	maxTitle       = 200
	maxDescription = 1000
	maxExample     = 100
)

// InvalidError says why a snapshot was refused; its message is meant for
// the user.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

func invalid(format string, args ...any) error {
	return &InvalidError{Msg: fmt.Sprintf(format, args...)}
}

// IsInvalid reports whether err refuses a snapshot's content.
func IsInvalid(err error) bool {
	var e *InvalidError
	return errors.As(err, &e)
}

// stored is the encoding kept in the store: the snapshot with its format
// version.
type stored struct {
	V int `json:"v"`
	Snapshot
}

// Decode reads a snapshot as a client sends it (unknown fields refused)
// and checks it against l. The result is normalized: Encode gives the same
// bytes for every equivalent input.
func Decode(r io.Reader, l Limits) (*Snapshot, error) {
	snap, err := decodeStored(r, l)
	if err != nil {
		return nil, err
	}
	if err := snap.refuseBidi(); err != nil {
		return nil, err
	}
	return snap, nil
}

// decodeStored is Decode for a snapshot stored earlier (an import): rules
// added since links were first stored (refuseBidi) do not apply, so that
// every backed-up link can be restored.
func decodeStored(r io.Reader, l Limits) (*Snapshot, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var s stored
	if err := dec.Decode(&s); err != nil {
		if err == io.EOF {
			return nil, invalid("empty snapshot")
		}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, invalid("malformed JSON at byte %d: %v", se.Offset, se)
		case errors.As(err, &te):
			return nil, invalid("field %q: expected %s, got %s", strings.TrimPrefix(te.Field, "Snapshot."), te.Type, te.Value)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || strings.HasPrefix(err.Error(), "json: ") {
			return nil, invalid("malformed snapshot: %v", strings.TrimPrefix(err.Error(), "json: "))
		}
		// A read error (e.g. the body was cut at its size limit).
		return nil, fmt.Errorf("share: reading the snapshot: %w", err)
	}
	if dec.More() {
		return nil, invalid("unexpected data after the snapshot object")
	}
	if s.V != 0 && s.V != Version {
		return nil, invalid("unsupported snapshot version %d", s.V)
	}
	snap := s.Snapshot
	if err := snap.Normalize(l); err != nil {
		return nil, err
	}
	return &snap, nil
}

// Normalize checks s against l and puts it in canonical form (as Decode
// returns it), ready for Encode.
func (s *Snapshot) Normalize(l Limits) error {
	if s.Source == "" {
		return invalid("the snapshot has no PTX source")
	}
	if len(s.Source) > l.MaxSourceBytes {
		return invalid("the PTX source is %d bytes; the limit is %d", len(s.Source), l.MaxSourceBytes)
	}
	if !utf8.ValidString(s.Source) {
		return invalid("the PTX source is not valid UTF-8")
	}
	var err error
	if s.Title, err = label("title", s.Title, maxTitle); err != nil {
		return err
	}
	if s.Description, err = label("description", s.Description, maxDescription); err != nil {
		return err
	}
	if s.Example, err = label("example", s.Example, maxExample); err != nil {
		return err
	}
	if s.CUDA != nil {
		if err := s.CUDA.normalize(l); err != nil {
			return err
		}
	}
	if s.Step < 0 || s.Step > l.MaxStep {
		return invalid("step %d is out of range (0 to %d)", s.Step, l.MaxStep)
	}
	if len(s.Spec) == 0 || string(s.Spec) == "null" {
		return invalid("the snapshot has no launch spec")
	}
	if len(s.Spec) > l.MaxSpecBytes {
		return invalid("the launch spec is %d bytes; the limit is %d", len(s.Spec), l.MaxSpecBytes)
	}
	spec, err := canonicalObject(s.Spec)
	if err != nil {
		return invalid("launch spec: %v", err)
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(spec, &fields)
	if _, ok := fields["ptx"]; ok {
		return invalid("launch spec: \"ptx\" is not allowed in a snapshot (the source travels in \"source\")")
	}
	if _, ok := fields["source"]; ok {
		return invalid("launch spec: \"source\" is not allowed in the spec (use the snapshot's \"source\")")
	}
	src, _ := json.Marshal(s.Source)
	fields["source"] = src
	full, _ := json.Marshal(fields)
	if _, err := launchspec.ParseSpecLimits(full, l.Launch); err != nil {
		return invalid("launch spec: %v", err)
	}
	s.Spec = spec
	if len(s.View) > 0 && string(s.View) != "null" {
		if len(s.View) > l.MaxViewBytes {
			return invalid("the view state is %d bytes; the limit is %d", len(s.View), l.MaxViewBytes)
		}
		if s.View, err = canonicalObject(s.View); err != nil {
			return invalid("view: %v", err)
		}
		if s.View, err = normalizeView(s.View, s.CUDA); err != nil {
			return invalid("view: %v", err)
		}
		if string(s.View) == "{}" {
			s.View = nil
		}
	} else {
		s.View = nil
	}
	return nil
}

// label checks a one-line text field: trimmed, valid UTF-8, no control
// characters, bounded in characters.
func label(name, v string, max int) (string, error) {
	v = strings.TrimSpace(v)
	if !utf8.ValidString(v) {
		return "", invalid("%s is not valid UTF-8", name)
	}
	if n := utf8.RuneCountInString(v); n > max {
		return "", invalid("%s is %d characters; the limit is %d", name, n, max)
	}
	if strings.IndexFunc(v, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f }) >= 0 {
		return "", invalid("%s contains control characters", name)
	}
	return v, nil
}

// refuseBidi refuses a new snapshot whose labels hold bidirectional
// formatting characters. Links stored before the rule keep theirs (an
// import restores them as they were) and are shown without them.
func (s *Snapshot) refuseBidi() error {
	for _, f := range [...]struct{ name, v string }{{"title", s.Title}, {"description", s.Description}, {"example", s.Example}} {
		if i := strings.IndexFunc(f.v, IsBidiControl); i >= 0 {
			r, _ := utf8.DecodeRuneInString(f.v[i:])
			return invalid("%s contains the bidirectional control character U+%04X, which can make a link preview read differently from the link", f.name, r)
		}
	}
	return nil
}

// IsBidiControl reports whether r is one of Unicode's bidirectional
// formatting characters (embeddings, overrides and isolates U+202A–202E,
// U+2066–2069, the marks U+200E, U+200F and U+061C). In a title they can
// reorder what a preview shows, so new links refuse them.
func IsBidiControl(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return r == 0x200e || r == 0x200f || r == 0x061c
}

// StripBidi returns s without bidirectional formatting characters (for
// showing labels stored before they were refused).
func StripBidi(s string) string {
	return strings.Map(func(r rune) rune {
		if IsBidiControl(r) {
			return -1
		}
		return r
	}, s)
}

// canonicalObject re-encodes a JSON object compactly with sorted keys and
// numbers as written, so that equivalent objects encode alike.
func canonicalObject(raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the object")
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("must be a JSON object")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Encode returns the snapshot's canonical stored encoding and its ID. The
// snapshot must be normalized (as Decode returns it).
func (s *Snapshot) Encode() (id string, body []byte) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(stored{V: Version, Snapshot: *s})
	body = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return IDOf(body), body
}

// IDLen is the length of an ID: 12 URL-safe characters, 72 bits of the
// content's SHA-256, so IDs can be neither guessed nor enumerated.
const IDLen = 12

// IDOf is the ID of a canonical encoding.
func IDOf(body []byte) string {
	sum := sha256.Sum256(body)
	return base64.RawURLEncoding.EncodeToString(sum[:IDLen*6/8])
}

// ValidID reports whether id has the shape of an ID (it may still be
// unknown).
func ValidID(id string) bool {
	if len(id) != IDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Parse reads a stored encoding back.
func Parse(body []byte) (*Snapshot, error) {
	var s stored
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, fmt.Errorf("share: corrupt snapshot: %w", err)
	}
	if s.V != Version {
		return nil, fmt.Errorf("share: snapshot version %d is not supported", s.V)
	}
	return &s.Snapshot, nil
}
