package alarm

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

var t0 = time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)

// putAlarm creates an alarm through the JSON protocol path.
func putAlarm(t *testing.T, s *Service, in map[string]any) {
	t.Helper()
	body, err := json.Marshal(in)
	require.NoError(t, err)
	_, err = s.opPutMetricAlarm(&call{proto: protoJSON, body: body})
	require.NoError(t, err)
}

// series builds datapoints per period, newest last: nil means no datapoint
// in that period; each period's values are stamped inside it.
func feed(s *Service, now time.Time, period time.Duration, periods [][]float64) {
	for i, vals := range periods {
		age := len(periods) - 1 - i // periods ago
		at := now.Add(-time.Duration(age) * period).Add(-period / 2)
		for _, v := range vals {
			s.PutMetrics(emu.Metric{Namespace: "taskpipe", Name: "m", Value: v, Time: at})
		}
	}
}

func TestEvaluationTable(t *testing.T) {
	t.Parallel()
	x := func(v ...float64) []float64 { return v }
	tests := []struct {
		name    string
		alarm   map[string]any
		start   string // state before evaluation ("" = creation's INSUFFICIENT_DATA)
		periods [][]float64
		want    string
	}{
		// Statistics, threshold 10, GreaterThanThreshold, 1 of 1.
		{"maximum breaches", map[string]any{"Statistic": "Maximum"}, "", [][]float64{x(1, 11)}, StateAlarm},
		{"average stays", map[string]any{"Statistic": "Average"}, "", [][]float64{x(1, 11)}, StateOK},
		{"sum breaches", map[string]any{"Statistic": "Sum"}, "", [][]float64{x(6, 5)}, StateAlarm},
		{"minimum stays", map[string]any{"Statistic": "Minimum"}, "", [][]float64{x(1, 50)}, StateOK},
		{"sample count breaches", map[string]any{"Statistic": "SampleCount"}, "", [][]float64{x(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)}, StateAlarm},
		{"p90 breaches", map[string]any{"ExtendedStatistic": "p90"}, "", [][]float64{x(1, 2, 3, 4, 5, 6, 7, 8, 20, 30)}, StateAlarm},
		{"p50 stays", map[string]any{"ExtendedStatistic": "p50"}, "", [][]float64{x(1, 2, 3, 4, 5, 6, 7, 8, 20, 30)}, StateOK},
		{"trimmed mean drops the outlier", map[string]any{"ExtendedStatistic": "tm90"}, "", [][]float64{x(1, 2, 3, 4, 5, 6, 7, 8, 9, 1000)}, StateOK},
		{"threshold equal, >= breaches", map[string]any{"Statistic": "Maximum", "ComparisonOperator": "GreaterThanOrEqualToThreshold"}, "", [][]float64{x(10)}, StateAlarm},
		{"threshold equal, > stays", map[string]any{"Statistic": "Maximum"}, "", [][]float64{x(10)}, StateOK},
		{"less than breaches", map[string]any{"Statistic": "Minimum", "ComparisonOperator": "LessThanThreshold"}, "", [][]float64{x(9.5)}, StateAlarm},
		{"less or equal breaches", map[string]any{"Statistic": "Minimum", "ComparisonOperator": "LessThanOrEqualToThreshold"}, "", [][]float64{x(10)}, StateAlarm},

		// M of N: 2 of 3, Maximum > 10.
		{"2 of 3 breaching", map[string]any{"EvaluationPeriods": 3, "DatapointsToAlarm": 2}, "", [][]float64{x(11), x(1), x(12)}, StateAlarm},
		{"1 of 3 breaching", map[string]any{"EvaluationPeriods": 3, "DatapointsToAlarm": 2}, "", [][]float64{x(1), x(1), x(12)}, StateOK},
		{"3 of 3 needs all", map[string]any{"EvaluationPeriods": 3}, "", [][]float64{x(11), x(12), x(1)}, StateOK},
		{"old datapoints beyond N are ignored", map[string]any{"EvaluationPeriods": 2}, "", [][]float64{x(50), x(50), x(1), x(1)}, StateOK},
		{"missing newest: looks back within the range", map[string]any{"EvaluationPeriods": 2}, "", [][]float64{x(50), x(50), nil}, StateAlarm},

		// Treat missing data, 1 of 1 with no data at all.
		{"all missing, missing", map[string]any{}, StateOK, nil, StateInsufficientData},
		{"all missing, notBreaching", map[string]any{"TreatMissingData": "notBreaching"}, StateAlarm, nil, StateOK},
		{"all missing, breaching", map[string]any{"TreatMissingData": "breaching"}, StateOK, nil, StateAlarm},
		{"all missing, ignore keeps ALARM", map[string]any{"TreatMissingData": "ignore"}, StateAlarm, nil, StateAlarm},
		{"all missing, ignore keeps OK", map[string]any{"TreatMissingData": "ignore"}, StateOK, nil, StateOK},
		{"DynamoDB namespace always ignores", map[string]any{"TreatMissingData": "breaching", "Namespace": "AWS/DynamoDB"}, StateOK, nil, StateOK},

		// Some missing, 3 of 3 (the evaluation range is 5 periods).
		{"one real breaching, breaching fills", map[string]any{"EvaluationPeriods": 3, "TreatMissingData": "breaching"}, StateOK,
			[][]float64{nil, nil, nil, nil, x(11)}, StateAlarm},
		{"one real breaching, notBreaching fills", map[string]any{"EvaluationPeriods": 3, "TreatMissingData": "notBreaching"}, StateOK,
			[][]float64{nil, nil, nil, nil, x(11)}, StateOK},
		{"one real breaching, missing avoids a premature ALARM", map[string]any{"EvaluationPeriods": 3}, StateOK,
			[][]float64{nil, nil, nil, nil, x(11)}, StateOK},
		{"one real breaching, ignore keeps the state", map[string]any{"EvaluationPeriods": 3, "TreatMissingData": "ignore"}, StateAlarm,
			[][]float64{nil, nil, nil, nil, x(11)}, StateAlarm},
		{"one real OK makes 3 of 3 impossible, ignore", map[string]any{"EvaluationPeriods": 3, "TreatMissingData": "ignore"}, StateAlarm,
			[][]float64{nil, nil, nil, nil, x(1)}, StateOK},
		{"enough real datapoints: treatment unused", map[string]any{"EvaluationPeriods": 3, "TreatMissingData": "breaching"}, StateAlarm,
			[][]float64{x(1), nil, x(1), nil, x(1)}, StateOK},

		// Units: an alarm with a Unit sees only datapoints of that unit;
		// unitless datapoints are stored as None.
		{"unit filter excludes other units", map[string]any{"Unit": "Count"}, StateOK, [][]float64{x(50)}, StateInsufficientData},
		{"unit None matches unitless datapoints", map[string]any{"Unit": "None"}, "", [][]float64{x(50)}, StateAlarm},

		// Percentile with too few samples: ignore keeps the state.
		{"low sample count ignored", map[string]any{"ExtendedStatistic": "p99", "EvaluateLowSampleCountPercentile": "ignore"}, StateOK,
			[][]float64{x(100)}, StateOK},
		{"low sample count evaluated", map[string]any{"ExtendedStatistic": "p99", "EvaluateLowSampleCountPercentile": "evaluate"}, StateOK,
			[][]float64{x(100)}, StateAlarm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := t0
			s := New(Options{Now: func() time.Time { return now }})
			in := map[string]any{"AlarmName": "a", "Namespace": "taskpipe", "MetricName": "m", "Period": 60,
				"EvaluationPeriods": 1, "Threshold": 10, "ComparisonOperator": "GreaterThanThreshold", "Statistic": "Maximum"}
			for k, v := range tt.alarm {
				in[k] = v
			}
			if _, ok := tt.alarm["ExtendedStatistic"]; ok {
				delete(in, "Statistic")
			}
			putAlarm(t, s, in)
			if tt.start != "" {
				s.mu.Lock()
				s.alarms["a"].state = tt.start
				s.mu.Unlock()
			}
			if in["Namespace"] == "taskpipe" {
				feed(s, now, time.Minute, tt.periods)
			}
			s.EvaluateNow()
			require.Equal(t, tt.want, s.State("a"))
		})
	}
}

func TestStateReasonWording(t *testing.T) {
	t.Parallel()
	now := t0
	s := New(Options{Now: func() time.Time { return now }})
	putAlarm(t, s, map[string]any{"AlarmName": "dlq", "Namespace": "taskpipe", "MetricName": "m", "Period": 60,
		"EvaluationPeriods": 1, "Threshold": 1, "ComparisonOperator": "GreaterThanOrEqualToThreshold", "Statistic": "Maximum",
		"TreatMissingData": "notBreaching"})
	s.PutMetrics(emu.Metric{Namespace: "taskpipe", Name: "m", Value: 1, Time: now})
	s.EvaluateNow()
	s.mu.Lock()
	a := s.alarms["dlq"]
	require.Equal(t, "Threshold Crossed: 1 out of the last 1 datapoints [1.0 (06/05/26 11:59:00)] was greater than or equal to the threshold (1.0) (minimum 1 datapoint for INSUFFICIENT_DATA -> ALARM transition).", a.reason)
	var data map[string]any
	require.NoError(t, json.Unmarshal([]byte(a.reasonData), &data))
	require.Equal(t, "Maximum", data["statistic"])
	require.Equal(t, []any{1.0}, data["recentDatapoints"])
	require.InDelta(t, 60.0, data["period"], 0)
	s.mu.Unlock()

	// With the newest period empty, the evaluation range (N+2 periods)
	// still holds the breaching datapoint: missing data is not used while
	// real datapoints are in range.
	now = now.Add(time.Minute)
	s.EvaluateNow()
	require.Equal(t, StateAlarm, s.State("dlq"))
	now = now.Add(2 * time.Minute)
	s.EvaluateNow()
	s.mu.Lock()
	require.Equal(t, StateOK, s.alarms["dlq"].state)
	require.Equal(t, "Threshold Crossed: no datapoints were received for 1 period and 1 missing datapoint was treated as [NonBreaching].", s.alarms["dlq"].reason)
	s.mu.Unlock()
}

func TestExtendedStatistics(t *testing.T) {
	t.Parallel()
	vals := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	var a aggregate
	for _, v := range vals {
		a.add(valuePoint(t0, "", v))
	}
	tests := []struct {
		stat string
		want float64
	}{
		{"p0", 1}, {"p10", 1}, {"p50", 5}, {"p90", 9}, {"p100", 10}, {"p99.9", 10},
		{"tm80", 4.5}, {"tc80", 8}, {"ts80", 36},
		{"TM(10%:90%)", 5.5}, {"TC(10%:90%)", 8}, {"TS(10%:90%)", 44},
		{"WM(10%:90%)", 5.5}, {"wm50", 4.0}, {"IQM", 5}, {"PR(:5)", 50}, {"PR(2:4)", 20}, {"TM(2:4)", 3.5},
	}
	for _, tt := range tests {
		t.Run(tt.stat, func(t *testing.T) {
			t.Parallel()
			es, err := parseExtendedStatistic(tt.stat)
			require.NoError(t, err)
			got, ok := es.compute(&a)
			require.True(t, ok)
			require.InDelta(t, tt.want, got, 1e-9)
		})
	}
	for _, bad := range []string{"p101", "q50", "TM(90%:10%)", "TM(10%:20)", "PR(10%:20%)", "TM(:)", "p", "tm", "TM(a:b)"} {
		_, err := parseExtendedStatistic(bad)
		require.Error(t, err, bad)
	}
	// Statistic sets without raw values have no percentiles.
	var sets aggregate
	sets.add(point{t: t0, count: 3, sum: 6, min: 1, max: 3})
	es, err := parseExtendedStatistic("p50")
	require.NoError(t, err)
	_, ok := es.compute(&sets)
	require.False(t, ok)
	require.False(t, math.IsNaN(sets.sum))
}
