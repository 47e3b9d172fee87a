package handler

import (
	"context"
	"time"

	"github.com/taskpipe/taskpipe/internal/message"
	"github.com/taskpipe/taskpipe/internal/pipestate"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
)

// PageScraper fetches one website and returns its site document;
// *scrape.Client is one. The handler does not import scrape, so only the
// scraper binary links the extractor. Errors are classified with task.KindOf:
// task.KindFatal, task.KindRobots and task.KindOptOut fail the task with
// that kind, anything else releases it for a retry.
type PageScraper interface {
	Crawl(ctx context.Context, rawURL string) (*site.Document, error)
}

// ResultWriter stores a task's site document (site.Document JSON, as
// site.Document.Marshal returns it) and reports where: the object key and
// the hex SHA-256 of the bytes it stored. It must be idempotent: the same
// runID and taskID always name the same object, so a retry or a duplicate
// delivery overwrites it with the same content, and the fenced Finish
// stays the one write that decides the outcome.
type ResultWriter interface {
	Put(ctx context.Context, runID, taskID string, doc []byte) (key, sha256 string, err error)
}

// PoisonForwarder sends a message that cannot be processed to the work
// DLQ (*sqsqueue.Forwarder).
type PoisonForwarder interface {
	Forward(ctx context.Context, p sqsqueue.Poison) error
}

// VisibilityChanger delays the next delivery of a received message
// (*sqsqueue.Visibility).
type VisibilityChanger interface {
	Change(ctx context.Context, receiptHandle string, d time.Duration) error
}

// Dispatcher sends work messages to the work queue (*sqsqueue.Dispatcher).
// A *sqsqueue.SendError names the messages it did not send.
type Dispatcher interface {
	Send(ctx context.Context, msgs []message.Message) error
}

// PipeStater reads the dispatch Pipe's state (*pipestate.Reader).
type PipeStater interface {
	State(ctx context.Context) (pipestate.State, error)
}

var (
	_ PipeStater        = (*pipestate.Reader)(nil)
	_ PoisonForwarder   = (*sqsqueue.Forwarder)(nil)
	_ VisibilityChanger = (*sqsqueue.Visibility)(nil)
	_ Dispatcher        = (*sqsqueue.Dispatcher)(nil)
)
