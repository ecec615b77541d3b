package share

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// Record is one line of an export: a link's ID, when it was created (Unix
// milliseconds) and its snapshot.
type Record struct {
	ID       string          `json:"id"`
	Created  int64           `json:"created"`
	Snapshot json.RawMessage `json:"snapshot"`
}

// Export writes every link as JSON lines, oldest first.
func (s *Store) Export(ctx context.Context, w io.Writer) (int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, body, created_at FROM shares ORDER BY created_at, id`)
	if err != nil {
		return 0, fmt.Errorf("share: export: %w", err)
	}
	defer rows.Close()
	bw := bufio.NewWriter(w)
	var n int64
	for rows.Next() {
		var r Record
		var body []byte
		if err := rows.Scan(&r.ID, &body, &r.Created); err != nil {
			return n, fmt.Errorf("share: export: %w", err)
		}
		r.Snapshot = body
		line, err := json.Marshal(r)
		if err != nil {
			return n, fmt.Errorf("share: export %s: %w", r.ID, err)
		}
		bw.Write(line)
		if err := bw.WriteByte('\n'); err != nil {
			return n, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("share: export: %w", err)
	}
	return n, bw.Flush()
}

// ImportStats counts what Import did.
type ImportStats struct {
	Added, Existing int64
}

// Import reads JSON lines written by Export and stores every link that is
// not there yet, keeping its ID and creation time. Each snapshot is
// checked against l and must hash to its ID; the first bad line stops the
// import with an error naming it (the lines before it are kept).
func (s *Store) Import(ctx context.Context, r io.Reader, l Limits) (ImportStats, error) {
	var st ImportStats
	if s.readOnly {
		return st, ErrReadOnly
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), int(l.MaxEncodedBytes())+1<<10)
	const batch = 500
	var pending []Record
	var bodies [][]byte
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		stmt, err := tx.PrepareContext(ctx, s.q(`INSERT INTO shares (id, body, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`))
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, rec := range pending {
			res, err := stmt.ExecContext(ctx, rec.ID, bodies[i], rec.Created)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				st.Added++
			} else {
				st.Existing++
			}
		}
		pending, bodies = pending[:0], bodies[:0]
		return tx.Commit()
	}
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(text, &rec); err != nil {
			return st, fmt.Errorf("share: import line %d: %v", line, err)
		}
		snap, err := decodeStored(bytes.NewReader(rec.Snapshot), l)
		if err != nil {
			return st, fmt.Errorf("share: import line %d: %v", line, err)
		}
		id, body := snap.Encode()
		if id != rec.ID {
			return st, fmt.Errorf("share: import line %d: the snapshot's content does not match its id %q (it hashes to %q)", line, rec.ID, id)
		}
		pending = append(pending, rec)
		bodies = append(bodies, body)
		if len(pending) == batch {
			if err := flush(); err != nil {
				return st, fmt.Errorf("share: import: %w", err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return st, fmt.Errorf("share: import line %d: %w", line+1, err)
	}
	if err := flush(); err != nil {
		return st, fmt.Errorf("share: import: %w", err)
	}
	return st, nil
}
