package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"
)

// IAM handlers. Source: hashicorp/terraform-provider-aws
// internal/service/iam/role.go (resourceRoleCreate/Read/Update/Delete,
// DeleteRole) and role_policy.go (resourceRolePolicyPut/Read/Delete, id
// "role:policy"). IAM is global: its client uses the provider's region.

func (c *clients) iam(ctx context.Context, pc *Config) (*iam.Client, error) {
	cfg, err := c.awsConfig(ctx, pc, "")
	if err != nil {
		return nil, err
	}
	ep := c.endpoint(pc, "iam")
	return iam.NewFromConfig(cfg, func(o *iam.Options) { o.BaseEndpoint = ep }), nil
}

// iamPropagation is the provider's propagationTimeout for IAM's eventual
// consistency (internal/service/iam/wait.go).
const iamPropagation = 2 * time.Minute

func noSuchEntity(err error) bool {
	var ne *iamtypes.NoSuchEntityException
	return errors.As(err, &ne) || isCode(err, "NoSuchEntity")
}

// decodePolicy undoes the URL encoding IAM applies to policy documents in
// its responses.
func decodePolicy(doc string) (string, error) {
	s, err := url.QueryUnescape(doc)
	if err != nil {
		return "", fmt.Errorf("decode iam policy document: %w", err)
	}
	return s, nil
}

type roleHandler struct{ c *clients }

// Create is resourceRoleCreate: CreateRole (retried while a principal is
// not yet valid), inline and managed policies, then Read.
func (h *roleHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	cl, err := h.c.iam(ctx, req.Provider)
	if err != nil {
		return cty.NilVal, err
	}
	doc, err := normalizeJSON(str(req.Planned, "assume_role_policy"))
	if err != nil {
		return cty.NilVal, fmt.Errorf("assume_role_policy is invalid JSON: %w", err)
	}
	name := generatedName(str(req.Planned, "name"), str(req.Planned, "name_prefix"), "")
	in := &iam.CreateRoleInput{
		AssumeRolePolicyDocument: aws.String(doc),
		Path:                     strp(req.Planned, "path"),
		RoleName:                 aws.String(name),
		Description:              strp(req.Planned, "description"),
		MaxSessionDuration:       int32p(req.Planned, "max_session_duration"),
		PermissionsBoundary:      strp(req.Planned, "permissions_boundary"),
	}
	for k, v := range tagsIn(req.Planned, req.Provider) {
		in.Tags = append(in.Tags, iamtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	sort.Slice(in.Tags, func(i, j int) bool { return aws.ToString(in.Tags[i].Key) < aws.ToString(in.Tags[j].Key) })
	// A principal created moments ago may not be valid yet
	// (retryCreateRole).
	if _, err := retryWhen(ctx, iamPropagation, func(ctx context.Context) (*iam.CreateRoleOutput, error) {
		return cl.CreateRole(ctx, in)
	}, func(err error) bool {
		return isCode(err, "MalformedPolicyDocument") && strings.Contains(err.Error(), "Invalid principal in policy")
	}); err != nil {
		return cty.NilVal, fmt.Errorf("creating IAM Role (%s): %w", name, err)
	}
	for _, p := range blocks(req.Planned, "inline_policy") {
		if err := putRolePolicy(ctx, cl, name, str(p, "name"), str(p, "policy")); err != nil {
			return created(req, name, err)
		}
	}
	for _, arn := range strs(req.Planned, "managed_policy_arns") {
		if _, err := cl.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(name), PolicyArn: aws.String(arn)}); err != nil {
			return created(req, name, fmt.Errorf("attaching IAM Policy (%s) to Role (%s): %w", arn, name, err))
		}
	}
	return h.readBack(ctx, cl, req, name)
}

func (h *roleHandler) readBack(ctx context.Context, cl *iam.Client, req *ApplyRequest, name string) (cty.Value, error) {
	st, err := h.read(ctx, cl, req.Schema.Block, with(req.Planned, map[string]cty.Value{"id": sv(name)}), req.Provider, req.Planned)
	if err != nil {
		return created(req, name, err)
	}
	if st.IsNull() {
		return created(req, name, fmt.Errorf("reading IAM Role (%s): not found after apply", name))
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// Read is resourceRoleRead. Deviation: inline_policy records the role's
// inline policies only when the state already manages some (the
// configuration has inline_policy blocks). The provider also copies the
// policies of aws_iam_role_policy resources into it and then plans the
// Optional+Computed block against a configuration without it, a plan
// Terraform accepts only from legacy SDKs with a warning; those policies'
// drift is detected by aws_iam_role_policy itself.
func (h *roleHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.iam(ctx, req.Provider)
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Schema.Block, req.Current, req.Provider, cty.NilVal)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

// read reads the role; planned, when set, is the plan being applied, whose
// inline_policy is kept when the configuration left it out.
func (h *roleHandler) read(ctx context.Context, cl *iam.Client, sch *tfjson.SchemaBlock, cur cty.Value, pc *Config, planned cty.Value) (cty.Value, error) {
	name := str(cur, "id")
	out, err := cl.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
	if noSuchEntity(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading IAM Role (%s): %w", name, err)
	}
	r := out.Role
	doc, err := decodePolicy(aws.ToString(r.AssumeRolePolicyDocument))
	if err != nil {
		return cty.NilVal, err
	}
	vals := map[string]cty.Value{
		"id":                   sv(aws.ToString(r.RoleName)),
		"arn":                  sv(aws.ToString(r.Arn)),
		"create_date":          sv(aws.ToTime(r.CreateDate).UTC().Format(time.RFC3339)),
		"description":          svp(r.Description),
		"max_session_duration": ivp32(r.MaxSessionDuration),
		"name":                 sv(aws.ToString(r.RoleName)),
		"name_prefix":          namePrefixFromName(aws.ToString(r.RoleName), ""),
		"path":                 sv(aws.ToString(r.Path)),
		"unique_id":            sv(aws.ToString(r.RoleId)),
		"assume_role_policy":   jsonState(doc, getAttr(cur, "assume_role_policy")),
	}
	if r.PermissionsBoundary != nil {
		vals["permissions_boundary"] = svp(r.PermissionsBoundary.PermissionsBoundaryArn)
	} else {
		vals["permissions_boundary"] = cty.NullVal(cty.String)
	}
	if !known(getAttr(cur, "force_detach_policies")) {
		vals["force_detach_policies"] = cty.False
	}
	if len(blocks(cur, "inline_policy")) > 0 {
		inline, err := roleInlinePolicies(ctx, cl, name)
		if err != nil {
			return cty.NilVal, err
		}
		bt := nestedType(sch, "inline_policy")
		var elems []map[string]cty.Value
		for _, p := range inline {
			ref := cty.NilVal
			for _, c := range blocks(cur, "inline_policy") {
				if str(c, "name") == p[0] {
					ref = getAttr(c, "policy")
				}
			}
			elems = append(elems, map[string]cty.Value{"name": sv(p[0]), "policy": jsonState(p[1], ref)})
		}
		vals["inline_policy"] = blockOf(bt, elems...)
	}
	if planned != cty.NilVal {
		vals["inline_policy"] = getAttr(planned, "inline_policy")
	}
	var arns []string
	pager := iam.NewListAttachedRolePoliciesPaginator(cl, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String(name)})
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return cty.NilVal, fmt.Errorf("reading managed policies for IAM Role (%s): %w", name, err)
		}
		for _, p := range page.AttachedPolicies {
			arns = append(arns, aws.ToString(p.PolicyArn))
		}
	}
	vals["managed_policy_arns"] = setOf(arns)
	apiTags := map[string]string{}
	for _, t := range r.Tags {
		apiTags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	vals["tags"], vals["tags_all"] = tagsOut(pc, apiTags)
	return with(cur, vals), nil
}

// roleInlinePolicies lists the role's inline policies as (name, document).
func roleInlinePolicies(ctx context.Context, cl *iam.Client, role string) ([][2]string, error) {
	var out [][2]string
	pager := iam.NewListRolePoliciesPaginator(cl, &iam.ListRolePoliciesInput{RoleName: aws.String(role)})
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading inline policies for IAM Role (%s): %w", role, err)
		}
		for _, n := range page.PolicyNames {
			got, err := cl.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(n)})
			if err != nil {
				return nil, fmt.Errorf("reading IAM Role (%s) policy (%s): %w", role, n, err)
			}
			doc, err := decodePolicy(aws.ToString(got.PolicyDocument))
			if err != nil {
				return nil, err
			}
			out = append(out, [2]string{n, doc})
		}
	}
	return out, nil
}

func putRolePolicy(ctx context.Context, cl *iam.Client, role, name, doc string) error {
	norm, err := normalizeJSON(doc)
	if err != nil {
		return fmt.Errorf("policy (%s) is invalid JSON: %w", name, err)
	}
	if _, err := cl.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(name), PolicyDocument: aws.String(norm)}); err != nil {
		return fmt.Errorf("putting IAM Role (%s) policy (%s): %w", role, name, err)
	}
	return nil
}

// Update is resourceRoleUpdate. Deviation: the description is changed with
// UpdateRole (Description), which IAM accepts as UpdateRoleDescription
// does; the local cloud implements the former.
func (h *roleHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	cl, err := h.c.iam(ctx, req.Provider)
	if err != nil {
		return cty.NilVal, err
	}
	name := str(req.Prior, "id")
	if changed(req.Prior, req.Planned, "assume_role_policy") {
		doc, err := normalizeJSON(str(req.Planned, "assume_role_policy"))
		if err != nil {
			return cty.NilVal, fmt.Errorf("assume_role_policy is invalid JSON: %w", err)
		}
		if _, err := cl.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String(name), PolicyDocument: aws.String(doc)}); err != nil {
			return cty.NilVal, fmt.Errorf("updating IAM Role (%s) assume role policy: %w", name, err)
		}
	}
	if changed(req.Prior, req.Planned, "description", "max_session_duration") {
		in := &iam.UpdateRoleInput{RoleName: aws.String(name)}
		if changed(req.Prior, req.Planned, "description") {
			in.Description = aws.String(str(req.Planned, "description"))
		}
		if changed(req.Prior, req.Planned, "max_session_duration") {
			in.MaxSessionDuration = int32p(req.Planned, "max_session_duration")
		}
		if _, err := cl.UpdateRole(ctx, in); err != nil {
			return cty.NilVal, fmt.Errorf("updating IAM Role (%s): %w", name, err)
		}
	}
	if changed(req.Prior, req.Planned, "permissions_boundary") {
		var err error
		if pb := str(req.Planned, "permissions_boundary"); pb != "" {
			_, err = cl.PutRolePermissionsBoundary(ctx, &iam.PutRolePermissionsBoundaryInput{RoleName: aws.String(name), PermissionsBoundary: aws.String(pb)})
		} else {
			_, err = cl.DeleteRolePermissionsBoundary(ctx, &iam.DeleteRolePermissionsBoundaryInput{RoleName: aws.String(name)})
		}
		if err != nil {
			return cty.NilVal, fmt.Errorf("updating IAM Role (%s) permissions boundary: %w", name, err)
		}
	}
	if changed(req.Prior, req.Planned, "inline_policy") {
		oldP, newP := map[string]string{}, map[string]string{}
		for _, p := range blocks(req.Prior, "inline_policy") {
			oldP[str(p, "name")] = str(p, "policy")
		}
		for _, p := range blocks(req.Planned, "inline_policy") {
			newP[str(p, "name")] = str(p, "policy")
		}
		for n := range oldP {
			if _, keep := newP[n]; !keep && n != "" {
				if _, err := cl.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(n)}); err != nil && !noSuchEntity(err) {
					return cty.NilVal, fmt.Errorf("deleting IAM Role (%s) policy (%s): %w", name, n, err)
				}
			}
		}
		for n, doc := range newP {
			if n != "" && !jsonEqual(oldP[n], doc) {
				if err := putRolePolicy(ctx, cl, name, n, doc); err != nil {
					return cty.NilVal, err
				}
			}
		}
	}
	if changed(req.Prior, req.Planned, "managed_policy_arns") {
		oldA, newA := map[string]bool{}, map[string]bool{}
		for _, a := range strs(req.Prior, "managed_policy_arns") {
			oldA[a] = true
		}
		for _, a := range strs(req.Planned, "managed_policy_arns") {
			newA[a] = true
		}
		for a := range oldA {
			if !newA[a] {
				if _, err := cl.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String(name), PolicyArn: aws.String(a)}); err != nil && !noSuchEntity(err) {
					return cty.NilVal, fmt.Errorf("detaching IAM Policy (%s) from Role (%s): %w", a, name, err)
				}
			}
		}
		for a := range newA {
			if !oldA[a] {
				if _, err := cl.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(name), PolicyArn: aws.String(a)}); err != nil {
					return cty.NilVal, fmt.Errorf("attaching IAM Policy (%s) to Role (%s): %w", a, name, err)
				}
			}
		}
	}
	set, remove := tagDiff(tagsIn(req.Prior, req.Provider), tagsIn(req.Planned, req.Provider))
	if len(remove) > 0 {
		if _, err := cl.UntagRole(ctx, &iam.UntagRoleInput{RoleName: aws.String(name), TagKeys: remove}); err != nil {
			return cty.NilVal, fmt.Errorf("untagging IAM Role (%s): %w", name, err)
		}
	}
	if len(set) > 0 {
		in := &iam.TagRoleInput{RoleName: aws.String(name)}
		for k, v := range set {
			in.Tags = append(in.Tags, iamtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
		if _, err := cl.TagRole(ctx, in); err != nil {
			return cty.NilVal, fmt.Errorf("tagging IAM Role (%s): %w", name, err)
		}
	}
	return h.readBack(ctx, cl, req, name)
}

// Delete is DeleteRole: inline policies are deleted and managed ones
// detached first when force_detach_policies is set or the state has them,
// then the role.
func (h *roleHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.iam(ctx, req.Provider)
	if err != nil {
		return err
	}
	name := str(req.Prior, "id")
	force := boolAttr(req.Prior, "force_detach_policies")
	if force || len(blocks(req.Prior, "inline_policy")) > 0 {
		inline, err := roleInlinePolicies(ctx, cl, name)
		if noSuchEntity(err) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, p := range inline {
			if _, err := cl.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(p[0])}); err != nil && !noSuchEntity(err) {
				return fmt.Errorf("deleting IAM Role (%s) policy (%s): %w", name, p[0], err)
			}
		}
	}
	if force || len(strs(req.Prior, "managed_policy_arns")) > 0 {
		for _, a := range strs(req.Prior, "managed_policy_arns") {
			if _, err := cl.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String(name), PolicyArn: aws.String(a)}); err != nil && !noSuchEntity(err) {
				return fmt.Errorf("detaching IAM Policy (%s) from Role (%s): %w", a, name, err)
			}
		}
	}
	// DeleteConflict while an aws_iam_role_policy is still being deleted
	// in parallel clears within IAM's propagation time (the provider
	// retries it the same way).
	_, err = retryOn(ctx, iamPropagation, func(ctx context.Context) (*iam.DeleteRoleOutput, error) {
		return cl.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(name)})
	}, "DeleteConflict")
	if noSuchEntity(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting IAM Role (%s): %w", name, err)
	}
	return nil
}

// Import takes the role name; force_detach_policies is false
// (resourceRoleImport).
func (h *roleHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID), "name": sv(req.ID), "force_detach_policies": cty.False}), nil
}

type rolePolicyHandler struct{ c *clients }

// rolePolicyID splits "role:policy" (role_policy.go RolePolicyParseID).
func rolePolicyID(id string) (role, name string, err error) {
	role, name, ok := strings.Cut(id, ":")
	if !ok || role == "" || name == "" {
		return "", "", fmt.Errorf("role policy ID %q: expected role-name:policy-name", id)
	}
	return role, name, nil
}

// Create is resourceRolePolicyPut: PutRolePolicy with the normalised
// document; the id is "role:policy".
func (h *rolePolicyHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	return h.put(ctx, req)
}

// Update puts the policy again (the same function in the provider).
func (h *rolePolicyHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	return h.put(ctx, req)
}

func (h *rolePolicyHandler) put(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	cl, err := h.c.iam(ctx, req.Provider)
	if err != nil {
		return cty.NilVal, err
	}
	role := str(req.Planned, "role")
	name := generatedName(str(req.Planned, "name"), str(req.Planned, "name_prefix"), "")
	if err := putRolePolicy(ctx, cl, role, name, str(req.Planned, "policy")); err != nil {
		return cty.NilVal, err
	}
	id := role + ":" + name
	st, err := h.read(ctx, cl, with(req.Planned, map[string]cty.Value{"id": sv(id)}))
	if err != nil {
		return created(req, id, err)
	}
	if st.IsNull() {
		return created(req, id, fmt.Errorf("reading IAM Role Policy (%s): not found after put", id))
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// Read is resourceRolePolicyRead: GetRolePolicy.
func (h *rolePolicyHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.iam(ctx, req.Provider)
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Current)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func (h *rolePolicyHandler) read(ctx context.Context, cl *iam.Client, cur cty.Value) (cty.Value, error) {
	id := str(cur, "id")
	role, name, err := rolePolicyID(id)
	if err != nil {
		return cty.NilVal, err
	}
	out, err := cl.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(name)})
	if noSuchEntity(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading IAM Role Policy (%s): %w", id, err)
	}
	doc, err := decodePolicy(aws.ToString(out.PolicyDocument))
	if err != nil {
		return cty.NilVal, err
	}
	return with(cur, map[string]cty.Value{
		"id":          sv(id),
		"role":        sv(role),
		"name":        sv(name),
		"name_prefix": namePrefixFromName(name, ""),
		"policy":      jsonState(doc, getAttr(cur, "policy")),
	}), nil
}

// Delete is resourceRolePolicyDelete.
func (h *rolePolicyHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.iam(ctx, req.Provider)
	if err != nil {
		return err
	}
	role, name, err := rolePolicyID(str(req.Prior, "id"))
	if err != nil {
		return err
	}
	_, err = cl.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(name)})
	if err != nil && !noSuchEntity(err) {
		return fmt.Errorf("deleting IAM Role Policy (%s): %w", str(req.Prior, "id"), err)
	}
	return nil
}

// Import takes "role:policy".
func (h *rolePolicyHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	if _, _, err := rolePolicyID(req.ID); err != nil {
		return cty.NilVal, err
	}
	return importByID(req, map[string]cty.Value{"id": sv(req.ID)}), nil
}
