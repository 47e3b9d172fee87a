package function

// Function states (https://docs.aws.amazon.com/lambda/latest/dg/functions-states.html):
// a new function is Pending, then Active; an update leaves LastUpdateStatus
// InProgress, then Successful. While a function is Pending it cannot be
// invoked, and while it is Pending or updating it cannot be updated again:
// both answer ResourceConflictException. Clients wait with the SDK's
// FunctionActiveV2 and FunctionUpdatedV2 waiters, as the Terraform provider
// does (waitFunctionCreated, waitFunctionUpdated); Options.TransitionDelay
// makes the local cloud catch a client that does not. The transition is
// measured on Options.Now, so a test clock drives it.

// beginTransitionLocked starts a create (creating) or update transition.
func (s *Service) beginTransitionLocked(fn *function, creating bool) {
	if s.opts.TransitionDelay <= 0 {
		return
	}
	fn.settles = s.opts.Now().Add(s.opts.TransitionDelay)
	fn.creating = creating
}

// inTransitionLocked reports whether fn is still Pending or updating.
func (s *Service) inTransitionLocked(fn *function) bool {
	return !fn.settles.IsZero() && s.opts.Now().Before(fn.settles)
}

// viewLocked is the configuration as GetFunction and the update calls
// answer it: the stored one, with the transition's state while it lasts.
func (s *Service) viewLocked(fn *function) Configuration {
	cfg := fn.configLocked()
	if !s.inTransitionLocked(fn) {
		return cfg
	}
	cfg.LastUpdateStatus = "InProgress"
	if fn.creating {
		// The documentation's example of a function being created.
		cfg.State, cfg.StateReason, cfg.StateReasonCode = "Pending", "The function is being created.", "Creating"
		cfg.LastUpdateStatusReason, cfg.LastUpdateStatusReasonCode = "The function is being created.", "Creating"
	}
	return cfg
}

// errNotActiveLocked refuses to invoke a Pending function.
func (s *Service) errNotActiveLocked(fn *function) *Error {
	if s.inTransitionLocked(fn) && fn.creating {
		return errorf(ErrConflict, "The operation cannot be performed at this time. The function is currently in the following state: Pending")
	}
	return nil
}

// errBusyLocked refuses to update a function that is Pending or updating.
func (s *Service) errBusyLocked(fn *function) *Error {
	if s.inTransitionLocked(fn) {
		return errorf(ErrConflict, "The operation cannot be performed at this time. An update is in progress for resource: %s", fn.arn)
	}
	return nil
}
