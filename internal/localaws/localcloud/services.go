package localcloud

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/alarm"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/loggroup"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/mapping"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/pipe"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/schedule"
)

// runtimeServices builds the services that run code or react to time: Lambda
// (with CloudWatch Logs), SQS event source mappings, EventBridge Scheduler,
// Pipes, CloudWatch metrics and alarms, and the fault injector. They depend
// on each other in a cycle (Lambda serves the mapping API, the mapping
// invokes Lambda), so the adapters below are filled in after construction.
func (c *Cloud) runtimeServices(cfg Config) {
	c.logs = loggroup.New(loggroup.Options{AccountID: cfg.AccountID, Region: cfg.Region, Now: cfg.Now})
	c.alarms = alarm.New(alarm.Options{AccountID: cfg.AccountID, Region: cfg.Region, Now: cfg.Now,
		Queues: c.queue, Console: cfg.Console, Logger: cfg.Logger, Dashboards: cfg.Account.dashboards})
	inj, err := fault.New(fault.Config{}, cfg.FaultSeed, fault.WithServices(c.router.Handler),
		fault.WithLogger(cfg.Logger), fault.WithClock(cfg.Now), fault.WithIdentity(cfg.AccountID, cfg.Region))
	if err != nil {
		// The configuration is the fixed empty one; only a bug gets here.
		panic(fmt.Sprintf("localcloud: fault injector: %v", err))
	}
	c.faults = inj

	lam := &lambdaAdapter{iam: c.iam}
	c.mappings = mapping.New(mapping.Options{AccountID: cfg.AccountID, Region: cfg.Region, Now: cfg.Now,
		Queues: c.queue, Invoker: lam, Faults: inj, Metrics: c.alarms, Logger: cfg.Logger})
	c.functions = function.New(function.Options{AccountID: cfg.AccountID, Region: cfg.Region, Now: cfg.Now,
		Upstream: c.router, EventSourceMappings: c.mappings, Console: cfg.Console, Logs: c.logs,
		Metrics: c.alarms, MaxInstancesPerFunction: cfg.MaxInstancesPerFunction, TransitionDelay: cfg.LambdaTransition,
		AccountConcurrency: cfg.AccountConcurrency, Authorizer: c.iam,
		Logger: cfg.Logger})
	lam.fn = c.functions
	c.schedules = schedule.New(schedule.Options{AccountID: cfg.AccountID, Region: cfg.Region, Now: cfg.Now,
		Invoker: lam, Queues: c.queue, Logger: cfg.Logger})
	c.pipes = pipe.New(pipe.Options{AccountID: cfg.AccountID, Region: cfg.Region, Now: cfg.Now,
		Tables: c.tables, Queues: c.queue, Invoker: pipeInvoker{lam}, Metrics: c.alarms, Faults: inj,
		RetryBackoff: cfg.PipeRetryBackoff, Authorizer: c.iam, Logs: c.logs, Logger: cfg.Logger})

	c.router.Handle(emu.ServiceLambda, c.functions)
	c.router.Handle(emu.ServiceLogs, c.logs)
	c.router.Handle(emu.ServiceScheduler, c.schedules)
	c.router.Handle(emu.ServicePipes, c.pipes)
	c.router.Handle(emu.ServiceMonitoring, c.alarms)
	c.router.Use(inj.Middleware())

	c.HandleAdmin("GET "+emu.AdminPrefix+"alarms", c.alarms.AdminHandler())
	c.HandleAdmin("POST "+emu.AdminPrefix+"alarms/evaluate", c.alarms.AdminHandler())
	c.HandleAdmin(emu.AdminPrefix+"faults", inj.AdminHandler())
	c.HandleAdmin(emu.AdminPrefix+"faults/", inj.AdminHandler())
	c.HandleAdmin(emu.AdminPrefix+"schedules/", c.schedules.AdminHandler())
	c.alarms.Start()
}

// closeRuntime stops the runtime services, consumers before producers:
// pollers and timers first, so no new invocation starts, then the functions'
// processes, then the metrics.
func (c *Cloud) closeRuntime() error {
	return errors.Join(c.mappings.Close(), c.schedules.Close(), c.pipes.Close(),
		c.functions.Close(), c.alarms.Close())
}

// lambdaAdapter lets the mapping poller, the scheduler and the Pipe runtime
// invoke functions in process.
type lambdaAdapter struct {
	fn  *function.Service
	iam *authorizer
}

// CannotConsume implements mapping.QueueAccess: the mapping polls as the
// function's execution role.
func (a *lambdaAdapter) CannotConsume(functionARN, queueARN string) string {
	cfg, err := a.fn.Configuration(functionARN)
	if err != nil {
		return ""
	}
	sess := emu.RoleSession{Service: "lambda.amazonaws.com", Role: cfg.Role, Session: cfg.FunctionName}
	for _, action := range []string{"ReceiveMessage", "DeleteMessage", "GetQueueAttributes"} {
		if a.iam.Authorize(context.Background(), sess, "sqs:"+action, queueARN) != nil {
			return action
		}
	}
	return ""
}

// FunctionARN implements mapping.Invoker.
func (a *lambdaAdapter) FunctionARN(name string) (string, bool) {
	cfg, err := a.fn.Configuration(name)
	return cfg.FunctionArn, err == nil
}

// FunctionTimeout lets the mapping keep messages invisible as long as a
// batch may run.
func (a *lambdaAdapter) FunctionTimeout(arn string) (time.Duration, bool) {
	cfg, err := a.fn.Configuration(arn)
	return time.Duration(cfg.Timeout) * time.Second, err == nil
}

// Invoke implements mapping.Invoker (a synchronous invoke).
func (a *lambdaAdapter) Invoke(ctx context.Context, arn string, payload []byte) (mapping.InvokeResult, error) {
	r, err := a.fn.Invoke(ctx, arn, payload, function.InvokeOptions{Type: function.Sync})
	if errors.Is(err, function.ErrThrottled) {
		return mapping.InvokeResult{}, fmt.Errorf("%w: %w", mapping.ErrThrottled, err)
	}
	if err != nil {
		return mapping.InvokeResult{}, err
	}
	return mapping.InvokeResult{Payload: r.Payload, FunctionError: r.FunctionError}, nil
}

// InvokeAsync implements schedule.Invoker: Scheduler invokes Lambda targets
// asynchronously.
func (a *lambdaAdapter) InvokeAsync(ctx context.Context, arn string, payload []byte) error {
	if sess, ok := emu.RoleSessionFrom(ctx); ok {
		if err := a.iam.Authorize(ctx, sess, "lambda:InvokeFunction", arn); err != nil {
			return err
		}
	}
	_, err := a.fn.Invoke(ctx, arn, payload, function.InvokeOptions{Type: function.Async})
	return err
}

// pipeInvoker adapts the function service to pipe.Invoker (enrichment).
type pipeInvoker struct{ a *lambdaAdapter }

// Invoke implements pipe.Invoker.
func (p pipeInvoker) Invoke(ctx context.Context, name string, payload []byte) (pipe.Invocation, error) {
	r, err := p.a.fn.Invoke(ctx, name, payload, function.InvokeOptions{Type: function.Sync})
	if errors.Is(err, function.ErrThrottled) {
		return pipe.Invocation{}, fmt.Errorf("%w: %w", pipe.ErrThrottled, err)
	}
	if err != nil {
		return pipe.Invocation{}, err
	}
	return pipe.Invocation{Payload: r.Payload, FunctionError: r.FunctionError, ErrorType: r.ErrorType}, nil
}
