package localcloud

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/access"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/bucket"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/pipe"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// IAMMode says whether the local cloud enforces IAM.
type IAMMode string

// IAM modes. Under IAMEnforce each function process calls as its execution
// role, and the Pipes, Scheduler and event source mappings as theirs;
// requests signed by anything else (Terraform, the CLI, tests: the
// developer's own credentials) are the account's administrator and always
// allowed.
const (
	IAMEnforce IAMMode = "enforce"
	IAMOff     IAMMode = "off"
)

// ParseIAMMode reads the --iam flag.
func ParseIAMMode(s string) (IAMMode, error) {
	switch IAMMode(s) {
	case IAMEnforce, IAMOff:
		return IAMMode(s), nil
	}
	return "", fmt.Errorf("localcloud: --iam %q: want enforce or off", s)
}

// authorizer evaluates the calls of roles with the access package.
type authorizer struct {
	c *Cloud

	mu     sync.Mutex
	parsed map[string]parsedDoc // policy document → its parse
}

type parsedDoc struct {
	p   *access.Policy
	err error
}

func newAuthorizer(c *Cloud) *authorizer {
	return &authorizer{c: c, parsed: map[string]parsedDoc{}}
}

func (a *authorizer) parse(doc string) (*access.Policy, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if d, ok := a.parsed[doc]; ok {
		return d.p, d.err
	}
	p, err := access.Parse(doc)
	if len(a.parsed) > 4096 {
		clear(a.parsed) // bounded: documents change only with IAM writes
	}
	a.parsed[doc] = parsedDoc{p, err}
	return p, err
}

// Authorize implements emu.Authorizer: the service must be trusted by the
// role (its trust policy, with aws:SourceAccount and aws:SourceArn), and
// the role's policies, with the resource's policy where AWS evaluates one,
// must allow the call.
func (a *authorizer) Authorize(_ context.Context, s emu.RoleSession, action, resource string) error {
	if a.c.cfg.IAM != IAMEnforce {
		return nil
	}
	acct := a.c.cfg.AccountID
	rp, ok := a.c.identity.Policies(s.Role)
	if !ok {
		return &emu.AccessDeniedError{Action: "sts:AssumeRole", Resource: s.Role,
			Message: fmt.Sprintf("%s is not authorized to perform: sts:AssumeRole on resource: %s: the role does not exist", s.Service, s.Role)}
	}
	if s.Service != "" {
		trust, err := a.parse(rp.Trust)
		if err != nil {
			return &emu.AccessDeniedError{Action: "sts:AssumeRole", Resource: s.Role,
				Message: fmt.Sprintf("the trust policy of %s cannot be evaluated: %v", s.Role, err)}
		}
		ctx := map[string][]string{}
		if s.Source != "" {
			ctx["aws:SourceAccount"] = []string{acct}
			ctx["aws:SourceArn"] = []string{s.Source}
		}
		req := access.Request{Principal: s.Service, Action: "sts:AssumeRole", Resource: s.Role, Context: ctx}
		if res := access.Evaluate(req, nil, trust); !res.Allowed() {
			return &emu.AccessDeniedError{Action: "sts:AssumeRole", Resource: s.Role,
				Message: fmt.Sprintf("%s is not authorized to perform: sts:AssumeRole on resource: %s", s.Service, s.Role)}
		}
	}
	var ids []*access.Policy
	for _, doc := range rp.Inline {
		p, err := a.parse(doc)
		if err != nil {
			return &emu.AccessDeniedError{Action: action, Resource: resource,
				Message: fmt.Sprintf("an inline policy of %s cannot be evaluated: %v", s.Role, err)}
		}
		ids = append(ids, p)
	}
	// Managed policies are not stored by the local IAM (no CreatePolicy),
	// so an attached one grants nothing here; the modules attach none.
	name := s.Session
	if name == "" {
		name = sessionName(s.Source)
	}
	session := fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", acct, rp.Name, name)
	req := access.Request{Principal: session, Action: action, Resource: resource,
		Context: map[string][]string{"aws:PrincipalArn": {s.Role}, "aws:PrincipalAccount": {acct}}}
	res := access.Evaluate(req, ids, a.resourcePolicy(action, resource))
	if res.Allowed() {
		return nil
	}
	return &emu.AccessDeniedError{Action: action, Resource: access.EffectiveResource(action, resource), Message: res.Message(req)}
}

// resourcePolicy is the SQS queue policy for sqs: actions (the only
// resource policy the local cloud stores that AWS evaluates for these
// callers).
func (a *authorizer) resourcePolicy(action, resource string) *access.Policy {
	if !strings.HasPrefix(action, "sqs:") {
		return nil
	}
	attrs, err := a.c.queue.Attributes(resource, queue.AttrPolicy)
	if err != nil || attrs[queue.AttrPolicy] == "" {
		return nil
	}
	p, err := a.parse(attrs[queue.AttrPolicy])
	if err != nil {
		return nil // SetQueueAttributes validated it; an unsupported operator grants nothing
	}
	return p
}

// sessionName is the role session's name: the acting resource's name.
func sessionName(source string) string {
	if i := strings.LastIndexAny(source, "/:"); i >= 0 && i < len(source)-1 {
		return source[i+1:]
	}
	return "taskpipe"
}

// authorizeFunctionCall is router middleware: a request from a function
// instance is authorized as the function's execution role, and a denial
// answered in the service's error shape.
func (c *Cloud) authorizeFunctionCall(w http.ResponseWriter, r *http.Request, op emu.Op) bool {
	if c.cfg.IAM != IAMEnforce {
		return false
	}
	caller, ok := emu.CallerFrom(r.Context())
	if !ok {
		return false
	}
	fn, err := c.functions.Configuration(caller.Function)
	if err != nil {
		return false // the function was deleted under its instance; the service answers
	}
	checks, err := c.requestChecks(r, op)
	if err != nil {
		return false // unreadable request: the service reports it in its own words
	}
	// Lambda names the execution role's session after the function.
	sess := emu.RoleSession{Service: "lambda.amazonaws.com", Role: fn.Role, Session: fn.FunctionName}
	for _, ch := range checks {
		if err := c.iam.Authorize(r.Context(), sess, ch.action, ch.resource); err != nil {
			writeAccessDenied(w, op.Service, err.Error())
			return true
		}
	}
	return false
}

type check struct{ action, resource string }

var lambdaInvokePath = regexp.MustCompile(`^/2015-03-31/functions/([^/]+)/invocations$`)

// requestChecks lists the IAM actions and resources a request needs
// (https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html).
// Services and operations it does not know need nothing: the local cloud
// does not enforce them (README, "IAM").
func (c *Cloud) requestChecks(r *http.Request, op emu.Op) ([]check, error) {
	region, acct := c.cfg.Region, c.cfg.AccountID
	switch op.Service {
	case emu.ServiceDynamoDB, emu.ServiceStreams, emu.ServiceSQS, emu.ServiceLogs, emu.ServiceEvents:
	case emu.ServiceLambda:
		m := lambdaInvokePath.FindStringSubmatch(r.URL.Path)
		if m == nil || r.Method != http.MethodPost {
			return nil, nil
		}
		name, err := url.PathUnescape(m[1])
		if err != nil {
			return nil, fmt.Errorf("lambda path: %w", err)
		}
		arn := name
		if !strings.HasPrefix(name, "arn:") {
			arn = fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", region, acct, name)
		}
		return []check{{"lambda:InvokeFunction", arn}}, nil
	case emu.ServicePipes:
		// The reconciler reads its pipe's state (pipes:DescribePipe, whose
		// resource type is the pipe:
		// https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoneventbridgepipes.html).
		name, member := pipe.Target(r)
		switch {
		case name == "":
			return nil, nil
		case name == "ListPipes":
			return []check{{"pipes:ListPipes", "*"}}, nil
		case strings.HasPrefix(member, "arn:"):
			return []check{{"pipes:" + name, member}}, nil
		}
		return []check{{"pipes:" + name, fmt.Sprintf("arn:aws:pipes:%s:%s:pipe/%s", region, acct, member)}}, nil
	case emu.ServiceS3:
		// The object calls a function makes; bucket configuration is the
		// developer's (Terraform's) and not checked.
		action := map[string]string{"PutObject": "s3:PutObject", "GetObject": "s3:GetObject", "DeleteObject": "s3:DeleteObject"}[op.Operation]
		b, key := bucket.Target(r)
		if action == "" || b == "" || key == "" {
			return nil, nil
		}
		return []check{{action, "arn:aws:s3:::" + b + "/" + key}}, nil
	default:
		return nil, nil
	}
	var body map[string]json.RawMessage
	if r.Body != nil {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, fmt.Errorf("read body: %w", err)
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		if len(bytes.TrimSpace(raw)) > 0 {
			if err := json.Unmarshal(raw, &body); err != nil {
				return nil, fmt.Errorf("decode body: %w", err)
			}
		}
	}
	str := func(m map[string]json.RawMessage, k string) string {
		var s string
		_ = json.Unmarshal(m[k], &s) // absent or not a string: ""
		return s
	}
	table := func(name string) string {
		if strings.HasPrefix(name, "arn:") {
			return name
		}
		return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", region, acct, name)
	}
	switch op.Service {
	case emu.ServiceDynamoDB:
		switch op.Operation {
		case "BatchWriteItem", "BatchGetItem":
			var items map[string]json.RawMessage
			_ = json.Unmarshal(body["RequestItems"], &items) // malformed: the service answers
			var out []check
			for name := range items {
				out = append(out, check{"dynamodb:" + op.Operation, table(name)})
			}
			return out, nil
		case "TransactWriteItems", "TransactGetItems":
			// Each item is authorized as its own action
			// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html).
			var items []map[string]map[string]json.RawMessage
			_ = json.Unmarshal(body["TransactItems"], &items)
			var out []check
			for _, it := range items {
				for kind, v := range it {
					action := map[string]string{"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
						"ConditionCheck": "ConditionCheckItem", "Get": "GetItem"}[kind]
					if action != "" {
						out = append(out, check{"dynamodb:" + action, table(str(v, "TableName"))})
					}
				}
			}
			return out, nil
		}
		name := str(body, "TableName")
		if name == "" {
			return []check{{"dynamodb:" + op.Operation, "*"}}, nil
		}
		res := table(name)
		if idx := str(body, "IndexName"); idx != "" {
			res += "/index/" + idx
		}
		return []check{{"dynamodb:" + op.Operation, res}}, nil
	case emu.ServiceStreams:
		res := str(body, "StreamArn")
		if res == "" {
			res = "*"
		}
		return []check{{"dynamodb:" + op.Operation, res}}, nil
	case emu.ServiceSQS:
		action := strings.TrimSuffix(op.Operation, "Batch") // SendMessageBatch is sqs:SendMessage
		res := "*"
		if u := str(body, "QueueUrl"); u != "" {
			res = queueARN(u, region)
		}
		return []check{{"sqs:" + action, res}}, nil
	case emu.ServiceLogs:
		group := str(body, "logGroupName")
		if group == "" {
			return []check{{"logs:" + op.Operation, "*"}}, nil
		}
		res := fmt.Sprintf("arn:aws:logs:%s:%s:log-group:%s", region, acct, group)
		if s := str(body, "logStreamName"); s != "" {
			res += ":log-stream:" + s
		} else {
			res += ":*"
		}
		return []check{{"logs:" + op.Operation, res}}, nil
	default: // events
		if op.Operation == "PutEvents" {
			var entries []map[string]json.RawMessage
			_ = json.Unmarshal(body["Entries"], &entries)
			seen := map[string]bool{}
			var out []check
			for _, e := range entries {
				bus := str(e, "EventBusName")
				if bus == "" {
					bus = "default"
				}
				if !strings.HasPrefix(bus, "arn:") {
					bus = fmt.Sprintf("arn:aws:events:%s:%s:event-bus/%s", region, acct, bus)
				}
				if !seen[bus] {
					seen[bus] = true
					out = append(out, check{"events:PutEvents", bus})
				}
			}
			return out, nil
		}
		return []check{{"events:" + op.Operation, "*"}}, nil
	}
}

// queueARN turns a queue URL (http://host/<account>/<name>) into its ARN.
func queueARN(u, region string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	parts := strings.Split(strings.Trim(parsed.Path, "/"), "/")
	if len(parts) != 2 {
		return u
	}
	return fmt.Sprintf("arn:aws:sqs:%s:%s:%s", region, parts[0], parts[1])
}

// writeAccessDenied answers a denial in the service's wire shape.
func writeAccessDenied(w http.ResponseWriter, service, msg string) {
	switch service {
	case emu.ServiceSQS:
		// Query-compatible JSON: the legacy code in x-amzn-query-error,
		// which aws-sdk-go-v2's ErrorCode() returns (docs/aws-behaviour.md §3.3).
		w.Header().Set("x-amzn-query-error", "AccessDenied;Sender")
		writeJSONError(w, "application/x-amz-json-1.0", http.StatusForbidden, "com.amazon.coral.service#AccessDeniedException", "message", msg)
	case emu.ServiceDynamoDB, emu.ServiceStreams:
		writeJSONError(w, "application/x-amz-json-1.0", http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#AccessDeniedException", "message", msg)
	case emu.ServiceLambda:
		w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException")
		writeJSONError(w, "application/json", http.StatusForbidden, "AccessDeniedException", "Message", msg)
	case emu.ServiceS3:
		// REST-XML: 403 with an <Error> document
		// (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		var b strings.Builder
		_ = xml.EscapeText(&b, []byte(msg))                                                                                                              // a strings.Builder does not fail
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n<Error><Code>AccessDenied</Code><Message>"+b.String()+"</Message></Error>") // the client went away; nothing left to tell it
	case emu.ServicePipes:
		// REST JSON, as the Pipes API's own errors: the type in
		// X-Amzn-ErrorType and "message" in the body.
		w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException")
		writeJSONError(w, "application/json", http.StatusForbidden, "AccessDeniedException", "message", msg)
	default: // logs, events: AWS JSON 1.1
		writeJSONError(w, "application/x-amz-json-1.1", http.StatusBadRequest, "AccessDeniedException", "message", msg)
	}
}

func writeJSONError(w http.ResponseWriter, contentType string, status int, typ, msgKey, msg string) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"__type": typ, msgKey: msg}) // the client went away; nothing left to tell it
}
