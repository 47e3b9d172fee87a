package awsmodel

import (
	"os"
	"strings"
	"testing"
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
