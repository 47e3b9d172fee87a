// Package eventpattern is taskpipe's one matcher for Amazon EventBridge event
// patterns. The local cloud uses it for EventBridge TestEventPattern and for
// the filter criteria of EventBridge Pipes, so a filter behaves offline
// exactly as it does on AWS.
//
// AWS implements event patterns with the Event Ruler library (aws/event-ruler).
// This package follows Ruler's semantics, as pinned by the AWS-validated
// conformance cases in eventpatterntest/aws-validated-cases.json and
// summarised in docs/aws-behaviour.md §5:
//
//   - A pattern is a JSON object mirroring the event; every leaf is an array of
//     candidates (values or operator objects). Fields are ANDed, candidates
//     are ORed. Only leaf values match: a pattern field whose event value is an
//     object matches nothing, and exists:false holds for it.
//   - Paths are joined with "." on both sides, so {"a":{"b":[…]}} and
//     {"a.b":[…]} are the same pattern and match {"a":{"b":…}} and {"a.b":…}.
//   - Event arrays are crushed: each element is a candidate value, objects in
//     arrays contribute their fields. Matching is array-consistent: two pattern
//     fields are never satisfied by different elements of the same array
//     (Ruler's rulesForJSONEvent). Fields are visited in sorted path order, and
//     exists:false sees the array elements chosen by the fields before it, as
//     in Ruler's ACFinder.
//   - exists:false holds whenever the path has no leaf, including when a
//     parent is missing altogether (AWS-validated content_exists_false), so
//     {"OldImage":{"status":{"S":[{"exists":false}]}}} passes an INSERT
//     record, which has no OldImage. anything-but never matches a missing
//     field, but does match null and values of another type.
//   - Numbers compare numerically (300 equals 300.0) when both sides are exactly
//     representable as IEEE-754 doubles; the JSON text compares as well.
//   - A string pattern value that looks like an IP address matches the same
//     address written differently (Ruler's CIDR.ipToRangeIfPossible).
//   - Operators: prefix and suffix (optionally equals-ignore-case),
//     equals-ignore-case, anything-but (value, list, prefix, suffix,
//     equals-ignore-case, wildcard), numeric, exists, cidr, wildcard, and $or.
//   - A key that appears twice at the same path: the last occurrence wins.
//
// Invalid patterns fail [Compile] with an [*InvalidPatternError] whose message
// has AWS's "Event pattern is not valid. Reason: …" shape; services map it to
// InvalidEventPatternException. [ValidateForPipes] additionally rejects the
// operators that EventBridge Pipes does not support.
package eventpattern
