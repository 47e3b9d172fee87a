// Package sdkenum reads the enum values of an aws-sdk-go-v2 service module
// (its generated types/enums.go), so that the generator and the tests can
// compare them with the botocore models: an SDK newer than the model sends
// values the model does not list yet.
package sdkenum

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// ModulePrefix is the import path prefix of the Go SDK's service modules.
const ModulePrefix = "github.com/aws/aws-sdk-go-v2/service/"

var (
	// aws-sdk-go-v2's generated enum declarations:
	//
	//	// Enum values for Runtime
	//	const (
	//		RuntimeNodejs Runtime = "nodejs"
	block = regexp.MustCompile(`(?s)// Enum values for (\w+)\nconst \((.*?)\n\)`)
	value = regexp.MustCompile(`\s\w+\s+\w+\s+= "([^"]*)"`)
)

// Module is one resolved SDK service module.
type Module struct {
	Path, Version, Dir string
}

// Resolve finds a service module (e.g. "lambda") in the module graph of the
// current directory's module with `go list -m`. ok is false when the module
// is not in the graph.
func Resolve(goTool, service string) (m Module, ok bool) {
	path := ModulePrefix + service
	out, err := exec.Command(goTool, "list", "-m", "-f", "{{.Version}} {{.Dir}}", path).Output()
	if err != nil {
		return Module{}, false
	}
	version, dir, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return Module{Path: path, Version: version, Dir: dir}, dir != ""
}

// Enums returns the module's enum types and their values in declaration
// order; a module without enums (STS) has none.
func (m Module) Enums() (map[string][]string, error) {
	src, err := os.ReadFile(filepath.Join(m.Dir, "types", "enums.go"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sdkenum: %s: %w", m.Path, err)
	}
	return Parse(src), nil
}

// Parse extracts the enum declarations of a generated enums.go.
func Parse(src []byte) map[string][]string {
	out := map[string][]string{}
	for _, b := range block.FindAllSubmatch(src, -1) {
		var vals []string
		for _, v := range value.FindAllSubmatch(b[2], -1) {
			vals = append(vals, string(v[1]))
		}
		out[string(b[1])] = vals
	}
	return out
}
