package awsmodel

import "testing"

// GeneratedCase is one generated negative case, for the external tests
// that send them through the local cloud (served_test.go).
type GeneratedCase struct {
	Kind, Where string
	Input       map[string]any
	// Top is the input member the violation is under (its location tells
	// where it travels on the wire).
	Top *Member
	// Shape is the shape the offending value should satisfy; Value the value.
	Shape *Shape
	Value any
}

// GeneratedNegatives returns the negative cases TestGeneratedNegatives
// checks, minus those AWS does not enforce either (Leniencies).
func GeneratedNegatives(t *testing.T, op *Operation) []GeneratedCase {
	t.Helper()
	var out []GeneratedCase
	for _, c := range negativeCases(t, op) {
		if lenientAt(c.steps, c.kind) {
			continue
		}
		out = append(out, GeneratedCase{Kind: c.kind, Where: c.where, Input: c.input, Top: c.steps[0].mem, Shape: c.sh, Value: c.value})
	}
	return out
}

// InputKinds lists the constraint kinds present in an operation's input.
func InputKinds(op *Operation) map[string]bool { return inputKinds(op) }
