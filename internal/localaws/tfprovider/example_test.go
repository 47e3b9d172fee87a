package tfprovider_test

import (
	"fmt"

	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider"
)

// The CLI configuration `make provider` writes next to the mirror: Terraform
// takes hashicorp/aws from the mirror and everything else from the registry.
func ExampleCLIConfig() {
	fmt.Print(tfprovider.CLIConfig("/repo/.tfmirror"))
	fmt.Println(tfprovider.MirrorBinaryPath("/repo/.tfmirror", "linux", "arm64"))
	// Output:
	// # Written by the taskpipe local provider build: hashicorp/aws comes from the
	// # local mirror (the taskpipe stand-in, schema 6.47.0); everything else as usual.
	// provider_installation {
	//   filesystem_mirror {
	//     path    = "/repo/.tfmirror"
	//     include = ["registry.terraform.io/hashicorp/aws"]
	//   }
	//   direct {
	//     exclude = ["registry.terraform.io/hashicorp/aws"]
	//   }
	// }
	// /repo/.tfmirror/registry.terraform.io/hashicorp/aws/6.47.0/linux_arm64/terraform-provider-aws_v6.47.0
}
