package identity_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/identity"
)

const trustPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"pipes.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

var created = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

type testBundle struct {
	router *emu.Router
	srv    *httptest.Server
	iam    *iam.Client
	sts    *sts.Client
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	svc := identity.New(identity.Options{Now: func() time.Time { return created }})
	router := emu.NewRouter()
	router.Handle(emu.ServiceIAM, svc.IAM())
	router.Handle(emu.ServiceSTS, svc.STS())
	srv := httptest.NewServer(router)
	t.Cleanup(srv.Close)
	creds := credentials.NewStaticCredentialsProvider("test", "test", "")
	return &testBundle{
		router: router,
		srv:    srv,
		iam: iam.New(iam.Options{Region: emu.DefaultRegion, BaseEndpoint: aws.String(srv.URL),
			Credentials: creds, RetryMaxAttempts: 1}),
		sts: sts.New(sts.Options{Region: emu.DefaultRegion, BaseEndpoint: aws.String(srv.URL),
			Credentials: creds, RetryMaxAttempts: 1}),
	}
}

func (b *testBundle) createRole(t *testing.T, name string) *iamtypes.Role {
	t.Helper()
	out, err := b.iam.CreateRole(context.Background(), &iam.CreateRoleInput{
		RoleName:                 aws.String(name),
		AssumeRolePolicyDocument: aws.String(trustPolicy),
		Description:              aws.String("pipe role"),
		Tags:                     []iamtypes.Tag{{Key: aws.String("app"), Value: aws.String("taskpipe")}},
	})
	require.NoError(t, err)
	return out.Role
}

func requireCode(t *testing.T, err error, code string) {
	t.Helper()
	var apiErr smithy.APIError
	require.True(t, errors.As(err, &apiErr), "want API error %s, got %v", code, err)
	require.Equal(t, code, apiErr.ErrorCode())
}

func TestGetCallerIdentity(t *testing.T) {
	t.Parallel()
	b := setup(t)
	out, err := b.sts.GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	require.NoError(t, err)
	require.Equal(t, emu.DefaultAccountID, aws.ToString(out.Account))
	require.Equal(t, "arn:aws:iam::"+emu.DefaultAccountID+":root", aws.ToString(out.Arn))
	require.Equal(t, emu.DefaultAccountID, aws.ToString(out.UserId))
}

func TestRoleLifecycle(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	role := b.createRole(t, "taskpipe-pipe")
	require.Equal(t, "arn:aws:iam::000000000000:role/taskpipe-pipe", aws.ToString(role.Arn))
	require.True(t, strings.HasPrefix(aws.ToString(role.RoleId), "AROA"))
	require.Len(t, aws.ToString(role.RoleId), 21)
	require.Equal(t, "/", aws.ToString(role.Path))
	require.Equal(t, created, aws.ToTime(role.CreateDate))

	got, err := b.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("TASKPIPE-PIPE")}) // names are case-insensitive
	require.NoError(t, err)
	require.Equal(t, "taskpipe-pipe", aws.ToString(got.Role.RoleName))
	require.Equal(t, "pipe role", aws.ToString(got.Role.Description))
	require.Equal(t, int32(3600), aws.ToInt32(got.Role.MaxSessionDuration))
	require.Equal(t, []iamtypes.Tag{{Key: aws.String("app"), Value: aws.String("taskpipe")}}, got.Role.Tags)
	// IAM returns the trust policy URL-encoded; Terraform QueryUnescapes it.
	encoded := aws.ToString(got.Role.AssumeRolePolicyDocument)
	require.NotContains(t, encoded, `"`)
	decoded, err := url.QueryUnescape(encoded)
	require.NoError(t, err)
	require.JSONEq(t, trustPolicy, decoded)

	_, err = b.iam.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("TaskPipe-Pipe"), AssumeRolePolicyDocument: aws.String(trustPolicy)})
	var exists *iamtypes.EntityAlreadyExistsException
	require.ErrorAs(t, err, &exists)

	// Inline policies.
	const policy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*"}]}`
	for _, name := range []string{"send", "read"} {
		_, err = b.iam.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("taskpipe-pipe"), PolicyName: aws.String(name), PolicyDocument: aws.String(policy)})
		require.NoError(t, err)
	}
	list, err := b.iam.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String("taskpipe-pipe")})
	require.NoError(t, err)
	require.Equal(t, []string{"read", "send"}, list.PolicyNames)
	require.False(t, list.IsTruncated)

	pol, err := b.iam.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String("taskpipe-pipe"), PolicyName: aws.String("send")})
	require.NoError(t, err)
	doc, err := url.QueryUnescape(aws.ToString(pol.PolicyDocument))
	require.NoError(t, err)
	require.JSONEq(t, policy, doc)

	_, err = b.iam.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("taskpipe-pipe")})
	var conflict *iamtypes.DeleteConflictException
	require.ErrorAs(t, err, &conflict)

	for _, name := range []string{"send", "read"} {
		_, err = b.iam.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String("taskpipe-pipe"), PolicyName: aws.String(name)})
		require.NoError(t, err)
	}
	_, err = b.iam.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String("taskpipe-pipe"), PolicyName: aws.String("send")})
	var noSuch *iamtypes.NoSuchEntityException
	require.ErrorAs(t, err, &noSuch)

	// What Terraform's aws_iam_role reads before deleting.
	attached, err := b.iam.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String("taskpipe-pipe")})
	require.NoError(t, err)
	require.Empty(t, attached.AttachedPolicies)
	profiles, err := b.iam.ListInstanceProfilesForRole(ctx, &iam.ListInstanceProfilesForRoleInput{RoleName: aws.String("taskpipe-pipe")})
	require.NoError(t, err)
	require.Empty(t, profiles.InstanceProfiles)

	_, err = b.iam.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("taskpipe-pipe")})
	require.NoError(t, err)
	_, err = b.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("taskpipe-pipe")})
	require.ErrorAs(t, err, &noSuch)
	require.Contains(t, noSuch.ErrorMessage(), "The role with name taskpipe-pipe cannot be found.")
}

func TestRoleTagsAndAttachments(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.createRole(t, "tagged")

	_, err := b.iam.TagRole(ctx, &iam.TagRoleInput{RoleName: aws.String("tagged"), Tags: []iamtypes.Tag{
		{Key: aws.String("app"), Value: aws.String("other")},
		{Key: aws.String("env"), Value: aws.String("local")},
	}})
	require.NoError(t, err)
	tags, err := b.iam.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: aws.String("tagged")})
	require.NoError(t, err)
	require.Equal(t, []iamtypes.Tag{
		{Key: aws.String("app"), Value: aws.String("other")},
		{Key: aws.String("env"), Value: aws.String("local")},
	}, tags.Tags)

	_, err = b.iam.UntagRole(ctx, &iam.UntagRoleInput{RoleName: aws.String("tagged"), TagKeys: []string{"app"}})
	require.NoError(t, err)
	tags, err = b.iam.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: aws.String("tagged")})
	require.NoError(t, err)
	require.Equal(t, []iamtypes.Tag{{Key: aws.String("env"), Value: aws.String("local")}}, tags.Tags)

	const managed = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
	_, err = b.iam.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("tagged"), PolicyArn: aws.String(managed)})
	require.NoError(t, err)
	attached, err := b.iam.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String("tagged")})
	require.NoError(t, err)
	require.Len(t, attached.AttachedPolicies, 1)
	require.Equal(t, "AWSLambdaBasicExecutionRole", aws.ToString(attached.AttachedPolicies[0].PolicyName))
	_, err = b.iam.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("tagged")})
	requireCode(t, err, "DeleteConflict")
	_, err = b.iam.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String("tagged"), PolicyArn: aws.String(managed)})
	require.NoError(t, err)
	_, err = b.iam.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("tagged")})
	require.NoError(t, err)
}

func TestRoleUpdates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.createRole(t, "updated")
	const trust2 = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`
	_, err := b.iam.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String("updated"), PolicyDocument: aws.String(trust2)})
	require.NoError(t, err)
	_, err = b.iam.UpdateRole(ctx, &iam.UpdateRoleInput{RoleName: aws.String("updated"), Description: aws.String("new"), MaxSessionDuration: aws.Int32(7200)})
	require.NoError(t, err)
	got, err := b.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("updated")})
	require.NoError(t, err)
	doc, err := url.QueryUnescape(aws.ToString(got.Role.AssumeRolePolicyDocument))
	require.NoError(t, err)
	require.JSONEq(t, trust2, doc)
	require.Equal(t, "new", aws.ToString(got.Role.Description))
	require.Equal(t, int32(7200), aws.ToInt32(got.Role.MaxSessionDuration))
}

func TestRoleValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	tests := []struct {
		name string
		in   *iam.CreateRoleInput
		code string
	}{
		{"BadName", &iam.CreateRoleInput{RoleName: aws.String("has space"), AssumeRolePolicyDocument: aws.String(trustPolicy)}, "ValidationError"},
		{"LongName", &iam.CreateRoleInput{RoleName: aws.String(strings.Repeat("a", 65)), AssumeRolePolicyDocument: aws.String(trustPolicy)}, "ValidationError"},
		{"BadPolicy", &iam.CreateRoleInput{RoleName: aws.String("r1"), AssumeRolePolicyDocument: aws.String("{not json")}, "MalformedPolicyDocument"},
		{"BadPath", &iam.CreateRoleInput{RoleName: aws.String("r2"), AssumeRolePolicyDocument: aws.String(trustPolicy), Path: aws.String("no-slash")}, "ValidationError"},
		{"BadSession", &iam.CreateRoleInput{RoleName: aws.String("r3"), AssumeRolePolicyDocument: aws.String(trustPolicy), MaxSessionDuration: aws.Int32(60)}, "ValidationError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := b.iam.CreateRole(ctx, tt.in)
			requireCode(t, err, tt.code)
		})
	}

	t.Run("PathInARN", func(t *testing.T) {
		t.Parallel()
		out, err := b.iam.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("pathed"), Path: aws.String("/service/"), AssumeRolePolicyDocument: aws.String(trustPolicy)})
		require.NoError(t, err)
		require.Equal(t, "arn:aws:iam::000000000000:role/service/pathed", aws.ToString(out.Role.Arn))
	})
}

// TestQueryProtocolErrors checks the raw XML of an error and of an unknown
// action, as any query client sees them.
func TestQueryProtocolErrors(t *testing.T) {
	t.Parallel()
	svc := identity.New(identity.Options{})
	tests := []struct {
		name   string
		h      http.Handler
		form   string
		status int
		want   []string
	}{
		{"NoSuchEntity", svc.IAM(), "Action=GetRole&Version=2010-05-08&RoleName=missing", http.StatusNotFound,
			[]string{`<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/">`, "<Type>Sender</Type>", "<Code>NoSuchEntity</Code>",
				"<Message>The role with name missing cannot be found.</Message>", "<RequestId>"}},
		{"UnknownIAMAction", svc.IAM(), "Action=ListUsers&Version=2010-05-08", http.StatusBadRequest, []string{"<Code>InvalidAction</Code>"}},
		{"UnknownSTSAction", svc.STS(), "Action=AssumeRole&Version=2011-06-15", http.StatusBadRequest, []string{"<Code>InvalidAction</Code>"}},
		{"MissingParameter", svc.IAM(), "Action=GetRole&Version=2010-05-08", http.StatusBadRequest, []string{"<Code>ValidationError</Code>", "roleName"}},
		{"GetCallerIdentity", svc.STS(), "Action=GetCallerIdentity&Version=2011-06-15", http.StatusOK,
			[]string{`<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">`, "<Account>000000000000</Account>",
				"<ResponseMetadata><RequestId>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			rec := httptest.NewRecorder()
			tt.h.ServeHTTP(rec, req)
			require.Equal(t, tt.status, rec.Code)
			body, err := io.ReadAll(rec.Body)
			require.NoError(t, err)
			for _, w := range tt.want {
				require.Contains(t, string(body), w)
			}
		})
	}
}
