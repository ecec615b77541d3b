package browser

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/sessions"
)

// sessionsStarted reads ptxplay_sessions_total of the server at base.
func sessionsStarted(t *testing.T, base string) int {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "ptxplay_sessions_total "); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no ptxplay_sessions_total")
	return 0
}

// wake clicks the button of the notice a page without a session shows
// (Start, Start at step N, Reconnect).
func (tb *tab) wake() {
	tb.t.Helper()
	tb.waitJS("the connect button", `(() => { const b = document.querySelector("#pg-notice .pg-wake"); return !!b && !document.getElementById("pg-notice").hidden; })()`)
	tb.click("#pg-notice .pg-wake")
}

// atEverySize checks the page for overflow and takes a screenshot at
// 1440×900, 1024×768 in presenter mode (a projector) and 390×844 (a
// phone), then goes back to 1440×900.
func (tb *tab) atEverySize(what, name string) {
	tb.t.Helper()
	for _, vp := range []struct {
		w, h      int64
		presenter bool
	}{{1440, 900, false}, {1024, 768, true}, {390, 844, false}} {
		tb.viewport(vp.w, vp.h)
		if vp.presenter {
			tb.blurFocus()
			tb.key("z")
			tb.waitJS("presenter mode", `document.documentElement.classList.contains("presenter")`)
		}
		tb.expectNoOverflow(fmt.Sprintf("%s %dx%d", what, vp.w, vp.h))
		tb.screenshot(fmt.Sprintf("%s-%d", name, vp.w))
		if vp.presenter {
			tb.blurFocus()
			tb.key("z")
			tb.waitJS("presenter mode off", `!document.documentElement.classList.contains("presenter")`)
		}
	}
	tb.viewport(1440, 900)
}

// expectAsleep checks that the page holds no session: the connection is
// idle, and stays so, and the notice says note.
func (tb *tab) expectAsleep(what, note string) {
	tb.t.Helper()
	tb.waitJS(what+": asleep", fmt.Sprintf(`document.getElementById("pg-conn").dataset.state === "idle" && document.getElementById("pg-notice").textContent.includes(%q)`, note))
}

// TestAdmissionSharedPagesConnectOnFirstAction: an opened share link and
// an embed show the kernel, its launch and where the link points without
// a session on the server; the first action connects and lands at the
// shared step (then does what it asked).
func TestAdmissionSharedPagesConnectOnFirstAction(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=shared-reduction")
	tb.waitLoaded("shared-reduction.ptx")
	tb.setCount(9)
	tb.button("step-warp")
	tb.waitStep(9, 9)
	url := tb.shareVia("Nine steps in", true, false)
	path := strings.TrimPrefix(url, s.base)
	id := path[strings.LastIndex(path, "/")+1:]

	before := sessionsStarted(t, s.base)
	other := s.newTab(t, path)
	other.expectAsleep("the share page", "Shared at step 9")
	other.waitJS("the kernel in the editor", `document.querySelector(".cm-content").textContent.includes(".entry block_sum")`)
	other.waitJS("the launch summary", `document.getElementById("pg-launch-summary").textContent.trim() !== ""`)
	other.waitJS("the start button", `document.querySelector("#pg-notice .pg-wake").textContent === "Start at step 9" && !document.querySelector('[data-action="step-warp"]').disabled`)
	if st := other.status(); st.Step != "" || st.Conn != "idle" {
		t.Fatalf("share page before any action: %+v", st)
	}
	other.atEverySize("share page asleep", "share-asleep")
	time.Sleep(time.Second)
	if n := sessionsStarted(t, s.base); n != before {
		t.Fatalf("opening the share page started %d sessions", n-before)
	}

	// The first action connects and lands where the link points.
	other.wake()
	other.waitStep(9, 9)
	r := refAt(t, "shared-reduction", 9)
	other.expectWarps(r, "woken at the shared step 9")
	if n := sessionsStarted(t, s.base); n != before+1 {
		t.Fatalf("%d sessions started after the first action, want 1", n-before)
	}
	other.screenshot("share-woken")

	// The embed player: the same, and a step as the first action lands
	// at the shared step and then steps.
	before = sessionsStarted(t, s.base)
	emb := s.newTab(t, "/embed/"+id)
	emb.expectAsleep("the embed", "Shared at step 9")
	emb.screenshot("embed-asleep")
	time.Sleep(500 * time.Millisecond)
	if n := sessionsStarted(t, s.base); n != before {
		t.Fatalf("opening the embed started %d sessions", n-before)
	}
	emb.button("step-warp")
	emb.waitStep(10, 10)
	if n := sessionsStarted(t, s.base); n != before+1 {
		t.Fatalf("%d sessions started after the embed's first step, want 1", n-before)
	}
}

// TestAdmissionReclaimedPage: on a full server, a page whose session was
// idle gives its place to a newcomer; it says so, keeps its kernel, its
// position and the draft, does not reconnect by itself, and Reconnect
// lands where it was.
func TestAdmissionReclaimedPage(t *testing.T) {
	s := need(t)
	base, stop, err := s.serve("127.0.0.1:0", sessions.Limits{MaxSessions: 1, ReclaimIdle: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Stopped after the tabs close (cleanups run last first): a page whose
	// server is gone logs its failed reconnection.
	t.Cleanup(stop)
	a := s.newTabAt(t, base, "/?example=shared-reduction")
	a.waitLoaded("shared-reduction.ptx")
	a.setCount(7)
	a.button("step-warp")
	a.waitStep(7, 7)
	time.Sleep(1500 * time.Millisecond)

	b := s.newTabAt(t, base, "/?example=vector-add")
	b.waitLoaded("vector-add.ptx")
	a.expectAsleep("the reclaimed page", "gave this session's place to a new client")
	a.waitJS("the reconnect button", `document.querySelector("#pg-notice .pg-wake").textContent === "Reconnect"`)
	a.waitJS("the kept position", `document.getElementById("pg-step").textContent === "step 7/7"`)
	var draftStep int
	a.eval(`JSON.parse(localStorage.getItem("ptxplay.draft")).step`, &draftStep)
	if draftStep != 7 {
		t.Fatalf("draft step %d, want 7", draftStep)
	}
	a.atEverySize("reclaimed page", "reclaimed")
	// No loop: the page stays without a session until asked.
	n := sessionsStarted(t, base)
	time.Sleep(2 * time.Second)
	if m := sessionsStarted(t, base); m != n {
		t.Fatalf("the reclaimed page reconnected by itself (%d sessions started)", m-n)
	}
	a.expectAsleep("the reclaimed page, later", "gave this session's place")

	// Reconnect: back at step 7 (b, now idle, gives its place).
	a.wake()
	a.waitStep(7, 7)
	a.waitJS("connected", `document.getElementById("pg-conn").dataset.state === "open"`)
	b.expectAsleep("the other page, reclaimed in turn", "gave this session's place")
}
