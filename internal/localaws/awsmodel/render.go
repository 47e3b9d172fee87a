package awsmodel

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Values in Coral validation messages are Java toString() renderings of
// the deserialized request objects: strings as they are ('ab'), numbers
// and booleans as Java prints them ('30', 'true'), lists as
// '[a, b]' (an AWS-recorded KeySchema message renders its structures as
// KeySchemaElement(attributeName=pk, keyType=HASH)), maps as '{k=v}',
// blobs as the ByteBuffer they are (java.nio.HeapByteBuffer[pos=0 lim=3
// cap=3]). Sensitive values are left out ("Value at 'username' …", as
// Cognito answers for its sensitive UsernameType).

const (
	renderMaxDepth = 12
	renderMaxItems = 256
)

func renderJava(val any, sh *Shape) string {
	var b strings.Builder
	renderInto(&b, val, sh, 0)
	return b.String()
}

func renderInto(b *strings.Builder, val any, sh *Shape, depth int) {
	if val == nil {
		b.WriteString("null")
		return
	}
	if depth > renderMaxDepth {
		b.WriteString("...")
		return
	}
	switch x := val.(type) {
	case string:
		b.WriteString(x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case []byte:
		n := strconv.Itoa(len(x))
		b.WriteString("java.nio.HeapByteBuffer[pos=0 lim=" + n + " cap=" + n + "]")
	case time.Time:
		b.WriteString(x.UTC().Format("Mon Jan 02 15:04:05 UTC 2006"))
	case json.Number, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		b.WriteString(renderNumber(x, sh))
	case []any, []string, []map[string]any:
		var elem *Shape
		if sh != nil && sh.Member != nil {
			elem = sh.Member.Shape
		}
		b.WriteByte('[')
		i := 0
		eachListItem(val, func(_ int, it any) bool {
			if i > 0 {
				b.WriteString(", ")
			}
			if i >= renderMaxItems {
				b.WriteString("...")
				return false
			}
			renderInto(b, it, elem, depth+1)
			i++
			return true
		})
		b.WriteByte(']')
	case map[string]any:
		if sh != nil && (sh.Type == "structure" || sh.Type == "union") {
			renderStruct(b, x, sh, depth)
			return
		}
		var vs *Shape
		if sh != nil && sh.Value != nil {
			vs = sh.Value.Shape
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			if i >= renderMaxItems {
				b.WriteString("...")
				break
			}
			b.WriteString(k)
			b.WriteByte('=')
			renderInto(b, x[k], vs, depth+1)
		}
		b.WriteByte('}')
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[k] = v
		}
		renderInto(b, m, sh, depth)
	default:
		b.WriteString(jsonKind(val))
	}
}

func renderStruct(b *strings.Builder, obj map[string]any, sh *Shape, depth int) {
	b.WriteString(sh.Name)
	b.WriteByte('(')
	for i, m := range sh.Members {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.pathName)
		b.WriteByte('=')
		x, ok := obj[m.Name]
		if !ok && m.LocationName != "" {
			x = obj[m.LocationName]
		}
		if x != nil && m.Shape.Sensitive {
			b.WriteString("*** Sensitive Data Redacted ***")
			continue
		}
		renderInto(b, x, m.Shape, depth+1)
	}
	b.WriteByte(')')
}

// renderNumber prints integers as Java does and doubles as
// Double.toString does ("1.0", "0.5", "1.0E10").
func renderNumber(val any, sh *Shape) string {
	isFloat := sh != nil && (sh.Type == "double" || sh.Type == "float" || sh.Type == "bigDecimal")
	if n, ok := val.(json.Number); ok && !isFloat {
		return string(n)
	}
	f, ok := number(val, &Shape{Type: "double"})
	if !ok {
		if n, ok := val.(json.Number); ok {
			return string(n)
		}
		return jsonKind(val)
	}
	if !isFloat {
		if f == math.Trunc(f) && math.Abs(f) < 1e18 {
			return strconv.FormatInt(int64(f), 10)
		}
	}
	return javaDouble(f)
}

func javaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, 64) // 1E+10, 1.5E-05
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// constraintTexts are the Coral phrases of each violated constraint.
func coralConstraint(v *Violation) string {
	sh := v.Shape
	switch v.Kind {
	case KindRequired:
		return "Member must not be null"
	case KindMinLength:
		return "Member must have length greater than or equal to " + v.Bound.Text
	case KindMaxLength:
		return "Member must have length less than or equal to " + v.Bound.Text
	case KindMinValue:
		return "Member must have value greater than or equal to " + boundText(v.Bound, sh)
	case KindMaxValue:
		return "Member must have value less than or equal to " + boundText(v.Bound, sh)
	case KindPattern:
		return "Member must satisfy regular expression pattern: " + sh.Pattern.display()
	case KindEnum:
		return "Member must satisfy enum value set: [" + strings.Join(sh.Enum, ", ") + "]"
	}
	return "Member must be a " + javaTypeName(sh)
}

// boundText prints a numeric bound; double bounds as Java prints doubles.
func boundText(b *Bound, sh *Shape) string {
	if sh != nil && (sh.Type == "double" || sh.Type == "float") {
		return javaDouble(b.Float)
	}
	return b.Text
}

// allConstraints lists every constraint of an element shape, in the order
// AWS lists them for a list member ("Member must satisfy constraint:
// [Member must have length less than or equal to 2048, Member must have
// length greater than or equal to 1, Member must satisfy regular
// expression pattern: …, Member must not be null]", recorded from Lambda).
func allConstraints(sh *Shape, notNull bool) string {
	var parts []string
	if sh.Max != nil {
		if sh.IsNumber() {
			parts = append(parts, "Member must have value less than or equal to "+boundText(sh.Max, sh))
		} else {
			parts = append(parts, "Member must have length less than or equal to "+sh.Max.Text)
		}
	}
	if sh.Min != nil {
		if sh.IsNumber() {
			parts = append(parts, "Member must have value greater than or equal to "+boundText(sh.Min, sh))
		} else {
			parts = append(parts, "Member must have length greater than or equal to "+sh.Min.Text)
		}
	}
	if sh.Pattern != nil {
		parts = append(parts, "Member must satisfy regular expression pattern: "+sh.Pattern.display())
	}
	if len(sh.Enum) > 0 {
		parts = append(parts, "Member must satisfy enum value set: ["+strings.Join(sh.Enum, ", ")+"]")
	}
	if notNull {
		parts = append(parts, "Member must not be null")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// javaTypeName is the Java type a shape deserializes to.
func javaTypeName(sh *Shape) string {
	switch sh.Type {
	case "string":
		return "String"
	case "integer":
		return "Integer"
	case "long":
		return "Long"
	case "short":
		return "Short"
	case "byte":
		return "Byte"
	case "boolean":
		return "Boolean"
	case "double":
		return "Double"
	case "float":
		return "Float"
	case "timestamp":
		return "Date"
	case "blob":
		return "ByteBuffer"
	case "list":
		return "List"
	case "map":
		return "Map"
	}
	return sh.Name
}

func article(word string) string {
	if word != "" && strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}

// jsonToken names a decoded value as Coral's JSON reader names tokens.
func jsonToken(val any) string {
	switch x := val.(type) {
	case string:
		return "STRING_VALUE"
	case bool:
		if x {
			return "TRUE_VALUE"
		}
		return "FALSE_VALUE"
	}
	switch jsonKind(val) {
	case "number":
		return "NUMBER_VALUE"
	case "array":
		return "START_ARRAY"
	case "object":
		return "START_OBJECT"
	}
	return strings.ToUpper(jsonKind(val)) + "_VALUE"
}
