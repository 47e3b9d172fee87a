package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
	"github.com/taskpipe/taskpipe/internal/e2e/pricing"
	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/task"
)

// roles are the pipeline's functions, in report order.
var roles = []string{"scraper", "enrich", "reconciler"}

// snapshot reads the local cloud's in-process counters right after the run
// went quiet, before the demo's own reads add to them.
func (r *runner) snapshot() {
	rep := r.report
	rep.Requests = r.cloud.CountsByCaller()
	for _, role := range roles {
		name := r.outputs.Functions[role]
		if name == "" {
			continue
		}
		fr := FunctionReport{Role: role, Name: name}
		if cfg, err := r.cloud.Functions().Configuration(name); err == nil {
			fr.MemoryMB = cfg.MemorySize
			fr.Arch = strings.Join(cfg.Architectures, ",")
			fr.logGroup = cfg.LoggingConfig.LogGroup
		}
		if fr.logGroup == "" {
			fr.logGroup = "/aws/lambda/" + name
		}
		if st, err := r.cloud.Functions().Stats(name); err == nil {
			fr.Stats = st
		}
		rep.Functions = append(rep.Functions, fr)
	}
	scraper, _ := r.cloud.Functions().Configuration(r.outputs.Functions["scraper"])
	for _, m := range r.cloud.Mappings().Mappings() {
		if m.FunctionArn == scraper.FunctionArn {
			if st, ok := r.cloud.Mappings().Stats(m.UUID); ok {
				rep.Mapping = st
			}
		}
	}
	if st, ok := r.cloud.Schedules().Stats("", r.outputs.ScheduleName); ok {
		rep.Schedule = st
	}
	rep.Web = r.web.Stats()
}

// collect reads what the run left behind (tasks, DLQs, metrics, REPORT
// lines, stream images) and fills in the report. It keeps going after an
// error, so the report shows as much as could be read.
func (r *runner) collect(ctx context.Context) error {
	rep := r.report
	var errs []error
	if err := r.collectTasks(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := r.collectDLQs(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := r.collectDocuments(); err != nil {
		errs = append(errs, err)
	}
	var err error
	if rep.Metrics, err = r.readMetrics(ctx); err != nil {
		errs = append(errs, err)
	}
	for i := range rep.Functions {
		if err := r.readReports(&rep.Functions[i]); err != nil {
			errs = append(errs, err)
		}
	}
	if rep.Dynamo, err = r.readStream(ctx); err != nil {
		errs = append(errs, err)
	}
	rep.Dynamo.addRequests(rep.Requests)
	usage := rep.Usage()
	if rep.Cost, err = pricing.Default().Estimate(usage, CostPer); err != nil {
		errs = append(errs, fmt.Errorf("demo: cost: %w", err))
	}
	if rep.CostARM, err = rep.estimateARM(); err != nil {
		errs = append(errs, fmt.Errorf("demo: cost at arm64: %w", err))
	}
	return errors.Join(errs...)
}

// collectTasks reads every task of the run and compares each outcome with
// the fixture web's expectation for its input line.
func (r *runner) collectTasks(ctx context.Context) error {
	rep := r.report
	rep.Outcomes = Outcomes{States: map[task.State]int{}, FailedByKind: map[task.ErrorKind]int{}}
	lines := r.web.URLs(r.cfg.Sites)
	var latencies []time.Duration
	err := r.eachTask(ctx, rep.RunID, func(t task.Task) {
		o := &rep.Outcomes
		rep.Documents.addRow(t)
		o.Tasks++
		o.States[t.State]++
		if t.State == task.StateFailed {
			o.FailedByKind[t.ErrorKind]++
		}
		if t.Attempts > 0 {
			o.Claims += t.Attempts
			o.Released += t.Attempts - 1
		}
		if t.State.Terminal() && !t.FinishedAt.IsZero() && !t.CreatedAt.IsZero() {
			latencies = append(latencies, t.FinishedAt.Sub(t.CreatedAt))
		}
		line, ok := lineOf(t.ID)
		if !ok || line < 1 || line > len(lines) {
			rep.Mismatches = append(rep.Mismatches, Mismatch{TaskID: t.ID, Got: string(t.State), Want: "a task id <run>/<input line>"})
			return
		}
		exp := r.web.Expect(lines[line-1])
		if !exp.Matches(t.State, t.ErrorKind) {
			got := string(t.State)
			if t.ErrorKind != "" {
				got += " (" + string(t.ErrorKind) + ")"
			}
			want := string(exp.Outcome)
			if exp.Kind != "" {
				want += " (" + string(exp.Kind) + ")"
			}
			rep.Mismatches = append(rep.Mismatches, Mismatch{TaskID: t.ID, Line: line, URL: t.URL, Behavior: string(exp.Behavior),
				Got: got, Want: want, LastError: t.LastError})
		}
	})
	rep.Latency = LatencyOf(latencies)
	// Each rejected line must be one the fixture web meant to be invalid.
	if rep.Input != nil {
		for _, rej := range rep.Input.Rejected {
			if rej.Line < 1 || rej.Line > len(lines) || r.web.Expect(lines[rej.Line-1]).Outcome != fixtureweb.Rejected {
				rep.Mismatches = append(rep.Mismatches, Mismatch{Line: rej.Line, Got: "rejected at submit: " + rej.Reason, Want: "a task"})
			}
		}
	}
	return err
}

// lineOf reads the input line number from a task id (cli.TaskID).
func lineOf(id string) (int, bool) {
	i := strings.LastIndexByte(id, '/')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(id[i+1:])
	return n, err == nil
}

// collectDLQs lists both DLQs with taskpipe dlq list --json (which makes
// every listed message visible again: nothing is consumed).
func (r *runner) collectDLQs(ctx context.Context) error {
	var out bytes.Buffer
	err := r.env(nil, &out, r.cfg.Log).DLQList(ctx, []string{"--json", "--max", "1000", "--visibility", "5s"})
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m DLQMessage
		if jerr := json.Unmarshal(sc.Bytes(), &m); jerr != nil {
			err = errors.Join(err, fmt.Errorf("demo: dlq list output: %w", jerr))
			continue
		}
		r.report.DLQ = append(r.report.DLQ, m)
	}
	if err != nil {
		return fmt.Errorf("demo: dlq list: %w", err)
	}
	return nil
}

// metricRef names one metric series the report reads.
type metricRef struct {
	namespace, name string
	dims            map[string]string
	dst             *float64
}

// readMetrics sums the run's metrics from the CloudWatch emulation: the
// functions' EMF metrics (namespace taskpipe, names in internal/emf) and
// the pipe's AWS/EventBridge/Pipes metrics.
func (r *runner) readMetrics(ctx context.Context) (Metrics, error) {
	var m Metrics
	pipe := map[string]string{"PipeName": r.outputs.PipeName}
	// Every EMF series carries the deployment's Deployment dimension
	// (DEPLOYMENT_NAME), so a "total" is the series of this deployment.
	own := func(dims map[string]string) map[string]string {
		d := r.outputs.LambdaEnv[handler.EnvDeployment]
		if d == "" {
			return dims
		}
		out := map[string]string{emf.DimDeployment: d}
		for k, v := range dims {
			out[k] = v
		}
		return out
	}
	refs := []metricRef{
		{emf.Namespace, emf.TasksFinished, own(nil), &m.Finished},
		{emf.Namespace, emf.TasksFailed, own(nil), &m.Failed},
		{emf.Namespace, emf.TasksFailed, own(map[string]string{emf.DimErrorKind: string(task.KindFatal)}), &m.FailedFatal},
		{emf.Namespace, emf.TasksFailed, own(map[string]string{emf.DimErrorKind: string(task.KindExhausted)}), &m.FailedExhausted},
		{emf.Namespace, emf.TasksReleased, own(nil), &m.Released},
		{emf.Namespace, emf.DuplicatesSkipped, own(nil), &m.DuplicatesSkipped},
		{emf.Namespace, emf.ClaimsSkipped, own(nil), &m.ClaimsSkipped},
		{emf.Namespace, emf.StaleClaims, own(nil), &m.StaleClaims},
		{emf.Namespace, emf.PoisonForwarded, own(nil), &m.PoisonForwarded},
		{emf.Namespace, emf.MessagesRetried, own(nil), &m.MessagesRetried},
		{emf.Namespace, emf.Redispatched, own(nil), &m.Redispatched},
		{emf.Namespace, emf.StuckFailed, own(nil), &m.StuckFailed},
		{emf.Namespace, emf.ReconcileIncomplete, own(nil), &m.ReconcileIncomplete},
		{emf.Namespace, emf.EnrichDropped, own(nil), &m.EnrichDropped},
		{emf.Namespace, emf.KeyPagesSkipped, own(nil), &m.KeyPagesSkipped},
		{"AWS/EventBridge/Pipes", "EventCount", pipe, &m.PipeEvents},
		{"AWS/EventBridge/Pipes", "Invocations", pipe, &m.PipeInvocations},
		{"AWS/EventBridge/Pipes", "ExecutionFailed", pipe, &m.PipeFailed},
	}
	cw := cloudwatch.NewFromConfig(r.aws)
	// One period spanning the whole run (whole minutes, as CloudWatch
	// requires for periods over 30 s), so each series is one datapoint.
	start := r.started.Add(-time.Minute).Truncate(time.Minute)
	end := r.cfg.Now().Add(time.Minute).Truncate(time.Minute).Add(time.Minute)
	period := int32(end.Sub(start) / time.Second)
	var errs []error
	for _, ref := range refs {
		var dims []cwtypes.Dimension
		for k, v := range ref.dims {
			dims = append(dims, cwtypes.Dimension{Name: aws.String(k), Value: aws.String(v)})
		}
		out, err := cw.GetMetricStatistics(ctx, &cloudwatch.GetMetricStatisticsInput{
			Namespace: aws.String(ref.namespace), MetricName: aws.String(ref.name), Dimensions: dims,
			StartTime: aws.Time(start), EndTime: aws.Time(end), Period: aws.Int32(period),
			Statistics: []cwtypes.Statistic{cwtypes.StatisticSum},
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("demo: metric %s/%s: %w", ref.namespace, ref.name, err))
			continue
		}
		for _, dp := range out.Datapoints {
			*ref.dst += aws.ToFloat64(dp.Sum)
		}
	}
	return m, errors.Join(errs...)
}

// reportLine matches Lambda's Text-format REPORT line.
var reportLine = regexp.MustCompile(`^REPORT RequestId: \S+\tDuration: ([0-9.]+) ms\tBilled Duration: (\d+) ms\tMemory Size: (\d+) MB\tMax Memory Used: (\d+) MB\t(?:Init Duration: ([0-9.]+) ms\t)?`)

// readReports reads a function's REPORT lines from its log group in the
// CloudWatch Logs emulation: billed duration (for GB-seconds), peak
// memory, init durations (cold starts) and one sample line.
func (r *runner) readReports(fr *FunctionReport) error {
	logs := r.cloud.Logs()
	streams, err := logs.Streams(fr.logGroup)
	if err != nil {
		return fmt.Errorf("demo: log group %s: %w", fr.logGroup, err)
	}
	for _, st := range streams {
		events, err := logs.Events(fr.logGroup, st)
		if err != nil {
			return fmt.Errorf("demo: log stream %s: %w", st, err)
		}
		for _, ev := range events {
			fr.LogBytes += int64(len(ev.Message))
			fr.LogEvents++
			if rep, ok := parseReport(ev.Message); ok {
				fr.Reports++
				fr.BilledMS += rep.billedMS
				fr.DurationMS += rep.durationMS
				fr.MaxMemoryMB = max(fr.MaxMemoryMB, rep.maxMemMB)
				if rep.init {
					fr.Inits++
				}
				if fr.SampleReport == "" || (rep.init && !strings.Contains(fr.SampleReport, "Init Duration")) {
					fr.SampleReport = strings.TrimSpace(ev.Message)
				}
			}
		}
	}
	return nil
}

type reportFields struct {
	durationMS float64
	billedMS   int64
	maxMemMB   int64
	init       bool
}

// parseReport reads a REPORT line in Lambda's Text format, or a
// platform.report record in its JSON format.
func parseReport(msg string) (reportFields, bool) {
	if m := reportLine.FindStringSubmatch(msg); m != nil {
		d, _ := strconv.ParseFloat(m[1], 64)
		b, _ := strconv.ParseInt(m[2], 10, 64)
		mem, _ := strconv.ParseInt(m[4], 10, 64)
		return reportFields{durationMS: d, billedMS: b, maxMemMB: mem, init: m[5] != ""}, true
	}
	if !strings.Contains(msg, `"platform.report"`) {
		return reportFields{}, false
	}
	var rec struct {
		Type   string `json:"type"`
		Record struct {
			Metrics struct {
				DurationMS       float64  `json:"durationMs"`
				BilledDurationMS int64    `json:"billedDurationMs"`
				MaxMemoryUsedMB  int64    `json:"maxMemoryUsedMB"`
				InitDurationMS   *float64 `json:"initDurationMs"`
			} `json:"metrics"`
		} `json:"record"`
	}
	if err := json.Unmarshal([]byte(msg), &rec); err != nil || rec.Type != "platform.report" {
		return reportFields{}, false
	}
	mt := rec.Record.Metrics
	return reportFields{durationMS: mt.DurationMS, billedMS: mt.BilledDurationMS, maxMemMB: mt.MaxMemoryUsedMB, init: mt.InitDurationMS != nil}, true
}

// readStream reads every record of the task table's stream and adds up
// the write units the writes consumed, from their old and new images (see
// WriteUnits).
func (r *runner) readStream(ctx context.Context) (DynamoUsage, error) {
	var u DynamoUsage
	err := ReadStream(ctx, r.aws, r.outputs.TableName, u.addRecord)
	return u, err
}

// ReadStream calls f with every record of the table's streams, read from
// TRIM_HORIZON through the DynamoDB Streams API, shard by shard in shard
// id order, and stops at the tip of each open shard.
func ReadStream(ctx context.Context, cfg aws.Config, table string, f func(streamtypes.Record)) error {
	api := dynamodbstreams.NewFromConfig(cfg)
	ls, err := api.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)})
	if err != nil {
		return fmt.Errorf("demo: list streams: %w", err)
	}
	for _, s := range ls.Streams {
		var shards []streamtypes.Shard
		var last *string
		for {
			d, err := api.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: s.StreamArn, ExclusiveStartShardId: last})
			if err != nil {
				return fmt.Errorf("demo: describe stream: %w", err)
			}
			shards = append(shards, d.StreamDescription.Shards...)
			if last = d.StreamDescription.LastEvaluatedShardId; last == nil {
				break
			}
		}
		sort.Slice(shards, func(i, j int) bool { return aws.ToString(shards[i].ShardId) < aws.ToString(shards[j].ShardId) })
		for _, sh := range shards {
			it, err := api.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
				StreamArn: s.StreamArn, ShardId: sh.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon,
			})
			if err != nil {
				return fmt.Errorf("demo: shard iterator: %w", err)
			}
			for iter := it.ShardIterator; iter != nil; {
				out, err := api.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter, Limit: aws.Int32(1000)})
				if err != nil {
					return fmt.Errorf("demo: get records: %w", err)
				}
				for _, rec := range out.Records {
					f(rec)
				}
				// An open shard's iterator never ends; stop at its tip.
				if len(out.Records) == 0 {
					break
				}
				iter = out.NextShardIterator
			}
		}
	}
	return nil
}
