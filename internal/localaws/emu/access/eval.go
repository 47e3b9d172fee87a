package access

import (
	"fmt"
	"strings"
)

// Decision is the outcome of an authorization.
type Decision int

// Decisions.
const (
	ImplicitDeny Decision = iota
	Allow
	ExplicitDeny
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "Allowed"
	case ExplicitDeny:
		return "ExplicitlyDenied"
	default:
		return "ImplicitlyDenied"
	}
}

// Request is one authorization request.
type Request struct {
	// Principal is the caller: an assumed-role session
	// ("arn:aws:sts::123456789012:assumed-role/R/session"), an IAM ARN, or
	// a service principal ("pipes.amazonaws.com") assuming a role.
	Principal string
	// Action is "service:Action".
	Action string
	// Resource is the ARN the action acts on; it is replaced by "*" for an
	// action without resource-level permissions.
	Resource string
	// Context holds the condition keys of the request (names any case).
	Context map[string][]string
}

// Result is an authorization decision and where it came from.
type Result struct {
	Decision Decision
	// DeniedBy is "identity-based" or "resource-based" for an explicit
	// deny.
	DeniedBy string
	// Statement is the Sid (or index) of the deciding statement, if any.
	Statement string
}

// Allowed reports whether the request is allowed.
func (r Result) Allowed() bool { return r.Decision == Allow }

// Message is the denial message AWS services put in an AccessDenied error
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html).
func (r Result) Message(req Request) string {
	res := EffectiveResource(req.Action, req.Resource)
	base := fmt.Sprintf("User: %s is not authorized to perform: %s on resource: %s", req.Principal, req.Action, res)
	switch r.Decision {
	case ExplicitDeny:
		return base + " with an explicit deny in " + article(r.DeniedBy) + " policy"
	case ImplicitDeny:
		return base + " because no identity-based policy allows the " + req.Action + " action"
	default:
		return ""
	}
}

func article(kind string) string {
	if strings.HasPrefix(kind, "identity") {
		return "an " + kind
	}
	return "a " + kind
}

// EffectiveResource is the resource an action authorizes against: "*"
// for an action that supports no resource type.
func EffectiveResource(action, resource string) string {
	if a, ok := LookupAction(action); ok && a.WildcardOnly() {
		return "*"
	}
	if resource == "" {
		return "*"
	}
	return resource
}

// Evaluate decides req against the principal's identity policies and the
// resource's policy (nil when the resource has none or the service does
// not evaluate one), for a principal and resource in the same account.
func Evaluate(req Request, identity []*Policy, resource *Policy) Result {
	req.Resource = EffectiveResource(req.Action, req.Resource)
	ctx := make(map[string][]string, len(req.Context))
	for k, v := range req.Context {
		ctx[strings.ToLower(k)] = v
	}
	var allow *Result
	for _, p := range identity {
		for i, st := range p.Statement {
			if !st.applies(req, ctx, true) {
				continue
			}
			if st.Effect == "Deny" {
				return Result{Decision: ExplicitDeny, DeniedBy: "identity-based", Statement: st.id(i)}
			}
			if allow == nil {
				allow = &Result{Decision: Allow, Statement: st.id(i)}
			}
		}
	}
	if resource != nil {
		for i, st := range resource.Statement {
			if !st.applies(req, ctx, false) {
				continue
			}
			named := st.namesPrincipal(req.Principal)
			if st.Effect == "Deny" {
				return Result{Decision: ExplicitDeny, DeniedBy: "resource-based", Statement: st.id(i)}
			}
			// Within one account a resource policy that names the
			// principal itself (or "*") allows on its own; one that names
			// only the account delegates to the identity policies.
			if named && allow == nil {
				allow = &Result{Decision: Allow, Statement: st.id(i)}
			}
		}
	}
	if allow != nil {
		return *allow
	}
	return Result{Decision: ImplicitDeny}
}

func (st Statement) id(i int) string {
	if st.Sid != "" {
		return st.Sid
	}
	return fmt.Sprint(i)
}

// applies reports whether the statement matches the request: action,
// resource, principal (resource policies only) and conditions.
func (st Statement) applies(req Request, ctx map[string][]string, identity bool) bool {
	if !st.matchesAction(req.Action) || !st.matchesResource(req.Resource, identity) {
		return false
	}
	if !identity && !st.matchesPrincipal(req.Principal) {
		return false
	}
	for _, c := range st.Condition {
		if !c.holds(ctx) {
			return false
		}
	}
	return true
}

func (st Statement) matchesAction(action string) bool {
	if len(st.Action) > 0 {
		for _, a := range st.Action {
			if actionMatches(a, action) {
				return true
			}
		}
		return false
	}
	for _, a := range st.NotAction {
		if actionMatches(a, action) {
			return false
		}
	}
	return true
}

func (st Statement) matchesResource(resource string, identity bool) bool {
	switch {
	case st.hasResource:
		for _, r := range st.Resource {
			if resourceMatches(r, resource, identity) {
				return true
			}
		}
		return false
	case st.hasNotResource:
		for _, r := range st.NotResource {
			if resourceMatches(r, resource, identity) {
				return false
			}
		}
		return true
	default:
		// A resource policy (a trust policy, say) may leave Resource out:
		// it means the resource the policy is attached to.
		return !identity
	}
}

func (st Statement) matchesPrincipal(principal string) bool {
	switch {
	case st.Principal != nil:
		return principalMatches(st.Principal, principal) != matchNone
	case st.NotPrincipal != nil:
		return principalMatches(st.NotPrincipal, principal) == matchNone
	default:
		return false
	}
}

// namesPrincipal reports whether the statement grants the principal by
// name (or to everyone), not only through its account.
func (st Statement) namesPrincipal(principal string) bool {
	switch {
	case st.Principal != nil:
		return principalMatches(st.Principal, principal) == matchNamed
	case st.NotPrincipal != nil:
		return principalMatches(st.NotPrincipal, principal) == matchNone
	default:
		return false
	}
}

type principalMatch int

const (
	matchNone principalMatch = iota
	matchAccount
	matchNamed
)

// principalMatches matches a Principal element against the caller
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html).
func principalMatches(p *Principal, principal string) principalMatch {
	if p.Any {
		return matchNamed
	}
	best := matchNone
	for typ, vals := range p.Values {
		for _, v := range vals {
			var m principalMatch
			switch typ {
			case "AWS":
				m = awsPrincipalMatches(v, principal)
			default: // Service, Federated, CanonicalUser
				if v == principal {
					m = matchNamed
				}
			}
			if m > best {
				best = m
			}
		}
	}
	return best
}

func awsPrincipalMatches(v, principal string) principalMatch {
	if v == "*" || v == principal {
		return matchNamed
	}
	acct := accountOf(principal)
	if acct == "" {
		return matchNone
	}
	if v == acct || v == "arn:aws:iam::"+acct+":root" {
		return matchAccount
	}
	// A role ARN names every session of the role; the session ARN drops
	// the role's path.
	if strings.HasPrefix(principal, "arn:aws:sts::"+acct+":assumed-role/") {
		role, _, _ := strings.Cut(strings.TrimPrefix(principal, "arn:aws:sts::"+acct+":assumed-role/"), "/")
		if strings.HasPrefix(v, "arn:aws:iam::"+acct+":role/") {
			name := v[strings.LastIndex(v, "/")+1:]
			if name == role {
				return matchNamed
			}
		}
	}
	return matchNone
}

// accountOf returns the account of an IAM or STS ARN, or "".
func accountOf(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || (parts[2] != "iam" && parts[2] != "sts") {
		return ""
	}
	return parts[4]
}
