package share

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // the "sqlite" database/sql driver (pure Go)
)

// ErrNotFound: no snapshot has that ID.
var ErrNotFound = errors.New("share: no such link")

// ErrReadOnly: the store was opened read-only.
var ErrReadOnly = errors.New("share: the store is read-only")

// Store keeps snapshots in SQL: SQLite or PostgreSQL, with the same schema.
// It is safe for concurrent use (and, on PostgreSQL, by several servers).
type Store struct {
	db       *sql.DB
	dialect  dialect
	readOnly bool
	name     string
}

type dialect int

const (
	sqlite dialect = iota
	postgres
)

// Options tune Open.
type Options struct {
	// ReadOnly refuses Put and Import (links are still served).
	ReadOnly bool
}

// Open opens the store named by dsn, creating or migrating its schema:
//
//	sqlite:PATH or a path ending in .db   SQLite file (created if missing)
//	postgres://… or postgresql://…        PostgreSQL (pgx connection string)
//
// SQLite runs in WAL mode with synchronous=FULL: a Put that returned
// survives a crash of the process or of the machine.
func Open(ctx context.Context, dsn string, o Options) (*Store, error) {
	s := &Store{readOnly: o.ReadOnly}
	var err error
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		s.dialect = postgres
		s.name = "postgres"
		if u, perr := url.Parse(dsn); perr == nil {
			s.name = "postgres://" + u.Host + u.Path
		}
		s.db, err = sql.Open("pgx", dsn)
		if err == nil {
			s.db.SetMaxOpenConns(16)
			s.db.SetMaxIdleConns(4)
			s.db.SetConnMaxIdleTime(5 * time.Minute)
		}
	case strings.HasPrefix(dsn, "sqlite:") || strings.HasSuffix(dsn, ".db"):
		path := strings.TrimPrefix(dsn, "sqlite:")
		if path == "" {
			return nil, errors.New("share: sqlite: no file name")
		}
		if !o.ReadOnly {
			if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
				return nil, fmt.Errorf("share: %w", err)
			}
		} else if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("share: %w", err)
		}
		s.dialect = sqlite
		s.name = "sqlite:" + path
		q := url.Values{}
		q.Add("_pragma", "busy_timeout(10000)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
		q.Set("_txlock", "immediate")
		s.db, err = sql.Open("sqlite", "file:"+path+"?"+q.Encode())
		if err == nil {
			// One writer at a time in SQLite; a few connections let reads
			// proceed beside it (WAL).
			s.db.SetMaxOpenConns(4)
		}
	default:
		return nil, fmt.Errorf("share: unknown store %q (want sqlite:PATH, a .db path, or postgres://…)", dsn)
	}
	if err != nil {
		return nil, fmt.Errorf("share: %w", err)
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("share: %s: %w", s.name, err)
	}
	if !o.ReadOnly {
		if err := s.migrate(ctx); err != nil {
			s.db.Close()
			return nil, err
		}
	}
	return s, nil
}

// Name describes the store for logs (no credentials).
func (s *Store) Name() string { return s.name }

// ReadOnly reports whether Put is refused.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// migrations are the schema changes, in order; the schema_migrations
// table records which have run. Each runs in its own transaction.
var migrations = []struct{ sqlite, postgres string }{
	{
		sqlite: `CREATE TABLE shares (
			id         TEXT PRIMARY KEY,
			body       BLOB NOT NULL,
			created_at INTEGER NOT NULL
		)`,
		postgres: `CREATE TABLE shares (
			id         TEXT PRIMARY KEY,
			body       BYTEA NOT NULL,
			created_at BIGINT NOT NULL
		)`,
	},
}

// SchemaVersion is the number of migrations this binary knows.
var SchemaVersion = len(migrations)

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("share: migrate: %w", err)
	}
	for v := 1; v <= len(migrations); v++ {
		if err := s.migrateTo(ctx, v); err != nil {
			return fmt.Errorf("share: migration %d: %w", v, err)
		}
	}
	var newest int
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&newest); err != nil {
		return fmt.Errorf("share: migrate: %w", err)
	}
	if newest > len(migrations) {
		return fmt.Errorf("share: the store's schema is version %d, newer than this binary's %d", newest, len(migrations))
	}
	return nil
}

func (s *Store) migrateTo(ctx context.Context, v int) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.dialect == postgres {
		// Servers starting together migrate one at a time.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7305812)`); err != nil {
			return err
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), v).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	m := migrations[v-1]
	stmt := m.sqlite
	if s.dialect == postgres {
		stmt = m.postgres
	}
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`), v, time.Now().Unix()); err != nil {
		return err
	}
	return tx.Commit()
}

// q rewrites ? placeholders as $1, $2, … for PostgreSQL.
func (s *Store) q(query string) string {
	if s.dialect != postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// Put stores a normalized snapshot and returns its ID; created is false
// when the same content was already stored (same content, same ID). When
// Put returns without error the snapshot is durable.
func (s *Store) Put(ctx context.Context, snap *Snapshot) (id string, created bool, err error) {
	if s.readOnly {
		return "", false, ErrReadOnly
	}
	id, body := snap.Encode()
	res, err := s.db.ExecContext(ctx, s.q(`INSERT INTO shares (id, body, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`),
		id, body, time.Now().UnixMilli())
	if err != nil {
		return "", false, fmt.Errorf("share: put: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return "", false, fmt.Errorf("share: put: %w", err)
	}
	return id, n > 0, nil
}

// Get returns the snapshot stored under id, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (*Snapshot, error) {
	body, _, err := s.GetRaw(ctx, id)
	if err != nil {
		return nil, err
	}
	return Parse(body)
}

// GetRaw returns the stored encoding of id and when it was created.
func (s *Store) GetRaw(ctx context.Context, id string) ([]byte, time.Time, error) {
	if !ValidID(id) {
		return nil, time.Time{}, ErrNotFound
	}
	var body []byte
	var created int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT body, created_at FROM shares WHERE id = ?`), id).Scan(&body, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, ErrNotFound
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("share: get: %w", err)
	}
	return body, time.UnixMilli(created), nil
}

// Count returns the number of stored snapshots.
func (s *Store) Count(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM shares`).Scan(&n)
	return n, err
}

// Ping checks that the database answers (for health checks).
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }
