package sessions

import (
	"sync/atomic"
	"unsafe"
)

// The accountant is the one ledger of the memory sessions hold. Every
// allocation of session-owned state is charged to the session's charge,
// by kind, and the charge keeps the manager's total: the machines with
// their global memory and history (chargeState, which the session
// re-measures after each command and slice), the machines of a
// compare-scheduling (chargeCompare), the client messages read and queued
// (chargeInbound, from the moment the web layer reads their bytes until
// the session has handled them) and the replies queued for the client
// (chargeOutbound, from the moment they are encoded until the write pump
// takes them). Admission (new sessions, loads, comparisons) and the
// trimming of live histories read the totals; nothing else keeps a count.
type accountant struct {
	total atomic.Int64
}

// chargeKind is what a charge is for.
type chargeKind int

const (
	chargeState    chargeKind = iota // global memory, machine state and history of the loaded launch
	chargeCompare                    // the two machines of a compare-scheduling
	chargeInbound                    // client messages being read or waiting to be handled
	chargeOutbound                   // replies encoded and waiting to be sent
	numCharges
)

// charge is one session's account. Its methods are safe for concurrent
// use: the web layer charges inbound bytes and takes outbound ones while
// the session goroutine charges the rest.
type charge struct {
	a     *accountant
	kinds [numCharges]atomic.Int64
}

func (a *accountant) newCharge() *charge { return &charge{a: a} }

// add charges d more bytes of kind k (negative: releases).
func (c *charge) add(k chargeKind, d int64) {
	if d == 0 {
		return
	}
	c.kinds[k].Add(d)
	c.a.total.Add(d)
}

// tryAdd charges d > 0 bytes of kind k unless that kind would then hold
// more than max; it reports whether it did.
func (c *charge) tryAdd(k chargeKind, d, max int64) bool {
	for {
		old := c.kinds[k].Load()
		if d > max-old {
			return false
		}
		if c.kinds[k].CompareAndSwap(old, old+d) {
			c.a.total.Add(d)
			return true
		}
	}
}

// set makes the charge of kind k n bytes.
func (c *charge) set(k chargeKind, n int64) {
	old := c.kinds[k].Swap(n)
	c.a.total.Add(n - old)
}

// get returns the charge of kind k.
func (c *charge) get(k chargeKind) int64 { return c.kinds[k].Load() }

// bytes is the memory the divergence trace holds (part of chargeState).
func (t *trace) bytes() int64 {
	if t == nil {
		return 0
	}
	n := int64(cap(t.recs))*int64(unsafe.Sizeof(traceRec{})) + int64(len(t.lanes)+len(t.execs))*8 +
		int64(len(t.warps))*(int64(unsafe.Sizeof(warpKey{}))*2+48)
	for _, b := range t.byW {
		n += int64(cap(b))*4 + 24
	}
	return n
}
