package awsmodel

import (
	"regexp"
	"strings"
)

// manualPatterns are hand-written equivalents of the model patterns RE2
// cannot express (they use lookarounds), keyed by their exact model text.
// Each follows java.util.regex semantics under a whole-value match;
// "line terminator" is Java's set (\n \r \u0085 \u2028 \u2029), which '.'
// does not match.
var manualPatterns = map[string]func(string) bool{
	// lambda CollectionName (DocumentDB event source): not "system." first,
	// then one [_a-zA-Z0-9] and no '$' anywhere after it.
	`(^(?!(system\x2e)))(^[_a-zA-Z0-9])([^$]*)`: func(s string) bool {
		return !strings.HasPrefix(s, "system.") && collectionNameRE.MatchString(s)
	},
	// lambda S3Bucket: bucket characters, not ending in '.'.
	`[0-9A-Za-z\.\-_]*(?<!\.)`: func(s string) bool {
		return s3BucketRE.MatchString(s) && !strings.HasSuffix(s, ".")
	},
	// pipes EventBridgeEventSource: ".*(?=[…]+)((?!aws\.).*)" matches when
	// some position holds a source character and the rest from there does
	// not start with "aws."; the other alternative is any value starting
	// with '$'. Both exclude line terminators.
	`.*(?=[/\.\-_A-Za-z0-9]+)((?!aws\.).*)|(\$(\.[\w/_-]+(\[(\d+|\*)\])*)*).*`: func(s string) bool {
		if hasLineTerminator(s) {
			return false
		}
		if strings.HasPrefix(s, "$") {
			return true
		}
		for i := 0; i < len(s); i++ {
			if isSourceChar(s[i]) && !strings.HasPrefix(s[i:], "aws.") {
				return true
			}
		}
		return false
	},
	// pipes PathParameter: a value that is not only whitespace, or a JSON path.
	`(?!\s*$).+|(\$(\.[\w/_-]+(\[(\d+|\*)\])*)*)`: func(s string) bool {
		if s != "" && !hasLineTerminator(s) && strings.Trim(s, " \t\n\x0B\f\r") != "" {
			return true
		}
		return pipesJSONPathRE.MatchString(s)
	},
	// scheduler Source: starts with a source character and not with "aws.",
	// or is a JSON path.
	`^(?=[/\.\-_A-Za-z0-9]+)((?!aws\.).*)|(\$(\.[\w_-]+(\[(\d+|\*)\])*)*)$`: func(s string) bool {
		if s != "" && isSourceChar(s[0]) && !strings.HasPrefix(s, "aws.") && !hasLineTerminator(s) {
			return true
		}
		return schedulerJSONPathRE.MatchString(s)
	},
}

var (
	collectionNameRE    = regexp.MustCompile(`^[_a-zA-Z0-9][^$]*$`)
	s3BucketRE          = regexp.MustCompile(`^[0-9A-Za-z.\-_]*$`)
	pipesJSONPathRE     = regexp.MustCompile(`^\$(\.[\w/_-]+(\[(\d+|\*)\])*)*$`)
	schedulerJSONPathRE = regexp.MustCompile(`^\$(\.[\w_-]+(\[(\d+|\*)\])*)*$`)
)

func isSourceChar(c byte) bool {
	return c == '/' || c == '.' || c == '-' || c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

func hasLineTerminator(s string) bool {
	return strings.ContainsAny(s, "\n\r\u0085\u2028\u2029")
}
