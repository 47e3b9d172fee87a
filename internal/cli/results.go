package cli

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/task"
)

// resultsPage is the page size of the export: small enough that a page of
// 16 KiB results stays well under DynamoDB's 1 MB per Query.
const resultsPage = 50

var resultsHelp = help{
	name:     "results",
	synopsis: "RUN [--format jsonl|csv] [--state S[,S...]]",
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
a formula.`,
}

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
	res := e.addResources(fs, OutputTable)
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
	fmt.Fprintf(e.errw(), "results: run %s: %d tasks exported\n", run, n)
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
