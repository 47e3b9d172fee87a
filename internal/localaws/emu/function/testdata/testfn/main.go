// Command testfn is the bootstrap the function package's tests run: one
// small aws-lambda-go program whose behaviour the event picks, built with
// -tags lambda.norpc like the real Lambdas.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

type request struct {
	Action  string   `json:"action"`
	Value   string   `json:"value"`
	SleepMS int      `json:"sleepMs"`
	Env     []string `json:"env"`
	Size    int      `json:"size"`
}

type response struct {
	PID         int               `json:"pid"`
	Value       string            `json:"value,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	RemainingMS int64             `json:"remainingMs,omitempty"`
	RequestID   string            `json:"requestId,omitempty"`
	FunctionARN string            `json:"functionArn,omitempty"`
	QueueCount  int               `json:"queueCount"`
}

func handle(ctx context.Context, req request) (response, error) {
	out := response{PID: os.Getpid(), Value: req.Value}
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		out.RequestID, out.FunctionARN = lc.AwsRequestID, lc.InvokedFunctionArn
	}
	if dl, ok := ctx.Deadline(); ok {
		out.RemainingMS = time.Until(dl).Milliseconds()
	}
	switch req.Action {
	case "echo", "":
	case "print":
		for _, l := range strings.Split(req.Value, "|") {
			fmt.Println(l)
		}
	case "error":
		return out, errors.New(req.Value)
	case "panic":
		panic(req.Value)
	case "sleep":
		fmt.Println("sleeping", req.SleepMS, "ms")
		time.Sleep(time.Duration(req.SleepMS) * time.Millisecond)
	case "emf":
		line, _ := json.Marshal(map[string]any{
			"_aws": map[string]any{
				"Timestamp": time.Now().UnixMilli(),
				"CloudWatchMetrics": []map[string]any{{
					"Namespace":  "taskpipe",
					"Dimensions": [][]string{{"ErrorKind"}},
					"Metrics":    []map[string]string{{"Name": "TasksFailed", "Unit": "Count"}},
				}},
			},
			"ErrorKind":   "fatal",
			"TasksFailed": 2,
		})
		fmt.Println(string(line))
	case "env":
		out.Env = map[string]string{}
		for _, k := range req.Env {
			if v, ok := os.LookupEnv(k); ok {
				out.Env[k] = v
			}
		}
	case "call":
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return out, fmt.Errorf("load config: %w", err)
		}
		res, err := sqs.NewFromConfig(cfg).ListQueues(ctx, &sqs.ListQueuesInput{})
		if err != nil {
			return out, fmt.Errorf("list queues: %w", err)
		}
		out.QueueCount = len(res.QueueUrls)
	case "exit":
		fmt.Println("exiting on purpose")
		os.Exit(3)
	case "big":
		out.Value = strings.Repeat("x", req.Size)
	default:
		return out, fmt.Errorf("unknown action %q", req.Action)
	}
	return out, nil
}

func main() {
	fmt.Println("testfn init")
	lambda.StartWithOptions(handle, lambda.WithEnableSIGTERM(func() {
		fmt.Println("SIGTERM received")
	}))
}
