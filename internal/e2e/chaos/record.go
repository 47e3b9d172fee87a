package chaos

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/e2e/demo"
	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
	"github.com/taskpipe/taskpipe/internal/task"
)

// maxLastError bounds the lastError kept per image: enough to read why,
// small enough to keep a 3,575-task history a few megabytes.
const maxLastError = 160

// ResultDigest is what a History keeps of a result: the first 12 hex
// digits of its SHA-256.
func ResultDigest(result string) string {
	if result == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(result))
	return hex.EncodeToString(sum[:6])
}

// recorder reads what a finished run left behind into a History.
type recorder struct {
	st     *demo.Stage
	rep    *demo.Report
	poison []Poison
	plan   Plan
	edit   *filterEdit
}

func (r *recorder) record(ctx context.Context) (*History, error) {
	h := &History{RunID: r.rep.RunID, Poison: r.poison}
	if in := r.rep.Input; in != nil {
		for _, u := range in.URLs {
			h.Submitted = append(h.Submitted, cli.TaskID(r.rep.RunID, u.Line))
		}
		for _, rej := range in.Rejected {
			h.Rejected = append(h.Rejected, Rejected{Line: rej.Line, Reason: rej.Reason})
		}
	}
	for _, m := range r.rep.DLQ {
		h.DLQ = append(h.DLQ, DLQMessage{Queue: m.Queue, MessageID: m.MessageID, Reason: m.Reason, TaskID: m.TaskID,
			Body: m.Body, ReceiveCount: m.ReceiveCount, SourceQueue: m.SourceQueue})
	}
	var errs []error
	var err error
	// The injector's counters first, then the faults off: the recorder's
	// own reads are neither throttled nor counted.
	if h.Faults, err = r.faults(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := adminJSON(ctx, r.st.Cloud.AdminClient(), http.MethodDelete, r.st.Cloud.URL()+emu.AdminPrefix+"faults", nil, nil); err != nil {
		errs = append(errs, err)
	}
	if h.Stream, err = readStream(ctx, r.st.AWS, r.st.Outputs.TableName); err != nil {
		errs = append(errs, err)
	}
	if h.Rows, err = readRows(ctx, r.st.Store, r.rep.RunID); err != nil {
		errs = append(errs, err)
	}
	h.Pipe = &PipeHistory{Fates: map[string]PipeFate{}}
	if r.edit != nil {
		fe, err := r.edit.wait(ctx)
		if err != nil {
			errs = append(errs, err)
		}
		h.Pipe.FilterEdit = fe
	}
	for seq, f := range r.st.Cloud.Pipes().Deliveries(r.st.Outputs.PipeName) {
		h.Pipe.Fates[seq] = PipeFate{Delivered: f.Delivered, DeadLettered: f.DeadLettered}
	}
	if fs, err := r.st.Cloud.Functions().Stats(r.st.Outputs.Functions["scraper"]); err != nil {
		errs = append(errs, fmt.Errorf("chaos: scraper stats: %w", err))
	} else {
		h.Faults.ScraperTimeouts = fs.Timeouts
	}
	h.Faults.PoisonPlanned = r.plan.Poison(r.rep.Lines)
	h.Faults.Web = webFaults(r.st.Web, r.rep)
	return h, errors.Join(errs...)
}

// faults reads the injector's configuration and counters through the
// local cloud's admin API.
func (r *recorder) faults(ctx context.Context) (Faults, error) {
	var f Faults
	var view struct {
		fault.Config
		Seed uint64 `json:"seed"`
	}
	if err := adminJSON(ctx, r.st.Cloud.AdminClient(), http.MethodGet, r.st.Cloud.URL()+emu.AdminPrefix+"faults", nil, &view); err != nil {
		return f, err
	}
	f.Config, f.Seed = view.Config, view.Seed
	if err := adminJSON(ctx, r.st.Cloud.AdminClient(), http.MethodGet, r.st.Cloud.URL()+emu.AdminPrefix+"faults/stats", nil, &f.Stats); err != nil {
		return f, err
	}
	return f, nil
}

// webFaults counts the fixture web's failing sites among the run's tasks:
// flaky sites and the 503s they sent (their home-page requests, up to the
// failures each was drawn to send), and fatal sites.
func webFaults(web *fixtureweb.Web, rep *demo.Report) WebFaults {
	var w WebFaults
	if web == nil || rep.Input == nil {
		return w
	}
	stats := web.Stats()
	lines := web.URLs(rep.Lines)
	seen := map[int]bool{}
	for _, u := range rep.Input.URLs {
		if u.Line < 1 || u.Line > len(lines) {
			continue
		}
		e := web.Expect(lines[u.Line-1])
		if e.Site < 0 || seen[e.Site] {
			continue
		}
		seen[e.Site] = true
		switch {
		case e.Behavior == fixtureweb.Flaky:
			w.FlakySites++
			if s, ok := web.Site(e.Site); ok {
				w.Flaky503s += min(stats.HomeBySite[e.Site], int64(s.Failures))
			}
		case e.Outcome == fixtureweb.Failed && (e.Kind == task.KindFatal || e.Kind == task.KindRobots):
			w.FatalSites++
		}
	}
	return w
}

// readRows reads the run's rows through the store (its done and live indexes).
func readRows(ctx context.Context, store *dynamostore.Store, runID string) ([]Row, error) {
	var rows []Row
	cursor := ""
	for {
		page, err := store.RunTasks(ctx, runID, cursor, 1000)
		if err != nil {
			return rows, fmt.Errorf("chaos: read rows: %w", err)
		}
		for _, t := range page.Tasks {
			rows = append(rows, rowOf(t))
		}
		if page.NextCursor == "" {
			return rows, nil
		}
		cursor = page.NextCursor
	}
}

func rowOf(t task.Task) Row {
	im := Image{Status: string(t.State), ClaimToken: t.ClaimToken, Attempts: t.Attempts, MaxAttempts: t.MaxAttempts,
		ErrorKind: string(t.ErrorKind), LastError: task.Truncate(t.LastError, maxLastError), Result: ResultDigest(string(t.Result))}
	if !t.LeaseExpiresAt.IsZero() {
		im.LeaseExpiresAt = t.LeaseExpiresAt.UnixMilli()
	}
	if !t.UpdatedAt.IsZero() {
		im.UpdatedAt = t.UpdatedAt.UnixMilli()
	}
	return Row{TaskID: t.ID, Image: im}
}

// readStream reads every record of the table's stream from TRIM_HORIZON.
func readStream(ctx context.Context, cfg aws.Config, table string) ([]Change, error) {
	var out []Change
	err := demo.ReadStream(ctx, cfg, table, func(rec streamtypes.Record) { out = append(out, changeOf(rec)) })
	if err != nil {
		return out, fmt.Errorf("chaos: %w", err)
	}
	return out, nil
}

func changeOf(rec streamtypes.Record) Change {
	c := Change{Event: string(rec.EventName)}
	d := rec.Dynamodb
	if d == nil {
		return c
	}
	c.Seq = aws.ToString(d.SequenceNumber)
	c.TaskID = str(d.Keys[task.AttrTaskID])
	if d.OldImage != nil {
		im := imageOf(d.OldImage)
		c.Old = &im
	}
	if d.NewImage != nil {
		im := imageOf(d.NewImage)
		c.New = &im
	}
	return c
}

func imageOf(m map[string]streamtypes.AttributeValue) Image {
	return Image{
		Status:         str(m[task.AttrStatus]),
		ClaimToken:     str(m[dynamostore.AttrClaimToken]),
		Attempts:       int(num(m[dynamostore.AttrAttempts])),
		MaxAttempts:    int(num(m[dynamostore.AttrMaxAttempts])),
		LeaseExpiresAt: num(m[dynamostore.AttrLeaseExpiresAt]),
		UpdatedAt:      num(m[dynamostore.AttrUpdatedAt]),
		ErrorKind:      str(m[dynamostore.AttrErrorKind]),
		LastError:      task.Truncate(str(m[dynamostore.AttrLastError]), maxLastError),
		Result:         ResultDigest(str(m[dynamostore.AttrResult])),
	}
}

func str(v streamtypes.AttributeValue) string {
	if s, ok := v.(*streamtypes.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// num reads a number attribute; a missing or malformed one is 0 (and an
// image with attempts or maxAttempts 0 breaks an invariant, visibly).
func num(v streamtypes.AttributeValue) int64 {
	if n, ok := v.(*streamtypes.AttributeValueMemberN); ok {
		x, err := strconv.ParseInt(n.Value, 10, 64)
		if err == nil {
			return x
		}
	}
	return 0
}

// adminJSON calls the local cloud's admin API with client (the cloud's
// AdminClient, which sends the admin token) and decodes its JSON answer
// into out (when not nil).
func adminJSON(ctx context.Context, client *http.Client, method, url string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("chaos: admin %s %s: %w", method, url, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return fmt.Errorf("chaos: admin %s %s: %w", method, url, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("chaos: admin %s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("chaos: admin %s %s: read answer: %w", method, url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("chaos: admin %s %s: %s: %s", method, url, resp.Status, bytes.TrimSpace(b))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("chaos: admin %s %s: decode answer: %w", method, url, err)
		}
	}
	return nil
}
