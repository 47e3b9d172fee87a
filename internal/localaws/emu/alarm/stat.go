package alarm

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
)

// Statistics, as CloudWatch defines them ("CloudWatch statistics
// definitions", AmazonCloudWatch/latest/monitoring/Statistics-definitions.html).

// The five simple statistics (Statistic enum).
const (
	statSampleCount = "SampleCount"
	statAverage     = "Average"
	statSum         = "Sum"
	statMinimum     = "Minimum"
	statMaximum     = "Maximum"
)

var simpleStats = []string{statSampleCount, statAverage, statSum, statMinimum, statMaximum}

func isSimpleStat(s string) bool {
	for _, v := range simpleStats {
		if v == s {
			return true
		}
	}
	return false
}

// weighted is one raw value and how many times it occurred
// (PutMetricData Values/Counts).
type weighted struct{ v, n float64 }

// aggregate is the statistic set of one period: what a metric's
// datapoints in it add up to. raw holds the individual values when they
// are known; percentile-style statistics need them.
type aggregate struct {
	count, sum, min, max float64
	raw                  []weighted
	rawComplete          bool // every sample's value is in raw
}

func (a *aggregate) empty() bool { return a.count == 0 }

func (a *aggregate) add(p point) {
	if a.count == 0 {
		a.min, a.max = p.min, p.max
		a.rawComplete = true
	} else {
		a.min = math.Min(a.min, p.min)
		a.max = math.Max(a.max, p.max)
	}
	a.count += p.count
	a.sum += p.sum
	if p.raw == nil {
		a.rawComplete = false
		return
	}
	a.raw = append(a.raw, p.raw...)
}

// extendedStat is a parsed ExtendedStatistic: pNN, or one of the trimmed
// statistics over a range (tmNN, TM(a:b), IQM, ...), or a percentile rank.
type extendedStat struct {
	kind string // "p", "TM", "WM", "TC", "TS", "PR"
	// For "p": the percentile. For the range kinds: bounds, either in
	// percent (pct) or in metric values; a missing bound is ±Inf / 0 / 100.
	p          float64
	lo, hi     float64
	pct        bool
	sourceText string
}

var (
	rePercentile = regexp.MustCompile(`^p(\d{1,2}(?:\.\d{1,10})?|100)$`)
	reShortRange = regexp.MustCompile(`^(tm|wm|tc|ts)(\d{1,2}(?:\.\d{1,10})?|100)$`)
	reRange      = regexp.MustCompile(`^(TM|WM|TC|TS|PR)\(([^:()]*):([^:()]*)\)$`)
)

// parseExtendedStatistic parses the forms the PutMetricAlarm API reference
// lists: p90, tm90, tc90, ts90, wm90, IQM, PR(n:m), TC/TM/TS/WM(X%:X%) and
// the value-bounded TM(n:m) forms from the statistics definitions page.
func parseExtendedStatistic(s string) (extendedStat, error) {
	bad := func(why string) (extendedStat, error) {
		return extendedStat{}, fmt.Errorf("the extended statistic %q is not valid: %s", s, why)
	}
	if s == "IQM" {
		return extendedStat{kind: "TM", lo: 25, hi: 75, pct: true, sourceText: s}, nil
	}
	if m := rePercentile.FindStringSubmatch(s); m != nil {
		p, _ := strconv.ParseFloat(m[1], 64)
		if p > 100 {
			return bad("percentiles are between 0 and 100")
		}
		return extendedStat{kind: "p", p: p, sourceText: s}, nil
	}
	if m := reShortRange.FindStringSubmatch(s); m != nil {
		p, _ := strconv.ParseFloat(m[2], 64)
		if p > 100 {
			return bad("percentiles are between 0 and 100")
		}
		kinds := map[string]string{"tm": "TM", "wm": "WM", "tc": "TC", "ts": "TS"}
		return extendedStat{kind: kinds[m[1]], lo: 0, hi: p, pct: true, sourceText: s}, nil
	}
	m := reRange.FindStringSubmatch(s)
	if m == nil {
		return bad("use pNN, tmNN, wmNN, tcNN, tsNN, IQM, PR(n:m) or TM/WM/TC/TS(a:b)")
	}
	es := extendedStat{kind: m[1], sourceText: s}
	loS, hiS := m[2], m[3]
	if loS == "" && hiS == "" {
		return bad("a range needs at least one bound")
	}
	isPct := func(b string) bool { return len(b) > 0 && b[len(b)-1] == '%' }
	switch {
	case (loS == "" || isPct(loS)) && (hiS == "" || isPct(hiS)):
		es.pct = true
	case isPct(loS) || isPct(hiS):
		return bad("both bounds must be percentages, or both values")
	}
	if es.kind == "PR" && es.pct {
		return bad("PR takes metric values, not percentages")
	}
	parse := func(b string, def float64) (float64, error) {
		if b == "" {
			return def, nil
		}
		if es.pct {
			b = b[:len(b)-1]
		}
		f, err := strconv.ParseFloat(b, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("bound %q is not a number", b)
		}
		return f, nil
	}
	loDef, hiDef := math.Inf(-1), math.Inf(1)
	if es.pct {
		loDef, hiDef = 0, 100
	}
	var err error
	if es.lo, err = parse(loS, loDef); err != nil {
		return bad(err.Error())
	}
	if es.hi, err = parse(hiS, hiDef); err != nil {
		return bad(err.Error())
	}
	if es.pct && (es.lo < 0 || es.hi > 100) {
		return bad("percentages are between 0 and 100")
	}
	if es.lo >= es.hi {
		return bad("the lower bound must be below the upper bound")
	}
	return es, nil
}

// compute returns the statistic over the period's raw values; ok is false
// when it cannot be computed (no raw values: the data came as statistic
// sets, or the range selects nothing).
func (e extendedStat) compute(a *aggregate) (float64, bool) {
	if a.empty() || !a.rawComplete || len(a.raw) == 0 {
		return 0, false
	}
	vals := append([]weighted(nil), a.raw...)
	sort.Slice(vals, func(i, j int) bool { return vals[i].v < vals[j].v })
	total := 0.0
	for _, w := range vals {
		total += w.n
	}
	if total <= 0 {
		return 0, false
	}
	if e.kind == "p" {
		return percentile(vals, total, e.p), true
	}
	// kept returns how many of a value's samples fall inside the range.
	// Percent bounds select by rank: with n samples sorted ascending,
	// TM(a%:b%) keeps ranks r with a·n/100 < r ≤ b·n/100, so TM(10%:90%)
	// of 1..10 drops 1 and 10, and IQM = TM(25%:75%). Value bounds keep
	// lo < v ≤ hi.
	loRank, hiRank := e.lo/100*total, e.hi/100*total
	kept := func(w weighted, before float64) float64 {
		if !e.pct {
			if w.v > e.lo && w.v <= e.hi {
				return w.n
			}
			return 0
		}
		a, b := math.Max(before, loRank), math.Min(before+w.n, hiRank)
		if b <= a {
			return 0
		}
		return math.Floor(b) - math.Floor(a)
	}
	var n, sum, before float64
	keptMin, keptMax := math.Inf(1), math.Inf(-1)
	for _, w := range vals {
		if k := kept(w, before); k > 0 {
			n += k
			sum += w.v * k
			keptMin, keptMax = math.Min(keptMin, w.v), math.Max(keptMax, w.v)
		}
		before += w.n
	}
	switch e.kind {
	case "PR":
		return 100 * n / total, true
	case "TC":
		return n, true
	case "TS":
		return sum, true
	case "TM":
		if n == 0 {
			return 0, false
		}
		return sum / n, true
	case "WM":
		// Winsorized mean: samples outside the range count as the nearest
		// value kept (percent bounds) or as the bound (value bounds).
		lo, hi := keptMin, keptMax
		if !e.pct {
			lo, hi = e.lo, e.hi
		} else if n == 0 {
			return 0, false
		}
		var s float64
		for _, w := range vals {
			s += math.Min(math.Max(w.v, lo), hi) * w.n
		}
		return s / total, true
	}
	return 0, false
}

// percentile is the nearest-rank percentile of weighted sorted values.
func percentile(vals []weighted, total, p float64) float64 {
	if p <= 0 {
		return vals[0].v
	}
	rank := math.Ceil(p / 100 * total)
	var seen float64
	for _, w := range vals {
		seen += w.n
		if seen >= rank {
			return w.v
		}
	}
	return vals[len(vals)-1].v
}

// lowSampleCount reports whether a percentile alarm's period has too few
// samples to be meaningful: fewer than 10/(1-p) for pNN ("Percentile-based
// alarms and low data samples": p99 needs 1,000 samples, p90 100).
func (e extendedStat) lowSampleCount(a *aggregate) bool {
	if e.kind != "p" || e.p >= 100 {
		return false
	}
	return a.count < 10/(1-e.p/100)
}

// simpleValue computes one of the five simple statistics.
func simpleValue(stat string, a *aggregate) (float64, bool) {
	if a.empty() {
		return 0, false
	}
	switch stat {
	case statSampleCount:
		return a.count, true
	case statAverage:
		return a.sum / a.count, true
	case statSum:
		return a.sum, true
	case statMinimum:
		return a.min, true
	case statMaximum:
		return a.max, true
	}
	return 0, false
}
