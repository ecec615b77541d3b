package web

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ptxplayground/ptxplay/sessions/share"
)

// Lessons as share links: every lesson is also a snapshot in the share
// store (the kernel and launch as published, opening on its first hint's
// panel), so a course can link to /s/{id} and the link keeps working even
// when the gallery's kernel is improved later.

// Snapshot is the example's share snapshot, normalized for l.
func (e *Example) Snapshot(l share.Limits) (*share.Snapshot, error) {
	view := map[string]any{}
	if e.Lesson != nil && len(e.Lesson.Hints) > 0 {
		if p := e.Lesson.Hints[0].Panel; p != "editor" && p != "warps" {
			view["tab"] = p
		}
	}
	vb, _ := json.Marshal(view)
	sn := &share.Snapshot{
		Title:       e.Title,
		Description: e.Description,
		Source:      e.Source,
		Spec:        e.Spec,
		View:        vb,
		Example:     e.Name,
	}
	if err := sn.Normalize(l); err != nil {
		return nil, err
	}
	return sn, nil
}

// seedLessons stores every lesson's snapshot (when the store takes
// writes) and returns the links of those the store holds.
func (s *Server) seedLessons() map[string]string {
	st := s.share.Store
	if st == nil {
		return nil
	}
	links := map[string]string{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, e := range s.examples.List() {
		if e.Lesson == nil {
			continue
		}
		sn, err := e.Snapshot(s.share.Limits)
		if err != nil {
			s.log.Warn("lesson: no share snapshot", "lesson", e.Name, "err", err)
			continue
		}
		id, _ := sn.Encode()
		if !st.ReadOnly() {
			if _, _, err := st.Put(ctx, sn); err != nil {
				s.log.Warn("lesson: could not store its share link", "lesson", e.Name, "err", err)
				continue
			}
		} else if _, err := st.Get(ctx, id); err != nil {
			continue
		}
		links[e.Name] = "/s/" + id
	}
	return links
}

// lessonFor is the lesson a shared snapshot shows: that of the gallery
// example it names, while its kernel is still the lesson's.
func (s *Server) lessonFor(sn *share.Snapshot) *Lesson {
	if sn.Example == "" {
		return nil
	}
	e := s.examples.Get(sn.Example)
	if e == nil || e.Lesson == nil || e.Source != sn.Source {
		return nil
	}
	return e.Lesson
}
