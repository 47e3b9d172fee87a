// Command taskpipe is taskpipe's command-line tool. Run "taskpipe help" for
// its subcommands; each lives in its own file here and keeps its logic in
// internal packages.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, restore the default handling so a second
		// Ctrl-C kills a shutdown that takes too long.
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
