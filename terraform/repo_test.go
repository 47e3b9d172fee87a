package terraform_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider"
)

// repo is a loaded copy of this terraform/ directory.
type repo struct {
	dir      string
	loader   *loader
	modules  map[string]*tfModule
	examples map[string]*tfModule

	// scopes of every root, built once: contracts only read them.
	scopesOnce sync.Once
	allScopes  []*scope
	scopesErr  error
}

// loadRepo parses every module and example under dir (a terraform/ tree).
func loadRepo(dir string) (*repo, error) {
	r := &repo{dir: dir, loader: newLoader(), modules: map[string]*tfModule{}, examples: map[string]*tfModule{}}
	for kind, into := range map[string]map[string]*tfModule{"modules": r.modules, "examples": r.examples} {
		entries, err := os.ReadDir(filepath.Join(dir, kind))
		if err != nil {
			return nil, fmt.Errorf("load repo: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			m, err := r.loader.load(filepath.Join(dir, kind, e.Name()))
			if err != nil {
				return nil, err
			}
			into[e.Name()] = m
		}
	}
	if len(r.modules) == 0 || len(r.examples) == 0 {
		return nil, fmt.Errorf("load repo %s: no modules or no examples", dir)
	}
	return r, nil
}

// names returns the sorted keys of a module map.
func names(ms map[string]*tfModule) []string {
	out := make([]string, 0, len(ms))
	for k := range ms {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// roots returns the configurations the contracts are checked against:
// every example as deployed with its defaults, the pipeline module with
// enrichment on and off, and every module on its own with its defaults
// (required inputs unknown, as if wired to resources).
func (r *repo) roots() ([]*scope, error) {
	var out []*scope
	for _, name := range names(r.examples) {
		s, err := r.loader.newScope(r.examples[name], "examples/"+name, map[string]cty.Value{
			"name": cty.StringVal("contract"),
		})
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if p, ok := r.modules["pipeline"]; ok {
		for _, enrich := range []bool{true, false} {
			s, err := r.loader.newScope(p, fmt.Sprintf("modules/pipeline(enrichment=%t)", enrich), map[string]cty.Value{
				"name":              cty.StringVal("contract"),
				"dist_dir":          cty.StringVal("/dist"),
				"enable_enrichment": cty.BoolVal(enrich),
			})
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	for _, name := range names(r.modules) {
		m := r.modules[name]
		inputs := map[string]cty.Value{}
		for _, b := range m.variables {
			if _, has, _ := variableDefault(b); has {
				continue
			}
			ty, _, err := variableType(b)
			if err != nil {
				return nil, err
			}
			inputs[b.Labels[0]] = cty.UnknownVal(ty)
			if b.Labels[0] == "name" {
				inputs["name"] = cty.StringVal("contract")
			}
		}
		s, err := r.loader.newScope(m, "modules/"+name, inputs)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// scopes returns every module instance below every root.
func (r *repo) scopes() ([]*scope, error) {
	r.scopesOnce.Do(func() { r.allScopes, r.scopesErr = r.buildScopes() })
	return r.allScopes, r.scopesErr
}

func (r *repo) buildScopes() ([]*scope, error) {
	roots, err := r.roots()
	if err != nil {
		return nil, err
	}
	var out []*scope
	for _, root := range roots {
		err := root.walk(func(s *scope) error {
			out = append(out, s)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scopesOf returns the instances of one module (by folder name).
func (r *repo) scopesOf(module string) ([]*scope, error) {
	all, err := r.scopes()
	if err != nil {
		return nil, err
	}
	want, ok := r.modules[module]
	if !ok {
		return nil, fmt.Errorf("no module %q", module)
	}
	var out []*scope
	for _, s := range all {
		if s.mod == want {
			out = append(out, s)
		}
	}
	return out, nil
}

// awsSchema returns the hashicorp/aws 6.47.0 schema the local provider
// embeds (internal/localaws/tfprovider/schema).
func awsSchema(t *testing.T) *tfjson.ProviderSchema {
	t.Helper()
	var schemas tfjson.ProviderSchemas
	require.NoError(t, json.Unmarshal(tfprovider.EmbeddedSchema(), &schemas))
	s, ok := schemas.Schemas[tfprovider.Address]
	require.True(t, ok, "the embedded schema has no %s schema", tfprovider.Address)
	return s
}
