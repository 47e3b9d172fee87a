package terraform_test

import (
	"context"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
)

// TestValidateRejectsSchemaErrors runs terraform validate with the local
// provider on a copy of an example whose dispatch module was broken in
// one way, and requires the error Terraform derives from the provider's
// schema. A provider that served no or a loose schema would let these pass.
func TestValidateRejectsSchemaErrors(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		old, new string
		summary  string
		detail   string
	}{
		{
			name:    "Valid",
			summary: "",
		},
		{
			name:    "WrongArgumentName",
			old:     "maximum_retry_attempts             = var.maximum_retry_attempts",
			new:     "maximum_retry_attempt              = var.maximum_retry_attempts",
			summary: "Unsupported argument",
			detail:  `An argument named "maximum_retry_attempt" is not expected here.`,
		},
		{
			name:    "WrongNestedBlock",
			old:     "dead_letter_config {",
			new:     "dead_letter_queue {",
			summary: "Unsupported block type",
			detail:  `Blocks of type "dead_letter_queue" are not expected here.`,
		},
		{
			name:    "MissingRequiredArgument",
			old:     "      starting_position                  = var.starting_position\n",
			new:     "",
			summary: "Missing required argument",
			detail:  `The argument "starting_position" is required, but no definition was found.`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, "minimal", func(tree string) {
				if tt.old != "" {
					mutate(t, tree, "modules/dispatch/main.tf", tt.old, tt.new)
				}
			})
			out, err := w.tf.Validate(context.Background())
			require.NoError(t, err)
			if tt.summary == "" {
				require.True(t, out.Valid, "diagnostics: %+v", out.Diagnostics)
				return
			}
			require.False(t, out.Valid, "terraform validate accepted the broken configuration")
			require.True(t, hasDiagnostic(out.Diagnostics, tt.summary, tt.detail, "modules/dispatch/main.tf"),
				"want %q / %q in %+v", tt.summary, tt.detail, out.Diagnostics)
		})
	}
}

func hasDiagnostic(diags []tfjson.Diagnostic, summary, detail, file string) bool {
	for _, d := range diags {
		if d.Severity != tfjson.DiagnosticSeverityError || d.Summary != summary || !strings.Contains(d.Detail, detail) {
			continue
		}
		if d.Range != nil && strings.HasSuffix(d.Range.Filename, file) {
			return true
		}
	}
	return false
}
