package terraform_test

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

// TestAlarmsMovedToOneResource checks that a stack whose work DLQ, pipe
// DLQ and pipe execution alarms were three resources keeps them after they
// became one for_each resource (issue 11 #6): the complete example is
// applied on the local cloud, its state moved back to the old addresses
// (the stack as an older release left it), and the plan of the current
// tree must move the three alarms, creating and destroying none. Without
// the moved blocks the same plan replaces them, which the second case
// requires, so the test can fail.
func TestAlarmsMovedToOneResource(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the complete example on the local cloud")
	}
	t.Parallel()
	noDelay := func(tree string) { completeForLocalCloud(t, tree) }
	tests := []struct {
		name      string
		keepMoved bool
	}{
		{"with the moved blocks", true},
		{"without the moved blocks", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			account := localcloud.NewAccount("111122223333", nil)
			w, varFile, err := applyLocal(t, account, "eu-west-1", noDelay)
			require.NoError(t, err, "terraform apply")

			const prefix = "module.pipeline.aws_cloudwatch_metric_alarm."
			for _, key := range []string{"work_dlq", "pipe_dlq", "pipe_failed"} {
				require.NoError(t, w.tf.StateMv(ctx, prefix+`first_event["`+key+`"]`, prefix+key, tfexec.Lock(false)))
			}
			if !tt.keepMoved {
				monitoring := filepath.Join(w.tree, "modules", "pipeline", "monitoring.tf")
				for _, key := range []string{"work_dlq", "pipe_dlq", "pipe_failed"} {
					edit(t, monitoring, "moved {\n  from = aws_cloudwatch_metric_alarm."+key+"\n  to   = aws_cloudwatch_metric_alarm.first_event[\""+key+"\"]\n}\n", "")
				}
			}

			planFile := filepath.Join(t.TempDir(), "plan")
			_, err = w.tf.Plan(ctx, tfexec.VarFile(varFile), tfexec.Out(planFile), tfexec.Lock(false), tfexec.Refresh(false))
			require.NoError(t, err, "terraform plan")
			plan, err := w.tf.ShowPlanFile(ctx, planFile)
			require.NoError(t, err)

			alarm := regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `(work_dlq|pipe_dlq|pipe_failed|first_event\[.*\])$`)
			moved, replaced := map[string]string{}, 0
			for _, rc := range plan.ResourceChanges {
				if !alarm.MatchString(rc.Address) {
					continue
				}
				if rc.Change.Actions.Create() || rc.Change.Actions.Delete() || rc.Change.Actions.Replace() {
					replaced++
				}
				if rc.PreviousAddress != "" {
					moved[rc.PreviousAddress] = rc.Address
				}
				if !tt.keepMoved {
					continue
				}
				require.Truef(t, rc.Change.Actions.NoOp(), "%s: actions %v, want no-op", rc.Address, rc.Change.Actions)
			}
			if !tt.keepMoved {
				require.Empty(t, moved)
				require.Equal(t, 6, replaced, "three alarms destroyed and three created")
				return
			}
			require.Equal(t, map[string]string{
				prefix + "work_dlq":    prefix + `first_event["work_dlq"]`,
				prefix + "pipe_dlq":    prefix + `first_event["pipe_dlq"]`,
				prefix + "pipe_failed": prefix + `first_event["pipe_failed"]`,
			}, moved)
			require.Zero(t, replaced)
		})
	}
}
