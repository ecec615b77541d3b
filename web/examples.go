package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"

	"github.com/ptxplayground/ptxplay/engine/launchspec"
)

// The gallery's kernels: examples/index.json lists them in gallery order;
// each entry names a launch spec (docs/launch-spec.md) whose "ptx" is the
// kernel's file, so every spec also runs with `ptxplay run`.
//
// An entry may also have a CUDA twin: "cuda": {"spec": "NAME-cuda.json",
// "lesson": {...}} names a launch spec whose "cuda" is a CUDA C++ file
// (examples/*.cu) that teaches the same thing from CUDA, with a lesson
// whose hints name CUDA lines ("cudaLine") and the PTX instruction each
// line compiles to ("ptx"); see LessonHint. The twin is not a gallery
// entry of its own: the UI offers it as the CUDA version of its entry
// (Example.CUDA, ExampleInfo.CUDA).
//
//go:embed examples/*.json examples/*.ptx examples/*.cu
var exampleFiles embed.FS

// CUDAExample is the CUDA twin of a gallery example: the same lesson
// written in CUDA C++, compiled to PTX (engine/cuda) before it runs.
type CUDAExample struct {
	// Source is the CUDA text (the playground names it kernel.cu).
	Source string `json:"source"`
	// Spec is the launch spec without "cuda": what a load carries next to
	// the compiled PTX. Its "cudaOptions", if any, are the compile's.
	Spec json.RawMessage `json:"spec"`
	// Options are the compile options (the spec's "cudaOptions"; absent:
	// the defaults, -O2 for sm_80).
	Options launchspec.CUDAOptions `json:"options"`
	// File is the CUDA file's name in the gallery (for diagnostics).
	File string `json:"-"`
	// Lesson is the CUDA lesson: hints name CUDA lines (LessonHint.CUDALine).
	Lesson *Lesson `json:"lesson"`
}

// CUDAInfo is the short form of a CUDA twin (in ExampleInfo).
type CUDAInfo struct {
	Lesson *Lesson `json:"lesson"`
}

// Example is one ready-to-run kernel of the gallery.
type Example struct {
	// Name identifies the example in URLs (/?example=name).
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// Source is the PTX text.
	Source string `json:"source"`
	// Spec is the launch spec without "ptx"/"source": what the websocket
	// `load` message carries next to the source.
	Spec json.RawMessage `json:"spec"`

	// Entry, Grid and Block summarise the launch for the gallery.
	Entry string `json:"-"`
	Grid  [3]int `json:"-"`
	Block [3]int `json:"-"`
	// File is the PTX file's name (for diagnostics).
	File string `json:"-"`

	// Lesson, when present, turns the example into a guided lesson.
	Lesson *Lesson `json:"lesson,omitempty"`
	// CUDA is the example's CUDA twin, if it has one.
	CUDA *CUDAExample `json:"cuda,omitempty"`
}

// ExampleInfo is the short form of an example (the /api/examples list).
type ExampleInfo struct {
	Name        string  `json:"name"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Entry       string  `json:"entry"`
	Grid        [3]int  `json:"grid"`
	Block       [3]int  `json:"block"`
	Lesson      *Lesson `json:"lesson,omitempty"`
	// Link is the lesson's share link (/s/{id}), when the server keeps links.
	Link string `json:"link,omitempty"`
	// CUDA is present when the example has a CUDA twin.
	CUDA *CUDAInfo `json:"cuda,omitempty"`
}

// Info returns the short form of e.
func (e *Example) Info() ExampleInfo {
	in := ExampleInfo{Name: e.Name, Title: e.Title, Description: e.Description, Entry: e.Entry, Grid: e.Grid, Block: e.Block, Lesson: e.Lesson}
	if e.CUDA != nil {
		in.CUDA = &CUDAInfo{Lesson: e.CUDA.Lesson}
	}
	return in
}

// CUDALaunch returns the CUDA twin's launch spec, ready for launch.Compile
// and launch.Prepare, with ptxText (the caller's compile of e.CUDA.Source
// with e.CUDA.Options) as its source in place of "cuda".
func (e *Example) CUDALaunch(ptxText string) (*launchspec.Spec, error) {
	if e.CUDA == nil {
		return nil, fmt.Errorf("example %s has no CUDA version", e.Name)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(e.CUDA.Spec, &m); err != nil {
		return nil, err
	}
	delete(m, "cudaOptions")
	src, _ := json.Marshal(ptxText)
	m["source"] = src
	b, _ := json.Marshal(m)
	return launchspec.ParseSpec(b)
}

// Launch returns the example's launch spec with its source inline, ready
// for launch.Compile and launch.Prepare.
func (e *Example) Launch() (*launchspec.Spec, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(e.Spec, &m); err != nil {
		return nil, err
	}
	src, _ := json.Marshal(e.Source)
	m["source"] = src
	b, _ := json.Marshal(m)
	return launchspec.ParseSpec(b)
}

// Examples is an ordered set of examples.
type Examples struct {
	list   []*Example
	byName map[string]*Example
}

// List returns the examples in gallery order.
func (x *Examples) List() []*Example { return x.list }

// Get returns the named example, or nil.
func (x *Examples) Get(name string) *Example { return x.byName[name] }

// Default returns the example the playground opens with (the first).
func (x *Examples) Default() *Example {
	if len(x.list) == 0 {
		return nil
	}
	return x.list[0]
}

// Infos returns the short forms, in gallery order.
func (x *Examples) Infos() []ExampleInfo {
	out := make([]ExampleInfo, len(x.list))
	for i, e := range x.list {
		out[i] = e.Info()
	}
	return out
}

var exampleName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// LoadExamples reads index.json and the specs and PTX files it names from
// fsys, checking that every spec is valid.
func LoadExamples(fsys fs.FS) (*Examples, error) {
	idx, err := fs.ReadFile(fsys, "index.json")
	if err != nil {
		return nil, err
	}
	var entries []struct {
		Name, Title, Description, Spec string
		Lesson                         *Lesson
		CUDA                           *struct {
			Spec   string
			Lesson *Lesson
		}
	}
	dec := json.NewDecoder(bytes.NewReader(idx))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("examples/index.json: %v", err)
	}
	x := &Examples{byName: map[string]*Example{}}
	for _, en := range entries {
		if !exampleName.MatchString(en.Name) {
			return nil, fmt.Errorf("examples/index.json: bad example name %q", en.Name)
		}
		if x.byName[en.Name] != nil {
			return nil, fmt.Errorf("examples/index.json: duplicate example %q", en.Name)
		}
		raw, err := fs.ReadFile(fsys, en.Spec)
		if err != nil {
			return nil, fmt.Errorf("example %s: %v", en.Name, err)
		}
		spec, err := launchspec.ParseSpec(raw)
		if err != nil {
			return nil, fmt.Errorf("example %s: %s: %v", en.Name, en.Spec, err)
		}
		if spec.PTX == "" {
			return nil, fmt.Errorf("example %s: %s: the spec must name its PTX file", en.Name, en.Spec)
		}
		file := path.Join(path.Dir(en.Spec), spec.PTX)
		src, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("example %s: %v", en.Name, err)
		}
		// The wire spec: the file's JSON object without "ptx", keys as
		// written (map order is sorted by encoding/json).
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("example %s: %v", en.Name, err)
		}
		delete(m, "ptx")
		delete(m, "source")
		wire, _ := json.Marshal(m)
		if en.Lesson != nil {
			if err := en.Lesson.check(string(src), spec, false); err != nil {
				return nil, fmt.Errorf("example %s: lesson: %v", en.Name, err)
			}
		}
		e := &Example{Name: en.Name, Title: en.Title, Description: en.Description,
			Source: string(src), Spec: wire, Entry: spec.Entry, Grid: spec.Grid, Block: spec.Block, File: spec.PTX,
			Lesson: en.Lesson}
		if en.CUDA != nil {
			c, err := loadCUDAExample(fsys, en.CUDA.Spec, en.CUDA.Lesson)
			if err != nil {
				return nil, fmt.Errorf("example %s: cuda: %v", en.Name, err)
			}
			e.CUDA = c
		}
		x.list = append(x.list, e)
		x.byName[e.Name] = e
	}
	return x, nil
}

// loadCUDAExample reads a CUDA twin: its spec (which must name a "cuda"
// file), the CUDA text, and its lesson (hints on CUDA lines).
func loadCUDAExample(fsys fs.FS, specFile string, lesson *Lesson) (*CUDAExample, error) {
	raw, err := fs.ReadFile(fsys, specFile)
	if err != nil {
		return nil, err
	}
	spec, err := launchspec.ParseSpec(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", specFile, err)
	}
	if spec.CUDA == "" {
		return nil, fmt.Errorf("%s: the spec must name its CUDA file (\"cuda\")", specFile)
	}
	file := path.Join(path.Dir(specFile), spec.CUDA)
	src, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, err
	}
	if lesson == nil {
		return nil, errors.New("no lesson")
	}
	if err := lesson.check(string(src), spec, true); err != nil {
		return nil, fmt.Errorf("lesson: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "cuda")
	wire, _ := json.Marshal(m)
	c := &CUDAExample{Source: string(src), Spec: wire, File: spec.CUDA, Lesson: lesson}
	if spec.CUDAOptions != nil {
		c.Options = *spec.CUDAOptions
	} else {
		two := 2
		c.Options = launchspec.CUDAOptions{Opt: &two}
	}
	return c, nil
}

// BuiltinExamples returns the embedded gallery.
func BuiltinExamples() *Examples {
	sub, err := fs.Sub(exampleFiles, "examples")
	if err != nil {
		panic(err)
	}
	x, err := LoadExamples(sub)
	if err != nil {
		panic("web: embedded examples: " + err.Error())
	}
	return x
}
