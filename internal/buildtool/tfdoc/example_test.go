package tfdoc_test

import (
	"fmt"

	"github.com/taskpipe/taskpipe/internal/buildtool/tfdoc"
)

func ExampleInject() {
	readme := "# my-module\n\n" + tfdoc.BeginMarker + "\n" + tfdoc.EndMarker + "\n"
	out, err := tfdoc.Inject(readme, "| Name | Description |\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(out)
	// Output:
	// # my-module
	//
	// <!-- BEGIN_TF_DOCS -->
	// | Name | Description |
	// <!-- END_TF_DOCS -->
}
