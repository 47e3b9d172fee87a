package tfprovider

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// decodeValue turns a protocol DynamicValue into a cty value of type ty.
// Terraform sends msgpack; JSON is accepted too, as the protocol allows it.
func decodeValue(dv *tfprotov5.DynamicValue, ty cty.Type) (cty.Value, error) {
	if dv == nil {
		return cty.NullVal(ty), nil
	}
	switch {
	case len(dv.MsgPack) > 0:
		v, err := ctymsgpack.Unmarshal(dv.MsgPack, ty)
		if err != nil {
			return cty.NilVal, fmt.Errorf("decode msgpack: %w", err)
		}
		return v, nil
	case len(dv.JSON) > 0:
		v, err := ctyjson.Unmarshal(dv.JSON, ty)
		if err != nil {
			return cty.NilVal, fmt.Errorf("decode json: %w", err)
		}
		return v, nil
	}
	return cty.NullVal(ty), nil
}

// encodeValue turns a cty value into a msgpack DynamicValue of type ty.
func encodeValue(v cty.Value, ty cty.Type) (*tfprotov5.DynamicValue, error) {
	b, err := ctymsgpack.Marshal(v, ty)
	if err != nil {
		return nil, fmt.Errorf("encode msgpack: %w", err)
	}
	return &tfprotov5.DynamicValue{MsgPack: b}, nil
}

// decodeStateJSON decodes a state object stored by an earlier version of a
// schema: attributes the schema no longer has are dropped (the way the SDK
// upgrades state), attributes it gained are null.
func decodeStateJSON(raw []byte, ty cty.Type) (cty.Value, error) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return cty.NilVal, fmt.Errorf("decode state json: %w", err)
	}
	pruned, err := json.Marshal(pruneToType(doc, ty))
	if err != nil {
		return cty.NilVal, fmt.Errorf("encode pruned state: %w", err)
	}
	v, err := ctyjson.Unmarshal(pruned, ty)
	if err != nil {
		return cty.NilVal, fmt.Errorf("decode state json: %w", err)
	}
	return v, nil
}

func pruneToType(doc any, ty cty.Type) any {
	switch {
	case ty.IsObjectType():
		m, ok := doc.(map[string]any)
		if !ok {
			return doc
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			if ty.HasAttribute(k) {
				out[k] = pruneToType(v, ty.AttributeType(k))
			}
		}
		return out
	case ty.IsListType() || ty.IsSetType():
		l, ok := doc.([]any)
		if !ok {
			return doc
		}
		out := make([]any, len(l))
		for i, v := range l {
			out[i] = pruneToType(v, ty.ElementType())
		}
		return out
	case ty.IsMapType():
		m, ok := doc.(map[string]any)
		if !ok {
			return doc
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = pruneToType(v, ty.ElementType())
		}
		return out
	}
	return doc
}

// protoPath converts a cty path to the protocol's attribute path.
func protoPath(p cty.Path) *tftypes.AttributePath {
	out := tftypes.NewAttributePath()
	for _, step := range p {
		switch s := step.(type) {
		case cty.GetAttrStep:
			out = out.WithAttributeName(s.Name)
		case cty.IndexStep:
			switch {
			case s.Key.IsNull() || !s.Key.IsKnown():
				// A set element with unknown content cannot be addressed;
				// stop at the collection.
				return out
			case s.Key.Type() == cty.String:
				out = out.WithElementKeyString(s.Key.AsString())
			case s.Key.Type() == cty.Number:
				i, _ := s.Key.AsBigFloat().Int64()
				out = out.WithElementKeyInt(int(i))
			default:
				val, err := ctyToTF(s.Key)
				if err != nil {
					return out
				}
				out = out.WithElementKeyValue(val)
			}
		}
	}
	return out
}

// ctyToTF converts a known cty value to a tftypes value (used for set
// element keys in paths).
func ctyToTF(v cty.Value) (tftypes.Value, error) {
	tt, err := ProtoType(v.Type())
	if err != nil {
		return tftypes.Value{}, err
	}
	if v.IsNull() {
		return tftypes.NewValue(tt, nil), nil
	}
	if !v.IsKnown() {
		return tftypes.NewValue(tt, tftypes.UnknownValue), nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return tftypes.NewValue(tt, v.AsString()), nil
	case ty == cty.Number:
		return tftypes.NewValue(tt, new(big.Float).Copy(v.AsBigFloat())), nil
	case ty == cty.Bool:
		return tftypes.NewValue(tt, v.True()), nil
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		var elems []tftypes.Value
		for it := v.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			e, err := ctyToTF(ev)
			if err != nil {
				return tftypes.Value{}, err
			}
			elems = append(elems, e)
		}
		return tftypes.NewValue(tt, elems), nil
	case ty.IsMapType() || ty.IsObjectType():
		m := map[string]tftypes.Value{}
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			e, err := ctyToTF(ev)
			if err != nil {
				return tftypes.Value{}, err
			}
			m[k.AsString()] = e
		}
		return tftypes.NewValue(tt, m), nil
	}
	return tftypes.Value{}, errors.New("value: unsupported type " + ty.FriendlyName())
}

// pathString renders a path the way Terraform users write it:
// source_parameters[0].dynamodb_stream_parameters[0].batch_size.
func pathString(p cty.Path) string {
	s := ""
	for _, step := range p {
		switch st := step.(type) {
		case cty.GetAttrStep:
			if s != "" {
				s += "."
			}
			s += st.Name
		case cty.IndexStep:
			switch {
			case !st.Key.IsKnown() || st.Key.IsNull():
				s += "[?]"
			case st.Key.Type() == cty.String:
				s += fmt.Sprintf("[%q]", st.Key.AsString())
			case st.Key.Type() == cty.Number:
				s += "[" + st.Key.AsBigFloat().Text('f', -1) + "]"
			default:
				s += "[…]"
			}
		}
	}
	return s
}

func errorDiag(summary, detail string, p cty.Path) *tfprotov5.Diagnostic {
	d := &tfprotov5.Diagnostic{Severity: tfprotov5.DiagnosticSeverityError, Summary: summary, Detail: detail}
	if len(p) > 0 {
		d.Attribute = protoPath(p)
	}
	return d
}
