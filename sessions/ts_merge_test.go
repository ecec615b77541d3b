package sessions

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
)

// The TypeScript merge of state deltas (ui/model.ts), run under node over
// random command sequences: after every command, the warps and barriers the
// client model merged from the replies equal those of a model given one
// fresh full state. (view_model_test.go checks the same rule, in Go,
// against the machine itself.)
func TestTypeScriptMergeMatchesFullState(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping the TypeScript merge check")
	}
	script := bundleMergeHarness(t)
	simt := func(spec string) string {
		return strings.Replace(spec, "{", `{"scheduling":"simt-stack",`, 1)
	}
	exs := []example{
		{"divergent", divergentPTX, divergentSpec},
		{"divergent-simt", divergentPTX, simt(divergentSpec)},
		{"reduce", reducePTX, reduceSpec},
		{"mbarrier-ring", mbringPTX, mbringSpec},
		{"mbarrier-ring-simt", mbringPTX, simt(mbringSpec)},
	}
	for _, name := range []string{"cp-async", "cp-async-missing-wait", "dsmem-exchange"} {
		exs = append(exs, exampleNamed(t, name))
	}
	for i, ex := range exs {
		t.Run(ex.name, func(t *testing.T) {
			input := recordCommands(t, ex, int64(100+i), 80)
			out := runMergeHarness(t, node, script, input)
			var verdict struct {
				OK, Deltas int
				Fail       *int
				Desc       string
				Got, Want  string
			}
			if err := json.Unmarshal(out, &verdict); err != nil {
				t.Fatalf("harness said %s: %v", out, err)
			}
			if verdict.Fail != nil {
				t.Fatalf("after command %d (%s) the merged warps differ from a fresh full state:\nmerged %s\nfresh  %s", *verdict.Fail, verdict.Desc, verdict.Got, verdict.Want)
			}
			if verdict.Deltas < 20 {
				t.Fatalf("only %d delta states were merged: the sequence does not exercise the merge", verdict.Deltas)
			}
		})
	}
}

// bundleMergeHarness bundles ui/test/model_merge.ts (with the model it
// imports) into one script.
func bundleMergeHarness(t *testing.T) []byte {
	t.Helper()
	r := api.Build(api.BuildOptions{
		EntryPoints: []string{filepath.Join("..", "ui", "test", "model_merge.ts")},
		Bundle:      true,
		Format:      api.FormatIIFE,
		Platform:    api.PlatformNeutral,
		Target:      api.ES2022,
		Write:       false,
		LogLevel:    api.LogLevelSilent,
	})
	if len(r.Errors) > 0 {
		t.Fatalf("bundling the merge harness: %+v", r.Errors)
	}
	return r.OutputFiles[0].Contents
}

type mergeCommand struct {
	Desc   string            `json:"desc"`
	States []json.RawMessage `json:"states"`
	Fresh  json.RawMessage   `json:"fresh"`
}

// recordCommands loads ex, runs a random sequence of commands and records
// each reply's state messages and a fresh full state of where it stopped.
func recordCommands(t *testing.T, ex example, seed int64, n int) map[string]any {
	c := newClient(t, newManager(t, Limits{MaxWarpInstructions: 5000}))
	c.send(map[string]any{"type": "load", "id": 1, "source": ex.src, "spec": json.RawMessage(ex.spec)})
	var loaded json.RawMessage
	var cmds []mergeCommand
	var first, steps int64 // the history the last state offered
	// collect reads the reply's messages up to the final state.
	collect := func(desc string) {
		cmd := mergeCommand{Desc: desc}
		for {
			typ, b := c.next()
			switch typ {
			case "loaded":
				loaded = b
				continue
			case "state":
			case "error":
				t.Fatalf("%s: %s", desc, b)
			default:
				continue
			}
			cmd.States = append(cmd.States, b)
			var st stateMsg
			json.Unmarshal(b, &st)
			if !st.Running {
				first, steps = st.FirstStep, st.Steps
				break
			}
		}
		c.do(func() { cmd.Fresh = c.s.freshState() })
		cmds = append(cmds, cmd)
	}
	collect("load")
	rnd := rand.New(rand.NewSource(seed))
	grans := []string{"warp", "round", "barrier"}
	for i := 0; i < n; i++ {
		var desc string
		switch x := rnd.Intn(10); {
		case x < 5:
			g, k := grans[rnd.Intn(3)], 1+rnd.Intn(4)
			if rnd.Intn(4) == 0 {
				g, k = "warp", 1+rnd.Intn(80)
			}
			desc = fmt.Sprintf("step %s %d", g, k)
			c.send(map[string]any{"type": "step", "granularity": g, "count": k})
		case x < 8:
			g, k := grans[rnd.Intn(3)], 1+rnd.Intn(3)
			desc = fmt.Sprintf("back %s %d", g, k)
			c.send(map[string]any{"type": "back", "granularity": g, "count": k})
		case x < 9:
			k := first + rnd.Int63n(max(1, steps-first))
			desc = fmt.Sprintf("seek %d", k)
			c.send(map[string]any{"type": "seek", "step": k})
		default:
			desc = "reset"
			c.send(map[string]any{"type": "reset"})
		}
		collect(desc)
	}
	return map[string]any{"loaded": loaded, "commands": cmds}
}

// freshState renders a full state of the machine's CTAs as a client new to
// them would get it (the warps' keyed deltas against nothing), without
// touching the session's client view.
func (s *Session) freshState() json.RawMessage {
	msg := stateMsg{Type: "state", Full: true, Status: "paused", Stats: s.m.Stats()}
	for ci, c := range s.m.CTAs() {
		cj := ctaHead(ci, c, c.Barriers(), s.mbarriersJSON(c))
		for _, w := range c.Warps {
			wj := s.warpJSON(w, nil)
			d, _ := diffKeyed(nil, &wj)
			cj.Warps = append(cj.Warps, warpDelta{warpJSON: wj, delta: d})
		}
		msg.CTAs = append(msg.CTAs, cj)
	}
	return encode(&msg)
}

func runMergeHarness(t *testing.T, node string, script []byte, input map[string]any) []byte {
	t.Helper()
	in, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "merge.js")
	src := append([]byte("globalThis.mergeInput = "), in...)
	src = append(append(src, ";\n"...), script...)
	if err := os.WriteFile(f, src, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, f).CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", f, err, out)
	}
	return out
}
