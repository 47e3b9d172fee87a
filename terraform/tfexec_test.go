package terraform_test

import (
	"archive/zip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	tfprovidertest.Cleanup()
	if scratchRoot != "" {
		_ = os.RemoveAll(scratchRoot)
	}
	os.Exit(code)
}

// fakeDist writes the six Lambda zips the examples hash at plan time; their
// content does not matter before apply.
func fakeDist(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, writeFakeDist(dir))
	return dir
}

func writeFakeDist(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fake dist: %w", err)
	}
	for _, fn := range []string{"scraper", "reconciler", "enrich"} {
		for _, arch := range []string{"arm64", "amd64"} {
			f, err := os.Create(filepath.Join(dir, fn+"-"+arch+".zip"))
			if err != nil {
				return fmt.Errorf("fake dist: %w", err)
			}
			zw := zip.NewWriter(f)
			w, err := zw.Create("bootstrap")
			if err == nil {
				_, err = w.Write([]byte("#!/bin/sh\n# " + fn + " " + arch + "\n"))
			}
			if err == nil {
				err = zw.Close()
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("fake dist: %w", err)
			}
		}
	}
	return nil
}

// workspace is a private copy of the terraform tree with one example
// initialised against the local provider.
type workspace struct {
	tree    string // copy of terraform/
	example string // the example's directory inside tree
	dist    string
	tf      *tfexec.Terraform
}

// newWorkspace copies the tree, lets prepare edit it, and runs terraform
// init in the example, offline.
func newWorkspace(t *testing.T, example string, prepare func(tree string)) *workspace {
	t.Helper()
	// The local provider, built once per test process into a temporary
	// filesystem mirror, and bin/terraform; both fail (never skip) with the
	// command that fixes a missing piece.
	bin, rc := tfprovidertest.Terraform(t), tfprovidertest.CLIConfig(t)
	w := &workspace{tree: copyTree(t, "."), dist: fakeDist(t)}
	w.example = filepath.Join(w.tree, "examples", example)
	if prepare != nil {
		prepare(w.tree)
	}
	tf, err := tfexec.NewTerraform(w.example, bin)
	require.NoError(t, err)
	require.NoError(t, tf.SetEnv(map[string]string{
		"PATH":               os.Getenv("PATH"),
		"HOME":               t.TempDir(),
		"TMPDIR":             os.TempDir(),
		"TF_CLI_CONFIG_FILE": rc,
		"CHECKPOINT_DISABLE": "1",
		// Dummy credentials: plans make no AWS calls, and real credentials
		// in the environment must not be picked up.
		"AWS_ACCESS_KEY_ID":     "test",
		"AWS_SECRET_ACCESS_KEY": "test",
		"AWS_REGION":            "eu-west-1",
	}))
	w.tf = tf
	require.NoError(t, tf.Init(context.Background(), tfexec.Upgrade(false)), "terraform init (offline, local provider)")
	return w
}
