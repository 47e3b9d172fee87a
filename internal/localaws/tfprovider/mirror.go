package tfprovider

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// BinaryName is the plugin executable's file name inside the mirror.
const BinaryName = "terraform-provider-aws_v" + Version

// The real hashicorp/time provider, whose time_sleep the dispatch module
// waits with (stream and role propagation before CreatePipe). It is built
// from source into the same mirror, so an offline terraform init finds
// both providers.
const (
	TimeAddress = "registry.terraform.io/hashicorp/time"
	TimeVersion = "0.14.2"
	TimeModule  = "github.com/hashicorp/terraform-provider-time"
)

// TimeBinaryPath is where the hashicorp/time plugin lives in the mirror at
// dir.
func TimeBinaryPath(dir, goos, goarch string) string {
	return filepath.Join(dir, TimeAddress, TimeVersion, goos+"_"+goarch, "terraform-provider-time_v"+TimeVersion)
}

// MirrorBinaryPath is where the plugin lives in an unpacked
// filesystem_mirror rooted at dir: HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH/
// (Terraform CLI docs, "Provider Installation", unpacked layout).
func MirrorBinaryPath(dir, goos, goarch string) string {
	return filepath.Join(dir, Address, Version, goos+"_"+goarch, BinaryName)
}

// WriteCLIConfig writes dir/terraform.rc, a CLI configuration that installs
// hashicorp/aws and hashicorp/time from the mirror at dir and every other
// provider directly, and returns its path. Point TF_CLI_CONFIG_FILE at it.
func WriteCLIConfig(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("mirror: %w", err)
	}
	path := filepath.Join(abs, "terraform.rc")
	if err := os.WriteFile(path, []byte(CLIConfig(abs)), 0o644); err != nil {
		return "", fmt.Errorf("mirror: write cli config: %w", err)
	}
	return path, nil
}

// CLIConfig is the text of the CLI configuration for a mirror at absDir.
func CLIConfig(absDir string) string {
	q := strconv.Quote(Address) + ", " + strconv.Quote(TimeAddress)
	return fmt.Sprintf(`# Written by the taskpipe local provider build: hashicorp/aws (the taskpipe
# stand-in, schema %s) and hashicorp/time %s come from the local mirror;
# everything else as usual.
provider_installation {
  filesystem_mirror {
    path    = %s
    include = [%s]
  }
  direct {
    exclude = [%s]
  }
}
`, Version, TimeVersion, strconv.Quote(absDir), q, q)
}
