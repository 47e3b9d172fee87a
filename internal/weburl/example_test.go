package weburl_test

import (
	"fmt"

	"github.com/taskpipe/taskpipe/internal/weburl"
)

func ExampleNormalize() {
	for _, in := range []string{
		"Example.com/About#team",
		"https://münchen.de:443",
		"ftp://example.com/file",
		"https://user:secret@example.com/",
	} {
		u, err := weburl.Normalize(in)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(u, weburl.Domain(u))
	}
	// Output:
	// https://example.com/About example.com
	// https://xn--mnchen-3ya.de/ xn--mnchen-3ya.de
	// error: weburl: normalize "ftp://example.com/file": invalid website url: scheme "ftp" is not http or https
	// error: weburl: normalize "https://user:secret@example.com/": invalid website url: credentials in the url are not allowed
}
