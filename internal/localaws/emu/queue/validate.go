package queue

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits SQS documents (botocore sqs service-2.json, 2026; docs/aws-behaviour.md §3.5, §3.6).
const (
	maxMessagesPerReceive = 10
	maxWaitSeconds        = 20
	maxVisibilitySeconds  = 43200 // 12 hours, also the total limit per receive
	maxDelaySeconds       = 900
	maxBatchEntries       = 10
	maxBatchBytes         = 1 << 20 // 1 MiB: the service-wide message and batch payload limit
	maxMessageAttributes  = 10
	maxAttributeNameLen   = 256
	maxMoveRate           = 500
	maxTagsPerQueue       = 50
	maxBatchIDLen         = 80
)

var (
	queueNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)
	batchIDRE   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)
	numberRE    = regexp.MustCompile(`^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$`)
)

// validQueueName checks the documented queue-name rule. FIFO queues are not
// emulated, so a ".fifo" name gets an error that says so.
func validQueueName(name string) error {
	if strings.HasSuffix(name, ".fifo") {
		return errorf(ErrInvalidParameterValue,
			"Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length. (FIFO queues such as %q are not supported by the taskpipe local cloud.)", name)
	}
	if !queueNameRE.MatchString(name) {
		return errorf(ErrInvalidParameterValue,
			"Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length")
	}
	return nil
}

// validBatchID checks a batch entry Id (AWS-recorded message, docs/aws-behaviour.md §3.3).
func validBatchID(id string) error {
	if !batchIDRE.MatchString(id) {
		return errorf(ErrInvalidBatchEntryID,
			"A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most %d letters long.", maxBatchIDLen)
	}
	return nil
}

// allowedRune is the character set SQS accepts in bodies and string
// attribute values: #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD |
// #x10000 to #x10FFFF (SendMessage API reference).
func allowedRune(r rune) bool {
	switch {
	case r == 0x9 || r == 0xA || r == 0xD:
		return true
	case r >= 0x20 && r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// firstInvalidRune returns the first character outside the allowed set, or
// -1. Invalid UTF-8 counts as invalid.
func firstInvalidRune(s string) rune {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return r
			}
		}
		if !allowedRune(r) {
			return r
		}
	}
	return -1
}

func validBody(body string) error {
	if body == "" {
		return errMissing("MessageBody")
	}
	if r := firstInvalidRune(body); r >= 0 {
		return errorf(ErrInvalidMessageContents,
			"Invalid binary character '#x%X' was found in the message body, the set of allowed characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF", r)
	}
	return nil
}

// validAttributeName applies the documented name rules; the exact checks
// follow the AWS-validated LocalStack test
// test_send_message_with_invalid_string_attributes ("attr.1øßä" is accepted,
// "!", "§", "(", "?", a leading ".", "AWS." and "Amazon." prefixes in any
// case, and names over 256 characters are rejected).
func validAttributeName(name, kindOf string) error {
	bad := func(reason string) error {
		return errorf(ErrInvalidParameterValue, "Message (%s) attribute name '%s' is invalid. %s", kindOf, name, reason)
	}
	if name == "" {
		return errorf(ErrInvalidParameterValue, "Message (%s) attribute name must not be empty.", kindOf)
	}
	if utf8.RuneCountInString(name) > maxAttributeNameLen {
		return bad("Attribute names can be at most 256 characters long.")
	}
	lower := strings.ToLower(name)
	if strings.HasPrefix(lower, "aws.") || strings.HasPrefix(lower, "amazon.") {
		return bad("Attribute names must not start with AWS. or Amazon.")
	}
	if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
		return bad("Attribute names must not start or end with a period or contain two successive periods.")
	}
	for _, r := range name {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.') {
			return bad("Attribute names can contain letters, digits, hyphens, underscores and periods.")
		}
	}
	return nil
}

// validAttribute checks one user message attribute. Messages for empty
// values are AWS-recorded (docs/aws-behaviour.md §3.6); the others follow the same pattern.
func validAttribute(name string, a MessageAttribute) error {
	if err := validAttributeName(name, "user"); err != nil {
		return err
	}
	base, custom, hasCustom := strings.Cut(a.DataType, ".")
	switch {
	case a.DataType == "":
		return errorf(ErrInvalidParameterValue, "The message attribute '%s' must contain non-empty message attribute type.", name)
	case base != "String" && base != "Number" && base != "Binary":
		return errorf(ErrInvalidParameterValue, "The type of message (user) attribute '%s' is invalid. You must use only the following supported type prefixes: Binary, Number, String.", name)
	case len(a.DataType) > maxAttributeNameLen || (hasCustom && custom == ""):
		return errorf(ErrInvalidParameterValue, "Message (user) attribute '%s' has an invalid data type '%s'.", name, a.DataType)
	}
	switch base {
	case "Binary":
		if len(a.BinaryValue) == 0 {
			return errorf(ErrInvalidParameterValue, "Message (user) attribute '%s' must contain a non-empty value of type 'Binary'.", name)
		}
	default:
		if a.StringValue == "" {
			return errorf(ErrInvalidParameterValue, "Message (user) attribute '%s' must contain a non-empty value of type '%s'.", name, base)
		}
		if r := firstInvalidRune(a.StringValue); r >= 0 {
			return errorf(ErrInvalidParameterValue, "Message (user) attribute '%s' contains invalid character '#x%X'.", name, r)
		}
		if base == "Number" && !numberRE.MatchString(a.StringValue) {
			return errorf(ErrInvalidParameterValue, "Can't cast the value of message (user) attribute '%s' to a number.", name)
		}
	}
	return nil
}

func validAttributes(attrs map[string]MessageAttribute) error {
	if len(attrs) > maxMessageAttributes {
		return errorf(ErrInvalidParameterValue, "Number of message attributes [%d] exceeds the allowed maximum [%d].", len(attrs), maxMessageAttributes)
	}
	for name, a := range attrs {
		if err := validAttribute(name, a); err != nil {
			return err
		}
	}
	return nil
}

// validTraceHeader checks the only system attribute a sender may set.
func validTraceHeader(v string) error {
	if v == "" {
		return errorf(ErrInvalidParameterValue, "Message (system) attribute 'AWSTraceHeader' must contain a non-empty value of type 'String'.")
	}
	if r := firstInvalidRune(v); r >= 0 {
		return errorf(ErrInvalidParameterValue, "Message (system) attribute 'AWSTraceHeader' contains invalid character '#x%X'.", r)
	}
	return nil
}
