package tfprovider

import (
	"path/filepath"
	"sync"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

var (
	realOnce sync.Once
	realCat  *Catalog
	realErr  error
)

// realCatalog loads the real 6.47.0 schema once per test process.
func realCatalog(t testing.TB) *Catalog {
	t.Helper()
	realOnce.Do(func() { realCat, realErr = LoadSchema() })
	if realErr != nil {
		t.Fatalf("the real provider schema is needed for this test: %v", realErr)
	}
	return realCat
}

func smallCatalog(t testing.TB) *Catalog {
	t.Helper()
	cat, err := LoadSchemaFile(filepath.Join("testdata", "schema_small.json"))
	require.NoError(t, err)
	return cat
}

// configOf builds a configuration value for a block from JSON, the way
// Terraform sends it: absent attributes are null and absent list, set and
// map blocks are empty collections.
func configOf(t testing.TB, b *tfjson.SchemaBlock, js string) cty.Value {
	t.Helper()
	v, err := ctyjson.Unmarshal([]byte(js), ImpliedType(b))
	require.NoError(t, err)
	return emptyBlocks(b, v)
}

func emptyBlocks(b *tfjson.SchemaBlock, v cty.Value) cty.Value {
	if v.IsNull() || !v.IsKnown() {
		return v
	}
	attrs := v.AsValueMap()
	if attrs == nil {
		attrs = map[string]cty.Value{}
	}
	for name, bt := range b.NestedBlocks {
		bv := attrs[name]
		ety := ImpliedType(bt.Block)
		switch bt.NestingMode {
		case tfjson.SchemaNestingModeList:
			if bv.IsNull() {
				attrs[name] = cty.ListValEmpty(ety)
				continue
			}
			var out []cty.Value
			for _, e := range bv.AsValueSlice() {
				out = append(out, emptyBlocks(bt.Block, e))
			}
			if len(out) > 0 {
				attrs[name] = cty.ListVal(out)
			}
		case tfjson.SchemaNestingModeSet:
			if bv.IsNull() {
				attrs[name] = cty.SetValEmpty(ety)
				continue
			}
			var out []cty.Value
			for _, e := range bv.AsValueSlice() {
				out = append(out, emptyBlocks(bt.Block, e))
			}
			if len(out) > 0 {
				attrs[name] = cty.SetVal(out)
			}
		case tfjson.SchemaNestingModeMap:
			if bv.IsNull() {
				attrs[name] = cty.MapValEmpty(ety)
			}
		default:
			attrs[name] = emptyBlocks(bt.Block, bv)
		}
	}
	return cty.ObjectVal(attrs)
}

// withUnknown replaces the value at path with an unknown of its type.
func withUnknown(t testing.TB, v cty.Value, path cty.Path) cty.Value {
	t.Helper()
	out, err := cty.Transform(v, func(p cty.Path, x cty.Value) (cty.Value, error) {
		if p.Equals(path) {
			return cty.UnknownVal(x.Type()), nil
		}
		return x, nil
	})
	require.NoError(t, err)
	return out
}
