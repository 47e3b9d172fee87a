package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/taskpipe/taskpipe/internal/s3store"
	"github.com/taskpipe/taskpipe/internal/task"
)

// resultsPage is the page size of the export: small enough that a page of
// 16 KiB results stays well under DynamoDB's 1 MB per Query.
const resultsPage = 50

var resultsHelp = help{
	name:     "results",
	synopsis: "RUN [--format jsonl|csv] [--state S[,S...]] [--documents=false] [--download DIR] [--bucket B]",
	text: `
Exports every task of RUN, in task-id (input line) order, page by page: its
outcome (id, url, state, attempts, errorKind, lastError, finishedAt) and the
fields of the scraper's summary (finalUrl, httpStatus, title, description,
canonical, lang, h1, internalLinks, externalLinks, emails, socials,
textLength, truncated), or of the compact summary the scraper keeps since
it stores each site document in S3 (title, language, pages, emailCount,
phones, addresses, socialCount, textLength, object, sha256). The summary is read generically: a field that is
missing or of another type is left empty, and a result that is not a JSON
object is reported in resultError.

jsonl writes one JSON object per task (emails and socials as arrays). csv
writes a header and one row per task; emails are joined with spaces and
socials as network=url joined with spaces. A CSV cell that starts with =,
+, - or @ gets a leading ' so that spreadsheets do not run scraped text as
a formula.

With jsonl, each task whose row names a stored site document (object) gets
the document itself in "document", read from the result bucket (--bucket,
TASKPIPE_RESULT_BUCKET or Terraform output result_bucket_name) and checked
against the row's sha256; --documents=false leaves it out. --download DIR
also writes each such object, as stored (gzip JSON), to DIR/<object key>,
checked the same way; existing files are overwritten with the same bytes.`,
}

// maxDocumentBytes bounds one stored document read back (compressed and
// decompressed): the scraper's documents are a few KiB to a few MiB.
const maxDocumentBytes = 64 << 20

// ResultRow is one exported task.
type ResultRow struct {
	ID            string   `json:"id"`
	URL           string   `json:"url"`
	State         string   `json:"state"`
	Attempts      int      `json:"attempts"`
	ErrorKind     string   `json:"errorKind,omitempty"`
	LastError     string   `json:"lastError,omitempty"`
	FinishedAt    string   `json:"finishedAt,omitempty"`
	FinalURL      string   `json:"finalUrl,omitempty"`
	HTTPStatus    int      `json:"httpStatus,omitempty"`
	Title         string   `json:"title,omitempty"`
	Description   string   `json:"description,omitempty"`
	Canonical     string   `json:"canonical,omitempty"`
	Lang          string   `json:"lang,omitempty"`
	H1            string   `json:"h1,omitempty"`
	InternalLinks *int     `json:"internalLinks,omitempty"`
	ExternalLinks *int     `json:"externalLinks,omitempty"`
	Emails        []string `json:"emails,omitempty"`
	Socials       []Social `json:"socials,omitempty"`
	TextLength    *int     `json:"textLength,omitempty"`
	Truncated     bool     `json:"truncated,omitempty"`
	// The compact summary the scraper keeps since site documents moved to
	// S3 (site.Summary): counts, and where the document is.
	Language    string `json:"language,omitempty"`
	Pages       *int   `json:"pages,omitempty"`
	EmailsN     *int   `json:"emailCount,omitempty"`
	Phones      *int   `json:"phones,omitempty"`
	Addresses   *int   `json:"addresses,omitempty"`
	SocialsN    *int   `json:"socialCount,omitempty"`
	Object      string `json:"object,omitempty"`
	SHA256      string `json:"sha256,omitempty"`
	ResultError string `json:"resultError,omitempty"`
	// Document is the stored site document (jsonl with documents).
	Document json.RawMessage `json:"document,omitempty"`
}

// Social is one social profile link of a result.
type Social struct {
	Network string `json:"network"`
	URL     string `json:"url"`
}

var csvColumns = []string{"id", "url", "state", "attempts", "errorKind", "lastError", "finishedAt",
	"finalUrl", "httpStatus", "title", "description", "canonical", "lang", "h1",
	"internalLinks", "externalLinks", "emails", "socials", "textLength", "truncated",
	"language", "pages", "emailCount", "phones", "addresses", "socialCount", "object", "sha256", "resultError"}

// NewResultRow flattens a task and its result summary.
func NewResultRow(t task.Task) ResultRow {
	r := ResultRow{ID: t.ID, URL: t.URL, State: string(t.State), Attempts: t.Attempts,
		ErrorKind: string(t.ErrorKind), LastError: t.LastError}
	if !t.FinishedAt.IsZero() {
		r.FinishedAt = t.FinishedAt.UTC().Format(time.RFC3339Nano)
	}
	if len(t.Result) == 0 {
		return r
	}
	var m map[string]any
	if err := json.Unmarshal(t.Result, &m); err != nil || m == nil {
		r.ResultError = "result is not a JSON object"
		return r
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	num := func(k string) *int {
		f, ok := m[k].(float64)
		if !ok {
			return nil
		}
		n := int(f)
		return &n
	}
	r.FinalURL, r.Title, r.Description = str("url"), str("title"), str("description")
	r.Canonical, r.Lang, r.H1 = str("canonical"), str("lang"), str("h1")
	if n := num("status"); n != nil {
		r.HTTPStatus = *n
	}
	r.InternalLinks, r.ExternalLinks, r.TextLength = num("internalLinks"), num("externalLinks"), num("textLength")
	r.Truncated, _ = m["truncated"].(bool)
	r.Language, r.Object, r.SHA256 = str("language"), str("object"), str("sha256")
	r.Pages, r.Phones, r.Addresses = num("pages"), num("phones"), num("addresses")
	// The compact summary counts e-mails and socials; the older one listed
	// them (read below).
	r.EmailsN, r.SocialsN = num("emails"), num("socials")
	if list, ok := m["emails"].([]any); ok {
		for _, v := range list {
			if s, ok := v.(string); ok {
				r.Emails = append(r.Emails, s)
			}
		}
	}
	if list, ok := m["socials"].([]any); ok {
		for _, v := range list {
			o, ok := v.(map[string]any)
			if !ok {
				continue
			}
			n, _ := o["network"].(string)
			u, _ := o["url"].(string)
			if u != "" {
				r.Socials = append(r.Socials, Social{Network: n, URL: u})
			}
		}
	}
	return r
}

func (r ResultRow) csvRecord() []string {
	opt := func(p *int) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(*p)
	}
	socials := make([]string, len(r.Socials))
	for i, s := range r.Socials {
		socials[i] = s.Network + "=" + s.URL
	}
	status := ""
	if r.HTTPStatus != 0 {
		status = strconv.Itoa(r.HTTPStatus)
	}
	truncated := ""
	if r.Truncated {
		truncated = "true"
	}
	rec := []string{r.ID, r.URL, r.State, strconv.Itoa(r.Attempts), r.ErrorKind, r.LastError, r.FinishedAt,
		r.FinalURL, status, r.Title, r.Description, r.Canonical, r.Lang, r.H1,
		opt(r.InternalLinks), opt(r.ExternalLinks), strings.Join(r.Emails, " "), strings.Join(socials, " "),
		opt(r.TextLength), truncated,
		r.Language, opt(r.Pages), opt(r.EmailsN), opt(r.Phones), opt(r.Addresses), opt(r.SocialsN), r.Object, r.SHA256, r.ResultError}
	for i, v := range rec {
		rec[i] = defuseFormula(v)
	}
	return rec
}

// defuseFormula prefixes a cell that a spreadsheet would evaluate (OWASP
// "CSV injection"); scraped titles are untrusted text.
func defuseFormula(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// parseStates reads a comma-separated list of states.
func parseStates(flagName, v string) ([]task.State, error) {
	var out []task.State
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		var st task.State
		for _, s := range task.States() {
			if strings.EqualFold(string(s), part) {
				st = s
			}
		}
		if st == "" {
			return nil, usagef("--%s %q: unknown state %q (want Pending, Running, Finished or Failed)", flagName, v, part)
		}
		if !containsState(out, st) {
			out = append(out, st)
		}
	}
	return out, nil
}

func containsState(list []task.State, s task.State) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Results runs "taskpipe results".
func (e *Env) Results(ctx context.Context, args []string) error {
	fs := e.newFlagSet(resultsHelp)
	format := fs.String("format", "jsonl", "output format: jsonl or csv")
	stateFlag := fs.String("state", "", "only tasks in these states (comma-separated), e.g. Failed")
	withDocs := fs.Bool("documents", true, "jsonl: add each task's stored site document from S3")
	download := fs.String("download", "", "also write each stored document (gzip JSON) under `DIR`, by its object key")
	res := e.addResources(fs, OutputTable, OutputResultBucket)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one RUN, got %q", pos)
	}
	if *format != "jsonl" && *format != "csv" {
		return usagef("--format %q: want jsonl or csv", *format)
	}
	states, err := parseStates("state", *stateFlag)
	if err != nil {
		return err
	}
	c, err := e.clients(ctx)
	if err != nil {
		return err
	}
	store, err := e.store(ctx, res, c)
	if err != nil {
		return err
	}
	run := pos[0]
	docs := &documents{env: e, res: res, s3: c.s3, dir: *download}
	fetch := *download != "" || (*format == "jsonl" && *withDocs)
	bw := bufio.NewWriter(e.out())
	var cw *csv.Writer
	if *format == "csv" {
		cw = csv.NewWriter(bw)
		if err := cw.Write(csvColumns); err != nil {
			return fmt.Errorf("results: write: %w", err)
		}
	}
	n, seen, cursor := 0, 0, ""
	for {
		page, err := store.RunTasks(ctx, run, cursor, resultsPage)
		if err != nil {
			_ = flush(bw, cw) // keep what was exported; the error below says it is incomplete
			return fmt.Errorf("results: after %d tasks: %w", n, err)
		}
		seen += len(page.Tasks)
		for _, t := range page.Tasks {
			if len(states) > 0 && !containsState(states, t.State) {
				continue
			}
			row := NewResultRow(t)
			if fetch && row.Object != "" {
				doc, err := docs.get(ctx, row)
				if err != nil {
					_ = flush(bw, cw)
					return fmt.Errorf("results: task %s: %w", t.ID, err)
				}
				if *format == "jsonl" && *withDocs {
					row.Document = doc
				}
			}
			if cw != nil {
				err = cw.Write(row.csvRecord())
			} else {
				err = writeJSONLine(bw, row)
			}
			if err != nil {
				return fmt.Errorf("results: write: %w", err)
			}
			n++
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if err := flush(bw, cw); err != nil {
		return fmt.Errorf("results: write: %w", err)
	}
	if seen == 0 {
		return fmt.Errorf("results: run %s has no tasks (wrong run id?)", run)
	}
	fmt.Fprintf(e.errw(), "results: run %s: %d tasks exported", run, n)
	if docs.n > 0 {
		fmt.Fprintf(e.errw(), ", %d documents read (%d bytes stored)", docs.n, docs.bytes)
		if *download != "" {
			fmt.Fprintf(e.errw(), ", written under %s", *download)
		}
	}
	fmt.Fprintln(e.errw())
	return nil
}

// documents reads the stored site documents of a run's rows.
type documents struct {
	env      *Env
	res      *resources
	s3       *s3.Client
	dir      string
	bucket   string
	n, bytes int
}

// get returns the decompressed document row.Object names, after checking
// the stored bytes against row.SHA256; with a download directory it also
// writes them there.
func (d *documents) get(ctx context.Context, row ResultRow) (json.RawMessage, error) {
	if d.bucket == "" {
		b, err := d.res.get(ctx, d.res.bucket)
		if err != nil {
			return nil, fmt.Errorf("the row names a stored document; %w (or --documents=false)", err)
		}
		d.bucket = b
	}
	out, err := d.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(d.bucket), Key: aws.String(row.Object)})
	if err != nil {
		return nil, fmt.Errorf("get s3://%s/%s: %w", d.bucket, row.Object, err)
	}
	defer func() { _ = out.Body.Close() }() // read to the end or abandoned on error
	stored, err := io.ReadAll(io.LimitReader(out.Body, maxDocumentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read s3://%s/%s: %w", d.bucket, row.Object, err)
	}
	if len(stored) > maxDocumentBytes {
		return nil, fmt.Errorf("s3://%s/%s is over %d bytes", d.bucket, row.Object, maxDocumentBytes)
	}
	if sum := sha256.Sum256(stored); row.SHA256 != "" && hex.EncodeToString(sum[:]) != row.SHA256 {
		return nil, fmt.Errorf("s3://%s/%s: sha256 %x, the row says %s (the object changed after the task finished)", d.bucket, row.Object, sum, row.SHA256)
	}
	doc, err := s3store.Decompress(io.LimitReader(bytes.NewReader(stored), maxDocumentBytes))
	if err != nil {
		return nil, fmt.Errorf("s3://%s/%s: %w", d.bucket, row.Object, err)
	}
	if !json.Valid(doc) {
		return nil, fmt.Errorf("s3://%s/%s is not JSON", d.bucket, row.Object)
	}
	if d.dir != "" {
		if err := writeObject(d.dir, row.Object, stored); err != nil {
			return nil, err
		}
	}
	d.n++
	d.bytes += len(stored)
	return doc, nil
}

// writeObject writes body to dir/key through a temporary file, so a file
// there is whole. The key comes from a task row: it must stay inside dir.
func writeObject(dir, key string, body []byte) error {
	if !filepath.IsLocal(key) {
		return fmt.Errorf("download: object key %q would leave %s", key, dir)
	}
	path := filepath.Join(dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("download: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".download-*")
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	_, werr := f.Write(body)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name()) // best effort: the error below is what matters
		return fmt.Errorf("download: write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("download: %w", err)
	}
	return nil
}

func flush(bw *bufio.Writer, cw *csv.Writer) error {
	if cw != nil {
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	}
	return bw.Flush()
}
