package identity

import "strings"

// RolePolicies are the policy documents of one role, as the local cloud's
// authorizer reads them.
type RolePolicies struct {
	// Name is the role's name (assumed-role session ARNs carry it).
	Name string
	// Trust is the assume-role policy document.
	Trust string
	// Inline are the inline policy documents, in PutRolePolicy order.
	Inline []string
	// Attached are the managed policy ARNs attached to the role.
	Attached []string
}

// Policies returns the policies of the role with this ARN (any path), or
// false when there is no such role in the account.
func (s *Service) Policies(roleARN string) (RolePolicies, bool) {
	prefix := "arn:aws:iam::" + s.accountID + ":role/"
	rest, ok := strings.CutPrefix(roleARN, prefix)
	if !ok {
		return RolePolicies{}, false
	}
	name := rest[strings.LastIndex(rest, "/")+1:]
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.roles[strings.ToLower(name)]
	if r == nil || r.arn != roleARN {
		return RolePolicies{}, false
	}
	out := RolePolicies{Name: r.name, Trust: r.assumeRolePolicy, Attached: append([]string(nil), r.attached...)}
	for _, n := range r.inlineOrder {
		out.Inline = append(out.Inline, r.inline[n])
	}
	return out, true
}
