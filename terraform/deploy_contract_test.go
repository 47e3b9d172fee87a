package terraform_test

// Contracts of a first deployment on a real account (issue 12). The
// policies name ARNs of resources the same apply creates, so a plan knows
// them only after apply: their statements are read from the modules'
// statement literals (contract_test.go), the rest from the plans.

import (
	"strings"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
)

// noResourceLevelActions are the actions the modules grant that support no
// resource-level permissions: the Service Authorization Reference lists no
// resource type for them, so they can only be granted on "*"
// (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html).
var noResourceLevelActions = map[string]bool{
	"dynamodb:ListStreams": true,
}

// starWithResourceScopedAction reports whether a statement grants Resource
// "*" together with an action that supports resource-level permissions.
func starWithResourceScopedAction(actions []string, star bool) bool {
	if !star {
		return false
	}
	if len(actions) == 0 {
		return true
	}
	for _, a := range actions {
		if !noResourceLevelActions[a] {
			return true
		}
	}
	return false
}

// checkListStreamsOnAnyResource: a role that reads a DynamoDB stream gets
// dynamodb:ListStreams on "*", in a statement of its own (issue 12 #2; a
// grant on table/<name>/stream/* grants nothing, aws-cdk PR #10631).
func checkListStreamsOnAnyResource(c *checker) {
	readers := 0
	byModule := map[string][]statement{}
	for _, st := range c.statementLiterals() {
		byModule[st.where] = append(byModule[st.where], st)
	}
	for _, where := range sortedKeys(byModule) {
		reads, listed := false, false
		for _, st := range byModule[where] {
			for _, a := range st.actions {
				reads = reads || a == "dynamodb:GetRecords"
				if a != "dynamodb:ListStreams" {
					continue
				}
				if !st.literalResources || len(st.resourceLiterals) != 1 || st.resourceLiterals[0] != "*" {
					c.errorf("%s: dynamodb:ListStreams is granted on %v (references %v), want [\"*\"] (it has no resource-level permissions)", where, st.resourceLiterals, st.resources)
					continue
				}
				if len(st.actions) != 1 {
					c.errorf("%s: dynamodb:ListStreams shares its \"*\" statement with %v", where, st.actions)
					continue
				}
				listed = true
			}
		}
		if reads {
			readers++
			if !listed {
				c.errorf("%s: reads a stream without dynamodb:ListStreams on \"*\"", where)
			}
		}
	}
	if readers == 0 {
		c.errorf("no policy reads a DynamoDB stream")
	}
}

// functionActions are the exact actions each function's caller statements
// grant (go-lambda adds the log and queue-consumer statements itself). The
// handlers never read a task with GetItem: the scraper claims and the
// reconciler fails with conditional UpdateItem calls, and only the CLI
// calls dynamostore's Get (issue 12 #12).
var functionActions = map[string][]string{
	// s3:PutObject writes the site document under the result prefix;
	// kms:GenerateDataKey is granted only with a customer key on the bucket.
	"scraper": {"dynamodb:UpdateItem", "kms:GenerateDataKey", "s3:PutObject", "sqs:ChangeMessageVisibility", "sqs:SendMessage"},
	// dynamodb:BatchGetItem reads the rows the live index names (it leaves
	// out the status and the lease, which claims change).
	"reconciler": {"dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:UpdateItem", "pipes:DescribePipe", "sqs:SendMessage"},
}

// checkFunctionLeastPrivilege: the scraper's and the reconciler's caller
// statements grant exactly the actions their handlers call, every block's
// Sids are unique, and go-lambda refuses duplicate or reserved Sids.
func checkFunctionLeastPrivilege(c *checker) {
	got := map[string]map[string]bool{}
	sids := map[string]map[string]bool{}
	for _, st := range c.statementLiterals() {
		key := st.where + ": " + st.block
		if st.sid != "" {
			if sids[key] == nil {
				sids[key] = map[string]bool{}
			}
			if sids[key][st.sid] {
				c.errorf("%s: Sid %q is not unique", key, st.sid)
			}
			sids[key][st.sid] = true
		}
		if st.where != "modules/pipeline" {
			continue
		}
		for fn := range functionActions {
			if st.block == "module."+fn {
				if got[fn] == nil {
					got[fn] = map[string]bool{}
				}
				for _, a := range st.actions {
					got[fn][a] = true
				}
			}
		}
	}
	for _, fn := range sortedKeys(functionActions) {
		want := functionActions[fn]
		have := sortedKeys(got[fn])
		if strings.Join(have, ",") != strings.Join(want, ",") {
			c.errorf("pipeline: module %s grants %v, want exactly %v", fn, have, want)
		}
	}
	c.rejected("FunctionLeastPrivilege")
}

// checkDeploymentDimension records a violation unless the alarm selects
// exactly the Deployment dimension, with the value the functions get as
// DEPLOYMENT_NAME.
func checkDeploymentDimension(c *checker, p *examplePlan, alarm resource) {
	var want string
	for _, fn := range p.of("go-lambda", "aws_lambda_function") {
		if v := getenv(fn)(handler.EnvDeployment); v != "" {
			want = v
		}
	}
	if want == "" {
		c.errorf("%s: the functions' environment has no %s", p.name, handler.EnvDeployment)
		return
	}
	dims, _ := alarm.get("dimensions").(map[string]any)
	if len(dims) != 1 || dims[emf.DimDeployment] != want {
		c.errorf("%s: %s: dimensions %v, want exactly {%s = %q}", p.name, alarm.addr, dims, emf.DimDeployment, want)
	}
}

// checkEncryptionNeedsNoGrants: the queues use SSE-SQS and the table the
// AWS managed key, which need no KMS grants; no module sets a customer key
// for them, because none grants it to the pipe and the functions (issue 12
// #4).
func checkEncryptionNeedsNoGrants(c *checker) {
	for _, p := range c.plans() {
		queues := p.of("*", "aws_sqs_queue")
		tables := p.of("*", "aws_dynamodb_table")
		if len(queues) == 0 || len(tables) == 0 {
			c.errorf("%s: no queues (%d) or tables (%d)", p.name, len(queues), len(tables))
		}
		for _, q := range queues {
			if q.get("sqs_managed_sse_enabled") != true {
				c.errorf("%s: %s: sqs_managed_sse_enabled is %v, want true (SSE-SQS)", p.name, q.addr, q.get("sqs_managed_sse_enabled"))
			}
		}
		// Whether a key is configured at all: the configuration's
		// expressions.
		var walk func(where string, m *tfjson.ConfigModule)
		walk = func(where string, m *tfjson.ConfigModule) {
			for _, r := range m.Resources {
				switch r.Type {
				case "aws_sqs_queue":
					if _, ok := r.Expressions["kms_master_key_id"]; ok {
						c.errorf("%s: %s.%s sets kms_master_key_id: nothing grants a customer key to the pipe and the functions", where, r.Type, r.Name)
					}
				case "aws_dynamodb_table":
					if nestedExpr(r.Expressions, "server_side_encryption", "kms_key_arn") != nil {
						c.errorf("%s: %s.%s sets server_side_encryption.kms_key_arn: nothing grants a customer key to the pipe and the functions", where, r.Type, r.Name)
					}
				}
			}
			for _, name := range sortedKeys(m.ModuleCalls) {
				if call := m.ModuleCalls[name]; call.Module != nil {
					walk(call.Source, call.Module)
				}
			}
		}
		walk(p.name, p.plan.Config.RootModule)
	}
}
