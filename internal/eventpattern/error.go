package eventpattern

import "errors"

// reasonPrefix is how EventBridge starts an InvalidEventPatternException
// message (AWS-recorded in LocalStack's events snapshots; docs/aws-behaviour.md §5).
const reasonPrefix = "Event pattern is not valid. Reason: "

// InvalidPatternError reports a pattern that EventBridge would reject with
// InvalidEventPatternException. Reason is Ruler's wording where Ruler has one.
type InvalidPatternError struct {
	Reason string
}

// Error returns the message in AWS's shape.
func (e *InvalidPatternError) Error() string { return reasonPrefix + e.Reason }

// invalid builds an *InvalidPatternError.
func invalid(reason string) error { return &InvalidPatternError{Reason: reason} }

// IsInvalidPattern reports whether err is (or wraps) an *InvalidPatternError.
func IsInvalidPattern(err error) bool {
	var ip *InvalidPatternError
	return errors.As(err, &ip)
}

// ErrEventTooComplex is returned by Match when array-consistent matching of
// one event would take more steps than the matcher allows. Real events never
// get near the bound; it exists so hostile input cannot stall a caller.
var ErrEventTooComplex = errors.New("eventpattern: event too complex to match")
