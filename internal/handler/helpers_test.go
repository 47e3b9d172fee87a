package handler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func decodeFixture(t testing.TB, name string, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(readFixture(t, name), v), "fixture %s", name)
}

// recorder is an in-memory emf.Recorder: sums per metric and dimension set.
type recorder struct {
	mu     sync.Mutex
	values map[string]float64
}

func metricKey(name string, dims []emf.Dimension) string {
	if len(dims) == 0 {
		return name
	}
	parts := make([]string, 0, len(dims))
	for _, d := range dims {
		parts = append(parts, d.Name+"="+d.Value)
	}
	sort.Strings(parts)
	return name + "{" + strings.Join(parts, ",") + "}"
}

func (r *recorder) Record(dims []emf.Dimension, ms ...emf.Metric) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.values == nil {
		r.values = map[string]float64{}
	}
	for _, m := range ms {
		r.values[metricKey(m.Name, dims)] += m.Value
	}
	return nil
}

// counts returns the recorded sums, without latency (its value depends on
// the clock) and without zero values.
func (r *recorder) counts() map[string]float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]float64{}
	for k, v := range r.values {
		if k != emf.FetchLatency && v != 0 {
			out[k] = v
		}
	}
	return out
}

func (r *recorder) get(name string, dims ...emf.Dimension) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.values[metricKey(name, dims)]
}

// fakePages is a PageScraper whose answer is a function of the URL.
type fakePages struct {
	mu        sync.Mutex
	urls      []string
	deadlines []time.Time
	answer    func(ctx context.Context, url string) (*site.Document, error)
}

// titled is a one-page document with the given title.
func titled(title string) *site.Document {
	return &site.Document{SchemaVersion: site.SchemaVersion, URL: "https://example.com/", FinalURL: "https://example.com/",
		Pages: []site.Page{{URL: "https://example.com/", FinalURL: "https://example.com/", Role: site.RoleStart, Status: 200, Title: title}}}
}

func (p *fakePages) Crawl(ctx context.Context, url string) (*site.Document, error) {
	p.mu.Lock()
	p.urls = append(p.urls, url)
	dl, _ := ctx.Deadline()
	p.deadlines = append(p.deadlines, dl)
	answer := p.answer
	p.mu.Unlock()
	if answer == nil {
		return titled("ok"), nil
	}
	return answer(ctx, url)
}

func (p *fakePages) calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.urls...)
}

// fakeDLQ records forwarded messages; err makes Forward fail.
type fakeDLQ struct {
	mu   sync.Mutex
	sent []sqsqueue.Poison
	err  error
}

func (d *fakeDLQ) Forward(_ context.Context, p sqsqueue.Poison) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return d.err
	}
	d.sent = append(d.sent, p)
	return nil
}

// fakeVisibility records visibility changes.
type fakeVisibility struct {
	mu      sync.Mutex
	changes []string
	err     error
}

func (v *fakeVisibility) Change(_ context.Context, receiptHandle string, d time.Duration) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.err != nil {
		return v.err
	}
	v.changes = append(v.changes, fmt.Sprintf("%s=%s", receiptHandle, d))
	return nil
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newLogger(buf *syncBuffer) *slog.Logger { return emf.NewLogger(buf, slog.LevelDebug) }

// tokens returns a NewToken that yields tok-1, tok-2, ...
func tokens() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("tok-%d", n)
	}
}

// fakeS3 is the PutObject of S3 in memory: it keeps the last body per key
// and counts writes; failAfterStore makes the next write store the object
// and then report an error, as a write whose response was lost.
type fakeS3 struct {
	mu             sync.Mutex
	objects        map[string][]byte
	puts           int
	failAfterStore int
}

func (f *fakeS3) PutObject(_ context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	b, err := io.ReadAll(in.Body)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.objects == nil {
		f.objects = map[string][]byte{}
	}
	f.objects[aws.ToString(in.Key)] = b
	f.puts++
	if f.failAfterStore > 0 {
		f.failAfterStore--
		return nil, errors.New("connection reset by peer")
	}
	return &s3.PutObjectOutput{}, nil
}

func (f *fakeS3) snapshot() (map[string][]byte, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.objects), f.puts
}
