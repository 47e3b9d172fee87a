package identity

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// Limits and patterns from the IAM API reference (CreateRole, PutRolePolicy,
// TagRole) and botocore's iam 2010-05-08 model.
var (
	roleNamePattern   = regexp.MustCompile(`^[\w+=,.@-]{1,64}$`)
	policyNamePattern = regexp.MustCompile(`^[\w+=,.@-]{1,128}$`)
	pathPattern       = regexp.MustCompile(`^(/|/[\x21-\x7E]+/)$`)
	policyARNPattern  = regexp.MustCompile(`^arn:aws[a-z-]*:iam::(aws|\d{12}):policy/[\x21-\x7E]+$`)
)

const (
	maxTagsPerRole        = 50
	minSessionDuration    = 3600
	maxSessionDuration    = 43200
	maxDescriptionLength  = 1000
	maxPathLength         = 512
	defaultListMaxItems   = 100
	maxPolicyDocumentSize = 131072 // the API's length limit on policy documents
)

// IAM returns the IAM API handler (query protocol, Version 2010-05-08).
func (s *Service) IAM() http.Handler {
	return &handler{service: emu.ServiceIAM, namespace: iamNamespace, version: "2010-05-08", actions: map[string]func(url.Values) (any, error){
		"CreateRole":                  s.createRole,
		"GetRole":                     s.getRole,
		"UpdateRole":                  s.updateRole,
		"UpdateAssumeRolePolicy":      s.updateAssumeRolePolicy,
		"DeleteRole":                  s.deleteRole,
		"PutRolePolicy":               s.putRolePolicy,
		"GetRolePolicy":               s.getRolePolicy,
		"DeleteRolePolicy":            s.deleteRolePolicy,
		"ListRolePolicies":            s.listRolePolicies,
		"AttachRolePolicy":            s.attachRolePolicy,
		"DetachRolePolicy":            s.detachRolePolicy,
		"ListAttachedRolePolicies":    s.listAttachedRolePolicies,
		"ListInstanceProfilesForRole": s.listInstanceProfilesForRole,
		"TagRole":                     s.tagRole,
		"UntagRole":                   s.untagRole,
		"ListRoleTags":                s.listRoleTags,
	}}
}

// --- XML shapes (botocore iam model names) ---

type tagXML struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

type boundaryXML struct {
	PermissionsBoundaryType string `xml:"PermissionsBoundaryType"`
	PermissionsBoundaryArn  string `xml:"PermissionsBoundaryArn"`
}

type roleXML struct {
	Path                     string       `xml:"Path"`
	RoleName                 string       `xml:"RoleName"`
	RoleID                   string       `xml:"RoleId"`
	Arn                      string       `xml:"Arn"`
	CreateDate               string       `xml:"CreateDate"`
	AssumeRolePolicyDocument string       `xml:"AssumeRolePolicyDocument"`
	Description              string       `xml:"Description,omitempty"`
	MaxSessionDuration       int          `xml:"MaxSessionDuration"`
	PermissionsBoundary      *boundaryXML `xml:"PermissionsBoundary,omitempty"`
	Tags                     []tagXML     `xml:"Tags>member,omitempty"`
}

type createRoleResult struct {
	XMLName xml.Name `xml:"CreateRoleResult"`
	Role    roleXML  `xml:"Role"`
}

type getRoleResult struct {
	XMLName xml.Name `xml:"GetRoleResult"`
	Role    roleXML  `xml:"Role"`
}

// updateRoleResult is empty, but UpdateRole, unlike most IAM writes, has an
// output shape, so the element must be present.
type updateRoleResult struct {
	XMLName xml.Name `xml:"UpdateRoleResult"`
}

type getRolePolicyResult struct {
	XMLName        xml.Name `xml:"GetRolePolicyResult"`
	RoleName       string   `xml:"RoleName"`
	PolicyName     string   `xml:"PolicyName"`
	PolicyDocument string   `xml:"PolicyDocument"`
}

type listRolePoliciesResult struct {
	XMLName     xml.Name `xml:"ListRolePoliciesResult"`
	PolicyNames []string `xml:"PolicyNames>member"`
	IsTruncated bool     `xml:"IsTruncated"`
	Marker      string   `xml:"Marker,omitempty"`
}

type attachedPolicyXML struct {
	PolicyName string `xml:"PolicyName"`
	PolicyArn  string `xml:"PolicyArn"`
}

type listAttachedRolePoliciesResult struct {
	XMLName          xml.Name            `xml:"ListAttachedRolePoliciesResult"`
	AttachedPolicies []attachedPolicyXML `xml:"AttachedPolicies>member"`
	IsTruncated      bool                `xml:"IsTruncated"`
	Marker           string              `xml:"Marker,omitempty"`
}

type listInstanceProfilesForRoleResult struct {
	XMLName          xml.Name `xml:"ListInstanceProfilesForRoleResult"`
	InstanceProfiles struct{} `xml:"InstanceProfiles"`
	IsTruncated      bool     `xml:"IsTruncated"`
}

type listRoleTagsResult struct {
	XMLName     xml.Name `xml:"ListRoleTagsResult"`
	Tags        []tagXML `xml:"Tags>member"`
	IsTruncated bool     `xml:"IsTruncated"`
	Marker      string   `xml:"Marker,omitempty"`
}

// --- request helpers ---

// param returns a required parameter. The camel-cased name in the message is
// how AWS's validation errors name members ("roleName").
func param(form url.Values, name string) (string, error) {
	v, ok := form[name]
	if !ok || len(v) == 0 {
		return "", errValidation("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", lowerFirst(name))
	}
	return v[0], nil
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func checkRoleName(name string) error {
	if !roleNamePattern.MatchString(name) {
		return errValidation("1 validation error detected: Value '%s' at 'roleName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+ and have length between 1 and 64", name)
	}
	return nil
}

func checkPolicyName(name string) error {
	if !policyNamePattern.MatchString(name) {
		return errValidation("1 validation error detected: Value '%s' at 'policyName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+ and have length between 1 and 128", name)
	}
	return nil
}

// checkPolicyDocument accepts a JSON object; IAM rejects anything else with
// MalformedPolicyDocument. Grammar beyond JSON is not checked.
func checkPolicyDocument(doc, reason string) error {
	if len(doc) > maxPolicyDocumentSize {
		return errValidation("1 validation error detected: Value at 'policyDocument' failed to satisfy constraint: Member must have length less than or equal to %d", maxPolicyDocumentSize)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(doc), &v); err != nil || v == nil {
		return &queryError{http.StatusBadRequest, "MalformedPolicyDocument", reason}
	}
	return nil
}

// tagsParam reads Tags.member.N.Key / .Value (N from 1).
func tagsParam(form url.Values) ([]tag, error) {
	var tags []tag
	for i := 1; ; i++ {
		prefix := "Tags.member." + strconv.Itoa(i)
		key, ok := form[prefix+".Key"]
		if !ok {
			break
		}
		if len(key[0]) == 0 || len(key[0]) > 128 {
			return nil, errValidation("1 validation error detected: Value '%s' at 'tags.%d.member.key' failed to satisfy constraint: Member must have length between 1 and 128", key[0], i)
		}
		value := form.Get(prefix + ".Value")
		if len(value) > 256 {
			return nil, errValidation("1 validation error detected: Value at 'tags.%d.member.value' failed to satisfy constraint: Member must have length less than or equal to 256", i)
		}
		tags = append(tags, tag{key: key[0], value: value})
	}
	if len(tags) > maxTagsPerRole {
		return nil, &queryError{http.StatusConflict, "LimitExceeded", fmt.Sprintf("Cannot exceed quota for TagsPerRole: %d", maxTagsPerRole)}
	}
	return tags, nil
}

// listParam reads Name.member.N (N from 1).
func listParam(form url.Values, name string) []string {
	var out []string
	for i := 1; ; i++ {
		v, ok := form[name+".member."+strconv.Itoa(i)]
		if !ok {
			return out
		}
		out = append(out, v[0])
	}
}

// page applies MaxItems/Marker pagination to n items; the marker is the index
// of the next item, which is opaque to clients.
func page(form url.Values, n int) (start, end int, marker string, err error) {
	maxItems := defaultListMaxItems
	if v := form.Get("MaxItems"); v != "" {
		m, perr := strconv.Atoi(v)
		if perr != nil || m < 1 || m > 1000 {
			return 0, 0, "", errValidation("1 validation error detected: Value '%s' at 'maxItems' failed to satisfy constraint: Member must have value between 1 and 1000", v)
		}
		maxItems = m
	}
	if v := form.Get("Marker"); v != "" {
		m, perr := strconv.Atoi(v)
		if perr != nil || m < 0 || m > n {
			return 0, 0, "", &queryError{http.StatusBadRequest, "InvalidInput", "Invalid Marker."}
		}
		start = m
	}
	end = min(start+maxItems, n)
	if end < n {
		marker = strconv.Itoa(end)
	}
	return start, end, marker, nil
}

// lookup returns the role by case-insensitive name; s.mu must be held.
func (s *Service) lookup(name string) (*role, error) {
	r, ok := s.roles[strings.ToLower(name)]
	if !ok {
		return nil, &queryError{http.StatusNotFound, "NoSuchEntity", fmt.Sprintf("The role with name %s cannot be found.", name)}
	}
	return r, nil
}

// roleParam reads and validates RoleName, then finds the role; s.mu must be held.
func (s *Service) roleParam(form url.Values) (*role, error) {
	name, err := param(form, "RoleName")
	if err != nil {
		return nil, err
	}
	if err := checkRoleName(name); err != nil {
		return nil, err
	}
	return s.lookup(name)
}

func (r *role) xml() roleXML {
	out := roleXML{
		Path:                     r.path,
		RoleName:                 r.name,
		RoleID:                   r.id,
		Arn:                      r.arn,
		CreateDate:               r.created.UTC().Format(time.RFC3339),
		AssumeRolePolicyDocument: encodePolicy(r.assumeRolePolicy),
		Description:              r.description,
		MaxSessionDuration:       r.maxSessionDuration,
	}
	if r.permissionsBoundaryARN != "" {
		out.PermissionsBoundary = &boundaryXML{PermissionsBoundaryType: "Policy", PermissionsBoundaryArn: r.permissionsBoundaryARN}
	}
	for _, t := range r.tags {
		out.Tags = append(out.Tags, tagXML{Key: t.key, Value: t.value})
	}
	return out
}

// --- actions ---

func (s *Service) createRole(form url.Values) (any, error) {
	name, err := param(form, "RoleName")
	if err != nil {
		return nil, err
	}
	if err := checkRoleName(name); err != nil {
		return nil, err
	}
	doc, err := param(form, "AssumeRolePolicyDocument")
	if err != nil {
		return nil, err
	}
	if err := checkPolicyDocument(doc, "This policy contains invalid Json"); err != nil {
		return nil, err
	}
	path := "/"
	if v, ok := form["Path"]; ok {
		path = v[0]
		if len(path) > maxPathLength || !pathPattern.MatchString(path) {
			return nil, errValidation("The specified value for path is invalid. It must begin and end with / and contain only alphanumeric characters and/or / characters.")
		}
	}
	description := form.Get("Description")
	if len([]rune(description)) > maxDescriptionLength {
		return nil, errValidation("1 validation error detected: Value at 'description' failed to satisfy constraint: Member must have length less than or equal to %d", maxDescriptionLength)
	}
	session := minSessionDuration
	if v := form.Get("MaxSessionDuration"); v != "" {
		if session, err = sessionDuration(v); err != nil {
			return nil, err
		}
	}
	boundary := form.Get("PermissionsBoundary")
	if boundary != "" && !policyARNPattern.MatchString(boundary) {
		return nil, &queryError{http.StatusBadRequest, "InvalidInput", fmt.Sprintf("ARN %s is not valid.", boundary)}
	}
	tags, err := tagsParam(form)
	if err != nil {
		return nil, err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if _, exists := s.roles[strings.ToLower(name)]; exists {
		return nil, &queryError{http.StatusConflict, "EntityAlreadyExists", fmt.Sprintf("Role with name %s already exists.", name)}
	}
	r := &role{
		name:                   name,
		path:                   path,
		id:                     uniqueID("AROA"),
		arn:                    fmt.Sprintf("arn:aws:iam::%s:role%s%s", s.accountID, path, name),
		description:            description,
		assumeRolePolicy:       doc,
		maxSessionDuration:     session,
		permissionsBoundaryARN: boundary,
		created:                s.now(),
		tags:                   tags,
		inline:                 map[string]string{},
	}
	s.roles[strings.ToLower(name)] = r
	return createRoleResult{Role: r.xml()}, nil
}

func sessionDuration(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < minSessionDuration || n > maxSessionDuration {
		return 0, errValidation("1 validation error detected: Value '%s' at 'maxSessionDuration' failed to satisfy constraint: Member must have value between %d and %d", v, minSessionDuration, maxSessionDuration)
	}
	return n, nil
}

func (s *Service) getRole(form url.Values) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	return getRoleResult{Role: r.xml()}, nil
}

func (s *Service) updateRole(form url.Values) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	if v, ok := form["Description"]; ok {
		if len([]rune(v[0])) > maxDescriptionLength {
			return nil, errValidation("1 validation error detected: Value at 'description' failed to satisfy constraint: Member must have length less than or equal to %d", maxDescriptionLength)
		}
		r.description = v[0]
	}
	if v := form.Get("MaxSessionDuration"); v != "" {
		n, err := sessionDuration(v)
		if err != nil {
			return nil, err
		}
		r.maxSessionDuration = n
	}
	return updateRoleResult{}, nil
}

func (s *Service) updateAssumeRolePolicy(form url.Values) (any, error) {
	doc, err := param(form, "PolicyDocument")
	if err != nil {
		return nil, err
	}
	if err := checkPolicyDocument(doc, "This policy contains invalid Json"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	r.assumeRolePolicy = doc
	return nil, nil
}

// deleteRole refuses while policies remain, as IAM does (DeleteConflict;
// API reference DeleteRole: "you must first remove those items").
func (s *Service) deleteRole(form url.Values) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	if len(r.inline) > 0 {
		return nil, &queryError{http.StatusConflict, "DeleteConflict", "Cannot delete entity, must delete policies first."}
	}
	if len(r.attached) > 0 {
		return nil, &queryError{http.StatusConflict, "DeleteConflict", "Cannot delete entity, must detach all policies first."}
	}
	delete(s.roles, strings.ToLower(r.name))
	return nil, nil
}

func (s *Service) putRolePolicy(form url.Values) (any, error) {
	name, err := param(form, "PolicyName")
	if err != nil {
		return nil, err
	}
	if err := checkPolicyName(name); err != nil {
		return nil, err
	}
	doc, err := param(form, "PolicyDocument")
	if err != nil {
		return nil, err
	}
	if err := checkPolicyDocument(doc, "Syntax errors in policy."); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	if _, exists := r.inline[name]; !exists {
		r.inlineOrder = append(r.inlineOrder, name)
	}
	r.inline[name] = doc
	return nil, nil
}

// inlineParam finds an inline policy; s.mu must be held.
func inlineParam(r *role, form url.Values) (string, error) {
	name, err := param(form, "PolicyName")
	if err != nil {
		return "", err
	}
	if err := checkPolicyName(name); err != nil {
		return "", err
	}
	if _, ok := r.inline[name]; !ok {
		return "", &queryError{http.StatusNotFound, "NoSuchEntity", fmt.Sprintf("The role policy with name %s cannot be found.", name)}
	}
	return name, nil
}

func (s *Service) getRolePolicy(form url.Values) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	name, err := inlineParam(r, form)
	if err != nil {
		return nil, err
	}
	return getRolePolicyResult{RoleName: r.name, PolicyName: name, PolicyDocument: encodePolicy(r.inline[name])}, nil
}

func (s *Service) deleteRolePolicy(form url.Values) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	name, err := inlineParam(r, form)
	if err != nil {
		return nil, err
	}
	delete(r.inline, name)
	r.inlineOrder = slices.DeleteFunc(r.inlineOrder, func(n string) bool { return n == name })
	return nil, nil
}

func (s *Service) listRolePolicies(form url.Values) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	names := slices.Clone(r.inlineOrder)
	slices.Sort(names) // IAM lists policy names alphabetically
	start, end, marker, err := page(form, len(names))
	if err != nil {
		return nil, err
	}
	return listRolePoliciesResult{PolicyNames: names[start:end], IsTruncated: marker != "", Marker: marker}, nil
}

func (s *Service) attachRolePolicy(form url.Values) (any, error) {
	arn, err := param(form, "PolicyArn")
	if err != nil {
		return nil, err
	}
	if !policyARNPattern.MatchString(arn) {
		return nil, &queryError{http.StatusBadRequest, "InvalidInput", fmt.Sprintf("ARN %s is not valid.", arn)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(r.attached, arn) {
		r.attached = append(r.attached, arn)
	}
	return nil, nil
}

func (s *Service) detachRolePolicy(form url.Values) (any, error) {
	arn, err := param(form, "PolicyArn")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(r.attached, arn) {
		return nil, &queryError{http.StatusNotFound, "NoSuchEntity", fmt.Sprintf("Policy %s was not found.", arn)}
	}
	r.attached = slices.DeleteFunc(r.attached, func(a string) bool { return a == arn })
	return nil, nil
}

func (s *Service) listAttachedRolePolicies(form url.Values) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	prefix := form.Get("PathPrefix")
	var all []attachedPolicyXML
	for _, arn := range r.attached {
		_, resource, _ := strings.Cut(arn, ":policy")
		if prefix != "" && !strings.HasPrefix(resource, prefix) {
			continue
		}
		all = append(all, attachedPolicyXML{PolicyName: resource[strings.LastIndexByte(resource, '/')+1:], PolicyArn: arn})
	}
	start, end, marker, err := page(form, len(all))
	if err != nil {
		return nil, err
	}
	return listAttachedRolePoliciesResult{AttachedPolicies: all[start:end], IsTruncated: marker != "", Marker: marker}, nil
}

func (s *Service) listInstanceProfilesForRole(form url.Values) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.roleParam(form); err != nil {
		return nil, err
	}
	return listInstanceProfilesForRoleResult{}, nil
}

func (s *Service) tagRole(form url.Values) (any, error) {
	tags, err := tagsParam(form)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	merged := slices.Clone(r.tags)
	for _, t := range tags {
		i := slices.IndexFunc(merged, func(x tag) bool { return x.key == t.key })
		if i >= 0 {
			merged[i].value = t.value
			continue
		}
		merged = append(merged, t)
	}
	if len(merged) > maxTagsPerRole {
		return nil, &queryError{http.StatusConflict, "LimitExceeded", fmt.Sprintf("Cannot exceed quota for TagsPerRole: %d", maxTagsPerRole)}
	}
	r.tags = merged
	return nil, nil
}

func (s *Service) untagRole(form url.Values) (any, error) {
	keys := listParam(form, "TagKeys")
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	r.tags = slices.DeleteFunc(slices.Clone(r.tags), func(t tag) bool { return slices.Contains(keys, t.key) })
	return nil, nil
}

func (s *Service) listRoleTags(form url.Values) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.roleParam(form)
	if err != nil {
		return nil, err
	}
	start, end, marker, err := page(form, len(r.tags))
	if err != nil {
		return nil, err
	}
	out := listRoleTagsResult{IsTruncated: marker != "", Marker: marker}
	for _, t := range r.tags[start:end] {
		out.Tags = append(out.Tags, tagXML{Key: t.key, Value: t.value})
	}
	return out, nil
}
