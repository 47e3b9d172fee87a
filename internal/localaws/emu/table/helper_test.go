package table_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type testBundle struct {
	clock *clock
	svc   *table.Service
	ddb   *dynamodb.Client
	url   string
}

// setup serves a fresh DynamoDB emulation through an emu.Router over HTTP
// and returns the real SDK client pointed at it.
func setup(t testing.TB) *testBundle {
	t.Helper()
	clk := newClock()
	svc := table.New(table.Options{Now: clk.Now})
	rt := emu.NewRouter()
	rt.Handle(emu.ServiceDynamoDB, svc)
	srv := httptest.NewServer(rt)
	t.Cleanup(srv.Close)
	return &testBundle{clock: clk, svc: svc, ddb: newClient(srv.URL), url: srv.URL}
}

func newClient(url string) *dynamodb.Client {
	return dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", ""),
		// No retries: a retried request would hide a wrong first answer.
		Retryer: func() aws.Retryer { return aws.NopRetryer{} },
	}, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(url) })
}

// createTable creates a table keyed by "id" (S); viewType "" means no stream.
func (b *testBundle) createTable(t testing.TB, name, viewType string) *dynamodb.CreateTableOutput {
	t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash}},
	}
	if viewType != "" {
		in.StreamSpecification = &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewType(viewType)}
	}
	out, err := b.ddb.CreateTable(context.Background(), in)
	require.NoError(t, err)
	return out
}

func s(v string) ddbtypes.AttributeValue { return &ddbtypes.AttributeValueMemberS{Value: v} }
func n(v string) ddbtypes.AttributeValue { return &ddbtypes.AttributeValueMemberN{Value: v} }
func key(id string) map[string]ddbtypes.AttributeValue {
	return map[string]ddbtypes.AttributeValue{"id": s(id)}
}
