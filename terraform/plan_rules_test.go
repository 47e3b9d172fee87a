package terraform_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
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

// TestWorkQueueCustomerKeyPlans plans the work-queue module with a
// customer key. Issue 12, defect 4: the module then sets
// sqs_managed_sse_enabled = false next to kms_master_key_id, which the
// provider declares ConflictsWith (internal/service/sqs/queue.go), so the
// plan fails on AWS and, now, locally. The module fix belongs to the
// Terraform work on that defect; this test is its regression test and is
// skipped until then.
func TestWorkQueueCustomerKeyPlans(t *testing.T) {
	t.Parallel()
	t.Skip("issue 12 defect 4: work-queue plans sqs_managed_sse_enabled = false with kms_master_key_id (ConflictsWith); remove this skip with the module fix")
	w := newWorkspace(t, "minimal", func(tree string) {
		dir := filepath.Join(tree, "examples", "minimal")
		require.NoError(t, os.Remove(filepath.Join(dir, "outputs.tf")))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(`provider "aws" {
  region = var.region
}

module "queue" {
  source                   = "../../modules/work-queue"
  name                     = var.name
  consumer_timeout_seconds = 60
  kms_master_key_id        = "alias/taskpipe"
}
`), 0o644))
	})
	plannedChanges(t, w, "kms", map[string]any{"name": "rules-kms"})
}
