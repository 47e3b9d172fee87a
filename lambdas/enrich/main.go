// Command enrich is the Pipe's enrichment Lambda (handler.Enrich): wiring
// only.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
)

func main() {
	cfg, err := handler.EnrichConfigFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "enrich:", err)
		os.Exit(1)
	}
	h := &handler.Enrich{
		Metrics: emf.New(os.Stdout, time.Now).ForDeployment(cfg.Deployment),
		Logger:  emf.NewLogger(os.Stderr, cfg.LogLevel),
	}
	lambda.StartHandlerFunc(h.Handle)
}
