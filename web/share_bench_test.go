package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/sessions/share"
)

// BenchmarkShareSQLite100k: creating a link (POST /api/share) and opening
// one (GET /s/{id}, the page rendered) through the server's handler, on a
// SQLite store that already holds 100,000 links. Reports the p50 and p99
// latencies of each.
func BenchmarkShareSQLite100k(b *testing.B) {
	const seed = 100_000
	dsn := "sqlite:" + filepath.Join(b.TempDir(), "shares.db")
	st, err := share.Open(context.Background(), dsn, share.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	src := BuiltinExamples().Get("vector-add").Source
	spec := BuiltinExamples().Get("vector-add").Spec
	snapJSON := func(i int) string {
		return fmt.Sprintf(`{"title":"kernel %d","source":%q,"spec":%s,"step":%d,"view":{"tab":"regs","warp":%d}}`, i, src, spec, i%977, i%4)
	}
	// Seed through an import (one transaction per 500 links).
	var lines bytes.Buffer
	ids := make([]string, 0, seed)
	for i := range seed {
		sn, err := share.Decode(strings.NewReader(snapJSON(i)), share.DefaultLimits)
		if err != nil {
			b.Fatal(err)
		}
		id, body := sn.Encode()
		ids = append(ids, id)
		rec, _ := json.Marshal(share.Record{ID: id, Created: int64(i), Snapshot: body})
		lines.Write(rec)
		lines.WriteByte('\n')
	}
	if _, err := st.Import(context.Background(), &lines, share.DefaultLimits); err != nil {
		b.Fatal(err)
	}
	srv, err := New(Options{Sessions: &echoStarter{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Share: ShareOptions{Store: st, PerMinute: 1 << 30, Burst: 1 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	rnd := rand.New(rand.NewSource(1))
	create := make([]time.Duration, 0, b.N)
	open := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body := snapJSON(seed + i)
		req := httptest.NewRequest(http.MethodPost, "/api/share", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		t0 := time.Now()
		srv.ServeHTTP(rec, req)
		create = append(create, time.Since(t0))
		if rec.Code != http.StatusCreated {
			b.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
		req = httptest.NewRequest(http.MethodGet, "/s/"+ids[rnd.Intn(len(ids))], nil)
		rec = httptest.NewRecorder()
		t0 = time.Now()
		srv.ServeHTTP(rec, req)
		open = append(open, time.Since(t0))
		if rec.Code != http.StatusOK {
			b.Fatalf("open: %d", rec.Code)
		}
	}
	b.StopTimer()
	q := func(d []time.Duration, p float64) float64 {
		slices.Sort(d)
		return float64(d[min(len(d)-1, int(float64(len(d))*p))].Microseconds())
	}
	b.ReportMetric(q(create, 0.50), "create-p50-µs")
	b.ReportMetric(q(create, 0.99), "create-p99-µs")
	b.ReportMetric(q(open, 0.50), "open-p50-µs")
	b.ReportMetric(q(open, 0.99), "open-p99-µs")
	if n, _ := st.Count(context.Background()); n < int64(seed+b.N) {
		b.Fatalf("%d links stored", n)
	}
}
