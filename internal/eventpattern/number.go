package eventpattern

import (
	"math"
	"math/big"
	"strconv"
)

// comparable parses JSON number text into a float64 when the double holds the
// decimal value exactly, as Ruler's ComparableNumber.generate demands
// (aws/event-ruler ComparableNumber.java: the BigDecimal of the double must
// equal the BigDecimal of the text). "300.0" and "3e2" are comparable; an
// account id like 123456789012 is too; "0.30000000000000001" is not.
func comparable(text string) (float64, bool) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	// Fast path: the shortest round-trip form equals the text, or the text is
	// a plain integer that the double holds exactly.
	if s := strconv.FormatFloat(f, 'g', -1, 64); s == text {
		return f, true
	}
	var want, got big.Rat
	if _, ok := want.SetString(text); !ok {
		return 0, false
	}
	// Java's BigDecimal.valueOf(double) uses the shortest decimal that
	// round-trips, which is what FormatFloat(…, -1) produces.
	if _, ok := got.SetString(strconv.FormatFloat(f, 'g', -1, 64)); !ok {
		return 0, false
	}
	if want.Cmp(&got) != 0 {
		return 0, false
	}
	return f, true
}
