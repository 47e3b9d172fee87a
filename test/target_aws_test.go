//go:build aws

package test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
	"github.com/taskpipe/taskpipe/internal/message"
	"github.com/taskpipe/taskpipe/internal/task"
)

// Environment of the AWS target (test/README.md).
const (
	// envSite is the website healthy tasks fetch, each with its own query
	// string (default https://example.com/).
	envSite = "TASKPIPE_TEST_SITE"
	// envSpikeSite is a website you run that can take the traffic spike
	// (3,575 requests in a few minutes, up to 140 at once). Without it the
	// spike's tasks point at a blocked address and fail at once, so no
	// third party is loaded.
	envSpikeSite = "TASKPIPE_TEST_SPIKE_SITE"
	// envRetryableURL is a URL whose fetches time out (default
	// http://example.com:81/, a port that drops connections).
	envRetryableURL = "TASKPIPE_TEST_RETRYABLE_URL"
)

// teardownReserve is how long before go test's -timeout the suite stops
// and destroys the stack (guardTeardown): a destroy of examples/complete
// waits for the pipe, the event source mapping and the table to go, and
// may retry, which takes minutes.
const teardownReserve = 25 * time.Minute

// minTimeout is the shortest go test -timeout the AWS target starts with:
// a run takes 30–45 minutes of scenarios plus the apply and the reserve
// for the teardown (make test/aws passes 100m).
const minTimeout = 80 * time.Minute

// awsTimings are short enough for a test run and long enough for real
// fetches over the internet: 30 s of scraper time (25 s of fetching), a
// visibility timeout of 6 × 30 s. Waits are five times the local ones
// (CloudWatch metrics and alarms need minutes).
var awsTimings = timings{
	ScraperTimeout: 30,
	Visibility:     180,
	Lease:          40,
	Margin:         5,
	RunningGrace:   240,
	PendingGrace:   60,
	RetryBackoff:   5,
	Schedule:       "rate(1 hour)",
	Patience:       5,
	PipeLag:        2 * time.Minute,
}

// awsTarget applies terraform/examples/complete to a real account with the
// real hashicorp/aws provider.
type awsTarget struct {
	region string
	sites  *publicSites
}

func newTarget(t *testing.T) target {
	t.Helper()
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	if region == "" {
		t.Fatal("the aws target needs AWS_REGION (and credentials the SDK's default chain finds)")
	}
	if dl, ok := t.Deadline(); ok && time.Until(dl) < minTimeout-5*time.Minute {
		t.Fatalf("go test -timeout leaves %s: too short for the AWS target (scenarios 30–45 min, apply, %s kept for the teardown); use -timeout %s or more (make test/aws)",
			time.Until(dl).Round(time.Minute), teardownReserve, minTimeout)
	}
	if strings.Contains(os.Getenv("TF_CLI_CONFIG_FILE"), "tfmirror") {
		t.Fatalf("TF_CLI_CONFIG_FILE=%s installs the local provider; unset it for the aws target", os.Getenv("TF_CLI_CONFIG_FILE"))
	}
	return &awsTarget{region: region, sites: newPublicSites()}
}

func (*awsTarget) Name() string      { return "aws" }
func (*awsTarget) Example() string   { return "complete" }
func (*awsTarget) Timings() timings  { return awsTimings }
func (a *awsTarget) Sites() websites { return a.sites }

func (a *awsTarget) Prepare(t *testing.T, name string) (map[string]any, map[string]string) {
	t.Helper()
	root, err := tfprovidertest.RepoRoot()
	if err != nil {
		t.Fatalf("find the repository: %v", err)
	}
	dist := filepath.Join(root, "dist")
	for _, fn := range []string{"scraper", "reconciler", "enrich"} {
		if zip := filepath.Join(dist, fn+"-arm64.zip"); !fileExists(zip) {
			t.Fatalf("%s is missing: run make build", zip)
		}
	}
	return map[string]any{
		"region":       a.region,
		"dist_dir":     dist,
		"architecture": "arm64",
		"tags":         map[string]any{"Purpose": "taskpipe-integration-test", "Deployment": name},
		// The complete example protects its table; the teardown must be
		// able to delete it.
		"enable_table_deletion_protection": false,
	}, map[string]string{}
}

func (a *awsTarget) AWS(ctx context.Context) (aws.Config, error) {
	return config.LoadDefaultConfig(ctx, config.WithRegion(a.region))
}

// FireReconciler invokes the reconciler synchronously with the schedule's
// input ({}), which returns its report. Its reserved concurrency is 1, so
// a throttle (a scheduled run at the same moment) is retried.
func (a *awsTarget) FireReconciler(ctx context.Context, d *deployment) (handler.Report, error) {
	for attempt := 1; ; attempt++ {
		out, err := d.lambda.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String(d.fn("reconciler")),
			InvocationType: lambdatypes.InvocationTypeRequestResponse, Payload: []byte("{}")})
		var tooMany *lambdatypes.TooManyRequestsException
		if errors.As(err, &tooMany) && attempt < 10 {
			time.Sleep(5 * time.Second)
			continue
		}
		if err != nil {
			return handler.Report{}, fmt.Errorf("invoke the reconciler: %w", err)
		}
		if out.FunctionError != nil {
			return handler.Report{}, fmt.Errorf("the reconciler failed (%s): %s", aws.ToString(out.FunctionError), out.Payload)
		}
		var rep handler.Report
		if err := json.Unmarshal(out.Payload, &rep); err != nil {
			return handler.Report{}, fmt.Errorf("decode the reconciler's report %s: %w", out.Payload, err)
		}
		return rep, nil
	}
}

// KillAfterClaim cannot kill a Lambda instance on AWS; it leaves the
// database and the queue exactly as a worker that died after its claim
// does: the task is written as Running under the test's own claim token
// (attempts 1, a lease of the deployment's length), and its work message
// reappears only after the visibility timeout (sent with that delay), as
// the dead worker's unacknowledged message would.
func (a *awsTarget) KillAfterClaim(t *testing.T, d *deployment, tk task.Task) {
	t.Helper()
	now := time.Now()
	tk.State, tk.Attempts, tk.MaxAttempts = task.StateRunning, 1, task.DefaultMaxAttempts
	tk.ClaimToken = "dead-worker-" + uuid.NewString()
	tk.LeaseExpiresAt = now.Add(time.Duration(d.timing.Lease) * time.Second)
	tk.CreatedAt, tk.UpdatedAt = now, now
	d.putRow(t, tk)
	body, err := message.Message{Version: message.Version, TaskID: tk.ID, RunID: tk.RunID, URL: tk.URL}.Marshal()
	if err != nil {
		t.Fatalf("work message: %v", err)
	}
	delay := min(d.timing.Visibility, 900) // SQS caps DelaySeconds at 15 minutes
	if _, err := d.sqs.SendMessage(testContext(t), &sqs.SendMessageInput{QueueUrl: aws.String(d.out.WorkQueueURL),
		MessageBody: aws.String(string(body)), DelaySeconds: int32(delay)}); err != nil {
		t.Fatalf("send the dead worker's message: %v", err)
	}
}

// StartOutage disables the scraper's event source mapping and receives
// every work message itself, never deleting one: each delivery fails, as
// it would with a consumer that crashes, until maxReceiveCount moves the
// message to the work DLQ. (Setting the scraper's reserved concurrency to
// 0 would throttle instead, but whether Lambda keeps receiving, and so
// counting, while it cannot invoke is not documented.)
func (a *awsTarget) StartOutage(ctx context.Context, d *deployment) (func(context.Context) error, error) {
	uuidOf, err := a.mapping(ctx, d)
	if err != nil {
		return nil, err
	}
	if err := a.setMapping(ctx, d, uuidOf, false); err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			// Errors end in the scenario's own wait for the DLQ.
			_, _ = d.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(d.out.WorkQueueURL),
				MaxNumberOfMessages: 10, VisibilityTimeout: 1, WaitTimeSeconds: 1})
		}
	}()
	var once sync.Once
	return func(ctx context.Context) error {
		var err error
		once.Do(func() {
			close(stop)
			wg.Wait()
			err = a.setMapping(ctx, d, uuidOf, true)
		})
		return err
	}, nil
}

func (a *awsTarget) mapping(ctx context.Context, d *deployment) (string, error) {
	out, err := d.lambda.ListEventSourceMappings(ctx, &lambda.ListEventSourceMappingsInput{FunctionName: aws.String(d.fn("scraper"))})
	if err != nil {
		return "", fmt.Errorf("list the scraper's event source mappings: %w", err)
	}
	if len(out.EventSourceMappings) != 1 {
		return "", fmt.Errorf("the scraper has %d event source mappings, want 1", len(out.EventSourceMappings))
	}
	return aws.ToString(out.EventSourceMappings[0].UUID), nil
}

// setMapping enables or disables the mapping and waits until it settled.
func (a *awsTarget) setMapping(ctx context.Context, d *deployment, id string, enabled bool) error {
	if _, err := d.lambda.UpdateEventSourceMapping(ctx, &lambda.UpdateEventSourceMappingInput{UUID: aws.String(id), Enabled: aws.Bool(enabled)}); err != nil {
		return fmt.Errorf("update event source mapping %s: %w", id, err)
	}
	want := "Disabled"
	if enabled {
		want = "Enabled"
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		out, err := d.lambda.GetEventSourceMapping(ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(id)})
		if err != nil {
			return fmt.Errorf("get event source mapping %s: %w", id, err)
		}
		if aws.ToString(out.State) == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("event source mapping %s is %s, not %s, after 5 minutes", id, aws.ToString(out.State), want)
		}
		time.Sleep(5 * time.Second)
	}
}

// ResetPeak does nothing: the peak is read from CloudWatch for the
// measurement's time window.
func (a *awsTarget) ResetPeak(context.Context, *deployment) error { return nil }

// PeakConcurrency is the Maximum of AWS/Lambda ConcurrentExecutions for
// the scraper over one-minute periods since from, read once the metric
// covers the whole window (it arrives a few minutes late).
func (a *awsTarget) PeakConcurrency(t *testing.T, d *deployment, from time.Time) int {
	t.Helper()
	end := time.Now()
	peak := 0
	d.waitFor(t, "ConcurrentExecutions datapoints for the spike", 3*time.Minute, 15*time.Second, func() (bool, string, error) {
		out, err := d.cw.GetMetricStatistics(testContext(t), &cloudwatch.GetMetricStatisticsInput{
			Namespace: aws.String("AWS/Lambda"), MetricName: aws.String("ConcurrentExecutions"),
			Dimensions: []cwtypes.Dimension{{Name: aws.String("FunctionName"), Value: aws.String(d.fn("scraper"))}},
			StartTime:  aws.Time(from.Truncate(time.Minute)), EndTime: aws.Time(end.Add(time.Minute)),
			Period: aws.Int32(60), Statistics: []cwtypes.Statistic{cwtypes.StatisticMaximum},
		})
		if err != nil {
			return false, "", fmt.Errorf("get ConcurrentExecutions: %w", err)
		}
		var latest time.Time
		peak = 0
		for _, p := range out.Datapoints {
			peak = max(peak, int(aws.ToFloat64(p.Maximum)))
			if ts := aws.ToTime(p.Timestamp); ts.After(latest) {
				latest = ts
			}
		}
		covered := !latest.IsZero() && !latest.Before(end.Truncate(time.Minute).Add(-time.Minute))
		return covered, fmt.Sprintf("%d datapoints, latest %s, peak so far %d", len(out.Datapoints), latest.Format(time.RFC3339), peak), nil
	})
	return peak
}

// EvaluateAlarms does nothing on AWS; CloudWatch evaluates on its own
// schedule and the callers poll DescribeAlarms.
func (a *awsTarget) EvaluateAlarms(context.Context, *deployment) error { return nil }

func (a *awsTarget) Close() error { return nil }

// publicSites are the AWS target's websites: a page on the internet (each
// task with its own query string, so URLs stay distinct), addresses the
// scraper must refuse, and a URL that times out.
type publicSites struct {
	mu   sync.Mutex
	next int
}

func newPublicSites() *publicSites { return &publicSites{} }

func envOr(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

func (p *publicSites) numbered(base string, n int) []site {
	p.mu.Lock()
	defer p.mu.Unlock()
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	out := make([]site, n)
	for i := range out {
		p.next++
		out[i] = site{URL: fmt.Sprintf("%s%staskpipe-test=%d", base, sep, p.next)}
	}
	return out
}

func (p *publicSites) Healthy(t *testing.T, n int) []site {
	t.Helper()
	return p.numbered(envOr(envSite, "https://example.com/"), n)
}

// Spike uses the site of TASKPIPE_TEST_SPIKE_SITE; without one, loopback
// URLs that the scraper refuses at once (fatal), so the spike measures
// the pipeline's cap without loading anyone's website.
func (p *publicSites) Spike(t *testing.T, n int) []site {
	t.Helper()
	if base := os.Getenv(envSpikeSite); base != "" {
		return p.numbered(base, n)
	}
	t.Logf("%s is not set: the spike's tasks point at a blocked loopback address and fail at once", envSpikeSite)
	return p.numbered("http://127.0.0.1/spike", n)
}

// Fatal: the instance metadata endpoint and loopback (blocked at dial
// time), and a URL that is not a website.
func (p *publicSites) Fatal(*testing.T) []site {
	return []site{{URL: "http://169.254.169.254/latest/meta-data/"}, {URL: "http://127.0.0.1/"}, {URL: notAWebsite}}
}

// Retryable: a URL whose connections time out.
func (p *publicSites) Retryable(*testing.T) []site {
	return []site{{URL: envOr(envRetryableURL, "http://example.com:81/")}}
}
