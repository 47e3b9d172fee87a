// Package dynamostoretest runs a dynamostore.Store against minidyn, an
// in-memory DynamoDB, over real HTTP with the real aws-sdk-go-v2 client, so
// tests exercise the same request serialization, error decoding
// (ConditionalCheckFailedException with its old item) and retries as
// production.
//
//	l := dynamostoretest.NewLocal(t)
//	err := l.Store.Create(ctx, tasks)
//
// Each Local has its own server and table, so parallel tests never share
// state. The server is wrapped in RepairMinidyn, because minidyn v0.8.2
// ignores REMOVE of top-level attributes and corrupts a secondary index when
// an UpdateItem adds an index key, and the store relies on both to move
// tasks in and out of its sparse live index. Pass WithClientOptions to add SDK middleware (RequestCounter is
// one) and WithStoreOptions to set dynamostore.Options.
package dynamostoretest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	miniserver "github.com/truora/minidyn/server"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/task"
)

// Local is a minidyn server with a task table and a Store on it.
type Local struct {
	// Server is the minidyn handler, for failure injection
	// (EmulateFailure, EmulateUnprocessedItems).
	Server *miniserver.Server
	// URL is the endpoint, e.g. for AWS_ENDPOINT_URL.
	URL string
	// Client is the SDK client the Store uses.
	Client *dynamodb.Client
	// Table is the table name.
	Table string
	// Store is the store under test.
	Store *dynamostore.Store

	close func()
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

// Start starts a server, creates a uniquely named table with
// dynamostore.CreateTable and returns the Local. Close it when done.
func Start(ctx context.Context, opts ...Option) (*Local, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	srv := miniserver.NewServer()
	hs := httptest.NewServer(RepairMinidyn(srv))
	client := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(hs.URL),
		// minidyn does not check signatures, but the SDK must sign something.
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, cfg.client...)
	table := fmt.Sprintf("tasks-%d", tableSeq.Add(1))
	if err := dynamostore.CreateTable(ctx, client, table, dynamostore.TableOptions{}); err != nil {
		hs.Close()
		return nil, fmt.Errorf("dynamostoretest: start: %w", err)
	}
	sopts := dynamostore.Options{Table: table}
	if cfg.store != nil {
		cfg.store(&sopts)
		sopts.Table = table
	}
	store, err := dynamostore.New(client, sopts)
	if err != nil {
		hs.Close()
		return nil, fmt.Errorf("dynamostoretest: start: %w", err)
	}
	return &Local{Server: srv, URL: hs.URL, Client: client, Table: table, Store: store, close: hs.Close}, nil
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
