package emu

import "time"

// Metric is one CloudWatch datapoint, from PutMetricData, a function's
// Embedded Metric Format log line, a Pipe execution or a queue's state.
type Metric struct {
	Namespace  string
	Name       string
	Dimensions map[string]string
	Value      float64
	Unit       string
	Time       time.Time
}

// MetricSink receives datapoints; the alarm service implements it. Emitters
// must not block on it.
type MetricSink interface {
	PutMetrics(ms ...Metric)
}

// MetricSinkFunc adapts a function to MetricSink.
type MetricSinkFunc func(ms ...Metric)

// PutMetrics implements MetricSink.
func (f MetricSinkFunc) PutMetrics(ms ...Metric) { f(ms...) }
