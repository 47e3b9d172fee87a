package tfprovider

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
)

// Address is the registry address the local provider answers as.
const Address = "registry.terraform.io/hashicorp/aws"

// Version is the hashicorp/aws release whose schema the provider serves.
const Version = "6.47.0"

// SchemaEnv names the environment variable that points the provider at
// another schema document instead of the embedded one (schema/README.md).
const SchemaEnv = "TASKPIPE_AWS_SCHEMA"

// embeddedSchema is the hashicorp/aws 6.47.0 schema subset the provider
// serves; schema/README.md records where it came from and its sha256. It is
// embedded so the binary records no path: Terraform runs the plugin from a
// copy inside .terraform/.
//
//go:embed schema/aws-6.47.0.json
var embeddedSchema []byte

// LoadSchema returns the catalog the provider serves: the document named by
// $TASKPIPE_AWS_SCHEMA when it is set, else the embedded 6.47.0 subset.
func LoadSchema() (*Catalog, error) {
	if p := os.Getenv(SchemaEnv); p != "" {
		return LoadSchemaFile(p)
	}
	cat, err := ParseSchema(bytes.NewReader(embeddedSchema))
	if err != nil {
		return nil, fmt.Errorf("schema: embedded: %w", err)
	}
	return cat, nil
}

// EmbeddedSchema returns the embedded schema document, for tests that read
// the real argument names without starting a provider.
func EmbeddedSchema() []byte { return embeddedSchema }

// Catalog holds the provider's schemas: the real resource and data-source
// schemas from the JSON file, and the local provider block schema.
type Catalog struct {
	// Resources maps resource type names to their schemas.
	Resources map[string]*tfjson.Schema
	// DataSources maps data source type names to their schemas.
	DataSources map[string]*tfjson.Schema
	// Provider is the provider block schema (see providerconfig.go).
	Provider *tfjson.Schema

	proto *tfprotov5.GetProviderSchemaResponse
}

// LoadSchemaFile reads a `terraform providers schema -json` document.
func LoadSchemaFile(path string) (*Catalog, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("schema: %s does not exist: it is the output of "+
			"`terraform providers schema -json` for hashicorp/aws %s; on a machine with "+
			"internet access run `terraform init` with the real provider in a root module "+
			"that requires it, then `terraform providers schema -json > %s` "+
			"(or point %s at a copy): %w", path, Version, path, SchemaEnv, err)
	}
	if err != nil {
		return nil, fmt.Errorf("schema: open: %w", err)
	}
	defer f.Close()
	cat, err := ParseSchema(f)
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", path, err)
	}
	return cat, nil
}

// ParseSchema decodes a `terraform providers schema -json` document and
// converts every schema to its protocol-5 form, so a schema the protocol
// cannot carry is reported at startup rather than at plan time.
func ParseSchema(r io.Reader) (*Catalog, error) {
	var doc tfjson.ProviderSchemas
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decode provider schemas: %w", err)
	}
	ps, ok := doc.Schemas[Address]
	if !ok {
		names := make([]string, 0, len(doc.Schemas))
		for k := range doc.Schemas {
			names = append(names, k)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("no schema for %s (the document has %v)", Address, names)
	}
	if len(ps.ResourceSchemas) == 0 {
		return nil, fmt.Errorf("the %s schema has no resource schemas", Address)
	}
	cat := &Catalog{
		Resources:   ps.ResourceSchemas,
		DataSources: ps.DataSourceSchemas,
		Provider:    providerSchema(),
	}
	if cat.DataSources == nil {
		cat.DataSources = map[string]*tfjson.Schema{}
	}
	proto, err := cat.protoSchemas()
	if err != nil {
		return nil, err
	}
	cat.proto = proto
	return cat, nil
}

func (c *Catalog) protoSchemas() (*tfprotov5.GetProviderSchemaResponse, error) {
	resp := &tfprotov5.GetProviderSchemaResponse{
		ResourceSchemas:   make(map[string]*tfprotov5.Schema, len(c.Resources)),
		DataSourceSchemas: make(map[string]*tfprotov5.Schema, len(c.DataSources)),
	}
	var err error
	if resp.Provider, err = ProtoSchema(c.Provider); err != nil {
		return nil, fmt.Errorf("provider block: %w", err)
	}
	for name, s := range c.Resources {
		if resp.ResourceSchemas[name], err = ProtoSchema(s); err != nil {
			return nil, fmt.Errorf("resource %s: %w", name, err)
		}
	}
	for name, s := range c.DataSources {
		if resp.DataSourceSchemas[name], err = ProtoSchema(s); err != nil {
			return nil, fmt.Errorf("data source %s: %w", name, err)
		}
	}
	return resp, nil
}

// ResourceTypes returns the resource type names, sorted.
func (c *Catalog) ResourceTypes() []string { return sortedKeys(c.Resources) }

// DataSourceTypes returns the data source type names, sorted.
func (c *Catalog) DataSourceTypes() []string { return sortedKeys(c.DataSources) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
