// Command terraform-provider-aws is the taskpipe local stand-in for the
// hashicorp/aws provider. Terraform starts it as a plugin; it serves the real
// 6.47.0 schemas (embedded; $TASKPIPE_AWS_SCHEMA names another document),
// plans changes the way the real provider
// does, and applies them through the AWS APIs at the endpoints its
// configuration names (the local cloud). Build and install it with
// `make provider`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5/tf5server"

	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider"
)

func main() {
	debug := flag.Bool("debug", false, "run in debug mode: print TF_REATTACH_PROVIDERS for a debugger-attached provider")
	flag.Parse()
	if err := run(*debug); err != nil {
		fmt.Fprintln(os.Stderr, "terraform-provider-aws:", err)
		os.Exit(1)
	}
}

func run(debug bool) error {
	srv, err := newServer()
	if err != nil {
		// Serve anyway: Terraform shows a plugin's diagnostics, not its
		// stderr, so the reason reaches the user this way.
		fmt.Fprintln(os.Stderr, "terraform-provider-aws:", err)
		srv = tfprovider.Unavailable(err)
	}
	var opts []tf5server.ServeOpt
	if debug {
		opts = append(opts, tf5server.WithManagedDebug())
	}
	if err := tf5server.Serve(tfprovider.Address, func() tfprotov5.ProviderServer { return srv }, opts...); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

func newServer() (*tfprovider.Server, error) {
	cat, err := tfprovider.LoadSchema()
	if err != nil {
		return nil, err
	}
	return tfprovider.NewServer(cat, tfprovider.WithAWSHandlers())
}
