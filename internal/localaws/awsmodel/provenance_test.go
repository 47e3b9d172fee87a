package awsmodel

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel/internal/sdkenum"
)

// TestProvenance: the artifact names its source and licence, and
// PROVENANCE.md (written by the generator) matches the artifact.
func TestProvenance(t *testing.T) {
	t.Parallel()
	m := MustLoad()
	if m.BotocoreVersion == "" || m.License.Name != "Apache-2.0" || !strings.Contains(m.License.URL, "apache.org/licenses/LICENSE-2.0") {
		t.Errorf("artifact provenance: %q %+v", m.BotocoreVersion, m.License)
	}
	doc, err := os.ReadFile("PROVENANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "botocore **"+m.BotocoreVersion+"**") {
		t.Errorf("PROVENANCE.md does not name botocore %s: run go generate", m.BotocoreVersion)
	}
	for _, k := range m.Services() {
		s := m.Service(k)
		if s.ModelSHA256 == "" || s.APIVersion == "" || len(s.Operations()) == 0 {
			t.Errorf("%s: incomplete %+v", k, s)
		}
		if !strings.Contains(string(doc), "| "+k+" | "+s.Model+" | "+s.APIVersion+" |") || !strings.Contains(string(doc), s.ModelSHA256) {
			t.Errorf("PROVENANCE.md lacks %s %s %s: run go generate", k, s.APIVersion, s.ModelSHA256)
		}
	}
	if sqs := m.Service("sqs"); sqs.LegacyQuery == nil || sqs.LegacyQuery.Protocol != "query" {
		t.Error("sqs: no legacy query provenance")
	}
}

// TestSDKEnumsAccepted: every enum value the aws-sdk-go-v2 modules of
// go.mod define for a shape the validator checks is accepted, so a request
// those SDKs build is never rejected for a value newer than botocore. It
// fails after an SDK upgrade that brings new values: regenerate with
// -gosdk (README.md, "Regenerating").
func TestSDKEnumsAccepted(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to resolve the SDK modules")
	}
	raw, err := os.ReadFile("internal/gen/sdk-enums.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Modules map[string]string `json:"modules"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	m := MustLoad()
	checked := 0
	for key, modVersion := range rec.Modules {
		path, _, _ := strings.Cut(modVersion, "@")
		mod, ok := sdkenum.Resolve(goTool, strings.TrimPrefix(path, sdkenum.ModulePrefix))
		if !ok {
			t.Errorf("%s: %s is no longer in the module graph: regenerate with -gosdk", key, path)
			continue
		}
		enums, err := mod.Enums()
		if err != nil {
			t.Fatal(err)
		}
		svc := m.Service(key)
		for name, vals := range enums {
			sh := svc.Shape(name)
			if sh == nil || len(sh.Enum) == 0 {
				continue
			}
			for _, v := range vals {
				checked++
				if _, ok := sh.enumSet[v]; !ok {
					t.Errorf("%s %s: %s@%s sends %q, the model rejects it: regenerate with -gosdk", key, name, path, mod.Version, v)
				}
			}
		}
	}
	if checked < 500 {
		t.Errorf("only %d SDK enum values checked", checked)
	}
}
