package share

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A real PostgreSQL server for the tests, started from Debian's postgresql
// binaries in a temporary folder, listening on a Unix socket only. `make
// test` installs the package when it is missing; with
// PTXPLAY_TEST_POSTGRES=require (set by make test) a missing server fails
// the tests instead of skipping them.

type pgServer struct {
	dir  string
	port int
	cmd  *exec.Cmd
	dsn  string
}

// pgBin finds the newest installed PostgreSQL server's bin folder.
func pgBin() string {
	if dir := os.Getenv("PTXPLAY_PG_BIN"); dir != "" {
		return dir
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(matches, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(matches[i]))))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(matches[j]))))
		return vi > vj
	})
	if len(matches) > 0 {
		return filepath.Dir(matches[0])
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

func startPostgres() (*pgServer, error) {
	bin := pgBin()
	if bin == "" {
		return nil, fmt.Errorf("no PostgreSQL server installed (Debian: apt-get install postgresql)")
	}
	dir, err := os.MkdirTemp("", "ptxplay-pg-")
	if err != nil {
		return nil, err
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root: run it as the package's user.
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root and there is no postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	run := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(filepath.Join(bin, name), args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "LC_ALL=C")
		if cred != nil {
			c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		return c
	}
	data := filepath.Join(dir, "data")
	if out, err := run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	port := 20000 + os.Getpid()%20000
	cmd := run("postgres", "-D", data, "-k", dir, "-p", strconv.Itoa(port), "-c", "listen_addresses=", "-c", "fsync=off", "-c", "max_connections=100")
	logf, _ := os.Create(filepath.Join(dir, "log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &pgServer{dir: dir, port: port, cmd: cmd}
	s.dsn = "postgres://postgres@/postgres?" + url.Values{"host": {dir}, "port": {strconv.Itoa(port)}, "sslmode": {"disable"}}.Encode()
	deadline := time.Now().Add(30 * time.Second)
	for {
		db, err := sql.Open("pgx", s.dsn)
		if err == nil {
			err = db.PingContext(context.Background())
			db.Close()
		}
		if err == nil {
			return s, nil
		}
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			s.stop()
			return nil, fmt.Errorf("postgres did not start: %v\n%s", err, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// database creates a fresh database and returns its DSN.
func (s *pgServer) database(t testing.TB) string {
	t.Helper()
	name := "t_" + strings.ToLower(strings.NewReplacer("/", "_", "-", "_", " ", "_").Replace(t.Name()))
	if len(name) > 60 {
		name = name[:60]
	}
	db, err := sql.Open("pgx", s.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP DATABASE IF EXISTS ` + name); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatal(err)
	}
	return strings.Replace(s.dsn, "@/postgres?", "@/"+name+"?", 1)
}

func (s *pgServer) stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	}
	os.RemoveAll(s.dir)
}

var pg struct {
	srv *pgServer
	err error
}

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) == "" && os.Getenv("PTXPLAY_TEST_POSTGRES") != "skip" {
		pg.srv, pg.err = startPostgres()
	}
	code := m.Run()
	if pg.srv != nil {
		pg.srv.stop()
	}
	os.Exit(code)
}

// postgresDSN returns a fresh database on the test server, or skips (fails
// when PTXPLAY_TEST_POSTGRES=require).
func postgresDSN(t testing.TB) string {
	t.Helper()
	if pg.srv == nil {
		msg := "PostgreSQL: skipped"
		if pg.err != nil {
			msg = "PostgreSQL: " + pg.err.Error()
		}
		if os.Getenv("PTXPLAY_TEST_POSTGRES") == "require" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return pg.srv.database(t)
}
