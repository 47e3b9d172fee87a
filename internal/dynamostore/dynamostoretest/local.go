// Package dynamostoretest runs a dynamostore.Store against the local
// cloud's DynamoDB (internal/localaws/emu/table) over real HTTP with the
// real aws-sdk-go-v2 client, so tests exercise the same request
// serialization, error decoding (ConditionalCheckFailedException with its
// old item) and retries as production, against a service that passes the
// task.Store conformance suite exactly as AWS should (the emulator's own
// TestStoreConformance).
//
//	l := dynamostoretest.NewLocal(t)
//	err := l.Store.Create(ctx, tasks)
//
// Each Local has its own server and table, so parallel tests never share
// state. Failures come from the local cloud's fault injector
// (internal/localaws/emu/fault): FailRequests makes every data-plane
// request fail as DynamoDB's InternalServerError does, LeaveUnprocessed
// makes BatchWriteItem leave chosen items unprocessed. Pass
// WithClientOptions to add SDK middleware (RequestCounter is one) and
// WithStoreOptions to set dynamostore.Options.
package dynamostoretest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
	"github.com/taskpipe/taskpipe/internal/task"
)

// Local is a local DynamoDB with a task table and a Store on it.
type Local struct {
	// URL is the endpoint, e.g. for AWS_ENDPOINT_URL.
	URL string
	// Client is the SDK client the Store uses.
	Client *dynamodb.Client
	// Table is the table name.
	Table string
	// Store is the store under test.
	Store *dynamostore.Store
	// Faults is the fault injector in front of the service.
	Faults *fault.Injector

	router *emu.Router
	close  func()
}

type config struct {
	client []func(*dynamodb.Options)
	store  func(*dynamostore.Options)
}

// Option configures Start and NewLocal.
type Option func(*config)

// WithClientOptions adds options to the SDK client, e.g. APIOptions
// middleware.
func WithClientOptions(fns ...func(*dynamodb.Options)) Option {
	return func(c *config) { c.client = append(c.client, fns...) }
}

// WithStoreOptions edits the store options before dynamostore.New; Table is
// set already and should be left alone.
func WithStoreOptions(fn func(*dynamostore.Options)) Option {
	return func(c *config) { c.store = fn }
}

var tableSeq atomic.Int64

// Handler returns a fresh local DynamoDB: the local cloud's table service
// behind its router, for a test that builds its own client.
func Handler() http.Handler { return newRouter() }

func newRouter() *emu.Router {
	router := emu.NewRouter()
	router.Handle(emu.ServiceDynamoDB, table.New(table.Options{}))
	return router
}

// Start starts a server, creates a uniquely named table with
// dynamostore.CreateTable and returns the Local. Close it when done.
func Start(ctx context.Context, opts ...Option) (*Local, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	router := newRouter()
	faults, err := fault.New(fault.Config{}, 1, fault.WithServices(router.Handler))
	if err != nil {
		return nil, fmt.Errorf("dynamostoretest: start: %w", err)
	}
	router.Use(faults.Middleware())
	hs := httptest.NewServer(router)
	client := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(hs.URL),
		// The local cloud does not check signatures, but the SDK must sign something.
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, cfg.client...)
	name := fmt.Sprintf("tasks-%d", tableSeq.Add(1))
	if err := dynamostore.CreateTable(ctx, client, name, dynamostore.TableOptions{}); err != nil {
		hs.Close()
		return nil, fmt.Errorf("dynamostoretest: start: %w", err)
	}
	sopts := dynamostore.Options{Table: name}
	if cfg.store != nil {
		cfg.store(&sopts)
		sopts.Table = name
	}
	store, err := dynamostore.New(client, sopts)
	if err != nil {
		hs.Close()
		return nil, fmt.Errorf("dynamostoretest: start: %w", err)
	}
	return &Local{URL: hs.URL, Client: client, Table: name, Store: store, Faults: faults, router: router, close: hs.Close}, nil
}

// Close stops the server.
func (l *Local) Close() { l.close() }

// NewLocal is Start for tests: it fails t on error and closes the server in
// t.Cleanup.
func NewLocal(t testing.TB, opts ...Option) *Local {
	t.Helper()
	l, err := Start(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// FailRequests makes every data-plane request (GetItem, UpdateItem, Query,
// …) fail with InternalServerError, HTTP 500, while on is true; the SDK
// retries them and then returns the error. Table management is untouched.
func (l *Local) FailRequests(t testing.TB, on bool) {
	t.Helper()
	var cfg fault.Config
	if on {
		cfg.DynamoDB.ServerErrorRate = 1
	}
	if err := l.Faults.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
}

// LeaveUnprocessed makes every later BatchWriteItem on the table leave the
// items for which leave returns true unprocessed (fault.UnprocessedItems).
func (l *Local) LeaveUnprocessed(leave func(item map[string]json.RawMessage) bool) {
	l.router.Use(fault.UnprocessedItems(l.Table, l.router.Handler(emu.ServiceDynamoDB), leave))
}

// Seed writes tk exactly as given, in any state, replacing any row with its
// id (see dynamostore.Store.Item for the derived index attributes).
func (l *Local) Seed(ctx context.Context, tk task.Task) error {
	item, err := l.Store.Item(tk)
	if err != nil {
		return fmt.Errorf("dynamostoretest: seed: %w", err)
	}
	if _, err := l.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.Table), Item: item}); err != nil {
		return fmt.Errorf("dynamostoretest: seed %s: %w", tk.ID, err)
	}
	return nil
}
