package tfdoc_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/buildtool/tfdoc"
)

func TestLoad(t *testing.T) {
	t.Parallel()

	m, err := tfdoc.Load("testdata/module")
	require.NoError(t, err)

	require.Equal(t, ">= 1.5.0", m.RequiredVersion)
	require.Equal(t, []tfdoc.Provider{{Name: "aws", Source: "hashicorp/aws", Version: ">= 5.61"}}, m.Providers)
	require.Equal(t, []tfdoc.Variable{
		{Name: "name", Description: "Name of <the> thing.", Type: "string", Required: true},
		{Name: "patterns", Description: "JSON patterns | pipes.", Type: "list(string)", Default: `["{\"a\":1}"]`},
		{Name: "statements", Description: "Statements.", Type: "list(object({actions=optional(list(string)),sid=string}))", Default: "[]"},
		{Name: "untyped", Type: "any", Default: "null"},
	}, m.Variables)
	require.Equal(t, []tfdoc.Output{{Name: "arn", Description: "ARN of the thing."}}, m.Outputs)
	require.Equal(t, []tfdoc.Call{{Name: "queue", Source: "../queue"}}, m.Calls)
	require.Equal(t, []tfdoc.Resource{
		{Mode: "resource", Type: "aws_sqs_queue", Name: "this"},
		{Mode: "data", Type: "aws_iam_policy_document", Name: "this"},
		{Mode: "resource", Type: "aws_iam_role", Name: "this"},
	}, m.Resources)
}

func TestMarkdown(t *testing.T) {
	t.Parallel()

	m, err := tfdoc.Load("testdata/module")
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/module.md")
	require.NoError(t, err)
	require.Equal(t, string(want), m.Markdown())
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{
			name:  "NoFiles",
			files: map[string]string{},
			want:  "no .tf files",
		},
		{
			name:  "SyntaxError",
			files: map[string]string{"main.tf": `variable "x" {`},
			want:  "parse",
		},
		{
			name:  "ComputedDescription",
			files: map[string]string{"variables.tf": "variable \"x\" {\n  description = var.y\n}\n"},
			want:  `variable "x": description`,
		},
		{
			name:  "BadType",
			files: map[string]string{"variables.tf": "variable \"x\" {\n  type = strin\n}\n"},
			want:  `variable "x": type`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, body := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
			}
			_, err := tfdoc.Load(dir)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestInject(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		doc     string
		tables  string // default "NEW\n"
		want    string
		wantErr error
	}{
		{
			name: "ReplacesBetweenMarkers",
			doc:  "# m\n\n" + tfdoc.BeginMarker + "\nold\n" + tfdoc.EndMarker + "\ntail\n",
			want: "# m\n\n" + tfdoc.BeginMarker + "\nNEW\n" + tfdoc.EndMarker + "\ntail\n",
		},
		{
			name: "EmptySection",
			doc:  tfdoc.BeginMarker + tfdoc.EndMarker,
			want: tfdoc.BeginMarker + "\nNEW\n" + tfdoc.EndMarker,
		},
		{
			name:    "NoMarkers",
			doc:     "# m\n",
			wantErr: tfdoc.ErrNoMarkers,
		},
		{
			// Tables under a deeper heading nest below it; headings inside
			// code fences do not count.
			name:   "NestsUnderLastHeading",
			doc:    "# t\n## a\n### ref\n```\n# not a heading\n```\n" + tfdoc.BeginMarker + tfdoc.EndMarker,
			tables: "## Inputs\nx\n",
			want:   "# t\n## a\n### ref\n```\n# not a heading\n```\n" + tfdoc.BeginMarker + "\n#### Inputs\nx\n" + tfdoc.EndMarker,
		},
		{
			name:    "EndBeforeBegin",
			doc:     tfdoc.EndMarker + "\n" + tfdoc.BeginMarker,
			wantErr: tfdoc.ErrNoMarkers,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tables := tt.tables
			if tables == "" {
				tables = "NEW\n"
			}
			got, err := tfdoc.Inject(tt.doc, tables)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestUpdateFile(t *testing.T) {
	t.Parallel()

	doc := filepath.Join(t.TempDir(), "README.md")
	require.NoError(t, os.WriteFile(doc, []byte("# m\n"+tfdoc.BeginMarker+"\n"+tfdoc.EndMarker+"\n"), 0o644))

	stale, err := tfdoc.UpdateFile(doc, "testdata/module", false)
	require.NoError(t, err)
	require.True(t, stale, "an empty section is stale")
	before, err := os.ReadFile(doc)
	require.NoError(t, err)
	require.NotContains(t, string(before), "## Inputs", "check mode must not write")

	stale, err = tfdoc.UpdateFile(doc, "testdata/module", true)
	require.NoError(t, err)
	require.True(t, stale)

	stale, err = tfdoc.UpdateFile(doc, "testdata/module", false)
	require.NoError(t, err)
	require.False(t, stale, "a freshly written file is current")

	after, err := os.ReadFile(doc)
	require.NoError(t, err)
	require.Contains(t, string(after), "| `patterns` |")
}

func TestUpdateFileWithoutMarkers(t *testing.T) {
	t.Parallel()

	doc := filepath.Join(t.TempDir(), "README.md")
	require.NoError(t, os.WriteFile(doc, []byte("# m\n"), 0o644))
	_, err := tfdoc.UpdateFile(doc, "testdata/module", true)
	require.ErrorIs(t, err, tfdoc.ErrNoMarkers)
}
