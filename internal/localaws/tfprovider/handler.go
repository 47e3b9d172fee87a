package tfprovider

import (
	"context"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"
)

// ResourceHandler performs the lifecycle of one resource type against a
// cloud (the local cloud, in this project). The provider plans every type
// with the generic, schema-driven planner; a handler only turns an approved
// plan into real objects and reads them back.
//
// Values are cty objects of the resource schema's implied type (see
// ImpliedType). A returned state must keep every planned known value and
// replace unknowns with real values, or Terraform reports "Provider produced
// inconsistent result".
type ResourceHandler interface {
	// Create makes the object described by req.Planned and returns its state.
	Create(ctx context.Context, req *ApplyRequest) (cty.Value, error)
	// Read returns the current state of req.Current's object, or a null
	// value when the object no longer exists.
	Read(ctx context.Context, req *ReadRequest) (cty.Value, error)
	// Update changes req.Prior's object in place to match req.Planned.
	Update(ctx context.Context, req *ApplyRequest) (cty.Value, error)
	// Delete removes req.Prior's object; deleting a missing object is not
	// an error.
	Delete(ctx context.Context, req *ApplyRequest) error
}

// Importer is implemented by handlers that support `terraform import`.
type Importer interface {
	// Import returns the state of the object with the given import ID.
	Import(ctx context.Context, req *ImportRequest) (cty.Value, error)
}

// PlanModifier is implemented by handlers that refine the generic plan, for
// example to predict a computed value. It runs after the generic planner.
type PlanModifier interface {
	// ModifyPlan may change plan.Planned and append to plan.RequiresReplace.
	ModifyPlan(ctx context.Context, req *PlanRequest, plan *Plan) error
}

// ApplyRequest carries one approved change. Prior is null on create,
// Planned is null on delete.
type ApplyRequest struct {
	TypeName string
	Schema   *tfjson.Schema
	Prior    cty.Value
	Planned  cty.Value
	Config   cty.Value
	Provider *Config
	// Private is the provider-private state saved with the object.
	Private []byte
}

// ReadRequest asks for the current state of an object.
type ReadRequest struct {
	TypeName string
	Schema   *tfjson.Schema
	Current  cty.Value
	Provider *Config
	Private  []byte
}

// ImportRequest asks for the state of an existing object by import ID.
type ImportRequest struct {
	TypeName string
	Schema   *tfjson.Schema
	ID       string
	Provider *Config
}

// PlanRequest is the input of a plan: Prior is null on create.
type PlanRequest struct {
	TypeName string
	Schema   *tfjson.Schema
	Prior    cty.Value
	Proposed cty.Value
	Config   cty.Value
	Provider *Config
}

// Plan is the output of a plan.
type Plan struct {
	Planned         cty.Value
	RequiresReplace []cty.Path
	// Legacy asks Terraform to tolerate SDKv2-style plans (defaults on
	// non-computed attributes), as the real provider's SDKv2 resources do.
	Legacy bool
}
