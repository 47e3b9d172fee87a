package task

import "fmt"

// State is the lifecycle state of a task. The wire values are the ones stored
// in the table's status attribute and matched by the Pipe filter, so they are
// part of the public contract and never change.
type State string

// The states, in alphabetical order. Each comment says who moves a task into
// the state and who moves it out.
const (
	// StateFailed is terminal. The scraper sets it for a fatal error, Claim
	// sets it when a claim would exceed MaxAttempts (KindExhausted), and the
	// reconciler sets it for a task stuck in Running with no attempts left
	// (KindStuck). Only an operator's retry (taskpipe retry) moves it back
	// to Pending.
	StateFailed State = "Failed"

	// StateFinished is terminal. Only the scraper's Finish, fenced by its
	// claim token, sets it. Nothing moves a task out of Finished except an
	// explicit operator retry.
	StateFinished State = "Finished"

	// StatePending means the task waits to be claimed. The submitter creates
	// tasks in this state and an operator's retry returns them to it; the
	// Pipe dispatches every task that becomes Pending. Only the scraper's
	// Claim moves a task out of Pending.
	StatePending State = "Pending"

	// StateRunning means a scraper holds (or held) a lease. Claim sets it.
	// The holder leaves it with Finish or Fail; Release keeps it but expires
	// the lease so that the next delivery can claim it again; the reconciler
	// fails it (KindStuck) when its lease expired long ago and no attempts
	// remain.
	StateRunning State = "Running"
)

// States returns every state in alphabetical order.
func States() []State {
	return []State{StateFailed, StateFinished, StatePending, StateRunning}
}

// Terminal reports whether no worker may move the task any further.
func (s State) Terminal() bool { return s == StateFailed || s == StateFinished }

// Valid reports whether s is one of the four states.
func (s State) Valid() bool {
	switch s {
	case StateFailed, StateFinished, StatePending, StateRunning:
		return true
	}
	return false
}

// ParseState converts a stored status into a State.
func ParseState(s string) (State, error) {
	st := State(s)
	if !st.Valid() {
		return "", fmt.Errorf("task: parse state %q: unknown state", s)
	}
	return st, nil
}

// transitions lists every legal state change. Retry (operator action) is
// the only way back from a terminal state.
var transitions = map[State][]State{
	StatePending:  {StateRunning, StateFailed},
	StateRunning:  {StateRunning, StateFinished, StateFailed},
	StateFinished: {StatePending},
	StateFailed:   {StatePending},
}

// CanTransition reports whether a task may move from one state to another.
// Running → Running is a takeover of an expired lease.
func CanTransition(from, to State) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}
