package alarm

import (
	"fmt"
	"testing"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// BenchmarkEvaluate measures one evaluation tick over 50 alarms whose
// metrics hold a day of one-minute datapoints (what 26 h of SQS sampling
// leaves), reported per alarm.
func BenchmarkEvaluate(b *testing.B) {
	const alarms, points = 50, 24 * 60
	now := t0
	s := New(Options{Now: func() time.Time { return now }})
	for i := range alarms {
		name := fmt.Sprint("q-", i)
		body := encodeCBOR(map[string]any{"AlarmName": name, "Namespace": "taskpipe", "MetricName": "m",
			"Dimensions": []map[string]string{{"Name": "QueueName", "Value": name}}, "Statistic": "Maximum",
			"Period": 60, "EvaluationPeriods": 3, "DatapointsToAlarm": 2, "Threshold": 1.0,
			"ComparisonOperator": "GreaterThanOrEqualToThreshold"})
		if _, err := s.opPutMetricAlarm(&call{proto: protoCBOR, body: body}); err != nil {
			b.Fatal(err)
		}
		for p := range points {
			s.PutMetrics(emu.Metric{Namespace: "taskpipe", Name: "m", Dimensions: map[string]string{"QueueName": name},
				Value: float64(p % 3), Time: now.Add(-time.Duration(p) * time.Minute)})
		}
	}
	b.ResetTimer()
	for b.Loop() {
		s.EvaluateNow()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/alarms, "ns/alarm")
}

// BenchmarkPutMetrics measures the sink's cost per datapoint: emitters
// (EMF lines, Pipe executions) call it on their hot paths.
func BenchmarkPutMetrics(b *testing.B) {
	s := New(Options{Now: func() time.Time { return t0 }})
	m := emu.Metric{Namespace: "taskpipe", Name: "ScrapeFailed", Dimensions: map[string]string{"Function": "scraper"}, Value: 1}
	b.ReportAllocs()
	for b.Loop() {
		s.PutMetrics(m)
	}
}
