package web

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every lesson is a share link: the server stores its snapshot at start,
// the gallery and /api/examples give the link, and the snapshot fetched
// back through /api/share runs to the lesson's stated result. The page of
// the link carries the lesson (its hints) while the kernel is the lesson's.
func TestLessonsAreShareLinks(t *testing.T) {
	st, _ := openTestStore(t, false)
	ts := newShareServer(t, ShareOptions{Store: st})
	_, list := get(t, ts.URL+"/api/examples")
	var infos []ExampleInfo
	if err := json.Unmarshal([]byte(list), &infos); err != nil {
		t.Fatal(err)
	}
	_, gallery := get(t, ts.URL+"/gallery")
	n := 0
	for _, info := range infos {
		e := BuiltinExamples().Get(info.Name)
		if e.Lesson == nil {
			if info.Link != "" {
				t.Errorf("%s: not a lesson but has link %s", info.Name, info.Link)
			}
			continue
		}
		n++
		t.Run(info.Name, func(t *testing.T) {
			if !strings.HasPrefix(info.Link, "/s/") {
				t.Fatalf("link %q", info.Link)
			}
			if !strings.Contains(gallery, `href="`+info.Link+`"`) {
				t.Errorf("the gallery does not link %s", info.Link)
			}
			id := strings.TrimPrefix(info.Link, "/s/")
			r, body := get(t, ts.URL+"/api/share/"+id)
			if r.StatusCode != 200 {
				t.Fatalf("/api/share/%s: %d", id, r.StatusCode)
			}
			var snap struct {
				Title, Source, Example string
				Spec                   json.RawMessage
			}
			if err := json.Unmarshal([]byte(body), &snap); err != nil {
				t.Fatal(err)
			}
			if snap.Title != e.Title || snap.Example != e.Name {
				t.Errorf("snapshot %q of %q", snap.Title, snap.Example)
			}
			// Run what the link holds, not the gallery's copy.
			shared := &Example{Name: e.Name, File: e.File, Source: snap.Source, Spec: snap.Spec}
			lr := runLesson(t, shared)
			for _, x := range e.Lesson.Expect.Buffers {
				checkExpect(t, lr.res, x)
			}
			_, page := get(t, ts.URL+info.Link)
			if !strings.Contains(page, `"lesson":{"explanation":`) || !strings.Contains(page, `id="initial-share"`) {
				t.Errorf("the link's page does not carry the lesson")
			}
		})
	}
	if n < 12 {
		t.Errorf("%d lessons, want at least 12", n)
	}
	// A second server on the same store finds the links already there.
	ts2 := newShareServer(t, ShareOptions{Store: st})
	_, list2 := get(t, ts2.URL+"/api/examples")
	if list2 != list {
		t.Error("the lesson links changed between two servers on one store")
	}
}
