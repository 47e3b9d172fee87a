package eventpattern

import "fmt"

// UnsupportedForPipesError reports an operator that EventBridge Pipes does
// not accept in a filter, although an event bus does.
type UnsupportedForPipesError struct {
	// Operator is "wildcard", "exactly", or "anything-but/<form>" with form
	// one of prefix, suffix, equals-ignore-case, wildcard.
	Operator string
}

// Error describes the unsupported operator.
func (e *UnsupportedForPipesError) Error() string {
	return fmt.Sprintf("%sthe %s operator is not supported by EventBridge Pipes filters", reasonPrefix, e.Operator)
}

// ValidateForPipes returns an *UnsupportedForPipesError when the pattern uses
// an operator that EventBridge Pipes rejects. The Pipe runtime calls it at
// CreatePipe/UpdatePipe, after Compile.
//
// The list follows the "Pipe support" column of the EventBridge operator table
// (docs: eb-create-pattern-operators.html; docs/aws-behaviour.md §5.4,
// docs/aws-behaviour.md §1.3): anything-but combined with prefix, suffix,
// equals-ignore-case or wildcard, and wildcard itself, are "No". Ruler's
// undocumented "exactly" is not in the table and is rejected too. Everything
// else is accepted, including $or and suffix/equals-ignore-case (listed "Yes"
// today, "No" in the 2023 docs) and cidr (absent from the table; UNCONFIRMED).
func ValidateForPipes(p *Pattern) error {
	if len(p.pipesUnsupported) > 0 {
		return &UnsupportedForPipesError{Operator: p.pipesUnsupported[0]}
	}
	return nil
}
