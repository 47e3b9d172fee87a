package emf_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/emf"
)

var fixedNow = time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)

func clock() time.Time { return fixedNow }

func TestWriterRecord(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		dims    []emf.Dimension
		metrics []emf.Metric
		want    string
	}{
		{
			name:    "NoDimensions",
			metrics: []emf.Metric{emf.Count(emf.TasksFinished, 1)},
			want: `{"_aws":{"Timestamp":1767323045006,"CloudWatchMetrics":[{"Namespace":"taskpipe",` +
				`"Dimensions":[[]],"Metrics":[{"Name":"TasksFinished","Unit":"Count"}]}]},"TasksFinished":1}`,
		},
		{
			name:    "DimensionAlsoKeepsTotal",
			dims:    []emf.Dimension{{Name: emf.DimErrorKind, Value: "fatal"}},
			metrics: []emf.Metric{emf.Count(emf.TasksFailed, 1)},
			want: `{"_aws":{"Timestamp":1767323045006,"CloudWatchMetrics":[{"Namespace":"taskpipe",` +
				`"Dimensions":[["ErrorKind"],[]],"Metrics":[{"Name":"TasksFailed","Unit":"Count"}]}]},` +
				`"ErrorKind":"fatal","TasksFailed":1}`,
		},
		{
			name: "SeveralMetricsAndUnits",
			dims: []emf.Dimension{{Name: emf.DimState, Value: "Running"}},
			metrics: []emf.Metric{
				emf.Seconds(emf.OldestLiveTaskAge, 90*time.Second),
				emf.Milliseconds(emf.FetchLatency, 1500*time.Microsecond),
			},
			want: `{"_aws":{"Timestamp":1767323045006,"CloudWatchMetrics":[{"Namespace":"taskpipe",` +
				`"Dimensions":[["State"],[]],"Metrics":[{"Name":"OldestLiveTaskAge","Unit":"Seconds"},` +
				`{"Name":"FetchLatency","Unit":"Milliseconds"}]}]},"FetchLatency":1.5,"OldestLiveTaskAge":90,"State":"Running"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			w := emf.New(&buf, clock)
			require.NoError(t, w.Record(tt.dims, tt.metrics...))
			require.True(t, strings.HasSuffix(buf.String(), "\n"), "one line per record")
			require.JSONEq(t, tt.want, buf.String())
		})
	}
}

// TestWriterForDeployment: every dimension set carries the deployment, so
// two deployments in one account and region never share a series (issue
// 12 #6).
func TestWriterForDeployment(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		dims    []emf.Dimension
		metrics []emf.Metric
		want    string
	}{
		{
			name:    "NoOtherDimensions",
			metrics: []emf.Metric{emf.Count(emf.TasksFinished, 1)},
			want: `{"_aws":{"Timestamp":1767323045006,"CloudWatchMetrics":[{"Namespace":"taskpipe",` +
				`"Dimensions":[["Deployment"]],"Metrics":[{"Name":"TasksFinished","Unit":"Count"}]}]},` +
				`"Deployment":"prod","TasksFinished":1}`,
		},
		{
			name:    "TotalIsTheDeployments",
			dims:    []emf.Dimension{{Name: emf.DimState, Value: "Pending"}},
			metrics: []emf.Metric{emf.Seconds(emf.OldestLiveTaskAge, 90*time.Second)},
			want: `{"_aws":{"Timestamp":1767323045006,"CloudWatchMetrics":[{"Namespace":"taskpipe",` +
				`"Dimensions":[["Deployment","State"],["Deployment"]],"Metrics":[{"Name":"OldestLiveTaskAge","Unit":"Seconds"}]}]},` +
				`"Deployment":"prod","OldestLiveTaskAge":90,"State":"Pending"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			require.NoError(t, emf.New(&buf, clock).ForDeployment("prod").Record(tt.dims, tt.metrics...))
			require.JSONEq(t, tt.want, buf.String())
		})
	}

	t.Run("CallerDeploymentDimensionRejected", func(t *testing.T) {
		t.Parallel()
		var buf bytes.Buffer
		err := emf.New(&buf, clock).ForDeployment("prod").Record([]emf.Dimension{{Name: emf.DimDeployment, Value: "other"}}, emf.Count("A", 1))
		require.ErrorContains(t, err, "duplicate dimension")
	})
}

func TestWriterRecordRejects(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		dims    []emf.Dimension
		metrics []emf.Metric
		wantErr string
	}{
		{"EmptyDimensionName", []emf.Dimension{{Value: "x"}}, []emf.Metric{emf.Count("A", 1)}, "invalid dimension name"},
		{"DuplicateDimension", []emf.Dimension{{"D", "1"}, {"D", "2"}}, []emf.Metric{emf.Count("A", 1)}, "duplicate dimension"},
		{"ReservedMetricName", nil, []emf.Metric{emf.Count("_aws", 1)}, "invalid metric name"},
		{"MetricCollidesWithDimension", []emf.Dimension{{"A", "x"}}, []emf.Metric{emf.Count("A", 1)}, "collides"},
		{"NaN", nil, []emf.Metric{{Name: "A", Unit: emf.UnitCount, Value: math.NaN()}}, "unsupported value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			err := emf.New(&buf, clock).Record(tt.dims, tt.metrics...)
			require.ErrorContains(t, err, tt.wantErr)
			require.Zero(t, buf.Len(), "nothing written on error")
		})
	}
}

func TestWriterRecordNothing(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, emf.New(&buf, clock).Record(nil))
	require.Zero(t, buf.Len())
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterRecordWriteError(t *testing.T) {
	t.Parallel()
	err := emf.New(failingWriter{}, clock).Record(nil, emf.Count("A", 1))
	require.ErrorContains(t, err, "disk full")
}

func TestWriterConcurrentLinesStayWhole(t *testing.T) {
	t.Parallel()

	var buf bytes.Buffer
	w := emf.New(&buf, clock)
	const goroutines, each = 8, 50
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range each {
				_ = w.Record([]emf.Dimension{{Name: emf.DimState, Value: strings.Repeat("x", g+1)}},
					emf.Count(emf.Redispatched, g))
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, goroutines*each)
	for _, l := range lines {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &v), "line %q", l)
		require.Contains(t, v, "_aws")
	}
}
