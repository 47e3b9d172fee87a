package tfprovider_test

import (
	"fmt"

	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider"
)

// The CLI configuration `make provider` writes next to the mirror: Terraform
// takes hashicorp/aws and hashicorp/time from the mirror and everything else
// from the registry.
func ExampleCLIConfig() {
	fmt.Print(tfprovider.CLIConfig("/repo/.tfmirror"))
	fmt.Println(tfprovider.MirrorBinaryPath("/repo/.tfmirror", "linux", "arm64"))
	// Output:
	// # Written by the taskpipe local provider build: hashicorp/aws (the taskpipe
	// # stand-in, schema 6.47.0) and hashicorp/time 0.14.2 come from the local mirror;
	// # everything else as usual.
	// provider_installation {
	//   filesystem_mirror {
	//     path    = "/repo/.tfmirror"
	//     include = ["registry.terraform.io/hashicorp/aws", "registry.terraform.io/hashicorp/time"]
	//   }
	//   direct {
	//     exclude = ["registry.terraform.io/hashicorp/aws", "registry.terraform.io/hashicorp/time"]
	//   }
	// }
	// /repo/.tfmirror/registry.terraform.io/hashicorp/aws/6.47.0/linux_arm64/terraform-provider-aws_v6.47.0
}
