// Package pipestate reads the dispatch Pipe's state for the reconciler, so
// a pipe that stopped (stopped by hand, failed to start or update, or
// disabled by the service after nearly continuous errors) is noticed
// although it then emits no metric of its own.
package pipestate

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
)

// API is the part of the Pipes client the Reader uses.
type API interface {
	DescribePipe(ctx context.Context, in *pipes.DescribePipeInput, opts ...func(*pipes.Options)) (*pipes.DescribePipeOutput, error)
}

// State is what DescribePipe says of a pipe's state
// (https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_DescribePipe.html).
type State struct {
	// Current is CurrentState: RUNNING, STOPPED, CREATING, UPDATING,
	// DELETING, STARTING, STOPPING, CREATE_FAILED, UPDATE_FAILED,
	// START_FAILED, STOP_FAILED, DELETE_FAILED, CREATE_ROLLBACK_FAILED,
	// DELETE_ROLLBACK_FAILED or UPDATE_ROLLBACK_FAILED.
	Current string
	// Desired is DesiredState: RUNNING or STOPPED.
	Desired string
	// Reason is StateReason, why the pipe is in its state (may be empty).
	Reason string
}

// Running is the state a working pipe is in.
const Running = "RUNNING"

// Stalled reports whether the pipe should be delivering but is not: the
// deployment wants it RUNNING and its CurrentState is anything else. The
// deployment's wish (Terraform's desired_state), not the pipe's
// DesiredState, decides: StopPipe from the console sets DesiredState to
// STOPPED too, and that is one of the stops to catch.
func (s State) Stalled(want string) bool { return want == Running && s.Current != Running }

// Reader reads one pipe's state. It needs pipes:DescribePipe on the pipe's
// ARN.
type Reader struct {
	Client API
	Name   string
}

// State calls DescribePipe.
func (r *Reader) State(ctx context.Context) (State, error) {
	if r.Client == nil || r.Name == "" {
		return State{}, errors.New("pipestate: nil client or empty pipe name")
	}
	out, err := r.Client.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String(r.Name)})
	if err != nil {
		return State{}, fmt.Errorf("pipestate: describe pipe %s: %w", r.Name, err)
	}
	return State{Current: string(out.CurrentState), Desired: string(out.DesiredState), Reason: aws.ToString(out.StateReason)}, nil
}
