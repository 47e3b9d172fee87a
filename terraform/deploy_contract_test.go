package terraform_test

// Contracts of a first deployment on a real account (issue 12) that only
// the configuration can show: the policies' ARNs are unknown in a plan
// (they name resources the same apply creates), so these read the
// configuration through the HCL evaluator of config_test.go, in every
// configuration the examples instantiate. plan_test.go checks what a plan
// shows.

import (
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

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

// statement is one statement of a policy document, as far as it is known.
type statement struct {
	sid       string
	actions   []string
	resources []string
	// known is false when the actions or resources are unknown at plan time.
	known bool
}

// statements returns the statements of a policy document.
func statements(doc cty.Value) []statement {
	stmts := attrOf(doc, "Statement")
	if stmts == cty.NilVal || !stmts.IsKnown() || stmts.IsNull() || !stmts.CanIterateElements() {
		return nil
	}
	if stmts.Type().IsObjectType() {
		stmts = cty.TupleVal([]cty.Value{stmts})
	}
	var out []statement
	for it := stmts.ElementIterator(); it.Next(); {
		_, st := it.Element()
		var s statement
		s.sid, _ = str(attrOf(st, "Sid"))
		actions, okA := stringList(attrOf(st, "Action"))
		resources, okR := knownStrings(attrOf(st, "Resource"))
		s.actions, s.resources, s.known = actions, resources, okA && okR
		out = append(out, s)
	}
	return out
}

// knownStrings returns the known strings of a string or a list of strings,
// skipping unknown elements (ARNs of resources the apply creates); ok is
// false when the collection itself is unknown.
func knownStrings(v cty.Value) ([]string, bool) {
	if v == cty.NilVal || !v.IsKnown() || v.IsNull() {
		return nil, false
	}
	if v.Type() == cty.String {
		return []string{v.AsString()}, true
	}
	if !v.CanIterateElements() {
		return nil, false
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if s, ok := str(e); ok {
			out = append(out, s)
		}
	}
	return out, true
}

// starWithResourceScopedAction reports whether a statement grants Resource
// "*" together with an action that supports resource-level permissions.
func starWithResourceScopedAction(doc cty.Value) bool {
	for _, st := range statements(doc) {
		star := false
		for _, r := range st.resources {
			star = star || r == "*"
		}
		if !star {
			continue
		}
		for _, a := range st.actions {
			if !noResourceLevelActions[a] {
				return true
			}
		}
		if len(st.actions) == 0 {
			return true
		}
	}
	return false
}

// policyDocs calls fn with every aws_iam_role_policy document of every
// configuration.
func policyDocs(c *checker, fn func(where string, doc cty.Value)) {
	for _, s := range c.scopes() {
		for _, inst := range mustInstances(c, s, "aws_iam_role_policy") {
			a, ok := inst.block.Body.Attributes["policy"]
			if !ok {
				c.errorf("%s: %s has no policy", s.label(), inst.address())
				continue
			}
			doc, err := s.jsonDoc(a.Expr, inst.extra)
			if !c.ok(err) {
				continue
			}
			fn(s.label()+": "+inst.address(), doc)
		}
	}
}

// checkListStreamsOnAnyResource: a role that reads a DynamoDB stream gets
// dynamodb:ListStreams on "*", in a statement of its own (issue 12 #2; a
// grant on table/<name>/stream/* grants nothing, aws-cdk PR #10631).
func checkListStreamsOnAnyResource(c *checker) {
	readers := 0
	policyDocs(c, func(where string, doc cty.Value) {
		stmts := statements(doc)
		reads, listed := false, false
		for _, st := range stmts {
			for _, a := range st.actions {
				reads = reads || a == "dynamodb:GetRecords"
				if a != "dynamodb:ListStreams" {
					continue
				}
				if !st.known || len(st.resources) != 1 || st.resources[0] != "*" {
					c.errorf("%s: dynamodb:ListStreams is granted on %v, want [\"*\"] (it has no resource-level permissions)", where, st.resources)
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
	})
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
	"scraper":    {"dynamodb:UpdateItem", "sqs:ChangeMessageVisibility", "sqs:SendMessage"},
	"reconciler": {"dynamodb:Query", "dynamodb:UpdateItem", "sqs:SendMessage"},
}

// checkFunctionLeastPrivilege: the scraper's and the reconciler's policies
// grant exactly the actions their handlers call, and every policy's Sids
// are unique.
func checkFunctionLeastPrivilege(c *checker) {
	seen := map[string]bool{}
	for _, s := range c.scopes() {
		for fn, want := range functionActions {
			if !strings.HasSuffix(s.label(), "module."+fn) {
				continue
			}
			seen[fn] = true
			for _, inst := range mustInstances(c, s, "aws_iam_role_policy") {
				doc, err := s.jsonDoc(inst.block.Body.Attributes["policy"].Expr, inst.extra)
				if !c.ok(err) {
					continue
				}
				got := map[string]bool{}
				for _, st := range statements(doc) {
					switch st.sid {
					case "WriteLogs", "ConsumeQueue":
						continue // go-lambda's own
					}
					for _, a := range st.actions {
						got[a] = true
					}
				}
				var have []string
				for a := range got {
					have = append(have, a)
				}
				sort.Strings(have)
				if strings.Join(have, ",") != strings.Join(want, ",") {
					c.errorf("%s: %s grants %v, want exactly %v", s.label(), inst.address(), have, want)
				}
			}
		}
	}
	for fn := range functionActions {
		if !seen[fn] {
			c.errorf("module %s is never instantiated", fn)
		}
	}
	policyDocs(c, func(where string, doc cty.Value) {
		sids := map[string]bool{}
		for _, st := range statements(doc) {
			if st.sid != "" && sids[st.sid] {
				c.errorf("%s: Sid %q is not unique", where, st.sid)
			}
			sids[st.sid] = true
		}
	})
	if m := c.module("go-lambda"); m != nil {
		stmt := func(sid string) cty.Value {
			return cty.ObjectVal(map[string]cty.Value{
				"sid":       cty.StringVal(sid),
				"actions":   cty.ListVal([]cty.Value{cty.StringVal("sqs:SendMessage")}),
				"resources": cty.ListVal([]cty.Value{cty.StringVal("arn:aws:sqs:eu-west-1:123456789012:q")}),
			})
		}
		requireRejected(c, m, "policy_statements",
			cty.ListVal([]cty.Value{stmt("Same"), stmt("Same")}),
			cty.ListVal([]cty.Value{stmt("WriteLogs")}),
			cty.ListVal([]cty.Value{stmt("ConsumeQueue")}))
	}
}

// checkDeploymentDimension records a violation unless the alarm inst
// selects exactly the Deployment dimension, with the value the functions
// get as DEPLOYMENT_NAME.
func checkDeploymentDimension(c *checker, s *scope, inst instance) {
	dims, err := s.attr(inst.body(), "dimensions")
	if !c.ok(err) {
		return
	}
	expr, diags := hclsyntax.ParseExpression([]byte("local.environment"), "contract", hcl.InitialPos)
	if diags.HasErrors() {
		c.errorf("parse: %v", diags)
		return
	}
	env, err := s.eval(expr, nil)
	if !c.ok(err) {
		return
	}
	want, ok := str(attrOf(env, handler.EnvDeployment))
	if !ok || want == "" {
		c.errorf("%s: the functions' environment has no %s", s.label(), handler.EnvDeployment)
		return
	}
	if !known(dims) || !dims.CanIterateElements() || dims.LengthInt() != 1 {
		c.errorf("%s: %s: dimensions %s, want exactly {%s = %q}", s.label(), inst.address(), dims.GoString(), emf.DimDeployment, want)
		return
	}
	var got string
	if dims.Type().IsMapType() && dims.HasIndex(cty.StringVal(emf.DimDeployment)).True() {
		got, _ = str(dims.Index(cty.StringVal(emf.DimDeployment)))
	} else {
		got, _ = str(attrOf(dims, emf.DimDeployment))
	}
	if got != want {
		c.errorf("%s: %s: dimensions %s, want exactly {%s = %q}", s.label(), inst.address(), dims.GoString(), emf.DimDeployment, want)
	}
}

// checkEncryptionNeedsNoGrants: the queues use SSE-SQS and the table the
// AWS managed key, which need no KMS grants; no module offers a customer
// key for them, because none grants it to the pipe and the functions
// (issue 12 #4).
func checkEncryptionNeedsNoGrants(c *checker) {
	queues, tables := 0, 0
	for _, s := range c.scopes() {
		for _, inst := range mustInstances(c, s, "aws_sqs_queue") {
			queues++
			v, err := s.attr(inst.body(), "sqs_managed_sse_enabled")
			if !c.ok(err) {
				continue
			}
			if !known(v) || v.Type() != cty.Bool || !v.True() {
				c.errorf("%s: %s: sqs_managed_sse_enabled is %s, want true (SSE-SQS)", s.label(), inst.address(), v.GoString())
			}
			if _, ok := inst.block.Body.Attributes["kms_master_key_id"]; ok {
				c.errorf("%s: %s sets kms_master_key_id: nothing grants a customer key to the pipe and the functions", s.label(), inst.address())
			}
		}
		for _, inst := range mustInstances(c, s, "aws_dynamodb_table") {
			tables++
			sse, err := s.block(inst.body(), "server_side_encryption")
			if !c.ok(err) {
				continue
			}
			if _, ok := sse.Attributes["kms_key_arn"]; ok {
				c.errorf("%s: %s sets server_side_encryption.kms_key_arn: nothing grants a customer key to the pipe and the functions", s.label(), inst.address())
			}
		}
	}
	if queues == 0 || tables == 0 {
		c.errorf("no queues (%d) or tables (%d) in any configuration", queues, tables)
	}
}
