package sessions

import (
	"strings"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// printfChunk bounds the text of the printf lines one message carries
// (with each line's fields, about 100 bytes of JSON more per line); a
// larger update follows the state in printf messages.
const printfChunk = 256 << 10

// printfUpdate adds to a state what the client needs to hold the printf
// output at the machine's position: everything in a full state, else
// the change since the lines it holds (the output at any position is a
// prefix of the launch's output, so that is a shorter keep or new lines).
// It returns the rest of an update larger than printfChunk.
func (s *Session) printfUpdate(msg *stateMsg, full bool) [][]printfLineJSON {
	v := &s.view
	lines, dropped := s.m.Printf()
	if !full && len(lines) == v.printfN && dropped == v.printfDropped {
		return nil
	}
	keep := 0
	if !full {
		keep = min(v.printfN, len(lines))
	}
	p := &printfJSON{Keep: keep, Lines: []printfLineJSON{}, Dropped: dropped, Limit: s.m.PrintfLimit()}
	if dropped > 0 {
		p.Note = launch.PrintfNote(dropped, p.Limit)
	}
	var chunks [][]printfLineJSON
	cur, size := []printfLineJSON{}, 0
	for _, l := range lines[keep:] {
		if size > 0 && size+len(l.Text) > printfChunk {
			chunks = append(chunks, cur)
			cur, size = []printfLineJSON{}, 0
		}
		cur = append(cur, s.printfLineJSON(&l))
		size += len(l.Text) + 1
	}
	chunks = append(chunks, cur)
	p.Lines = chunks[0]
	msg.Printf = p
	v.printfN, v.printfDropped = len(lines), dropped
	return chunks[1:]
}

func (s *Session) printfLineJSON(l *emu.PrintfLine) printfLineJSON {
	return printfLineJSON{Step: l.Step, PC: l.PC, Line: s.prog.line(l.PC), CUDALine: s.cline(l.PC), CTA: l.CTA, Thread: l.Thread,
		Text: strings.ToValidUTF8(l.Text, "\uFFFD"), Cut: l.Cut, Note: l.Note}
}
