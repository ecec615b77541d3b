package emu

// computeReconvergence sets Op.Reconv of every branch in fn to its
// immediate post-dominator: the first pc every path from the branch must
// reach (computed on the control-flow graph of basic blocks with the
// Cooper-Harvey-Kennedy iterative algorithm on the reverse graph). Branches
// whose paths only meet at function exit get -1.
// BlockLeaders marks the first instruction of every basic block of fn:
// leader[i] for the instruction at fn.Entry+i (len fn.End-fn.Entry+1; the
// last entry stands for the end). A block starts at the function's entry,
// at every branch target inside fn, and after every branch, ret and exit.
func BlockLeaders(p *Program, fn *Function) []bool {
	lo, hi := fn.Entry, fn.End
	n := max(hi-lo, 0)
	leader := make([]bool, n+1)
	leader[0] = true
	if hi > len(p.Ops) {
		return leader
	}
	ops := p.Ops[lo:hi]
	in := func(t int) bool { return t >= 0 && t < n }
	for i := range ops {
		op := &ops[i]
		switch flowKind(op) {
		case flowJump:
			if t := int(op.Target) - lo; in(t) {
				leader[t] = true
			}
			leader[i+1] = true
		case flowTable:
			if op.Aux >= 0 && int(op.Aux) < len(p.Tables) {
				for _, t := range p.Tables[op.Aux] {
					if t := int(t) - lo; in(t) {
						leader[t] = true
					}
				}
			}
			leader[i+1] = true
		case flowEnd:
			leader[i+1] = true
		}
	}
	return leader
}

func computeReconvergence(p *Program, fn *Function) {
	lo, hi := fn.Entry, fn.End
	n := hi - lo
	if n == 0 {
		return
	}
	ops := p.Ops[lo:hi]
	leader := BlockLeaders(p, fn)
	blockOf := make([]int, n)
	var starts []int
	for i := 0; i < n; i++ {
		if leader[i] {
			starts = append(starts, i)
		}
		blockOf[i] = len(starts) - 1
	}
	nb := len(starts)
	exit := nb // virtual exit node
	succ := make([][]int, nb+1)
	for b := range starts {
		end := n
		if b+1 < nb {
			end = starts[b+1]
		}
		last := &ops[end-1]
		add := func(pc int) {
			if pc < 0 || pc >= n {
				succ[b] = append(succ[b], exit)
				return
			}
			succ[b] = append(succ[b], blockOf[pc])
		}
		switch flowKind(last) {
		case flowJump:
			add(int(last.Target) - lo)
			if last.Guard >= 0 {
				add(end)
			}
		case flowTable:
			for _, t := range p.Tables[last.Aux] {
				add(int(t) - lo)
			}
			if last.Guard >= 0 {
				add(end)
			}
		case flowEnd:
			succ[b] = append(succ[b], exit)
			if last.Guard >= 0 {
				add(end)
			}
		default:
			add(end)
		}
	}
	// Post-dominators: dominators of the reverse graph rooted at exit.
	pred := make([][]int, nb+1) // predecessors in the reverse graph = successors in the CFG
	for b := 0; b <= nb; b++ {
		pred[b] = succ[b]
	}
	// Reverse-graph successors (CFG predecessors) for the DFS order.
	rsucc := make([][]int, nb+1)
	for b := 0; b < nb; b++ {
		for _, s := range succ[b] {
			rsucc[s] = append(rsucc[s], b)
		}
	}
	order := make([]int, 0, nb+1) // reverse postorder of the reverse graph from exit
	num := make([]int, nb+1)
	for i := range num {
		num[i] = -1
	}
	visited := make([]bool, nb+1)
	type frame struct{ b, i int }
	stack := []frame{{exit, 0}}
	visited[exit] = true
	var post []int
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i < len(rsucc[f.b]) {
			s := rsucc[f.b][f.i]
			f.i++
			if !visited[s] {
				visited[s] = true
				stack = append(stack, frame{s, 0})
			}
			continue
		}
		post = append(post, f.b)
		stack = stack[:len(stack)-1]
	}
	for i := len(post) - 1; i >= 0; i-- {
		num[post[i]] = len(order)
		order = append(order, post[i])
	}
	ipdom := make([]int, nb+1)
	for i := range ipdom {
		ipdom[i] = -1
	}
	ipdom[exit] = exit
	intersect := func(a, b int) int {
		for a != b {
			for num[a] > num[b] {
				a = ipdom[a]
			}
			for num[b] > num[a] {
				b = ipdom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, b := range order[1:] {
			nd := -1
			for _, s := range pred[b] {
				if ipdom[s] < 0 || num[s] < 0 {
					continue
				}
				if nd < 0 {
					nd = s
				} else {
					nd = intersect(s, nd)
				}
			}
			if nd >= 0 && ipdom[b] != nd {
				ipdom[b] = nd
				changed = true
			}
		}
	}
	for i := range ops {
		op := &ops[i]
		if !op.Eff.Has(EffBranch) {
			continue
		}
		b := blockOf[i]
		d := ipdom[b]
		if d < 0 || d == exit || num[b] < 0 {
			op.Reconv = -1 // reaches exit only, or never reaches exit (infinite loop)
			continue
		}
		op.Reconv = int32(lo + starts[d])
	}
}
