package dynamostoretest

import (
	"context"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// RequestCounter counts the requests an SDK client sends, per operation.
// It sits after the retry middleware, so each retry counts as a request.
//
//	var rc dynamostoretest.RequestCounter
//	l := dynamostoretest.NewLocal(t, dynamostoretest.WithClientOptions(rc.ClientOption))
type RequestCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

// ClientOption installs the counter on a client's middleware stack.
func (c *RequestCounter) ClientOption(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("taskpipeRequestCounter",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				c.add(awsmiddleware.GetOperationName(ctx))
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	})
}

func (c *RequestCounter) add(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	c.counts[op]++
}

// Count returns the requests sent for one operation, e.g. "UpdateItem".
func (c *RequestCounter) Count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[op]
}

// Total returns all requests sent.
func (c *RequestCounter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.counts {
		n += v
	}
	return n
}

// Reads returns the read requests sent (GetItem, BatchGetItem, Query, Scan,
// TransactGetItems).
func (c *RequestCounter) Reads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts["GetItem"] + c.counts["BatchGetItem"] + c.counts["Query"] + c.counts["Scan"] + c.counts["TransactGetItems"]
}

// Reset forgets all counts.
func (c *RequestCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts = nil
}
