package tfprovider

import (
	"errors"
	"fmt"
	"sort"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
)

// ProtoSchema converts a schema from `terraform providers schema -json` form
// to the protocol-5 form the plugin serves.
//
// Protocol 5 has no nested attribute types (they arrived with protocol 6 and
// the plugin framework); the real provider, muxed at protocol 5, can never
// emit them. For robustness against other schema files, a nested attribute is
// served as a plain attribute of its implied object type, with the nested
// attributes that are optional or computed marked optional in the object type.
func ProtoSchema(s *tfjson.Schema) (*tfprotov5.Schema, error) {
	if s == nil || s.Block == nil {
		return nil, errors.New("convert: schema has no block")
	}
	b, err := protoBlock(s.Block)
	if err != nil {
		return nil, err
	}
	b.Version = int64(s.Version)
	return &tfprotov5.Schema{Version: int64(s.Version), Block: b}, nil
}

func protoBlock(b *tfjson.SchemaBlock) (*tfprotov5.SchemaBlock, error) {
	out := &tfprotov5.SchemaBlock{
		Description:     b.Description,
		DescriptionKind: descriptionKind(b.DescriptionKind),
		Deprecated:      b.Deprecated,
	}
	for _, name := range sortedKeys(b.Attributes) {
		a := b.Attributes[name]
		ty, err := attributeType(a)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		tt, err := ProtoType(ty)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		if !a.Required && !a.Optional && !a.Computed {
			return nil, fmt.Errorf("attribute %s: neither required, optional nor computed", name)
		}
		out.Attributes = append(out.Attributes, &tfprotov5.SchemaAttribute{
			Name:            name,
			Type:            tt,
			Description:     a.Description,
			DescriptionKind: descriptionKind(a.DescriptionKind),
			Required:        a.Required,
			Optional:        a.Optional,
			Computed:        a.Computed,
			Sensitive:       a.Sensitive,
			Deprecated:      a.Deprecated,
			WriteOnly:       a.WriteOnly,
		})
	}
	for _, name := range sortedKeys(b.NestedBlocks) {
		bt := b.NestedBlocks[name]
		if bt.Block == nil {
			return nil, fmt.Errorf("block %s: no block body", name)
		}
		inner, err := protoBlock(bt.Block)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", name, err)
		}
		mode, err := nestingMode(bt.NestingMode)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", name, err)
		}
		out.BlockTypes = append(out.BlockTypes, &tfprotov5.SchemaNestedBlock{
			TypeName: name,
			Block:    inner,
			Nesting:  mode,
			MinItems: int64(bt.MinItems),
			MaxItems: int64(bt.MaxItems),
		})
	}
	return out, nil
}

func descriptionKind(k tfjson.SchemaDescriptionKind) tfprotov5.StringKind {
	if k == tfjson.SchemaDescriptionKindMarkdown {
		return tfprotov5.StringKindMarkdown
	}
	return tfprotov5.StringKindPlain
}

func nestingMode(m tfjson.SchemaNestingMode) (tfprotov5.SchemaNestedBlockNestingMode, error) {
	switch m {
	case tfjson.SchemaNestingModeSingle:
		return tfprotov5.SchemaNestedBlockNestingModeSingle, nil
	case tfjson.SchemaNestingModeGroup:
		return tfprotov5.SchemaNestedBlockNestingModeGroup, nil
	case tfjson.SchemaNestingModeList:
		return tfprotov5.SchemaNestedBlockNestingModeList, nil
	case tfjson.SchemaNestingModeSet:
		return tfprotov5.SchemaNestedBlockNestingModeSet, nil
	case tfjson.SchemaNestingModeMap:
		return tfprotov5.SchemaNestedBlockNestingModeMap, nil
	}
	return tfprotov5.SchemaNestedBlockNestingModeInvalid, fmt.Errorf("unknown nesting mode %q", m)
}

// attributeType is the value type of an attribute: its declared type, or the
// type implied by its nested attributes.
func attributeType(a *tfjson.SchemaAttribute) (cty.Type, error) {
	if a.AttributeNestedType != nil {
		return nestedAttributeType(a.AttributeNestedType)
	}
	if a.AttributeType == cty.NilType {
		return cty.NilType, errors.New("no type")
	}
	return a.AttributeType, nil
}

func nestedAttributeType(n *tfjson.SchemaNestedAttributeType) (cty.Type, error) {
	attrs := make(map[string]cty.Type, len(n.Attributes))
	var optional []string
	for name, a := range n.Attributes {
		ty, err := attributeType(a)
		if err != nil {
			return cty.NilType, fmt.Errorf("nested attribute %s: %w", name, err)
		}
		attrs[name] = ty
		if !a.Required {
			optional = append(optional, name)
		}
	}
	sort.Strings(optional)
	obj := cty.ObjectWithOptionalAttrs(attrs, optional)
	switch n.NestingMode {
	case tfjson.SchemaNestingModeSingle, tfjson.SchemaNestingModeGroup:
		return obj, nil
	case tfjson.SchemaNestingModeList:
		return cty.List(obj), nil
	case tfjson.SchemaNestingModeSet:
		return cty.Set(obj), nil
	case tfjson.SchemaNestingModeMap:
		return cty.Map(obj), nil
	}
	return cty.NilType, fmt.Errorf("unknown nesting mode %q", n.NestingMode)
}

// ProtoType converts a cty type to the equivalent tftypes type.
func ProtoType(t cty.Type) (tftypes.Type, error) {
	switch {
	case t == cty.String:
		return tftypes.String, nil
	case t == cty.Number:
		return tftypes.Number, nil
	case t == cty.Bool:
		return tftypes.Bool, nil
	case t == cty.DynamicPseudoType:
		return tftypes.DynamicPseudoType, nil
	case t.IsListType():
		et, err := ProtoType(t.ElementType())
		return tftypes.List{ElementType: et}, err
	case t.IsSetType():
		et, err := ProtoType(t.ElementType())
		return tftypes.Set{ElementType: et}, err
	case t.IsMapType():
		et, err := ProtoType(t.ElementType())
		return tftypes.Map{ElementType: et}, err
	case t.IsTupleType():
		elems := t.TupleElementTypes()
		out := tftypes.Tuple{ElementTypes: make([]tftypes.Type, len(elems))}
		for i, et := range elems {
			var err error
			if out.ElementTypes[i], err = ProtoType(et); err != nil {
				return nil, err
			}
		}
		return out, nil
	case t.IsObjectType():
		out := tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}
		for name, at := range t.AttributeTypes() {
			var err error
			if out.AttributeTypes[name], err = ProtoType(at); err != nil {
				return nil, err
			}
			if t.AttributeOptional(name) {
				if out.OptionalAttributes == nil {
					out.OptionalAttributes = map[string]struct{}{}
				}
				out.OptionalAttributes[name] = struct{}{}
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("convert: unsupported type %s", t.FriendlyName())
}

// ImpliedType is the cty type of a value conforming to a block, built the way
// Terraform core builds it (configschema.Block.ImpliedType): blocks nested as
// list, set or map become collections of objects; single and group blocks
// become objects. Optional-attribute markers are dropped, as core does for
// values on the wire.
func ImpliedType(b *tfjson.SchemaBlock) cty.Type {
	attrs := make(map[string]cty.Type, len(b.Attributes)+len(b.NestedBlocks))
	for name, a := range b.Attributes {
		ty, err := attributeType(a)
		if err != nil {
			// ParseSchema converted every schema already, so this is a
			// programming error, not bad input.
			panic(fmt.Sprintf("tfprovider: attribute %s: %v", name, err))
		}
		attrs[name] = ty.WithoutOptionalAttributesDeep()
	}
	for name, bt := range b.NestedBlocks {
		attrs[name] = blockValueType(bt)
	}
	return cty.Object(attrs)
}

func blockValueType(bt *tfjson.SchemaBlockType) cty.Type {
	obj := ImpliedType(bt.Block)
	switch bt.NestingMode {
	case tfjson.SchemaNestingModeList:
		// A list block whose objects may differ in type (dynamic attributes)
		// is a tuple in core; none of the AWS schemas has one, so the list
		// form is kept and mismatches surface as decode errors.
		return cty.List(obj)
	case tfjson.SchemaNestingModeSet:
		return cty.Set(obj)
	case tfjson.SchemaNestingModeMap:
		return cty.Map(obj)
	default:
		return obj
	}
}
