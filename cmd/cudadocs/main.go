// Command cudadocs writes ui/cudadocs_gen.ts: the CUDA editor's hover docs
// for the names the prelude provides, read from docs/cuda.md (the list in
// "What the prelude provides" and the math library's accuracy table), so
// the hover text follows the document the prelude is described in.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ptxplayground/ptxplay/cmd/cudadocs/docs"
)

func main() {
	in := flag.String("in", "../docs/cuda.md", "docs/cuda.md")
	out := flag.String("o", "cudadocs_gen.ts", "output file")
	flag.Parse()
	src, err := os.ReadFile(*in)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ts, err := docs.TS(string(src))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, []byte(ts), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
