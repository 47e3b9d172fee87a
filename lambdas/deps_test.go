// Package lambdas holds the three deployed functions, one main package each;
// this test keeps their dependency closure free of the tooling.
package lambdas

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// forbidden are import-path prefixes that must never be linked into a
// deployed function: the local cloud and local provider, the end-to-end
// harness, the build tools, the operator CLI, and the engines and protocols
// those use (minidyn, gofakes3, Terraform, Terratest); and go-dateparser, whose
// package init costs every cold start 0.5 s of CPU (go.mod's replace of
// go-htmldate keeps it out; docs/extraction.md).
var forbidden = []string{
	"github.com/taskpipe/taskpipe/internal/localaws",
	"github.com/taskpipe/taskpipe/internal/e2e",
	"github.com/taskpipe/taskpipe/internal/buildtool",
	"github.com/taskpipe/taskpipe/internal/cli",
	"github.com/truora/minidyn",
	"github.com/johannesboyne/gofakes3",
	"github.com/hashicorp/terraform",
	"github.com/hashicorp/hcl",
	"github.com/gruntwork-io/terratest",
	"github.com/markusmobius/go-dateparser",
}

// scraperOnly are linked by the scraper and by no other function: the
// extractor and the crawler are most of its size and its start-up work.
var scraperOnly = []string{
	"github.com/taskpipe/taskpipe/internal/scrape",
	"github.com/taskpipe/taskpipe/internal/maintext",
	"github.com/markusmobius/go-trafilatura",
}

func TestLambdaDependencyClosure(t *testing.T) {
	t.Parallel()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, fn := range []string{"scraper", "reconciler", "enrich"} {
		t.Run(fn, func(t *testing.T) {
			t.Parallel()
			// The deployed build: linux, lambda.norpc (Makefile, build).
			cmd := exec.Command(goTool, "list", "-deps", "-tags", "lambda.norpc", "./"+fn)
			cmd.Env = append(cmd.Environ(), "GOOS=linux", "CGO_ENABLED=0")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list -deps ./%s: %v", fn, err)
			}
			deps := strings.Fields(string(out))
			if len(deps) < 10 {
				t.Fatalf("go list -deps ./%s listed %d packages; expected the whole closure", fn, len(deps))
			}
			banned := forbidden
			if fn != "scraper" {
				banned = append(append([]string(nil), forbidden...), scraperOnly...)
			}
			for _, dep := range deps {
				for _, bad := range banned {
					if dep == bad || strings.HasPrefix(dep, bad+"/") || strings.HasPrefix(dep, bad+"-") {
						t.Errorf("%s links %s (forbidden prefix %s)", fn, dep, bad)
					}
				}
			}
		})
	}
}

// TestForbiddenMatches proves the check can fail: the local provider's
// command, which links the provider protocol, is caught by the same rule.
func TestForbiddenMatches(t *testing.T) {
	t.Parallel()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-deps", "../cmd/terraform-provider-aws").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	hit := false
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range forbidden {
			if strings.HasPrefix(dep, bad) {
				hit = true
			}
		}
	}
	if !hit {
		t.Fatal("the forbidden list matched nothing in cmd/terraform-provider-aws; the closure check would pass vacuously")
	}
}
