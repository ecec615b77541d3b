// Command protogen writes the TypeScript declarations of the websocket
// protocol and the launch spec (ui/proto_gen.ts) from the Go types of
// package sessions, and those of the REST answers and the editor's PTX
// words (ui/api_gen.ts) from package web.
//
//	go run ./cmd/protogen [-o ui/proto_gen.ts] [-api ui/api_gen.ts]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ptxplayground/ptxplay/sessions"
	"github.com/ptxplayground/ptxplay/web"
)

func main() {
	out := flag.String("o", "ui/proto_gen.ts", "the protocol file to write")
	api := flag.String("api", "ui/api_gen.ts", "the REST API file to write")
	flag.Parse()
	for _, f := range []struct {
		path string
		gen  func() ([]byte, error)
	}{{*out, sessions.TypeScript}, {*api, web.TypeScript}} {
		b, err := f.gen()
		if err == nil {
			err = os.WriteFile(f.path, b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "protogen:", err)
			os.Exit(1)
		}
	}
}
