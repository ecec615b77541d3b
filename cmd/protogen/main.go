// Command protogen writes the TypeScript declarations of the websocket
// protocol (ui/proto_gen.ts) from the Go types of package sessions.
//
//	go run ./cmd/protogen [-o ui/proto_gen.ts]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ptxplayground/ptxplay/sessions"
)

func main() {
	out := flag.String("o", "ui/proto_gen.ts", "the file to write")
	flag.Parse()
	b, err := sessions.TypeScript()
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
}
