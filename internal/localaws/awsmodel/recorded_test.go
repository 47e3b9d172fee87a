package awsmodel

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestRecordedMessages reproduces error messages real AWS endpoints
// returned, as published in issue trackers and AWS-validated test suites
// (sources next to each case; see README.md "Error formats").
func TestRecordedMessages(t *testing.T) {
	t.Parallel()
	twelveMetrics := make([]any, 12)
	for i := range twelveMetrics {
		twelveMetrics[i] = map[string]any{"MetricName": "m", "Value": json.Number("1")}
	}
	twelveMetrics[11] = map[string]any{"MetricName": "m", "Value": json.Number("1"), "Dimensions": []any{map[string]any{"Name": "d"}}}
	cases := []struct {
		name, service, op string
		input             any
		code, message     string
		contains          []string // when the exact message depends on today's model
	}{{
		// fluent-plugins-nursery/fluent-plugin-cloudwatch-logs#223 (2021)
		name: "logs empty prefix", service: "logs", op: "DescribeLogGroups",
		input: map[string]any{"logGroupNamePrefix": ""},
		code:  "InvalidParameterException",
		message: `2 validation errors detected: Value '' at 'logGroupNamePrefix' failed to satisfy constraint: Member must satisfy regular expression pattern: [\.\-_/#A-Za-z0-9]+; ` +
			`Value '' at 'logGroupNamePrefix' failed to satisfy constraint: Member must have length greater than or equal to 1`,
	}, {
		// amazon-archives/cloudwatch-logs-centralize-logs#5 (2017)
		name: "logs event without timestamp", service: "logs", op: "PutLogEvents",
		input:   map[string]any{"logGroupName": "g", "logStreamName": "s", "logEvents": []any{map[string]any{"message": "m"}}},
		code:    "InvalidParameterException",
		message: "1 validation error detected: Value null at 'logEvents.1.member.timestamp' failed to satisfy constraint: Member must not be null",
	}, {
		// lazywithclass/winston-cloudwatch#55 (2016)
		name: "logs no events", service: "logs", op: "PutLogEvents",
		input:   map[string]any{"logGroupName": "g", "logStreamName": "s", "logEvents": []any{}},
		code:    "InvalidParameterException",
		message: "1 validation error detected: Value '[]' at 'logEvents' failed to satisfy constraint: Member must have length greater than or equal to 1",
	}, {
		// nubo-db/dynoxide#11 (2026, conformance suite against DynamoDB)
		name: "dynamodb empty table name", service: "dynamodb", op: "PutItem",
		input:   map[string]any{"TableName": "", "Item": map[string]any{"pk": map[string]any{"S": "1"}}},
		code:    "ValidationException",
		message: "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1",
	}, {
		// hashicorp/terraform-provider-aws#32423 (2023): UpdatePipe with BatchSize 0
		name: "pipes batch size 0", service: "pipes", op: "UpdatePipe",
		input: map[string]any{"Name": "p", "RoleArn": "arn:aws:iam::123456789012:role/r",
			"SourceParameters": map[string]any{"DynamoDBStreamParameters": map[string]any{"BatchSize": json.Number("0")}}},
		code:    "ValidationException",
		message: "[numeric instance is lower than the required minimum (minimum: 1, found: 0)]",
	}, {
		// localstack tests/aws/test_validate.py (AWS-validated): query CreateQueue without a name
		name: "sqs create queue without name", service: "sqs", op: "CreateQueue",
		input:   map[string]any{},
		code:    "InvalidParameterValue",
		message: "Value for parameter QueueName is invalid. Reason: Must specify a queue name.",
	}, {
		// localstack tests/aws/test_validate.py (AWS-validated): SetQueueAttributes without attributes
		name: "sqs set attributes without attributes", service: "sqs", op: "SetQueueAttributes",
		input:   map[string]any{"QueueUrl": "http://localhost/000000000000/q"},
		code:    "MissingParameter",
		message: "The request must contain the parameter Attribute.Name.",
	}, {
		// LocalStack tests/aws/services/sqs/test_sqs.snapshot.json (AWS-recorded)
		name: "sqs send without body", service: "sqs", op: "SendMessage",
		input:   map[string]any{"QueueUrl": "http://localhost/000000000000/q"},
		code:    "MissingParameter",
		message: "The request must contain the parameter MessageBody.",
	}, {
		// JuliaCloud/AWSSDK.jl#2 (2017)
		name: "cloudwatch without namespace", service: "monitoring", op: "PutMetricData",
		input:   map[string]any{"MetricData": []any{map[string]any{"MetricName": "m", "Value": json.Number("1")}}},
		code:    "MissingParameter",
		message: "The parameter Namespace is required.",
	}, {
		// sj26/sidekiq-cloudwatchmetrics#42 (2023)
		name: "cloudwatch dimension without value", service: "monitoring", op: "PutMetricData",
		input:   map[string]any{"Namespace": "ns", "MetricData": twelveMetrics},
		code:    "MissingParameter",
		message: "The parameter MetricData.member.12.Dimensions.member.1.Value is required.",
	}, {
		// ansible/ansible#29694 (2016: "Value '30' at 'period' … greater than or equal to 60"; today's model says 1)
		name: "cloudwatch period", service: "monitoring", op: "PutMetricAlarm",
		input:   map[string]any{"AlarmName": "a", "EvaluationPeriods": json.Number("1"), "ComparisonOperator": "GreaterThanThreshold", "Period": json.Number("0")},
		code:    "ValidationError",
		message: "1 validation error detected: Value '0' at 'period' failed to satisfy constraint: Member must have value greater than or equal to 1",
	}, {
		// localstack#7675 (2023, Lambda parity): two architectures
		name: "lambda two architectures", service: "lambda", op: "CreateFunction",
		input: map[string]any{"FunctionName": "f", "Role": "arn:aws:iam::123456789012:role/r", "Code": map[string]any{},
			"Architectures": []any{"x86_64", "arm64"}},
		code:    "ValidationException",
		message: "1 validation error detected: Value '[x86_64, arm64]' at 'architectures' failed to satisfy constraint: Member must have length less than or equal to 1",
	}, {
		// localstack#7675: an unknown architecture, reported at the list
		name: "lambda unknown architecture", service: "lambda", op: "CreateFunction",
		input: map[string]any{"FunctionName": "f", "Role": "arn:aws:iam::123456789012:role/r", "Code": map[string]any{},
			"Architectures": []any{"x86"}},
		code:    "ValidationException",
		message: "1 validation error detected: Value '[x86]' at 'architectures' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [x86_64, arm64], Member must not be null]",
	}, {
		// highsource/bitcoin-a-day#1 (2017): "kMSKeyArn" — only the first letter is lowered
		name: "lambda kms key arn", service: "lambda", op: "CreateFunction",
		input: map[string]any{"FunctionName": "f", "Role": "arn:aws:iam::123456789012:role/r", "Code": map[string]any{},
			"KMSKeyArn": `"arn:aws:kms:eu-central-1:507131729322:key/3c72a1f9"`},
		code:    "ValidationException",
		message: `1 validation error detected: Value '"arn:aws:kms:eu-central-1:507131729322:key/3c72a1f9"' at 'kMSKeyArn' failed to satisfy constraint: Member must satisfy regular expression pattern: (arn:(aws[a-zA-Z-]*)?:[a-z0-9-.]+:.*)|()`,
	}, {
		// appleboy/lambda-action#83 (2024): a list element is reported at the list with all its constraints
		name: "lambda empty layer", service: "lambda", op: "UpdateFunctionConfiguration",
		input: map[string]any{"FunctionName": "f", "Layers": []any{""}},
		code:  "ValidationException",
		contains: []string{"1 validation error detected: Value '[]' at 'layers' failed to satisfy constraint: Member must satisfy constraint: [Member must have length less than or equal to ",
			", Member must have length greater than or equal to 1, Member must satisfy regular expression pattern: ", ", Member must not be null]"},
	}, {
		// aws/aws-cli#3229 (2018)
		name: "lambda runtime", service: "lambda", op: "CreateFunction",
		input:    map[string]any{"FunctionName": "f", "Role": "arn:aws:iam::123456789012:role/r", "Code": map[string]any{}, "Runtime": "g1.x"},
		code:     "ValidationException",
		contains: []string{"1 validation error detected: Value 'g1.x' at 'runtime' failed to satisfy constraint: Member must satisfy enum value set: [nodejs, ", "provided.al2023"},
	}, {
		// webiny/webiny-js#5445 (2026): the pattern is printed without the model's ^…$
		name: "scheduler name", service: "scheduler", op: "CreateSchedule",
		input: map[string]any{"Name": "schedule_root-Cms/Entry/" + strings.Repeat("x", 60), "ScheduleExpression": "rate(1 minute)",
			"FlexibleTimeWindow": map[string]any{"Mode": "OFF"},
			"Target":             map[string]any{"Arn": "arn:aws:sqs:us-east-1:123456789012:q", "RoleArn": "arn:aws:iam::123456789012:role/r"}},
		code: "ValidationException",
		contains: []string{"2 validation errors detected: Value 'schedule_root-Cms/Entry/",
			"' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern: [0-9a-zA-Z-_.]+; Value '",
			"' at 'name' failed to satisfy constraint: Member must have length less than or equal to 64"},
	}, {
		// Cognito's sensitive username (KaiserAsh/LambStatus#6): sensitive values are left out
		name: "sensitive values are not echoed", service: "kms", op: "Encrypt",
		input:   map[string]any{"KeyId": "k", "Plaintext": ""},
		code:    "ValidationException",
		message: "1 validation error detected: Value at 'plaintext' failed to satisfy constraint: Member must have length greater than or equal to 1",
	}}
	for _, c := range cases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := Validate(c.service, c.op, c.input)
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Code != c.code {
				t.Errorf("code %s, want %s (%s)", e.Code, c.code, e.Message)
			}
			if c.message != "" && e.Message != c.message {
				t.Errorf("message\n got  %q\n want %q", e.Message, c.message)
			}
			for _, s := range c.contains {
				if !strings.Contains(e.Message, s) {
					t.Errorf("message %q lacks %q", e.Message, s)
				}
			}
		})
	}
}

// TestRenderJava checks values render as Coral's Java toString does.
func TestRenderJava(t *testing.T) {
	t.Parallel()
	ddb := MustLoad().Service("dynamodb")
	ks := []any{
		map[string]any{"AttributeName": "pk", "KeyType": "HASH"},
		map[string]any{"AttributeName": "sk", "KeyType": "RANGE"},
		map[string]any{"AttributeName": "extra", "KeyType": "RANGE"},
	}
	// nubo-db/dynoxide#11: DynamoDB's message for three KeySchema elements
	// (today's model no longer has KeySchema max 2; the rendering stands).
	want := "[KeySchemaElement(attributeName=pk, keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), KeySchemaElement(attributeName=extra, keyType=RANGE)]"
	if got := renderJava(ks, ddb.Shape("KeySchema")); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		v    any
		sh   *Shape
		want string
	}{
		{json.Number("30"), &Shape{Type: "integer"}, "30"},
		{json.Number("1"), &Shape{Type: "double"}, "1.0"},
		{0.5, &Shape{Type: "double"}, "0.5"},
		{1e10, &Shape{Type: "double"}, "1.0E10"},
		{1.5e-5, &Shape{Type: "double"}, "1.5E-5"},
		{[]any{"a", "b"}, nil, "[a, b]"},
		{map[string]any{"b": "2", "a": "1"}, nil, "{a=1, b=2}"},
		{[]byte("abc"), &Shape{Type: "blob"}, "java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]"},
		{true, nil, "true"},
		{nil, nil, "null"},
	} {
		if got := renderJava(c.v, c.sh); got != c.want {
			t.Errorf("renderJava(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestErrorShapes(t *testing.T) {
	t.Parallel()
	e := Validate("sqs", "SendMessage", map[string]any{"QueueUrl": "u"}).(*Error)
	if e.Type != "MissingRequiredParameterException" || e.Code != "MissingParameter" || e.Status != 400 || e.Fault != "Sender" {
		t.Errorf("sqs error %+v", e)
	}
	body := e.JSONBody()
	if body["__type"] != "MissingRequiredParameterException" || body["message"] != e.Message {
		t.Errorf("JSON body %v", body)
	}
	p := Validate("pipes", "CreatePipe", map[string]any{"Name": "p"}).(*Error)
	if len(p.FieldList) != 1 || p.FieldList[0].Message != `object has missing required properties (["Source","Target","RoleArn"])` {
		t.Errorf("pipes fieldList %+v (%s)", p.FieldList, p.Message)
	}
	if _, ok := p.JSONBody()["fieldList"]; !ok {
		t.Error("pipes body lacks fieldList")
	}
	if err := Validate("nope", "Nope", nil); err == nil {
		t.Error("unknown service accepted")
	} else if _, ok := err.(*Error); ok {
		t.Error("unknown service is an *Error")
	}
	if err := Validate("dynamodb", "GetItem", map[string]any{"TableName": "t", "Key": map[string]any{}}); err != nil {
		t.Errorf("valid GetItem: %v", err)
	}
	// Unknown members are ignored, as AWS ignores them (an AWS-validated
	// OpenSearch request with {"foobar": …} is answered about the missing
	// member only; SQS CreateQueue with FooBar=baz likewise).
	if err := Validate("dynamodb", "GetItem", map[string]any{"TableName": "t", "Key": map[string]any{}, "FooBar": "baz"}); err != nil {
		t.Errorf("unknown member rejected: %v", err)
	}
	// Many violations: all reported, in model order, capped.
	items := make([]any, 300)
	for i := range items {
		items[i] = map[string]any{"message": "m"}
	}
	v := MustLoad().Operation("logs", "PutLogEvents").Violations(map[string]any{"logGroupName": "g", "logStreamName": "s", "logEvents": items})
	if len(v) != MaxViolations {
		t.Errorf("%d violations, want the cap %d", len(v), MaxViolations)
	}
	msg := Validate("logs", "PutLogEvents", map[string]any{"logGroupName": "g", "logStreamName": "s", "logEvents": items[:2]}).(*Error).Message
	want := fmt.Sprintf("2 validation errors detected: Value null at 'logEvents.1.member.timestamp' failed to satisfy constraint: Member must not be null; " +
		"Value null at 'logEvents.2.member.timestamp' failed to satisfy constraint: Member must not be null")
	if msg != want {
		t.Errorf("got %q", msg)
	}
}
