// Command e2efn is the bootstrap the local cloud's end-to-end tests deploy:
// one small aws-lambda-go program, built like the real Lambdas
// (CGO_ENABLED=0, -tags lambda.norpc, -trimpath), whose behaviour the
// function's MODE variable picks:
//
//	sqs     an SQS event source handler with ReportBatchItemFailures; each
//	        message body says what to do on its first delivery (fail, panic,
//	        sleep) and how long to work
//	finish  marks the task named by each work message Finished in TABLE_NAME
//	        through the AWS SDK (AWS_ENDPOINT_URL comes from the local cloud)
//	ack     returns success at once (the throughput benchmark's handler)
//	event   records the raw event (schedule targets)
//
// With JOURNAL set, every invocation appends JSON lines to that file: a
// "start" line when the handler begins, an "end" line when it returns, so
// the tests can see process ids, receive counts and the real overlap of
// handler executions independently of the local cloud's own counters. Each
// line is one write to an O_APPEND file, so lines from concurrent processes
// never interleave.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/taskpipe/taskpipe/internal/message"
)

// Entry is one journal line; the tests decode the same fields.
type Entry struct {
	Kind         string          `json:"kind"` // start | end
	PID          int             `json:"pid"`
	UnixNano     int64           `json:"unixNano"`
	Invocation   string          `json:"invocation,omitempty"`
	Messages     []Delivery      `json:"messages,omitempty"`
	Failed       []string        `json:"failed,omitempty"`
	Event        json.RawMessage `json:"event,omitempty"`
	TasksUpdated int             `json:"tasksUpdated,omitempty"`
}

// Delivery is one SQS message as the handler saw it.
type Delivery struct {
	MessageID    string `json:"messageId"`
	Key          string `json:"key"`
	ReceiveCount int    `json:"receiveCount"`
}

// instruction is an "sqs" mode message body.
type instruction struct {
	Key          string `json:"key"`
	FailFirst    bool   `json:"failFirst"`
	PanicFirst   bool   `json:"panicFirst"`
	SleepFirstMS int    `json:"sleepFirstMs"`
	WorkMS       int    `json:"workMs"`
}

type app struct {
	mode    string
	journal *os.File
	ddb     *dynamodb.Client
	table   string
	invoked int
}

func main() {
	a := &app{mode: os.Getenv("MODE"), table: os.Getenv("TABLE_NAME")}
	if p := os.Getenv("JOURNAL"); p != "" {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "open journal:", err)
			os.Exit(1)
		}
		a.journal = f
	}
	if a.mode == "finish" {
		cfg, err := config.LoadDefaultConfig(context.Background())
		if err != nil {
			fmt.Fprintln(os.Stderr, "load AWS config:", err)
			os.Exit(1)
		}
		a.ddb = dynamodb.NewFromConfig(cfg)
	}
	lambda.Start(a.handle)
}

func (a *app) write(e Entry) {
	if a.journal == nil {
		return
	}
	e.PID = os.Getpid()
	e.UnixNano = time.Now().UnixNano()
	line, err := json.Marshal(e)
	if err != nil {
		panic(fmt.Sprintf("journal: %v", err)) // only plain fields: a bug
	}
	if _, err := a.journal.Write(append(line, '\n')); err != nil {
		panic(fmt.Sprintf("journal: %v", err)) // the test would miss a line
	}
}

func (a *app) handle(ctx context.Context, raw json.RawMessage) (any, error) {
	a.invoked++
	inv := strconv.Itoa(os.Getpid()) + "/" + strconv.Itoa(a.invoked)
	switch a.mode {
	case "sqs":
		return a.handleSQS(ctx, inv, raw)
	case "finish":
		return a.handleFinish(ctx, inv, raw)
	case "ack":
		return events.SQSEventResponse{}, nil
	case "event":
		a.write(Entry{Kind: "start", Invocation: inv, Event: raw})
		return map[string]string{"status": "recorded"}, nil
	default:
		return nil, fmt.Errorf("e2efn: unknown MODE %q", a.mode)
	}
}

func (a *app) handleSQS(ctx context.Context, inv string, raw json.RawMessage) (events.SQSEventResponse, error) {
	var ev events.SQSEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return events.SQSEventResponse{}, fmt.Errorf("e2efn: decode SQS event: %w", err)
	}
	start := Entry{Kind: "start", Invocation: inv}
	ins := make([]instruction, len(ev.Records))
	for i, r := range ev.Records {
		if err := json.Unmarshal([]byte(r.Body), &ins[i]); err != nil {
			return events.SQSEventResponse{}, fmt.Errorf("e2efn: decode body of %s: %w", r.MessageId, err)
		}
		n, err := strconv.Atoi(r.Attributes["ApproximateReceiveCount"])
		if err != nil {
			return events.SQSEventResponse{}, fmt.Errorf("e2efn: receive count of %s: %w", r.MessageId, err)
		}
		start.Messages = append(start.Messages, Delivery{MessageID: r.MessageId, Key: ins[i].Key, ReceiveCount: n})
	}
	a.write(start)
	var out events.SQSEventResponse
	end := Entry{Kind: "end", Invocation: inv}
	for i, r := range ev.Records {
		first := start.Messages[i].ReceiveCount == 1
		switch {
		case ins[i].PanicFirst && first:
			panic("e2efn: panicking on the first delivery of " + ins[i].Key)
		case ins[i].SleepFirstMS > 0 && first:
			fmt.Println("sleeping", ins[i].SleepFirstMS, "ms on the first delivery of", ins[i].Key)
			time.Sleep(time.Duration(ins[i].SleepFirstMS) * time.Millisecond)
		}
		if ins[i].WorkMS > 0 {
			select {
			case <-time.After(time.Duration(ins[i].WorkMS) * time.Millisecond):
			case <-ctx.Done():
				return out, ctx.Err()
			}
		}
		if ins[i].FailFirst && first {
			out.BatchItemFailures = append(out.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
			end.Failed = append(end.Failed, r.MessageId)
		}
	}
	a.write(end)
	return out, nil
}

// handleFinish marks each message's task Finished, on the condition that it
// is still Pending, so a duplicate delivery changes nothing; a message it
// cannot handle is reported as a batch item failure, never dropped.
func (a *app) handleFinish(ctx context.Context, inv string, raw json.RawMessage) (events.SQSEventResponse, error) {
	var ev events.SQSEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return events.SQSEventResponse{}, fmt.Errorf("e2efn: decode SQS event: %w", err)
	}
	a.write(Entry{Kind: "start", Invocation: inv})
	var out events.SQSEventResponse
	updated := 0
	for _, r := range ev.Records {
		msg, err := message.Parse([]byte(r.Body))
		if err != nil {
			fmt.Println("unparseable work message", r.MessageId, err)
			out.BatchItemFailures = append(out.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
			continue
		}
		_, err = a.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                aws.String(a.table),
			Key:                      map[string]ddbtypes.AttributeValue{"taskId": &ddbtypes.AttributeValueMemberS{Value: msg.TaskID}},
			UpdateExpression:         aws.String("SET #s = :finished"),
			ConditionExpression:      aws.String("#s = :pending"),
			ExpressionAttributeNames: map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
				":finished": &ddbtypes.AttributeValueMemberS{Value: "Finished"},
				":pending":  &ddbtypes.AttributeValueMemberS{Value: "Pending"},
			},
		})
		var done *ddbtypes.ConditionalCheckFailedException
		switch {
		case errors.As(err, &done):
			fmt.Println("task", msg.TaskID, "is no longer Pending; skipped")
		case err != nil:
			fmt.Println("finish task", msg.TaskID, err)
			out.BatchItemFailures = append(out.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
		default:
			updated++
		}
	}
	a.write(Entry{Kind: "end", Invocation: inv, TasksUpdated: updated})
	return out, nil
}
