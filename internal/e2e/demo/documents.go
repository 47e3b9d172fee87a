package demo

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/taskpipe/taskpipe/internal/s3store"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
)

// Documents is what the run left in the result bucket, read two ways: the
// Finished rows' compact summaries (what `taskpipe results --format csv`
// shows without reading S3) and the objects themselves, read in process.
type Documents struct {
	Bucket, Prefix string

	// From the rows.
	Finished    int // Finished rows with a summary
	Pages       int // pages fetched, start pages included
	WithText    int
	WithPhone   int
	WithEmail   int
	MaxRowBytes int
	// BadRows are Finished rows whose result is not a summary naming an
	// object.
	BadRows []string

	// From the bucket.
	Objects int
	Bytes   int64
	// Robots are the robots.txt verdicts of the stored documents by
	// outcome; Disallowed the key pages robots.txt kept the scraper from.
	Robots     map[site.RobotsOutcome]int
	Disallowed int
	// Unmatched are objects without a row naming them with their digest,
	// and rows whose object is missing.
	Unmatched []string

	rows map[string]string // object key → the row's sha256
}

// addRow records a Finished task's summary.
func (d *Documents) addRow(t task.Task) {
	if t.State != task.StateFinished {
		return
	}
	if d.rows == nil {
		d.rows = map[string]string{}
	}
	var s site.Summary
	if err := json.Unmarshal(t.Result, &s); err != nil || s.Object == "" || s.SHA256 == "" {
		d.BadRows = append(d.BadRows, t.ID)
		return
	}
	d.Finished++
	d.Pages += s.Pages
	if s.TextLength > 0 {
		d.WithText++
	}
	if s.Phones > 0 {
		d.WithPhone++
	}
	if s.Emails > 0 {
		d.WithEmail++
	}
	d.MaxRowBytes = max(d.MaxRowBytes, len(t.Result))
	d.rows[s.Object] = s.SHA256
}

// addObject records one stored document.
func (d *Documents) addObject(key string, body []byte) error {
	d.Objects++
	d.Bytes += int64(len(body))
	sum := sha256.Sum256(body)
	want, ok := d.rows[key]
	if !ok || want != hex.EncodeToString(sum[:]) {
		d.Unmatched = append(d.Unmatched, key)
	}
	delete(d.rows, key)
	plain, err := s3store.Decompress(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("demo: document %s: %w", key, err)
	}
	doc, err := site.Unmarshal(plain)
	if err != nil {
		return fmt.Errorf("demo: document %s: %w", key, err)
	}
	if d.Robots == nil {
		d.Robots = map[site.RobotsOutcome]int{}
	}
	for _, v := range doc.Robots {
		d.Robots[v.Outcome]++
	}
	for _, f := range doc.Fetches {
		if f.Outcome == site.FetchDisallowed {
			d.Disallowed++
		}
	}
	return nil
}

// finish lists the rows whose object was never found.
func (d *Documents) finish() {
	for _, k := range sortedKeys(d.rows) {
		d.Unmatched = append(d.Unmatched, k+" (no object)")
	}
	d.rows = nil
}

// collectDocuments reads the run's objects from the local S3.
func (r *runner) collectDocuments() error {
	d := &r.report.Documents
	d.Bucket, d.Prefix = r.outputs.ResultBucket, r.outputs.ResultPrefix
	err := r.cloud.Buckets().Each(d.Bucket, d.Prefix+s3store.RunPrefix(r.report.RunID), d.addObject)
	d.finish()
	if err != nil {
		return fmt.Errorf("demo: documents: %w", err)
	}
	return nil
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
