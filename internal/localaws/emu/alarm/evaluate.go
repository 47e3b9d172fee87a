package alarm

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// alarmDef is one metric alarm: its configuration and its state.
type alarmDef struct {
	name, description string
	actionsEnabled    bool
	okActions         []string
	alarmActions      []string
	insufficient      []string

	namespace, metricName string
	dims                  map[string]string
	dimList               []dimension // as given, for DescribeAlarms
	statistic             string      // a simple statistic, or ""
	extended              *extendedStat
	period                time.Duration
	unit                  string
	evalPeriods           int
	datapointsToAlarm     int
	threshold             float64
	comparison            string
	treatMissing          string // as given ("" = missing)
	evalLowSample         string
	configUpdated         time.Time
	tags                  map[string]string

	state, reason, reasonData       string
	stateUpdated, stateTransitioned time.Time
}

// Treat-missing-data values (PutMetricAlarm TreatMissingData).
const (
	missingMissing      = "missing"
	missingIgnore       = "ignore"
	missingBreaching    = "breaching"
	missingNotBreaching = "notBreaching"
)

// comparisons maps the static-threshold ComparisonOperator values to their
// test and the words CloudWatch uses in state reasons.
var comparisons = map[string]struct {
	breach func(v, th float64) bool
	words  string
}{
	"GreaterThanOrEqualToThreshold": {func(v, th float64) bool { return v >= th }, "greater than or equal to"},
	"GreaterThanThreshold":          {func(v, th float64) bool { return v > th }, "greater than"},
	"LessThanThreshold":             {func(v, th float64) bool { return v < th }, "less than"},
	"LessThanOrEqualToThreshold":    {func(v, th float64) bool { return v <= th }, "less than or equal to"},
}

// Anomaly-detection operators: valid in AWS, but they need a band from
// ThresholdMetricId, which the local cloud does not compute.
var bandComparisons = map[string]bool{
	"LessThanLowerOrGreaterThanUpperThreshold": true,
	"LessThanLowerThreshold":                   true,
	"GreaterThanUpperThreshold":                true,
}

// extraRangePeriods is how many periods beyond EvaluationPeriods an
// evaluation looks back for real datapoints when some are missing. AWS
// does not publish the formula; its documented example of 3 evaluation
// periods retrieves 5 ("Configuring how CloudWatch alarms treat missing
// data", "How alarm state is evaluated when data is missing").
const extraRangePeriods = 2

type evalResult struct {
	state, reason, reasonData string
	retain                    bool // keep the current state
}

type periodValue struct {
	start   time.Time
	value   float64
	count   float64
	present bool
	low     bool // too few samples for the percentile
}

// evaluateLocked evaluates one alarm at now. The N periods are the ones
// ending at now, (now-P, now], (now-2P, now-P], ...: the local cloud has no
// ingestion delay, so the newest datapoint counts at once.
//
// The rules follow "Configuring how CloudWatch alarms treat missing data":
//   - with at least N real datapoints in the evaluation range, the newest N
//     are evaluated and TreatMissingData is not used;
//   - with fewer, missing datapoints are filled in as few times as needed,
//     according to TreatMissingData: breaching, notBreaching; "missing"
//     goes to INSUFFICIENT_DATA only when every datapoint is missing, and
//     "ignore" then keeps the state;
//   - with some but fewer than N datapoints under missing or ignore, the
//     alarm goes to ALARM only if M real datapoints breach (CloudWatch's
//     "avoiding premature transitions to alarm state"); otherwise OK once
//     the real datapoints make ALARM impossible, else "ignore" keeps the
//     state and "missing" goes to OK.
//   - alarms on AWS/DynamoDB metrics always ignore missing data (PutMetricAlarm
//     API reference, TreatMissingData).
func (s *Service) evaluateLocked(a *alarmDef, now time.Time) evalResult {
	n, m := a.evalPeriods, a.datapointsToAlarm
	series := s.metrics.lookup(a.namespace, a.metricName, a.dims)
	aggs := series.windows(now, a.period, n+extraRangePeriods, a.unit)
	var present []periodValue
	for i := range aggs {
		agg := &aggs[i]
		pv := periodValue{start: now.Add(-time.Duration(i+1) * a.period), count: agg.count}
		if a.extended != nil {
			pv.value, pv.present = a.extended.compute(agg)
			pv.low = pv.present && a.extended.lowSampleCount(agg)
		} else {
			pv.value, pv.present = simpleValue(a.statistic, agg)
		}
		if pv.present {
			present = append(present, pv)
		}
	}
	if len(present) > n {
		present = present[:n]
	}
	if a.evalLowSample == "ignore" {
		for _, p := range present {
			if p.low {
				return evalResult{retain: true}
			}
		}
	}
	cmp := comparisons[a.comparison]
	var breaching, ok []periodValue
	for _, p := range present {
		if cmp.breach(p.value, a.threshold) {
			breaching = append(breaching, p)
		} else {
			ok = append(ok, p)
		}
	}
	treat := a.treatMissing
	if treat == "" {
		treat = missingMissing
	}
	if a.namespace == "AWS/DynamoDB" {
		treat = missingIgnore
	}
	missing := n - len(present)
	data := a.reasonDataJSON(now, present)
	if missing == 0 {
		return a.verdict(len(breaching) >= m, breaching, ok, n, 0, "", data)
	}
	switch treat {
	case missingBreaching:
		return a.verdict(len(breaching)+missing >= m, breaching, ok, n, missing, "Breaching", data)
	case missingNotBreaching:
		return a.verdict(len(breaching) >= m, breaching, ok, n, missing, "NonBreaching", data)
	}
	// missing or ignore
	if len(present) == 0 {
		if treat == missingIgnore {
			return evalResult{retain: true}
		}
		return evalResult{state: StateInsufficientData, reasonData: data,
			reason: fmt.Sprintf("Insufficient Data: %d %s unknown.", n, plural(n, "datapoint was", "datapoints were"))}
	}
	if len(breaching) >= m {
		return a.verdict(true, breaching, ok, n, 0, "", data)
	}
	if treat == missingIgnore && len(ok) <= n-m {
		return evalResult{retain: true}
	}
	return a.verdict(false, breaching, ok, n, 0, "", data)
}

// verdict builds the ALARM or OK result with CloudWatch's reason wording,
// e.g. "Threshold Crossed: 1 out of the last 1 datapoints [5.0 (06/05/26
// 12:00:00)] was greater than or equal to the threshold (1.0) (minimum 1
// datapoint for OK -> ALARM transition)."
func (a *alarmDef) verdict(alarm bool, breaching, ok []periodValue, n, filled int, filledAs, data string) evalResult {
	words := comparisons[a.comparison].words
	state, shown, neg := StateOK, ok, "not "
	if alarm {
		state, shown, neg = StateAlarm, breaching, ""
	}
	from := a.state
	if len(shown) == 0 && filled > 0 {
		return evalResult{state: state, reasonData: data, reason: fmt.Sprintf(
			"Threshold Crossed: no datapoints were received for %d %s and %d missing %s treated as [%s].",
			filled, plural(filled, "period", "periods"), filled, plural(filled, "datapoint was", "datapoints were"), filledAs)}
	}
	minimum := a.datapointsToAlarm
	if !alarm {
		minimum = a.evalPeriods - a.datapointsToAlarm + 1
	}
	parts := make([]string, len(shown))
	for i, p := range shown {
		parts[i] = fmt.Sprintf("%s (%s)", fmtValue(p.value), p.start.UTC().Format("02/01/06 15:04:05"))
	}
	reason := fmt.Sprintf("Threshold Crossed: %d out of the last %d datapoints [%s] %s %s%s the threshold (%s) (minimum %d %s for %s -> %s transition).",
		len(shown), n, strings.Join(parts, ", "), plural(len(shown), "was", "were"), neg, words, fmtValue(a.threshold),
		minimum, plural(minimum, "datapoint", "datapoints"), from, state)
	if filled > 0 {
		reason = strings.TrimSuffix(reason, ".") + fmt.Sprintf("; %d missing %s treated as [%s].",
			filled, plural(filled, "datapoint was", "datapoints were"), filledAs)
	}
	return evalResult{state: state, reason: reason, reasonData: data}
}

// reasonDataJSON is StateReasonData in the shape CloudWatch writes for
// threshold alarms (version, queryDate, startDate, statistic, period,
// recentDatapoints, threshold, evaluatedDatapoints).
func (a *alarmDef) reasonDataJSON(now time.Time, present []periodValue) string {
	const layout = "2006-01-02T15:04:05.000-0700"
	stat := a.statistic
	if a.extended != nil {
		stat = a.extended.sourceText
	}
	start := now.Add(-time.Duration(a.evalPeriods) * a.period)
	recent := make([]float64, 0, len(present))
	evaluated := make([]map[string]any, 0, len(present))
	for i := len(present) - 1; i >= 0; i-- {
		p := present[i]
		recent = append(recent, p.value)
		evaluated = append(evaluated, map[string]any{
			"timestamp": p.start.UTC().Format(layout), "sampleCount": p.count, "value": p.value})
	}
	if len(present) > 0 {
		start = present[len(present)-1].start
	}
	return mustJSON(map[string]any{
		"version":             "1.0",
		"queryDate":           now.UTC().Format(layout),
		"startDate":           start.UTC().Format(layout),
		"statistic":           stat,
		"period":              int(a.period / time.Second),
		"recentDatapoints":    recent,
		"threshold":           a.threshold,
		"evaluatedDatapoints": evaluated,
	})
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Only maps of strings and numbers reach here; finite() guards
		// the numbers, so this is a programming error.
		panic(fmt.Sprintf("alarm: encode JSON: %v", err))
	}
	return string(b)
}
