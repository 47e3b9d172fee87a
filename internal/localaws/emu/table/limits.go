package table

import (
	"regexp"
	"strconv"
	"strings"
)

// Limits DynamoDB applies to a request before it runs, which the model
// does not carry, checked on the decoded request before minidyn sees it
// (minidyn's parser recurses once per parenthesis: 4,000,000 of them
// overflowed the stack and killed the process). Sources: "Service,
// account, and table quotas in Amazon DynamoDB",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
// (Expression parameters; Data types: Number; Items: item size), and the
// data types page,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html.
const (
	// maxExpressionBytes: "The maximum length of any expression string is
	// 4 KB", counted on the raw string (4,096 bytes pass, 4,097 fail).
	maxExpressionBytes = 4096
	// maxOperators: "The maximum number of operators or functions allowed
	// in an UpdateExpression is 300"; filters get the same answer
	// ("The expression contains too many operators; operator count: 301",
	// https://github.com/aws/aws-sdk-js/issues/3721).
	maxOperators = 300
	// maxInOperands: "The maximum number of operands for the IN comparator is 100".
	maxInOperands = 100
	// maxItemBytes: "The maximum item size in DynamoDB is 400 KB".
	maxItemBytes = 400 * 1024
	// Numbers: "up to 38 digits of precision"; positive range 1E-130 to
	// 9.9999999999999999999999999999999999999E+125.
	maxNumberDigits   = 38
	maxNumberExponent = 125
	minNumberExponent = -130
)

var expressionMembers = []string{"ConditionExpression", "FilterExpression", "KeyConditionExpression", "ProjectionExpression", "UpdateExpression"}

// checkLimits walks a decoded DynamoDB request: every expression and
// every number. (Item sizes are checked where the writes decode their
// items: checkItemSize.)
func checkLimits(in any) *APIError { return walkLimits(in, 0) }

// checkItemSize refuses an item over 400 KB, sized by itemSize (attr.go).
func checkItemSize(it item) error {
	if itemSize(it) > maxItemBytes {
		return validation("Item size has exceeded the maximum allowed size")
	}
	return nil
}

func walkLimits(v any, depth int) *APIError {
	if depth > 64 { // the model check already bounds nesting (DynamoDB: 32 levels)
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		if n, ok := x["N"].(string); ok && len(x) == 1 {
			return checkNumber(n)
		}
		if ns, ok := x["NS"].([]any); ok && len(x) == 1 {
			for _, e := range ns {
				if s, ok := e.(string); ok {
					if err := checkNumber(s); err != nil {
						return err
					}
				}
			}
			return nil
		}
		for _, name := range expressionMembers {
			if expr, ok := x[name].(string); ok {
				if err := checkExpression(name, expr); err != nil {
					return err
				}
			}
		}
		for _, e := range x {
			if err := walkLimits(e, depth+1); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := walkLimits(e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkExpression applies the expression parameter limits, with AWS's
// messages ("Invalid FilterExpression: Expression size has exceeded the
// maximum allowed size; expression size: 4109", recorded in
// https://github.com/pynamodb/PynamoDB/issues/979).
func checkExpression(member, expr string) *APIError {
	if len(expr) > maxExpressionBytes {
		return validation("Invalid %s: Expression size has exceeded the maximum allowed size; expression size: %d", member, len(expr))
	}
	ops, in := countOperators(expr, member == "UpdateExpression")
	if ops > maxOperators {
		return validation("Invalid %s: The expression contains too many operators; operator count: %d", member, ops)
	}
	if in > maxInOperands {
		// Wording not recorded from AWS; the operand count is what it reports.
		return validation("Invalid %s: The IN operator is provided with too many operands; number of operands: %d", member, in)
	}
	return nil
}

var keywordOperators = map[string]bool{"AND": true, "OR": true, "NOT": true, "BETWEEN": true, "IN": true}

// countOperators counts the operators and functions of an expression
// (comparators, AND, OR, NOT, BETWEEN, IN, function calls, and in an
// update + and -) and the largest IN operand list. Placeholders (#n, :v)
// and attribute names are operands.
func countOperators(expr string, update bool) (ops, maxIn int) {
	type inList struct{ depth, operands int }
	var lists []inList
	depth := 0
	pendingIn := false
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '#' || c == ':' || isWordByte(c):
			j := i + 1
			for j < len(expr) && isWordByte(expr[j]) {
				j++
			}
			word := expr[i:j]
			k := j
			for k < len(expr) && expr[k] == ' ' {
				k++
			}
			switch {
			case keywordOperators[strings.ToUpper(word)]:
				ops++
				pendingIn = strings.EqualFold(word, "IN")
			case c != '#' && c != ':' && k < len(expr) && expr[k] == '(' && !(c >= '0' && c <= '9'):
				ops++ // a function call
			}
			i = j
			continue
		case c == '(':
			depth++
			if pendingIn {
				lists = append(lists, inList{depth: depth, operands: 1})
				pendingIn = false
			}
		case c == ')':
			if n := len(lists); n > 0 && lists[n-1].depth == depth {
				maxIn = max(maxIn, lists[n-1].operands)
				lists = lists[:n-1]
			}
			depth--
		case c == ',':
			if n := len(lists); n > 0 && lists[n-1].depth == depth {
				lists[n-1].operands++
			}
		case c == '<' || c == '>':
			ops++
			if i+1 < len(expr) && (expr[i+1] == '=' || expr[i+1] == '>') {
				i++
			}
		case c == '=':
			if !update {
				ops++
			}
		case (c == '+' || c == '-') && update:
			ops++
		}
		i++
	}
	for _, l := range lists { // unclosed: minidyn reports the syntax error
		maxIn = max(maxIn, l.operands)
	}
	return ops, maxIn
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

var numberSyntax = regexp.MustCompile(`^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// checkNumber validates an N value as DynamoDB does: 38 significant
// digits, magnitude 1E-130 … 9.99…E+125, AWS's messages ("Attempting to
// store more than 38 significant digits in a Number", "Number overflow.
// Attempting to store a number with magnitude larger than supported
// range", recorded in https://github.com/ExtendDB/extenddb/issues/94 and
// https://github.com/warpstreamlabs/bento/pull/909).
func checkNumber(s string) *APIError {
	digits, exp, ok := parseNumber(s)
	switch {
	case !ok:
		// Wording as DynamoDB words it for non-numeric N values (not recorded here).
		return validation("The parameter cannot be converted to a numeric value: %s", s)
	case digits == "": // zero
		return nil
	case len(digits) > maxNumberDigits:
		return validation("Attempting to store more than 38 significant digits in a Number")
	case exp > maxNumberExponent:
		return validation("Number overflow. Attempting to store a number with magnitude larger than supported range")
	case exp < minNumberExponent:
		// The underflow wording mirrors the recorded overflow one.
		return validation("Number underflow. Attempting to store a number with magnitude smaller than supported range")
	}
	return nil
}

// parseNumber returns the significant digits of a decimal (leading and
// trailing zeros trimmed; "" for zero) and its exponent in scientific
// notation (d.ddd × 10^exp). Exponents beyond ±10^9 are clamped: they are
// out of range either way.
func parseNumber(s string) (digits string, exp int, ok bool) {
	if !numberSyntax.MatchString(s) {
		return "", 0, false
	}
	s = strings.TrimLeft(s, "+-")
	mant, expPart, _ := strings.Cut(strings.ToLower(s), "e")
	e := 0
	if expPart != "" {
		n, err := strconv.Atoi(expPart)
		if err != nil || n > 1e9 || n < -1e9 {
			n = 1e9
			if strings.HasPrefix(expPart, "-") {
				n = -1e9
			}
		}
		e = n
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	all = strings.TrimLeft(all, "0")
	digits = strings.TrimRight(all, "0")
	if digits == "" {
		return "", 0, true
	}
	// The first significant digit sits at position lead in intPart+frac;
	// its power of ten is len(intPart)-1-lead.
	return digits, e + len(intPart) - 1 - lead, true
}
