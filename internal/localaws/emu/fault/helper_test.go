package fault_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// cloud is a router with DynamoDB (the real table service) and the
// injector's middleware, served twice: once plainly, once as a function
// instance's endpoint (every request carries an emu.Caller).
type cloud struct {
	inj    *fault.Injector
	router *emu.Router
	plain  string

	mu     sync.Mutex
	caller *emu.Caller
	asFn   string
}

func newCloud(t *testing.T, cfg fault.Config, seed uint64) *cloud {
	t.Helper()
	c := &cloud{router: emu.NewRouter()}
	c.router.Handle(emu.ServiceDynamoDB, table.New(table.Options{}))
	inj, err := fault.New(cfg, seed, fault.WithServices(c.router.Handler))
	require.NoError(t, err)
	c.inj = inj
	c.router.Use(inj.Middleware())
	plain := httptest.NewServer(c.router)
	t.Cleanup(plain.Close)
	c.plain = plain.URL
	fn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		caller := c.caller
		c.mu.Unlock()
		c.router.ServeHTTP(w, r.WithContext(emu.WithCaller(r.Context(), caller)))
	}))
	t.Cleanup(fn.Close)
	c.asFn = fn.URL
	return c
}

// setCaller makes the function endpoint's requests come from caller.
func (c *cloud) setCaller(caller *emu.Caller) {
	c.mu.Lock()
	c.caller = caller
	c.mu.Unlock()
}

// ddb returns a DynamoDB client for url. attempts is the SDK's
// MaxAttempts; retries back off for a millisecond and never run out of
// retry tokens, so a test of many throttles stays fast.
func ddb(url string, attempts int) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(url),
		Credentials:  credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			o.RateLimiter = ratelimit.None
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
		}),
	})
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c, cancel
}

func createTasks(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	_, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName:            aws.String("tasks"),
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("taskId"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("taskId"), KeyType: ddbtypes.KeyTypeHash}},
		BillingMode:          ddbtypes.BillingModePayPerRequest,
	})
	require.NoError(t, err)
}

func s(v string) ddbtypes.AttributeValue { return &ddbtypes.AttributeValueMemberS{Value: v} }

func putTask(t *testing.T, c *dynamodb.Client, id, status string) {
	t.Helper()
	_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("tasks"),
		Item: map[string]ddbtypes.AttributeValue{"taskId": s(id), "status": s(status)}})
	require.NoError(t, err)
}

func statusOf(t *testing.T, c *dynamodb.Client, id string) string {
	t.Helper()
	out, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("tasks"),
		Key: map[string]ddbtypes.AttributeValue{"taskId": s(id)}, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	v, ok := out.Item["status"].(*ddbtypes.AttributeValueMemberS)
	require.True(t, ok, "task %s has no status", id)
	return v.Value
}

// claim is the scraper's claim: Pending → Running, conditionally.
func claim(c context.Context, cl *dynamodb.Client, id string) error {
	_, err := cl.UpdateItem(c, &dynamodb.UpdateItemInput{
		TableName:                 aws.String("tasks"),
		Key:                       map[string]ddbtypes.AttributeValue{"taskId": s(id)},
		UpdateExpression:          aws.String("SET #s = :running"),
		ConditionExpression:       aws.String("#s = :pending"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":running": s("Running"), ":pending": s("Pending")},
	})
	return err
}
