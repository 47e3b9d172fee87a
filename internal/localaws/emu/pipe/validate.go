package pipe

// The model constraints of the Pipes API (lengths, patterns, ranges,
// enums) are checked before an operation runs, against AWS's model
// (modelcheck.go); the checks here are the ones the service makes itself.

// Limits the service applies beyond the model's per-request ones.
const (
	maxTags      = 50  // tags per pipe (TagMap max), also after TagResource merges
	maxListLimit = 100 // ListPipes' default page size (LimitMax100)
)

// Enumerations.
const (
	stateRunning  = "RUNNING"
	stateStopped  = "STOPPED"
	stateCreating = "CREATING"
	// stateCreateFailed: the pipe's role cannot read its source.
	stateCreateFailed = "CREATE_FAILED"
	stateUpdating     = "UPDATING"
	stateStarting     = "STARTING"
	stateStopping     = "STOPPING"
	stateDeleting     = "DELETING"
	stateDeleted      = "DELETED"

	posTrimHorizon = "TRIM_HORIZON"
	bisectValue    = "AUTOMATIC_BISECT"
)
