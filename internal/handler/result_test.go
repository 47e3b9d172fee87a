package handler_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/s3store"
	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

// TestScraperStoresTheDocument: a finished task's document is in the
// bucket, and the row keeps the compact summary that names it.
func TestScraperStoresTheDocument(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.seed(t, tasktest.Pending("t1"))
	doc := titled("Example")
	doc.Pages[0].Text = "Wir bauen Widgets."
	doc.Contacts.Emails = []string{"info@example.com"}
	b.pages.answer = func(context.Context, string) (*site.Document, error) { return doc, nil }

	require.Empty(t, b.handle(t, t.Context(), sqsEvent(compactBody("t1"))))

	got := b.get(t, "t1")
	require.Equal(t, task.StateFinished, got.State)
	var row site.Summary
	require.NoError(t, json.Unmarshal(got.Result, &row))
	objects, puts := b.s3.snapshot()
	require.Equal(t, 1, puts)
	body, ok := objects[row.Object]
	require.True(t, ok, "the row names the stored object %q", row.Object)
	require.Equal(t, "p/runs/run-1/t1.json.gz", row.Object)
	sum := sha256.Sum256(body)
	require.Equal(t, hex.EncodeToString(sum[:]), row.SHA256)
	plain, err := s3store.Decompress(bytes.NewReader(body))
	require.NoError(t, err)
	stored, err := site.Unmarshal(plain)
	require.NoError(t, err)
	require.Equal(t, "Wir bauen Widgets.", stored.Pages[0].Text)
	require.Equal(t, site.Summary{Title: "Example", Pages: 1, Emails: 1, TextLength: 18,
		Object: row.Object, SHA256: row.SHA256}, row)
}

// TestScraperDocumentWriteIsIdempotent: the first write stores the object
// but its answer is lost; the task is released, the redelivery writes the
// same bytes to the same key and finishes. A later duplicate delivery
// finds the task terminal and writes nothing: one object, one Finish.
func TestScraperDocumentWriteIsIdempotent(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.seed(t, tasktest.Pending("t1"))
	b.s3.failAfterStore = 1

	require.Equal(t, []string{"m-1"}, b.handle(t, t.Context(), sqsEvent(compactBody("t1"))))
	first, _ := b.s3.snapshot()
	rel := b.get(t, "t1")
	require.False(t, rel.State.Terminal(), "released for a retry")
	require.Contains(t, rel.LastError, "store the document")

	require.Empty(t, b.handle(t, t.Context(), sqsEvent(compactBody("t1"))))
	require.Empty(t, b.handle(t, t.Context(), sqsEvent(compactBody("t1"))), "the duplicate is skipped")

	objects, puts := b.s3.snapshot()
	require.Equal(t, 2, puts, "the retry writes again; the duplicate of a terminal task does not")
	require.Equal(t, first, objects, "same key, same bytes")
	got := b.get(t, "t1")
	require.Equal(t, task.StateFinished, got.State)
	require.Equal(t, 2, got.Attempts)
	c := b.metrics.counts()
	require.Equal(t, 1.0, c[emf.TasksFinished])
	require.Equal(t, 1.0, c[emf.DuplicatesSkipped])
}

// TestSummaryFitsOnLargestFixtures builds the documents of the largest
// pages in the scrape corpus and the extraction corpus and checks each
// row summary against site.MaxSummaryBytes, with the longest object key
// submit can give (a 64-byte run id, a 256-byte prefix).
func TestSummaryFitsOnLargestFixtures(t *testing.T) {
	t.Parallel()
	c, err := scrape.New(scrape.Options{})
	require.NoError(t, err)
	var files []string
	for _, dir := range []string{"../scrape/testdata/corpus", "../maintext/testdata/extraction-corpus"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.html*"))
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.NotEmpty(t, files)
	biggest := largest(t, files, 6)
	key := s3store.Key(strings.Repeat("p", 255)+"/", strings.Repeat("r", 64), strings.Repeat("r", 64)+"/0000001")
	for _, f := range biggest {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			page := readMaybeGzip(t, f)
			u, _ := url.Parse("https://example.com/")
			doc, err := c.ExtractDocument(t.Context(), bytes.NewReader(page), u)
			require.NoError(t, err)
			sm := doc.Summary()
			sm.Object, sm.SHA256 = key, strings.Repeat("f", 64)
			b, err := sm.MarshalBounded()
			require.NoError(t, err)
			require.LessOrEqual(t, len(b), site.MaxSummaryBytes)
			require.Greater(t, sm.TextLength, 0, "the fixture has main text")
		})
	}
}

func TestSummaryBoundOnHostileTitles(t *testing.T) {
	t.Parallel()
	for _, title := range []string{
		strings.Repeat("x", 100_000),
		strings.Repeat("\x01", 5_000), // each escapes to six bytes
		strings.Repeat("ü", 5_000),
	} {
		d := titled(title)
		sm := d.Summary()
		sm.Object = strings.Repeat("k", 1024)
		b, err := sm.MarshalBounded()
		require.NoError(t, err)
		require.LessOrEqual(t, len(b), site.MaxSummaryBytes)
		var back site.Summary
		require.NoError(t, json.Unmarshal(b, &back))
		require.True(t, back.TitleTrimmed)
	}
}

func largest(t *testing.T, files []string, n int) []string {
	t.Helper()
	type sized struct {
		f string
		n int64
	}
	var all []sized
	for _, f := range files {
		st, err := os.Stat(f)
		require.NoError(t, err)
		all = append(all, sized{f, st.Size()})
	}
	for i := range all { // a few dozen files: selection sort is fine
		for j := i + 1; j < len(all); j++ {
			if all[j].n > all[i].n {
				all[i], all[j] = all[j], all[i]
			}
		}
	}
	var out []string
	for i := 0; i < n && i < len(all); i++ {
		out = append(out, all[i].f)
	}
	return out
}

func readMaybeGzip(t *testing.T, f string) []byte {
	t.Helper()
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	if strings.HasSuffix(f, ".gz") {
		b, err = s3store.Decompress(bytes.NewReader(b))
		require.NoError(t, err)
	}
	return b
}
