package share

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

const testPTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) { ret; }
`

func snap(t testing.TB, js string) *Snapshot {
	t.Helper()
	s, err := Decode(strings.NewReader(js), DefaultLimits)
	if err != nil {
		t.Fatalf("Decode(%s): %v", js, err)
	}
	return s
}

func sample(i int) string {
	return fmt.Sprintf(`{"title":"kernel %d","source":%q,"spec":{"grid":[1],"block":[32],"buffers":[{"name":"out","type":"u32","count":32}],"params":[{"buffer":"out"}]},"step":%d,"view":{"tab":"regs","warp":0}}`, i, testPTX, i)
}

// stores runs f against a fresh SQLite store and a fresh PostgreSQL one.
func stores(t *testing.T, f func(t *testing.T, dsn string, open func(Options) *Store)) {
	t.Run("sqlite", func(t *testing.T) {
		dsn := "sqlite:" + filepath.Join(t.TempDir(), "shares.db")
		f(t, dsn, func(o Options) *Store { return mustOpen(t, dsn, o) })
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := postgresDSN(t)
		f(t, dsn, func(o Options) *Store { return mustOpen(t, dsn, o) })
	})
}

func mustOpen(t testing.TB, dsn string, o Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStorePutGet(t *testing.T) {
	stores(t, func(t *testing.T, dsn string, open func(Options) *Store) {
		ctx := context.Background()
		s := open(Options{})
		a := snap(t, sample(1))
		id, created, err := s.Put(ctx, a)
		if err != nil || !created || !ValidID(id) {
			t.Fatalf("Put: %q %v %v", id, created, err)
		}
		// The same content, written differently (key order, spacing), is the same link.
		same := snap(t, `{"spec":{"params":[{"buffer":"out"}],"block":[32],"grid":[1],"buffers":[{"count":32,"type":"u32","name":"out"}]},"source":`+fmt.Sprintf("%q", testPTX)+`,"view":{"warp":0,"tab":"regs"},"step":1,"title":"  kernel 1 "}`)
		id2, created2, err := s.Put(ctx, same)
		if err != nil || created2 || id2 != id {
			t.Fatalf("same content: %q created=%v err=%v, want %q existing", id2, created2, err, id)
		}
		// Other content is another link.
		id3, _, err := s.Put(ctx, snap(t, sample(2)))
		if err != nil || id3 == id {
			t.Fatalf("other content: %q %v", id3, err)
		}
		got, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != "kernel 1" || got.Source != testPTX || got.Step != 1 || string(got.View) != `{"tab":"regs","warp":0}` {
			t.Fatalf("Get: %+v", got)
		}
		if gid, _ := got.Encode(); gid != id {
			t.Fatalf("stored snapshot re-encodes to %q, want %q", gid, id)
		}
		for _, bad := range []string{"AAAAAAAAAAAA", "short", "../../etc/pa", ""} {
			if _, err := s.Get(ctx, bad); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get(%q) = %v, want ErrNotFound", bad, err)
			}
		}
		if n, err := s.Count(ctx); err != nil || n != 2 {
			t.Fatalf("Count = %d, %v", n, err)
		}
	})
}

func TestStoreConcurrentAndReopen(t *testing.T) {
	stores(t, func(t *testing.T, dsn string, open func(Options) *Store) {
		ctx := context.Background()
		s := open(Options{})
		var wg sync.WaitGroup
		ids := make([][]string, 8)
		errs := make(chan error, 8)
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 40 {
					id, _, err := s.Put(ctx, snap(t, sample(g*1000+i%30)))
					if err != nil {
						errs <- err
						return
					}
					ids[g] = append(ids[g], id)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		n, _ := s.Count(ctx)
		if n != 8*30 {
			t.Fatalf("Count = %d, want %d", n, 8*30)
		}
		// A second handle (another server, or a restart) migrates nothing
		// twice and sees every link; read-only refuses writes.
		ro := open(Options{ReadOnly: true})
		for _, list := range ids {
			for _, id := range list {
				if _, err := ro.Get(ctx, id); err != nil {
					t.Fatalf("Get(%s) after reopen: %v", id, err)
				}
			}
		}
		if _, _, err := ro.Put(ctx, snap(t, sample(99999))); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("read-only Put: %v", err)
		}
		again := open(Options{})
		if n2, _ := again.Count(ctx); n2 != n {
			t.Fatalf("after reopen Count = %d, want %d", n2, n)
		}
	})
}

func TestStoreNewerSchemaRefused(t *testing.T) {
	stores(t, func(t *testing.T, dsn string, open func(Options) *Store) {
		s := open(Options{})
		if _, err := s.db.Exec(s.q(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)`), SchemaVersion+1); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), dsn, Options{})
		if err == nil || !strings.Contains(err.Error(), "newer than this binary") {
			t.Fatalf("Open on a newer schema: %v", err)
		}
	})
}

func TestExportImport(t *testing.T) {
	stores(t, func(t *testing.T, dsn string, open func(Options) *Store) {
		ctx := context.Background()
		src := mustOpen(t, "sqlite:"+filepath.Join(t.TempDir(), "src.db"), Options{})
		var want []string
		for i := range 1203 {
			id, _, err := src.Put(ctx, snap(t, sample(i)))
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, id)
		}
		var buf bytes.Buffer
		n, err := src.Export(ctx, &buf)
		if err != nil || n != 1203 {
			t.Fatalf("Export: %d %v", n, err)
		}
		dst := open(Options{})
		st, err := dst.Import(ctx, bytes.NewReader(buf.Bytes()), DefaultLimits)
		if err != nil || st.Added != 1203 || st.Existing != 0 {
			t.Fatalf("Import: %+v %v", st, err)
		}
		st, err = dst.Import(ctx, bytes.NewReader(buf.Bytes()), DefaultLimits)
		if err != nil || st.Added != 0 || st.Existing != 1203 {
			t.Fatalf("Import again: %+v %v", st, err)
		}
		for _, id := range want {
			a, _, err1 := src.GetRaw(ctx, id)
			b, _, err2 := dst.GetRaw(ctx, id)
			if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
				t.Fatalf("%s differs after import: %v %v", id, err1, err2)
			}
		}
		// A line whose content does not match its ID is refused, naming the line.
		// (Which sample is on line 3 depends on the order of creation times
		// and IDs: tamper with whichever title it holds.)
		lines := strings.SplitAfter(buf.String(), "\n")
		tampered := regexp.MustCompile(`kernel [0-9]+`).ReplaceAllString(lines[2], "kernel X")
		if tampered == lines[2] {
			t.Fatalf("line 3 holds no sample title: %.200s", lines[2])
		}
		lines[2] = tampered
		_, err = open(Options{}).Import(ctx, strings.NewReader(strings.Join(lines[:5], "")), DefaultLimits)
		if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "does not match") {
			t.Fatalf("tampered import: %v", err)
		}
		_, err = open(Options{}).Import(ctx, strings.NewReader("{not json\n"), DefaultLimits)
		if err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Fatalf("malformed import: %v", err)
		}
	})
}

func TestDecodeRefuses(t *testing.T) {
	src := fmt.Sprintf("%q", testPTX)
	spec := `{"grid":[1],"block":[32]}`
	cases := []struct{ name, js, want string }{
		{"empty", ``, "empty snapshot"},
		{"malformed", `{"source":`, "malformed"},
		{"unknown field", `{"source":` + src + `,"spec":` + spec + `,"extra":1}`, "unknown field"},
		{"wrong type", `{"source":5,"spec":` + spec + `}`, "field \"source\""},
		{"no source", `{"spec":` + spec + `}`, "no PTX source"},
		{"no spec", `{"source":` + src + `}`, "no launch spec"},
		{"spec not object", `{"source":` + src + `,"spec":[1]}`, "must be a JSON object"},
		{"spec with ptx", `{"source":` + src + `,"spec":{"ptx":"a.ptx","grid":[1],"block":[1]}}`, `"ptx" is not allowed`},
		{"bad spec", `{"source":` + src + `,"spec":{"grid":[0],"block":[32]}}`, "launch spec:"},
		{"huge buffer", `{"source":` + src + `,"spec":{"grid":[1],"block":[1],"buffers":[{"name":"b","type":"u32","count":100000000}]}}`, "launch spec:"},
		{"negative step", `{"source":` + src + `,"spec":` + spec + `,"step":-1}`, "out of range"},
		{"view not object", `{"source":` + src + `,"spec":` + spec + `,"view":"x"}`, "view:"},
		{"long title", `{"source":` + src + `,"spec":` + spec + `,"title":"` + strings.Repeat("x", 201) + `"}`, "title is 201 characters"},
		{"control chars", `{"source":` + src + `,"spec":` + spec + `,"title":"a\u0007b"}`, "control characters"},
		{"right-to-left override", `{"source":` + src + `,"spec":` + spec + `,"title":"invoice\u202egpj.exe"}`, "bidirectional control character U+202E"},
		{"isolate in description", `{"source":` + src + `,"spec":` + spec + `,"description":"a\u2067b"}`, "description contains the bidirectional control character U+2067"},
		{"right-to-left mark", `{"source":` + src + `,"spec":` + spec + `,"title":"a\u200fb"}`, "U+200F"},
		{"arabic letter mark", `{"source":` + src + `,"spec":` + spec + `,"title":"a\u061cb"}`, "U+061C"},
		{"embedding", `{"source":` + src + `,"spec":` + spec + `,"title":"a\u202ab"}`, "U+202A"},
		{"version", `{"v":9,"source":` + src + `,"spec":` + spec + `}`, "version 9"},
		{"trailing", `{"source":` + src + `,"spec":` + spec + `} {}`, "unexpected data"},
		{"big source", `{"source":"` + strings.Repeat("a", DefaultLimits.MaxSourceBytes+1) + `","spec":` + spec + `}`, "the limit is"},
		{"empty CUDA", `{"source":` + src + `,"spec":` + spec + `,"cuda":{"source":""}}`, "CUDA source is empty"},
		{"big CUDA", `{"source":` + src + `,"spec":` + spec + `,"cuda":{"source":"` + strings.Repeat("a", DefaultLimits.MaxSourceBytes+1) + `"}}`, "CUDA source is"},
		{"CUDA arch", `{"source":` + src + `,"spec":` + spec + `,"cuda":{"source":"x","arch":"sm_99"}}`, "CUDA options: unknown target"},
		{"CUDA opt", `{"source":` + src + `,"spec":` + spec + `,"cuda":{"source":"x","opt":7}}`, "CUDA options: optimisation level 7"},
		{"CUDA field", `{"source":` + src + `,"spec":` + spec + `,"cuda":{"source":"x","flags":"-I/"}}`, "unknown field"},
		{"CUDA breakpoints without CUDA", `{"source":` + src + `,"spec":` + spec + `,"view":{"cudaBreakpoints":[1]}}`, "cudaBreakpoints: the snapshot has no CUDA source"},
		{"CUDA breakpoint past the source", `{"source":` + src + `,"spec":` + spec + `,"cuda":{"source":"a\nb\n"},"view":{"cudaBreakpoints":[2,4]}}`, "line 4 is not a line of kernel.cu (1 to 3)"},
		{"CUDA breakpoint zero", `{"source":` + src + `,"spec":` + spec + `,"cuda":{"source":"x"},"view":{"cudaBreakpoints":[0]}}`, "line 0 is not a line"},
		{"CUDA breakpoint fraction", `{"source":` + src + `,"spec":` + spec + `,"cuda":{"source":"x"},"view":{"cudaBreakpoints":[1.5]}}`, "want a list of kernel.cu line numbers"},
		{"CUDA breakpoint huge", `{"source":` + src + `,"spec":` + spec + `,"cuda":{"source":"x"},"view":{"cudaBreakpoints":[99999999999999999999]}}`, "want a list of kernel.cu line numbers"},
		{"CUDA breakpoints not a list", `{"source":` + src + `,"spec":` + spec + `,"cuda":{"source":"x"},"view":{"cudaBreakpoints":"5"}}`, "want a list"},
		{"too many CUDA breakpoints", `{"source":` + src + `,"spec":` + spec + `,"cuda":{"source":"x"},"view":{"cudaBreakpoints":[` + strings.Repeat("1,", MaxBreakpoints) + `1]}}`, "1001 breakpoints; the limit is 1000"},
	}
	for _, c := range cases {
		_, err := Decode(strings.NewReader(c.js), DefaultLimits)
		if testing.Verbose() && err != nil {
			t.Logf("%s: %v", c.name, err)
		}
		if err == nil || !IsInvalid(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an InvalidError containing %q", c.name, err, c.want)
		}
	}
}

// The SQLite store loses no acknowledged link when its process is killed
// during a burst of writes: a child process writes from several goroutines
// and prints each ID once Put returned; the parent kills it with SIGKILL
// and reads every printed ID back.
const crashChildEnv = "PTXPLAY_SHARE_CRASH_CHILD"

func TestSQLiteCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("runs as the child of TestSQLiteSurvivesKill")
	}
	s, err := Open(context.Background(), "sqlite:"+path, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				sn, err := Decode(strings.NewReader(sample(g*10_000_000+i)), DefaultLimits)
				if err != nil {
					panic(err)
				}
				id, _, err := s.Put(context.Background(), sn)
				if err != nil {
					mu.Lock()
					fmt.Fprintln(out, "error", err)
					out.Flush()
					mu.Unlock()
					continue
				}
				mu.Lock()
				fmt.Fprintln(out, id)
				out.Flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func TestSQLiteSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSQLiteCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		var acked []string
		deadline := time.After(60 * time.Second)
		want := 150 + round*50
	read:
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "error") {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child: %s", line)
			}
			if ValidID(line) {
				acked = append(acked, line)
			}
			select {
			case <-deadline:
				break read
			default:
			}
			if len(acked) >= want {
				break
			}
		}
		// Kill it in the middle of the burst; lines already written are
		// acknowledged writes.
		cmd.Process.Kill()
		for sc.Scan() {
			if line := sc.Text(); ValidID(line) {
				acked = append(acked, line)
			}
		}
		cmd.Wait()
		if len(acked) < want {
			t.Fatalf("round %d: only %d writes acknowledged", round, len(acked))
		}
		s := mustOpen(t, "sqlite:"+path, Options{})
		for _, id := range acked {
			if _, err := s.Get(context.Background(), id); err != nil {
				t.Fatalf("round %d: acknowledged link %s lost after kill -9: %v", round, id, err)
			}
		}
		s.Close()
		t.Logf("round %d: %d acknowledged links all readable after SIGKILL", round, len(acked))
	}
}

// TestImportKeepsBidiLabels: links stored before new links refused
// bidirectional control characters in their labels are restored by an
// import as they were (they are shown without them).
func TestImportKeepsBidiLabels(t *testing.T) {
	js := strings.Replace(sample(7), `"title":"kernel 7"`, `"title":"invoice\u202egpj.exe"`, 1)
	if _, err := Decode(strings.NewReader(js), DefaultLimits); err == nil || !strings.Contains(err.Error(), "U+202E") {
		t.Fatalf("Decode of a new link with a bidi title: %v, want it refused", err)
	}
	old, err := decodeStored(strings.NewReader(js), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	id, body := old.Encode()
	line, _ := json.Marshal(Record{ID: id, Created: 1, Snapshot: body})
	dst := mustOpen(t, "sqlite:"+filepath.Join(t.TempDir(), "dst.db"), Options{})
	st, err := dst.Import(context.Background(), bytes.NewReader(append(line, '\n')), DefaultLimits)
	if err != nil || st.Added != 1 {
		t.Fatalf("Import: %+v %v", st, err)
	}
	got, _, err := dst.GetRaw(context.Background(), id)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("GetRaw after import: %v, body equal %v", err, bytes.Equal(got, body))
	}
}

// A link with CUDA keeps its source and options (normalized: the default
// target and level written out); one without CUDA encodes as it always
// did, so old links keep their IDs.
func TestCUDASnapshot(t *testing.T) {
	src := fmt.Sprintf("%q", testPTX)
	spec := `{"grid":[1],"block":[32]}`
	plain, err := Decode(strings.NewReader(`{"source":`+src+`,"spec":`+spec+`}`), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	_, body := plain.Encode()
	if strings.Contains(string(body), "cuda") {
		t.Fatalf("a PTX link encodes %s", body)
	}
	a, err := Decode(strings.NewReader(`{"source":`+src+`,"spec":`+spec+`,"cuda":{"source":"__global__ void k() {}\n"}}`), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if a.CUDA == nil || a.CUDA.Arch != "sm_80" || a.CUDA.Opt == nil || *a.CUDA.Opt != 2 || a.CUDA.Source != "__global__ void k() {}\n" {
		t.Fatalf("cuda %+v", a.CUDA)
	}
	b, err := Decode(strings.NewReader(`{"source":`+src+`,"spec":`+spec+`,"cuda":{"source":"__global__ void k() {}\n","arch":"sm_80","opt":2}}`), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ida, bodyA := a.Encode()
	idb, _ := b.Encode()
	if ida != idb {
		t.Fatal("equivalent CUDA snapshots have different IDs")
	}
	back, err := Parse(bodyA)
	if err != nil || back.CUDA == nil || *back.CUDA.Opt != 2 || back.CUDA.Source != a.CUDA.Source {
		t.Fatalf("parsed %+v %v", back, err)
	}
	c, err := Decode(strings.NewReader(`{"source":`+src+`,"spec":`+spec+`,"cuda":{"source":"__global__ void k() {}\n","arch":"sm_90a","opt":0,"fastMath":true}}`), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if idc, _ := c.Encode(); idc == ida || *c.CUDA.Opt != 0 || !c.CUDA.FastMath {
		t.Fatalf("options not kept: %+v", c.CUDA)
	}
}

// A CUDA link keeps its breakpoints on kernel.cu lines next to the PTX
// ones, written ascending without repeats (equal views share one ID); an
// empty list is no list, and a link without them (every link made before
// them) encodes as it did.
func TestCUDABreakpointsSnapshot(t *testing.T) {
	src := fmt.Sprintf("%q", testPTX)
	spec := `{"grid":[1],"block":[32]}`
	cu := `"cuda":{"source":"// k\n__global__ void k() {\n  int x = 1;\n}\n"}`
	decode := func(view string) *Snapshot {
		t.Helper()
		s, err := Decode(strings.NewReader(`{"source":`+src+`,"spec":`+spec+`,`+cu+`,"view":`+view+`}`), DefaultLimits)
		if err != nil {
			t.Fatalf("%s: %v", view, err)
		}
		return s
	}
	a := decode(`{"breakpoints":[12,7],"cudaBreakpoints":[3,2,3],"tab":"regs"}`)
	if string(a.View) != `{"breakpoints":[12,7],"cudaBreakpoints":[2,3],"tab":"regs"}` {
		t.Fatalf("view %s", a.View)
	}
	b := decode(`{"tab":"regs","cudaBreakpoints":[2,3],"breakpoints":[12,7]}`)
	ida, body := a.Encode()
	if idb, _ := b.Encode(); ida != idb {
		t.Fatal("equal views have different IDs")
	}
	back, err := Parse(body)
	if err != nil || string(back.View) != string(a.View) {
		t.Fatalf("parsed %s %v", back.View, err)
	}
	if e := decode(`{"cudaBreakpoints":[],"tab":"regs"}`); string(e.View) != `{"tab":"regs"}` {
		t.Fatalf("an empty list: %s", e.View)
	}
	if e := decode(`{"cudaBreakpoints":null}`); e.View != nil {
		t.Fatalf("null: %s", e.View)
	}
	old := decode(`{"breakpoints":[5]}`)
	if string(old.View) != `{"breakpoints":[5]}` {
		t.Fatalf("a view without CUDA breakpoints: %s", old.View)
	}
}
