package demo

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

// Hooks are called at fixed points of Run. Each is optional; an error
// from one fails the run (and is reported with the rest).
type Hooks struct {
	// BeforeSubmit runs after terraform apply and the reset of the request
	// counters, right before the input is submitted: the place to switch
	// faults on or put extra messages on the queues.
	BeforeSubmit func(ctx context.Context, s *Stage) error
	// AfterRun runs once every task is terminal (or the run timed out),
	// the pipeline went quiet and the report was collected and reconciled,
	// before terraform destroy: the place to read what the run left behind
	// and to adjust rep.Checks, which Run prints and judges afterwards.
	AfterRun func(ctx context.Context, s *Stage, rep *Report) error
}

// Stage is the running stack, as the hooks see it.
type Stage struct {
	// Cloud is the local cloud: its admin API (Cloud.URL), fault injector,
	// services and counters.
	Cloud *localcloud.Cloud
	// AWS is an SDK configuration for the local cloud.
	AWS aws.Config
	// Outputs are the applied example's outputs (table, queues, functions).
	Outputs Outputs
	// Store reads and writes the task table as the functions do.
	Store *dynamostore.Store
	// Web is the fixture web the tasks point at.
	Web *fixtureweb.Web
	// RunID is the run's id (BeforeSubmit sees the id the submit will use).
	RunID string

	stack *stack
}

func (r *runner) stage() *Stage {
	return &Stage{Cloud: r.cloud, AWS: r.aws, Outputs: r.outputs, Store: r.store, Web: r.web, RunID: r.report.RunID,
		stack: r.stack}
}

// Reapply runs terraform apply on the running stack with extra variables
// (name=value, replacing the run's value of that name), e.g. a changed
// pipe filter in the middle of a run. It must not overlap another
// terraform command of the run: call it from a hook, or from a goroutine
// a hook started and AfterRun waits for. The outputs are not read again.
func (s *Stage) Reapply(ctx context.Context, vars ...string) error {
	if s.stack == nil {
		return errors.New("demo: reapply: no stack")
	}
	tctx, cancel := context.WithTimeout(ctx, terraformTimeout)
	defer cancel()
	return s.stack.reapply(tctx, vars)
}
