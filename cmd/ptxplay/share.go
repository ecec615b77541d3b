package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ptxplayground/ptxplay/sessions"
	"github.com/ptxplayground/ptxplay/sessions/share"
)

const shareSynopsis = "export|import [--data DIR] [--store DSN] [FILE]"

// cmdShare backs up and restores share links as JSON lines:
//
//	ptxplay share export [FILE]   every link, oldest first (default: standard output)
//	ptxplay share import [FILE]   adds the links not there yet (default: standard input)
func cmdShare(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "export" && args[0] != "import") {
		fmt.Fprintf(stderr, "usage: ptxplay share %s\n", shareSynopsis)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return exitOK
		}
		return exitInvalid
	}
	verb := args[0]
	fs := newFlags("share "+verb, "[--data DIR] [--store DSN] [FILE]", stderr)
	env := envDefaults{fs: fs}
	var dataDir, store string
	fs.StringVar(&dataDir, "data", env.str("PTXPLAY_DATA", defaultDataDir()), "data `directory` of the server (env PTXPLAY_DATA)")
	fs.StringVar(&store, "store", env.str("PTXPLAY_STORE", ""), "share store: sqlite:PATH or postgres://… (default: sqlite in the data directory) (env PTXPLAY_STORE)")
	pos, err := parseArgs(fs, args[1:])
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "ptxplay share %s: one file at most\n", verb)
		return exitInvalid
	}
	dsn := storeDSN(store, dataDir)
	if dsn == "" {
		fmt.Fprintf(stderr, "ptxplay share %s: no store (--store off)\n", verb)
		return exitInvalid
	}
	if verb == "export" && store == "" {
		// Exporting from a data folder that has no links yet is an error,
		// not an empty new database.
		if _, err := os.Stat(dsn[len("sqlite:"):]); err != nil {
			fmt.Fprintf(stderr, "ptxplay share export: %v\n", err)
			return exitFail
		}
	}
	st, err := share.Open(ctx, dsn, share.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "ptxplay share %s: %v\n", verb, err)
		return exitFail
	}
	defer st.Close()
	if verb == "export" {
		w := stdout
		if len(pos) == 1 && pos[0] != "-" {
			f, err := os.Create(pos[0])
			if err != nil {
				fmt.Fprintf(stderr, "ptxplay share export: %v\n", err)
				return exitFail
			}
			defer f.Close()
			w = f
		}
		n, err := st.Export(ctx, w)
		if err != nil {
			fmt.Fprintf(stderr, "ptxplay share export: %v\n", err)
			return exitFail
		}
		if f, ok := w.(*os.File); ok && f != os.Stdout {
			if err := f.Sync(); err != nil {
				fmt.Fprintf(stderr, "ptxplay share export: %v\n", err)
				return exitFail
			}
		}
		fmt.Fprintf(stderr, "exported %d links from %s\n", n, st.Name())
		return exitOK
	}
	r := stdin
	if len(pos) == 1 && pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			fmt.Fprintf(stderr, "ptxplay share import: %v\n", err)
			return exitFail
		}
		defer f.Close()
		r = f
	}
	stats, err := st.Import(ctx, r, shareLimits(sessions.DefaultLimits))
	fmt.Fprintf(stderr, "imported %d new links into %s (%d were already there)\n", stats.Added, st.Name(), stats.Existing)
	if err != nil {
		fmt.Fprintf(stderr, "ptxplay share import: %v\n", err)
		return exitFail
	}
	return exitOK
}
