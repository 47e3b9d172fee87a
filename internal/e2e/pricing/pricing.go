// Package pricing holds a dated, sourced table of the AWS prices the
// pipeline pays (prices.json, us-east-1) and a cost model that turns a
// run's measured usage (invocations, billed milliseconds, requests,
// request units, log bytes) into dollars per N tasks.
//
// The table is data, not code: every price names the page it was read
// from and when, and says when the figure is uncertain. The model prices
// only what grows with the number of tasks; monthly costs of the
// deployment (alarms, custom metrics, the reconciler's schedule, idle
// long polls) and free tiers are left out, so the result is the marginal
// cost of more tasks.
package pricing

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

//go:embed prices.json
var pricesJSON []byte

// Price keys the cost model uses (prices.json).
const (
	KeyLambdaRequests    = "lambda.requests"
	KeyLambdaGBSecondX86 = "lambda.gb-second.x86_64"
	KeyLambdaGBSecondARM = "lambda.gb-second.arm64"
	KeySQSRequests       = "sqs.requests"
	KeyDynamoWriteUnits  = "dynamodb.write-request-units"
	KeyDynamoReadUnits   = "dynamodb.read-request-units"
	KeyPipesRequests     = "pipes.requests"
	KeyLogsIngestion     = "logs.ingestion"
	KeyS3PutRequests     = "s3.put-requests"
	KeyS3GetRequests     = "s3.get-requests"
	KeyS3Storage         = "s3.storage-standard"
)

// Price is one unit price: USD buys Per units of Unit.
type Price struct {
	Key     string  `json:"key"`
	Service string  `json:"service"`
	What    string  `json:"what"`
	USD     float64 `json:"usd"`
	Per     float64 `json:"per"`
	Unit    string  `json:"unit"`
	// AsOf is when the source stated the price (a date, a month, a year,
	// or "unknown").
	AsOf string `json:"asOf"`
	// Source is the page the price was read from.
	Source string `json:"source"`
	// Note holds cross-checks and doubts.
	Note string `json:"note"`
}

// UnitUSD returns the price of one unit.
func (p Price) UnitUSD() float64 { return p.USD / p.Per }

// Table is the price table.
type Table struct {
	Region   string  `json:"region"`
	Currency string  `json:"currency"`
	Note     string  `json:"note"`
	Prices   []Price `json:"prices"`
	byKey    map[string]Price
}

// Parse reads and validates a price table.
func Parse(data []byte) (*Table, error) {
	var t Table
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("pricing: parse: %w", err)
	}
	var errs []error
	if t.Region == "" || t.Currency != "USD" {
		errs = append(errs, fmt.Errorf("want a region and currency USD, got %q %q", t.Region, t.Currency))
	}
	t.byKey = map[string]Price{}
	for i, p := range t.Prices {
		switch {
		case p.Key == "":
			errs = append(errs, fmt.Errorf("price %d has no key", i))
			continue
		case t.byKey[p.Key].Key != "":
			errs = append(errs, fmt.Errorf("price %s given twice", p.Key))
		case !(p.USD > 0) || !(p.Per > 0):
			errs = append(errs, fmt.Errorf("price %s: usd %v per %v, want both positive", p.Key, p.USD, p.Per))
		case p.Unit == "" || p.Service == "" || p.What == "" || p.AsOf == "":
			errs = append(errs, fmt.Errorf("price %s: service, what, unit and asOf are required", p.Key))
		}
		if u, err := url.Parse(p.Source); err != nil || u.Scheme != "https" || u.Host == "" {
			errs = append(errs, fmt.Errorf("price %s: source %q is not an https URL", p.Key, p.Source))
		}
		t.byKey[p.Key] = p
	}
	for _, k := range []string{KeyLambdaRequests, KeyLambdaGBSecondX86, KeyLambdaGBSecondARM, KeySQSRequests,
		KeyDynamoWriteUnits, KeyDynamoReadUnits, KeyPipesRequests, KeyLogsIngestion,
		KeyS3PutRequests, KeyS3GetRequests, KeyS3Storage} {
		if _, ok := t.byKey[k]; !ok {
			errs = append(errs, fmt.Errorf("price %s is missing", k))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("pricing: %w", errors.Join(errs...))
	}
	return &t, nil
}

// Default returns the table in prices.json. It panics if the embedded file
// is invalid, which a test rules out.
func Default() *Table {
	t, err := Parse(pricesJSON)
	if err != nil {
		panic(err)
	}
	return t
}

// Price returns a price by key.
func (t *Table) Price(key string) (Price, bool) {
	p, ok := t.byKey[key]
	return p, ok
}

// FunctionUsage is what one function used during a run.
type FunctionUsage struct {
	Name string
	// Arch is the Lambda architecture priced: "arm64" or "x86_64".
	Arch     string
	MemoryMB int
	// Invocations are billed requests; BilledMS the sum of the REPORT
	// lines' Billed Duration.
	Invocations float64
	BilledMS    float64
}

// Usage is what a run of Tasks tasks used, as measured. Request counts are
// already in billing chunks (64 KB for SQS and Pipes).
type Usage struct {
	Tasks            int
	Functions        []FunctionUsage
	SQSRequests      float64
	DynamoWriteUnits float64
	DynamoReadUnits  float64
	PipeRequests     float64
	LogBytes         float64
	// S3PutRequests are PUT, COPY, POST and LIST requests, S3GetRequests
	// GET and HEAD (and the other reads); S3StoredBytes is what the run
	// left in its bucket, priced for one month.
	S3PutRequests float64
	S3GetRequests float64
	S3StoredBytes float64
}

// Line is one row of an estimate.
type Line struct {
	Item string
	// Quantity is in Price.Unit, scaled to Estimate.Tasks.
	Quantity float64
	Unit     string
	USD      float64
	Price    Price
}

// Estimate is the cost of Tasks tasks at the measured usage per task.
type Estimate struct {
	Tasks int
	Lines []Line
	Total float64
}

// Estimate prices u scaled to tasks tasks (1,000 for "per 1,000 tasks").
func (t *Table) Estimate(u Usage, tasks int) (Estimate, error) {
	if u.Tasks <= 0 || tasks <= 0 {
		return Estimate{}, fmt.Errorf("pricing: estimate: want positive task counts, got %d measured, %d asked", u.Tasks, tasks)
	}
	scale := float64(tasks) / float64(u.Tasks)
	e := Estimate{Tasks: tasks}
	add := func(item, key string, quantity float64) error {
		p, ok := t.byKey[key]
		if !ok {
			return fmt.Errorf("pricing: estimate: no price %s", key)
		}
		q := quantity * scale
		usd := q * p.UnitUSD()
		e.Lines = append(e.Lines, Line{Item: item, Quantity: q, Unit: p.Unit, USD: usd, Price: p})
		e.Total += usd
		return nil
	}
	var invocations float64
	for _, f := range u.Functions {
		invocations += f.Invocations
	}
	var errs []error
	errs = append(errs, add("Lambda requests", KeyLambdaRequests, invocations))
	for _, f := range u.Functions {
		key := KeyLambdaGBSecondX86
		switch f.Arch {
		case "arm64":
			key = KeyLambdaGBSecondARM
		case "x86_64", "":
		default:
			errs = append(errs, fmt.Errorf("pricing: estimate: %s: unknown architecture %q", f.Name, f.Arch))
			continue
		}
		if f.MemoryMB <= 0 {
			errs = append(errs, fmt.Errorf("pricing: estimate: %s: memory %d MB", f.Name, f.MemoryMB))
			continue
		}
		gbs := f.BilledMS / 1000 * float64(f.MemoryMB) / 1024
		errs = append(errs, add(fmt.Sprintf("Lambda compute %s (%s, %d MB)", f.Name, archOrDefault(f.Arch), f.MemoryMB), key, gbs))
	}
	errs = append(errs,
		add("SQS requests", KeySQSRequests, u.SQSRequests),
		add("DynamoDB write request units", KeyDynamoWriteUnits, u.DynamoWriteUnits),
		add("DynamoDB read request units", KeyDynamoReadUnits, u.DynamoReadUnits),
		add("EventBridge Pipes requests", KeyPipesRequests, u.PipeRequests),
		add("CloudWatch Logs ingestion", KeyLogsIngestion, u.LogBytes),
		add("S3 PUT/COPY/POST/LIST requests", KeyS3PutRequests, u.S3PutRequests),
		add("S3 GET and other requests", KeyS3GetRequests, u.S3GetRequests),
		add("S3 Standard storage, one month", KeyS3Storage, u.S3StoredBytes),
	)
	if err := errors.Join(errs...); err != nil {
		return Estimate{}, err
	}
	return e, nil
}

func archOrDefault(a string) string {
	if a == "" {
		return "x86_64"
	}
	return a
}
