package cuda

import (
	"container/list"
	"sync"
)

// lru is a cache of compile results bounded by the bytes of their PTX and
// diagnostics.
type lru struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	ll    *list.List
	items map[[32]byte]*list.Element
}

type lruEntry struct {
	key  [32]byte
	res  *Result
	size int64
}

func newLRU(max int64) *lru {
	return &lru{max: max, ll: list.New(), items: map[[32]byte]*list.Element{}}
}

func resultSize(r *Result) int64 {
	n := int64(len(r.PTX)) + 256
	for _, d := range r.Diagnostics {
		n += int64(len(d.Message)) + 64
	}
	if r.Map != nil {
		n += r.Map.size()
	}
	return n
}

func (c *lru) get(k [32]byte) *Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*lruEntry).res
	}
	return nil
}

func (c *lru) put(k [32]byte, r *Result) {
	size := resultSize(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.max {
		return
	}
	if e, ok := c.items[k]; ok {
		c.bytes -= e.Value.(*lruEntry).size
		c.ll.Remove(e)
		delete(c.items, k)
	}
	c.items[k] = c.ll.PushFront(&lruEntry{key: k, res: r, size: size})
	c.bytes += size
	for c.bytes > c.max {
		e := c.ll.Back()
		ent := e.Value.(*lruEntry)
		c.ll.Remove(e)
		delete(c.items, ent.key)
		c.bytes -= ent.size
	}
}

func (c *lru) size() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.bytes
}
