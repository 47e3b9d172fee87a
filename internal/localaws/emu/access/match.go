package access

import "strings"

// glob reports whether s matches pattern, where * matches any run of
// characters and ? any one character (IAM's wildcards:
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html#reference_policies_elements_resource_wildcards).
func glob(pattern, s string, fold bool) bool {
	if fold {
		pattern, s = strings.ToLower(pattern), strings.ToLower(s)
	}
	// Iterative matcher with one backtrack point: linear for IAM's patterns.
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// actionMatches matches an Action element value ("sqs:Send*", "*")
// against "service:Action"; action names are case-insensitive.
func actionMatches(pattern, action string) bool {
	return glob(pattern, action, true)
}

// arnMatches compares an ARN pattern with an ARN segment by segment
// (partition, service, region, account, resource), so a wildcard does not
// run across a colon of the first five segments; a pattern with fewer
// segments is padded with "*" when pad is set (identity policies) or when
// it holds a wildcard, and matches nothing otherwise.
func arnMatches(pattern, arn string, pad bool) bool {
	pp := strings.SplitN(pattern, ":", 6)
	ap := strings.SplitN(arn, ":", 6)
	if len(ap) != 6 || ap[0] != "arn" {
		return false
	}
	if len(pp) < 6 {
		if !pad && !strings.Contains(pattern, "*") {
			return false
		}
		for len(pp) < 6 {
			pp = append(pp, "*")
		}
	}
	for i := range pp {
		if !glob(pp[i], ap[i], false) {
			return false
		}
	}
	return true
}

// resourceMatches matches a Resource element value against the request's
// resource ("*" for an action without resource-level permissions, which
// only the value "*" matches).
func resourceMatches(pattern, resource string, identity bool) bool {
	if pattern == "*" {
		return true
	}
	if resource == "*" {
		return false
	}
	if strings.HasPrefix(pattern, "arn:") {
		return arnMatches(pattern, resource, identity)
	}
	return glob(pattern, resource, false)
}
