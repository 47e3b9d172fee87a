// Package tfprovidertest gives tests a Terraform CLI wired to the local
// hashicorp/aws provider: CLIConfig builds the provider once per test process
// into a temporary filesystem mirror and returns a CLI configuration file for
// TF_CLI_CONFIG_FILE; Terraform locates the terraform binary. Neither skips
// for a missing binary: that fails the test with the command that fixes it.
// Under -short both skip the calling test: the fast tier runs no Terraform
// (make test runs the full suite).
//
// Packages that use CLIConfig should remove the mirror when they finish:
//
//	func TestMain(m *testing.M) {
//		code := m.Run()
//		tfprovidertest.Cleanup()
//		os.Exit(code)
//	}
package tfprovidertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/taskpipe/taskpipe/internal/e2e/demo"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider"
)

var (
	once      sync.Once
	mirrorDir string
	cliConfig string
	buildErr  error
)

// CLIConfig returns the path of a CLI configuration file that installs
// hashicorp/aws from a mirror holding the local provider built from this
// checkout. The first call builds it (go build, about 20 s cold); later calls
// in the same process reuse it.
func CLIConfig(t testing.TB) string {
	t.Helper()
	SkipShort(t)
	once.Do(func() { cliConfig, buildErr = build() })
	if buildErr != nil {
		t.Fatalf("tfprovidertest: %v", buildErr)
	}
	return cliConfig
}

// SkipShort skips t under -short: it runs Terraform, which the fast tier
// leaves out.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs Terraform: not in the -short tier")
	}
}

// Cleanup removes the mirror CLIConfig built, if any.
func Cleanup() {
	if mirrorDir != "" {
		_ = os.RemoveAll(mirrorDir)
	}
}

// Terraform returns the terraform binary: $TERRAFORM, else <repo>/bin/terraform.
func Terraform(t testing.TB) string {
	t.Helper()
	SkipShort(t)
	if p := os.Getenv("TERRAFORM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("tfprovidertest: TERRAFORM=%s: %v", p, err)
		}
		return p
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatalf("tfprovidertest: %v", err)
	}
	p := filepath.Join(root, "bin", "terraform")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("tfprovidertest: no terraform binary at %s (run make tools, or set TERRAFORM): %v", p, err)
	}
	return p
}

// RepoRoot walks up from the working directory to the directory whose
// go.mod declares this module (demo.RepoRoot).
func RepoRoot() (string, error) { return demo.RepoRoot() }

func build() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "taskpipe-tfmirror-")
	if err != nil {
		return "", fmt.Errorf("mirror dir: %w", err)
	}
	mirrorDir = dir
	bin := tfprovider.MirrorBinaryPath(dir, runtime.GOOS, runtime.GOARCH)
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	cmd := exec.Command(goTool, "build", "-trimpath", "-o", bin, "./cmd/terraform-provider-aws")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build provider: %w: %s", err, stderr.String())
	}
	if err := buildTime(goTool, dir); err != nil {
		return "", err
	}
	return tfprovider.WriteCLIConfig(dir)
}

// buildTime installs the real hashicorp/time provider from source (through
// the Go module cache, so offline once it holds the module) into the
// mirror at dir.
func buildTime(goTool, dir string) error {
	gobin, err := os.MkdirTemp(dir, "gobin-")
	if err != nil {
		return fmt.Errorf("time provider: %w", err)
	}
	cmd := exec.Command(goTool, "install", "-trimpath", tfprovider.TimeModule+"@v"+tfprovider.TimeVersion)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOBIN="+gobin, "GOFLAGS=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go install %s: %w: %s", tfprovider.TimeModule, err, stderr.String())
	}
	bin := tfprovider.TimeBinaryPath(dir, runtime.GOOS, runtime.GOARCH)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return fmt.Errorf("time provider: %w", err)
	}
	if err := os.Rename(filepath.Join(gobin, "terraform-provider-time"), bin); err != nil {
		return fmt.Errorf("time provider: %w", err)
	}
	if err := os.RemoveAll(gobin); err != nil {
		return fmt.Errorf("time provider: %w", err)
	}
	return nil
}

// EnsureZips runs make build in the repository root when a Lambda zip of
// this machine's architecture is missing from dist/, for tests that deploy
// the real functions (the demo, the chaos run, the provider's acceptance
// test).
func EnsureZips(t testing.TB, root string) {
	t.Helper()
	missing := func() bool {
		for _, fn := range []string{"scraper", "reconciler", "enrich"} {
			if _, err := os.Stat(filepath.Join(root, "dist", fn+"-"+runtime.GOARCH+".zip")); err != nil {
				return true
			}
		}
		return false
	}
	if !missing() {
		return
	}
	cmd := exec.Command("make", "build")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the test deploys the Lambda zips, and make build failed: %v\n%s", err, out)
	}
	if missing() {
		t.Fatal("make build ran but did not write the zips")
	}
}
