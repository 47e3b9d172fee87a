package fault

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Config says which faults to inject and how often. The zero Config
// injects nothing: fault injection is off by default. Rates are
// probabilities in [0, 1], drawn from the injector's seeded generator.
type Config struct {
	DynamoDB DynamoDBFaults `json:"dynamodb"`
	SQS      SQSFaults      `json:"sqs"`
	Pipes    PipeFaults     `json:"pipes"`
	// Kill rules: a request from a function instance that matches a rule
	// is served, and if it succeeds the instance is killed before the
	// response is written, so the effect is committed and the worker dies
	// without learning it. The first rule that matches and fires applies.
	Kill []KillRule `json:"kill,omitempty"`
}

// DynamoDBFaults makes DynamoDB API requests fail the way an overloaded
// table does.
type DynamoDBFaults struct {
	// ThrottleRate is the share of requests answered with ThrottleError,
	// HTTP 400.
	ThrottleRate float64 `json:"throttleRate,omitempty"`
	// ThrottleError is ProvisionedThroughputExceededException (default) or
	// ThrottlingException. The default is the error DynamoDB's data plane
	// returns when a table or one of its partitions is over its throughput,
	// in provisioned and on-demand mode alike (Developer Guide,
	// "DynamoDB throttling resolution guide": key-range throttling
	// "affect[s] both provisioned and on-demand modes"); its API reference
	// entry says "The Amazon Web Services SDKs for DynamoDB automatically
	// retry requests that receive this exception". Both codes are in
	// aws-sdk-go-v2's retry.DefaultThrottleErrorCodes.
	ThrottleError string `json:"throttleError,omitempty"`
	// ServerErrorRate is the share of requests answered with
	// InternalServerError, HTTP 500 (retried by every SDK).
	ServerErrorRate float64 `json:"serverErrorRate,omitempty"`
	// Operations limits the faults to these operations (e.g. "UpdateItem");
	// empty means the data-plane operations (DataPlaneOperations), so
	// terraform apply's table management is not disturbed.
	Operations []string `json:"operations,omitempty"`
	// Functions limits the faults to requests from these functions'
	// instances; empty means every caller, in-process tools included.
	Functions []string `json:"functions,omitempty"`
}

// DataPlaneOperations are the DynamoDB operations an empty
// DynamoDBFaults.Operations covers.
var DataPlaneOperations = []string{"BatchExecuteStatement", "BatchGetItem", "BatchWriteItem", "DeleteItem",
	"ExecuteStatement", "ExecuteTransaction", "GetItem", "PutItem", "Query", "Scan", "TransactGetItems",
	"TransactWriteItems", "UpdateItem"}

// Throttle error codes ThrottleError accepts.
const (
	ErrProvisionedThroughputExceeded = "ProvisionedThroughputExceededException"
	ErrThrottling                    = "ThrottlingException"
)

// SQSFaults act inside the SQS event source mappings through emu.Faults.
type SQSFaults struct {
	// DuplicateRate is the share of received messages delivered twice.
	DuplicateRate float64 `json:"duplicateRate,omitempty"`
	// DropAckRate is the share of deletes (acknowledgements) lost: the
	// poller believes they succeeded, the message stays and comes back
	// after its visibility timeout.
	DropAckRate float64 `json:"dropAckRate,omitempty"`
	// AckDelay holds every acknowledgement this long before sending it,
	// e.g. "2s".
	AckDelay Duration `json:"ackDelay,omitempty"`
	// Queues limits the SQS faults to these queues, by ARN or name; empty
	// means every queue.
	Queues []string `json:"queues,omitempty"`
}

// PipeFaults act inside the Pipe runtime through emu.Faults.
type PipeFaults struct {
	// TargetFailureRate is the share of the Pipe's SendMessage calls to
	// its target that fail, each decided anew (a transient failure: the
	// pipe's retries and bisect get the message through).
	TargetFailureRate float64 `json:"targetFailureRate,omitempty"`
	// TargetRefuseRate is the share of message bodies whose every
	// SendMessage fails, decided by a hash of the seed and the body, so
	// the same message fails on every attempt: bisect isolates it and the
	// pipe dead-letters it once its retries are used up.
	TargetRefuseRate float64 `json:"targetRefuseRate,omitempty"`
	// EnrichmentFailureRate is the share of the Pipe's enrichment
	// invocations that fail as a function error (the batch is retried
	// whole: enrichment has no partial batch failure handling).
	EnrichmentFailureRate float64 `json:"enrichmentFailureRate,omitempty"`
	// EnrichmentTimeoutRate is the share that hang for EnrichmentTimeout
	// and then fail as a function timeout.
	EnrichmentTimeoutRate float64 `json:"enrichmentTimeoutRate,omitempty"`
	// EnrichmentTimeout is how long a timed-out invocation hangs (default
	// 1s; the enrichment function's own timeout on AWS).
	EnrichmentTimeout Duration `json:"enrichmentTimeout,omitempty"`
	// Pipes limits the fault to these pipe names; empty means every pipe.
	Pipes []string `json:"pipes,omitempty"`
}

// KillRule selects requests after which the calling function instance is
// killed. Empty selectors match anything; at least one must be set.
type KillRule struct {
	// Function is the calling function's name.
	Function string `json:"function,omitempty"`
	// Service is the router's service key, e.g. "dynamodb", "sqs".
	Service string `json:"service,omitempty"`
	// Operation is the API operation, e.g. "UpdateItem". REST services
	// (Lambda) name their operation only after the middleware ran, so an
	// Operation selector never matches them.
	Operation string `json:"operation,omitempty"`
	// BodyContains must occur in the request body, e.g. `"Pending"` to pick
	// the claim among UpdateItems.
	BodyContains string `json:"bodyContains,omitempty"`
	// Rate is the probability, in (0, 1], that a matching request kills.
	Rate float64 `json:"rate"`
	// Times caps the kills this rule makes; 0 means no cap.
	Times int `json:"times,omitempty"`
	// Action is what happens to the instance: KillNow (the default) kills
	// it before it sees the response; KillAtTimeout answers the request,
	// lets the invocation go on for Delay (its next calls, say the fetches
	// after a claim, get under way), then freezes the process, so the
	// invocation runs into the function's timeout and the platform kills
	// it there, as Lambda does with a handler stuck past its deadline.
	Action KillAction `json:"action,omitempty"`
	// Delay is KillAtTimeout's wait before the freeze (at most 1m).
	Delay Duration `json:"delay,omitempty"`
}

// KillAction is how a kill rule ends the instance.
type KillAction string

// The kill actions.
const (
	KillNow       KillAction = "kill"
	KillAtTimeout KillAction = "timeout"
)

// Duration is a time.Duration written in JSON as a Go duration string
// ("1.5s", "250ms").
type Duration time.Duration

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"2s\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("parse duration %q: %w", s, err)
	}
	*d = Duration(v)
	return nil
}

// Validate reports every problem of a configuration at once.
func (c Config) Validate() error {
	var errs []error
	rate := func(name string, v float64) {
		if !(v >= 0 && v <= 1) {
			errs = append(errs, fmt.Errorf("%s must be between 0 and 1, got %v", name, v))
		}
	}
	rate("dynamodb.throttleRate", c.DynamoDB.ThrottleRate)
	rate("dynamodb.serverErrorRate", c.DynamoDB.ServerErrorRate)
	if c.DynamoDB.ThrottleRate+c.DynamoDB.ServerErrorRate > 1 {
		errs = append(errs, errors.New("dynamodb.throttleRate + dynamodb.serverErrorRate must not exceed 1"))
	}
	switch c.DynamoDB.ThrottleError {
	case "", ErrProvisionedThroughputExceeded, ErrThrottling:
	default:
		errs = append(errs, fmt.Errorf("dynamodb.throttleError must be %s or %s, got %q",
			ErrProvisionedThroughputExceeded, ErrThrottling, c.DynamoDB.ThrottleError))
	}
	for _, list := range []struct {
		name  string
		items []string
	}{{"dynamodb.operations", c.DynamoDB.Operations}, {"dynamodb.functions", c.DynamoDB.Functions},
		{"sqs.queues", c.SQS.Queues}, {"pipes.pipes", c.Pipes.Pipes}} {
		for _, it := range list.items {
			if strings.TrimSpace(it) == "" {
				errs = append(errs, fmt.Errorf("%s has an empty entry", list.name))
			}
		}
	}
	rate("sqs.duplicateRate", c.SQS.DuplicateRate)
	rate("sqs.dropAckRate", c.SQS.DropAckRate)
	if c.SQS.AckDelay < 0 {
		errs = append(errs, fmt.Errorf("sqs.ackDelay must not be negative, got %s", time.Duration(c.SQS.AckDelay)))
	}
	rate("pipes.targetFailureRate", c.Pipes.TargetFailureRate)
	rate("pipes.targetRefuseRate", c.Pipes.TargetRefuseRate)
	rate("pipes.enrichmentFailureRate", c.Pipes.EnrichmentFailureRate)
	rate("pipes.enrichmentTimeoutRate", c.Pipes.EnrichmentTimeoutRate)
	if c.Pipes.EnrichmentFailureRate+c.Pipes.EnrichmentTimeoutRate > 1 {
		errs = append(errs, errors.New("pipes.enrichmentFailureRate + pipes.enrichmentTimeoutRate must not exceed 1"))
	}
	if c.Pipes.EnrichmentTimeout < 0 || time.Duration(c.Pipes.EnrichmentTimeout) > 15*time.Minute {
		errs = append(errs, fmt.Errorf("pipes.enrichmentTimeout must be between 0 and 15m (Lambda's longest timeout), got %s", time.Duration(c.Pipes.EnrichmentTimeout)))
	}
	for i, k := range c.Kill {
		if k.Function == "" && k.Service == "" && k.Operation == "" && k.BodyContains == "" {
			errs = append(errs, fmt.Errorf("kill[%d] selects nothing: set function, service, operation or bodyContains", i))
		}
		if !(k.Rate > 0 && k.Rate <= 1) {
			errs = append(errs, fmt.Errorf("kill[%d].rate must be in (0, 1], got %v; remove the rule to disable it", i, k.Rate))
		}
		if k.Times < 0 {
			errs = append(errs, fmt.Errorf("kill[%d].times must not be negative", i))
		}
		switch k.Action {
		case "", KillNow:
			if k.Delay != 0 {
				errs = append(errs, fmt.Errorf("kill[%d].delay applies only to action %q", i, KillAtTimeout))
			}
		case KillAtTimeout:
			if k.Delay < 0 || time.Duration(k.Delay) > time.Minute {
				errs = append(errs, fmt.Errorf("kill[%d].delay must be between 0 and 1m, got %s", i, time.Duration(k.Delay)))
			}
		default:
			errs = append(errs, fmt.Errorf("kill[%d].action must be %q or %q, got %q", i, KillNow, KillAtTimeout, k.Action))
		}
	}
	return errors.Join(errs...)
}
