package tfprovider

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/zclconf/go-cty/cty"
)

// Server is the local hashicorp/aws provider: a tfprotov5.ProviderServer.
type Server struct {
	cat      *Catalog
	handlers map[string]ResourceHandler
	getenv   func(string) string
	environ  func() []string
	client   aws.HTTPClient

	// unavailable is set when the schema could not be loaded; every schema
	// request then answers with it, so Terraform shows the reason.
	unavailable error

	mu  sync.RWMutex
	cfg *Config
}

var _ tfprotov5.ProviderServer = (*Server)(nil)

// Option configures a Server.
type Option func(*Server)

// WithHandler registers the handler that applies changes to typeName.
func WithHandler(typeName string, h ResourceHandler) Option {
	return func(s *Server) { s.handlers[typeName] = h }
}

// WithEnv replaces the process environment the provider reads (region,
// credentials, endpoint URLs, default tags); tests use it.
func WithEnv(env map[string]string) Option {
	return func(s *Server) {
		s.getenv = func(k string) string { return env[k] }
		s.environ = func() []string {
			out := make([]string, 0, len(env))
			for k, v := range env {
				out = append(out, k+"="+v)
			}
			return out
		}
	}
}

// WithHTTPClient sets the client used for the provider's own API calls
// (aws_caller_identity).
func WithHTTPClient(c aws.HTTPClient) Option {
	return func(s *Server) { s.client = c }
}

// defaultHTTPClient is the SDK's buildable client, which the SDK can extend
// (custom CA bundles from AWS_CA_BUNDLE need it).
func defaultHTTPClient() aws.HTTPClient {
	return awshttp.NewBuildableClient().WithTimeout(30 * time.Second)
}

// NewServer returns a provider serving cat. Handlers must name resource
// types that exist in the catalog.
func NewServer(cat *Catalog, opts ...Option) (*Server, error) {
	s := &Server{
		cat:      cat,
		handlers: map[string]ResourceHandler{},
		getenv:   os.Getenv,
		environ:  defaultEnviron,
		client:   defaultHTTPClient(),
	}
	for _, o := range opts {
		o(s)
	}
	for name := range s.handlers {
		if _, ok := cat.Resources[name]; !ok {
			return nil, fmt.Errorf("provider: handler for %s: no such resource type in the schema", name)
		}
	}
	return s, nil
}

// Unavailable returns a provider that answers every schema request with err.
// The plugin uses it when the schema file cannot be loaded, because
// Terraform shows a plugin's diagnostics but not its stderr.
func Unavailable(err error) *Server {
	return &Server{
		cat:         &Catalog{Resources: map[string]*tfjson.Schema{}, DataSources: map[string]*tfjson.Schema{}, Provider: providerSchema()},
		handlers:    map[string]ResourceHandler{},
		getenv:      os.Getenv,
		environ:     defaultEnviron,
		client:      defaultHTTPClient(),
		unavailable: err,
	}
}

func (s *Server) unavailableDiags() []*tfprotov5.Diagnostic {
	return []*tfprotov5.Diagnostic{errorDiag("The local hashicorp/aws provider has no schema", s.unavailable.Error(), nil)}
}

func (s *Server) config() *Config {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.cfg == nil {
		// Terraform configures the provider before planning; a nil config
		// only happens in validate, where it is not used.
		return &Config{Endpoints: map[string]string{}, DefaultTags: map[string]string{}}
	}
	return s.cfg
}

// GetMetadata lists the resource and data source types.
func (s *Server) GetMetadata(context.Context, *tfprotov5.GetMetadataRequest) (*tfprotov5.GetMetadataResponse, error) {
	resp := &tfprotov5.GetMetadataResponse{ServerCapabilities: &tfprotov5.ServerCapabilities{}}
	if s.unavailable != nil {
		resp.Diagnostics = s.unavailableDiags()
		return resp, nil
	}
	for _, n := range s.cat.ResourceTypes() {
		resp.Resources = append(resp.Resources, tfprotov5.ResourceMetadata{TypeName: n})
	}
	for _, n := range s.cat.DataSourceTypes() {
		resp.DataSources = append(resp.DataSources, tfprotov5.DataSourceMetadata{TypeName: n})
	}
	return resp, nil
}

// GetProviderSchema serves the real schemas plus the provider block schema.
func (s *Server) GetProviderSchema(context.Context, *tfprotov5.GetProviderSchemaRequest) (*tfprotov5.GetProviderSchemaResponse, error) {
	if s.unavailable != nil {
		return &tfprotov5.GetProviderSchemaResponse{Diagnostics: s.unavailableDiags()}, nil
	}
	p := *s.cat.proto
	p.ServerCapabilities = &tfprotov5.ServerCapabilities{}
	return &p, nil
}

// GetResourceIdentitySchemas returns no identity schemas: the JSON file
// carries none, and Terraform 1.5 does not ask for them.
func (s *Server) GetResourceIdentitySchemas(context.Context, *tfprotov5.GetResourceIdentitySchemasRequest) (*tfprotov5.GetResourceIdentitySchemasResponse, error) {
	return &tfprotov5.GetResourceIdentitySchemasResponse{}, nil
}

// PrepareProviderConfig validates the provider block.
func (s *Server) PrepareProviderConfig(_ context.Context, req *tfprotov5.PrepareProviderConfigRequest) (*tfprotov5.PrepareProviderConfigResponse, error) {
	resp := &tfprotov5.PrepareProviderConfigResponse{PreparedConfig: req.Config}
	v, err := decodeValue(req.Config, ImpliedType(s.cat.Provider.Block))
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Invalid provider configuration", err.Error(), nil))
		return resp, nil
	}
	resp.Diagnostics = append(resp.Diagnostics, validateValue(v, providerRules)...)
	return resp, nil
}

// ConfigureProvider records the provider configuration.
//
// Deviation from the real provider: it does not call STS at configure time
// (the real one does unless skip_credentials_validation is set) and does not
// require credentials, so validate and plan work with no cloud running. The
// aws_caller_identity data source does call STS.
func (s *Server) ConfigureProvider(_ context.Context, req *tfprotov5.ConfigureProviderRequest) (*tfprotov5.ConfigureProviderResponse, error) {
	resp := &tfprotov5.ConfigureProviderResponse{}
	v, err := decodeValue(req.Config, ImpliedType(s.cat.Provider.Block))
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Invalid provider configuration", err.Error(), nil))
		return resp, nil
	}
	cfg, err := parseConfig(v, s.getenv, s.environ())
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Invalid provider configuration", err.Error(), nil))
		return resp, nil
	}
	if cfg.Region == "" && !cfg.Unknown {
		// The real provider fails the same way (aws-sdk-go-base: "Missing
		// region value").
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Missing region value",
			`The "region" argument, or the AWS_REGION or AWS_DEFAULT_REGION environment variable, must be set.`,
			cty.GetAttrPath("region")))
		return resp, nil
	}
	s.mu.Lock()
	s.cfg = cfg
	s.mu.Unlock()
	return resp, nil
}

// StopProvider has nothing to stop: the provider runs no background work.
func (s *Server) StopProvider(context.Context, *tfprotov5.StopProviderRequest) (*tfprotov5.StopProviderResponse, error) {
	return &tfprotov5.StopProviderResponse{}, nil
}

func (s *Server) resource(typeName string) (*tfjson.Schema, cty.Type, *tfprotov5.Diagnostic) {
	sch, ok := s.cat.Resources[typeName]
	if !ok {
		return nil, cty.NilType, errorDiag("Unknown resource type",
			fmt.Sprintf("The local hashicorp/aws provider serves no schema for %q; its schema file holds %d resource types.", typeName, len(s.cat.Resources)), nil)
	}
	return sch, ImpliedType(sch.Block), nil
}

// ValidateResourceTypeConfig applies the plan-time validation the real
// provider performs beyond the schema (rules_*.go).
func (s *Server) ValidateResourceTypeConfig(_ context.Context, req *tfprotov5.ValidateResourceTypeConfigRequest) (*tfprotov5.ValidateResourceTypeConfigResponse, error) {
	resp := &tfprotov5.ValidateResourceTypeConfigResponse{}
	_, ty, d := s.resource(req.TypeName)
	if d != nil {
		resp.Diagnostics = append(resp.Diagnostics, d)
		return resp, nil
	}
	v, err := decodeValue(req.Config, ty)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Invalid configuration", err.Error(), nil))
		return resp, nil
	}
	resp.Diagnostics = append(resp.Diagnostics, validateValue(v, resourceRules[req.TypeName].Validate)...)
	resp.Diagnostics = append(resp.Diagnostics, checkCross(req.TypeName, v)...)
	return resp, nil
}

// UpgradeResourceState decodes stored state into the current schema.
func (s *Server) UpgradeResourceState(_ context.Context, req *tfprotov5.UpgradeResourceStateRequest) (*tfprotov5.UpgradeResourceStateResponse, error) {
	resp := &tfprotov5.UpgradeResourceStateResponse{}
	_, ty, d := s.resource(req.TypeName)
	if d != nil {
		resp.Diagnostics = append(resp.Diagnostics, d)
		return resp, nil
	}
	v := cty.NullVal(ty)
	if req.RawState != nil && len(req.RawState.JSON) > 0 {
		var err error
		if v, err = decodeStateJSON(req.RawState.JSON, ty); err != nil {
			resp.Diagnostics = append(resp.Diagnostics, errorDiag("Unreadable state", err.Error(), nil))
			return resp, nil
		}
	} else if req.RawState != nil && len(req.RawState.Flatmap) > 0 {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Unreadable state",
			"The state is in the pre-0.12 flatmap format, which the local provider does not read.", nil))
		return resp, nil
	}
	dv, err := encodeValue(v, ty)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Unreadable state", err.Error(), nil))
		return resp, nil
	}
	resp.UpgradedState = dv
	return resp, nil
}

// ReadResource refreshes an object through its handler; without one it
// returns the prior state unchanged.
func (s *Server) ReadResource(ctx context.Context, req *tfprotov5.ReadResourceRequest) (*tfprotov5.ReadResourceResponse, error) {
	resp := &tfprotov5.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}
	h, ok := s.handlers[req.TypeName]
	if !ok {
		return resp, nil
	}
	sch, ty, d := s.resource(req.TypeName)
	if d != nil {
		resp.Diagnostics = append(resp.Diagnostics, d)
		return resp, nil
	}
	cur, err := decodeValue(req.CurrentState, ty)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Unreadable state", err.Error(), nil))
		return resp, nil
	}
	nv, err := h.Read(ctx, &ReadRequest{TypeName: req.TypeName, Schema: sch, Current: cur, Provider: s.config(), Private: req.Private})
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Reading "+req.TypeName, err.Error(), nil))
		return resp, nil
	}
	if resp.NewState, err = encodeValue(nv, ty); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Reading "+req.TypeName, err.Error(), nil))
	}
	return resp, nil
}

// PlanResourceChange plans with the generic planner (plan.go), then lets a
// handler refine the plan.
func (s *Server) PlanResourceChange(ctx context.Context, req *tfprotov5.PlanResourceChangeRequest) (*tfprotov5.PlanResourceChangeResponse, error) {
	resp := &tfprotov5.PlanResourceChangeResponse{PlannedPrivate: req.PriorPrivate}
	sch, ty, d := s.resource(req.TypeName)
	if d != nil {
		resp.Diagnostics = append(resp.Diagnostics, d)
		return resp, nil
	}
	var pr PlanRequest
	var err error
	pr.TypeName, pr.Schema, pr.Provider = req.TypeName, sch, s.config()
	if pr.Prior, err = decodeValue(req.PriorState, ty); err == nil {
		if pr.Proposed, err = decodeValue(req.ProposedNewState, ty); err == nil {
			pr.Config, err = decodeValue(req.Config, ty)
		}
	}
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Invalid plan request", err.Error(), nil))
		return resp, nil
	}
	plan, diags := PlanChange(&pr)
	resp.Diagnostics = append(resp.Diagnostics, diags...)
	if hasError(diags) {
		return resp, nil
	}
	if m, ok := s.handlers[req.TypeName].(PlanModifier); ok && !pr.Proposed.IsNull() {
		if err := m.ModifyPlan(ctx, &pr, plan); err != nil {
			resp.Diagnostics = append(resp.Diagnostics, errorDiag("Planning "+req.TypeName, err.Error(), nil))
			return resp, nil
		}
	}
	if resp.PlannedState, err = encodeValue(plan.Planned, ty); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Planning "+req.TypeName, err.Error(), nil))
		return resp, nil
	}
	for _, p := range plan.RequiresReplace {
		resp.RequiresReplace = append(resp.RequiresReplace, protoPath(p))
	}
	resp.UnsafeToUseLegacyTypeSystem = plan.Legacy
	return resp, nil
}

// ApplyResourceChange hands the change to the type's handler, or fails with
// a diagnostic that says why nothing was created.
func (s *Server) ApplyResourceChange(ctx context.Context, req *tfprotov5.ApplyResourceChangeRequest) (*tfprotov5.ApplyResourceChangeResponse, error) {
	resp := &tfprotov5.ApplyResourceChangeResponse{Private: req.PlannedPrivate}
	sch, ty, d := s.resource(req.TypeName)
	if d != nil {
		resp.Diagnostics = append(resp.Diagnostics, d)
		return resp, nil
	}
	h, ok := s.handlers[req.TypeName]
	if !ok {
		resp.NewState = req.PriorState
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Apply not supported",
			fmt.Sprintf("the taskpipe local provider cannot apply yet: no handler is registered for %s. "+
				"It validates and plans against the real hashicorp/aws %s schema; apply needs a ResourceHandler "+
				"for the type (internal/localaws/tfprovider.WithHandler).", req.TypeName, Version), nil))
		return resp, nil
	}
	ar := &ApplyRequest{TypeName: req.TypeName, Schema: sch, Provider: s.config(), Private: req.PlannedPrivate}
	var err error
	if ar.Prior, err = decodeValue(req.PriorState, ty); err == nil {
		if ar.Planned, err = decodeValue(req.PlannedState, ty); err == nil {
			ar.Config, err = decodeValue(req.Config, ty)
		}
	}
	if err != nil {
		resp.NewState = req.PriorState
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Invalid apply request", err.Error(), nil))
		return resp, nil
	}
	var nv cty.Value
	switch {
	case ar.Planned.IsNull():
		err = h.Delete(ctx, ar)
		nv = cty.NullVal(ty)
		if err != nil {
			nv = ar.Prior
		}
	case ar.Prior.IsNull():
		nv, err = h.Create(ctx, ar)
	default:
		nv, err = h.Update(ctx, ar)
	}
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Applying "+req.TypeName, err.Error(), nil))
		if nv == cty.NilVal {
			nv = ar.Prior
		}
	}
	if resp.NewState, err = encodeValue(nv, ty); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Applying "+req.TypeName, err.Error(), nil))
	}
	resp.UnsafeToUseLegacyTypeSystem = resourceRules[req.TypeName].Legacy
	return resp, nil
}

// ImportResourceState imports through the handler when it supports it.
func (s *Server) ImportResourceState(ctx context.Context, req *tfprotov5.ImportResourceStateRequest) (*tfprotov5.ImportResourceStateResponse, error) {
	resp := &tfprotov5.ImportResourceStateResponse{}
	sch, ty, d := s.resource(req.TypeName)
	if d != nil {
		resp.Diagnostics = append(resp.Diagnostics, d)
		return resp, nil
	}
	imp, ok := s.handlers[req.TypeName].(Importer)
	if !ok {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Import not supported",
			fmt.Sprintf("the taskpipe local provider cannot import %s yet: no importing handler is registered.", req.TypeName), nil))
		return resp, nil
	}
	v, err := imp.Import(ctx, &ImportRequest{TypeName: req.TypeName, Schema: sch, ID: req.ID, Provider: s.config()})
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Importing "+req.TypeName, err.Error(), nil))
		return resp, nil
	}
	dv, err := encodeValue(v, ty)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Importing "+req.TypeName, err.Error(), nil))
		return resp, nil
	}
	resp.ImportedResources = []*tfprotov5.ImportedResource{{TypeName: req.TypeName, State: dv}}
	return resp, nil
}

// MoveResourceState is not supported (Terraform 1.8+ only).
func (s *Server) MoveResourceState(context.Context, *tfprotov5.MoveResourceStateRequest) (*tfprotov5.MoveResourceStateResponse, error) {
	return &tfprotov5.MoveResourceStateResponse{Diagnostics: []*tfprotov5.Diagnostic{
		errorDiag("Move not supported", "the taskpipe local provider does not support moved blocks across resource types.", nil),
	}}, nil
}

// UpgradeResourceIdentity is not supported: there are no identity schemas.
func (s *Server) UpgradeResourceIdentity(context.Context, *tfprotov5.UpgradeResourceIdentityRequest) (*tfprotov5.UpgradeResourceIdentityResponse, error) {
	return &tfprotov5.UpgradeResourceIdentityResponse{Diagnostics: []*tfprotov5.Diagnostic{
		errorDiag("Resource identity not supported", "the taskpipe local provider serves no resource identity schemas.", nil),
	}}, nil
}

// GenerateResourceConfig is not supported (Terraform 1.14+ only).
func (s *Server) GenerateResourceConfig(context.Context, *tfprotov5.GenerateResourceConfigRequest) (*tfprotov5.GenerateResourceConfigResponse, error) {
	return &tfprotov5.GenerateResourceConfigResponse{Diagnostics: []*tfprotov5.Diagnostic{
		errorDiag("Config generation not supported", "the taskpipe local provider cannot generate configuration.", nil),
	}}, nil
}

// ValidateDataSourceConfig applies data source validation rules.
func (s *Server) ValidateDataSourceConfig(_ context.Context, req *tfprotov5.ValidateDataSourceConfigRequest) (*tfprotov5.ValidateDataSourceConfigResponse, error) {
	resp := &tfprotov5.ValidateDataSourceConfigResponse{}
	sch, ok := s.cat.DataSources[req.TypeName]
	if !ok {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Unknown data source", fmt.Sprintf("The local hashicorp/aws provider serves no schema for data source %q.", req.TypeName), nil))
		return resp, nil
	}
	v, err := decodeValue(req.Config, ImpliedType(sch.Block))
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Invalid configuration", err.Error(), nil))
		return resp, nil
	}
	resp.Diagnostics = append(resp.Diagnostics, validateValue(v, dataSourceRules[req.TypeName])...)
	return resp, nil
}

// ReadDataSource reads the data sources the local provider implements
// (datasource.go).
func (s *Server) ReadDataSource(ctx context.Context, req *tfprotov5.ReadDataSourceRequest) (*tfprotov5.ReadDataSourceResponse, error) {
	resp := &tfprotov5.ReadDataSourceResponse{}
	sch, ok := s.cat.DataSources[req.TypeName]
	if !ok {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Unknown data source", fmt.Sprintf("The local hashicorp/aws provider serves no schema for data source %q.", req.TypeName), nil))
		return resp, nil
	}
	ty := ImpliedType(sch.Block)
	cfg, err := decodeValue(req.Config, ty)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Invalid configuration", err.Error(), nil))
		return resp, nil
	}
	v, diags := s.readDataSource(ctx, req.TypeName, sch, cfg)
	resp.Diagnostics = append(resp.Diagnostics, diags...)
	if hasError(diags) {
		return resp, nil
	}
	if resp.State, err = encodeValue(v, ty); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Reading data source "+req.TypeName, err.Error(), nil))
	}
	return resp, nil
}

// CallFunction: the provider defines no functions (the real one defines
// arn_parse etc., which Terraform 1.5 cannot call).
func (s *Server) CallFunction(_ context.Context, req *tfprotov5.CallFunctionRequest) (*tfprotov5.CallFunctionResponse, error) {
	return &tfprotov5.CallFunctionResponse{Error: &tfprotov5.FunctionError{Text: "the taskpipe local provider defines no function " + req.Name}}, nil
}

// GetFunctions returns no functions.
func (s *Server) GetFunctions(context.Context, *tfprotov5.GetFunctionsRequest) (*tfprotov5.GetFunctionsResponse, error) {
	return &tfprotov5.GetFunctionsResponse{Functions: map[string]*tfprotov5.Function{}}, nil
}

func ephemeralUnsupported(typeName string) []*tfprotov5.Diagnostic {
	return []*tfprotov5.Diagnostic{errorDiag("Ephemeral resources not supported",
		"the taskpipe local provider serves no ephemeral resource "+typeName+".", nil)}
}

// ValidateEphemeralResourceConfig: there are no ephemeral resources.
func (s *Server) ValidateEphemeralResourceConfig(_ context.Context, req *tfprotov5.ValidateEphemeralResourceConfigRequest) (*tfprotov5.ValidateEphemeralResourceConfigResponse, error) {
	return &tfprotov5.ValidateEphemeralResourceConfigResponse{Diagnostics: ephemeralUnsupported(req.TypeName)}, nil
}

// OpenEphemeralResource: there are no ephemeral resources.
func (s *Server) OpenEphemeralResource(_ context.Context, req *tfprotov5.OpenEphemeralResourceRequest) (*tfprotov5.OpenEphemeralResourceResponse, error) {
	return &tfprotov5.OpenEphemeralResourceResponse{Diagnostics: ephemeralUnsupported(req.TypeName)}, nil
}

// RenewEphemeralResource: there are no ephemeral resources.
func (s *Server) RenewEphemeralResource(_ context.Context, req *tfprotov5.RenewEphemeralResourceRequest) (*tfprotov5.RenewEphemeralResourceResponse, error) {
	return &tfprotov5.RenewEphemeralResourceResponse{Diagnostics: ephemeralUnsupported(req.TypeName)}, nil
}

// CloseEphemeralResource: there are no ephemeral resources.
func (s *Server) CloseEphemeralResource(_ context.Context, req *tfprotov5.CloseEphemeralResourceRequest) (*tfprotov5.CloseEphemeralResourceResponse, error) {
	return &tfprotov5.CloseEphemeralResourceResponse{Diagnostics: ephemeralUnsupported(req.TypeName)}, nil
}

func hasError(diags []*tfprotov5.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov5.DiagnosticSeverityError {
			return true
		}
	}
	return false
}
