package terraform_test

import (
	"testing"
)

// TestExamplesPlanWithProviderRules: every example plans with its defaults
// through the local provider, which enforces the real provider's
// plan-time rules (internal/localaws/tfprovider/crossrules.go and
// rules_*.go), so the modules as shipped break none of them.
func TestExamplesPlanWithProviderRules(t *testing.T) {
	t.Parallel()
	for _, example := range []string{"minimal", "complete", "local"} {
		t.Run(example, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, example, nil)
			plannedChanges(t, w, example, map[string]any{"name": "rules-" + example})
		})
	}
}
