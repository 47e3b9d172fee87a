package tfprovider_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTerraformPlanCrossRules: planted configurations that break the real
// provider's cross-attribute rules fail `terraform plan` through the local
// provider, with the provider's summary and detail (crossrules.go).
func TestTerraformPlanCrossRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dir     string
		details []string
	}{
		{"plan_conflicts", []string{
			"Conflicting configuration arguments",
			`"kms_master_key_id": conflicts with sqs_managed_sse_enabled`,
			`"sqs_managed_sse_enabled": conflicts with kms_master_key_id`,
		}},
		{"plan_exactly_one", []string{
			"Invalid combination of arguments",
			"\"filename\": one of `filename,image_uri,s3_bucket` must be specified",
		}},
		{"plan_required_with", []string{
			"Missing required argument",
			"\"s3_bucket\": all of `s3_bucket,s3_key` must be specified",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			t.Parallel()
			tf, _ := workdir(t, tc.dir)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			_, err := tf.Plan(ctx)
			require.Error(t, err, "the plan must fail as with the real provider")
			for _, d := range tc.details {
				require.ErrorContains(t, err, d)
			}
		})
	}
}
