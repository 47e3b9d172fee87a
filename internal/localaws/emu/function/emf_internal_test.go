package function

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

func TestParseEMF(t *testing.T) {
	t.Parallel()
	at := time.UnixMilli(1772366400000).UTC()
	tests := []struct {
		name string
		line string
		want []emu.Metric
		ok   bool
	}{
		{
			name: "TwoDimensionSets",
			line: `{"_aws":{"Timestamp":1772366400000,"CloudWatchMetrics":[{"Namespace":"taskpipe","Dimensions":[["ErrorKind"],[]],"Metrics":[{"Name":"TasksFailed","Unit":"Count"}]}]},"ErrorKind":"fatal","TasksFailed":1}`,
			want: []emu.Metric{
				{Namespace: "taskpipe", Name: "TasksFailed", Dimensions: map[string]string{"ErrorKind": "fatal"}, Value: 1, Unit: "Count", Time: at},
				{Namespace: "taskpipe", Name: "TasksFailed", Dimensions: map[string]string{}, Value: 1, Unit: "Count", Time: at},
			},
			ok: true,
		},
		{
			name: "ValueArrayAndDefaultUnit",
			line: `{"_aws":{"Timestamp":1772366400000,"CloudWatchMetrics":[{"Namespace":"ns","Dimensions":[],"Metrics":[{"Name":"Latency"}]}]},"Latency":[1.5,2]}`,
			want: []emu.Metric{
				{Namespace: "ns", Name: "Latency", Dimensions: map[string]string{}, Value: 1.5, Unit: "None", Time: at},
				{Namespace: "ns", Name: "Latency", Dimensions: map[string]string{}, Value: 2, Unit: "None", Time: at},
			},
			ok: true,
		},
		{name: "PlainLog", line: `2026/03/01 12:00:00 scraped`},
		{name: "JSONLogWithoutAWS", line: `{"level":"INFO","msg":"ok"}`},
		{name: "MissingValue", line: `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"ns","Dimensions":[],"Metrics":[{"Name":"X"}]}]}}`},
		{name: "MissingDimension", line: `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"ns","Dimensions":[["D"]],"Metrics":[{"Name":"X"}]}]},"X":1}`},
		{name: "NumericDimension", line: `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"ns","Dimensions":[["D"]],"Metrics":[{"Name":"X"}]}]},"X":1,"D":5}`},
		{name: "StringValue", line: `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"ns","Dimensions":[],"Metrics":[{"Name":"X"}]}]},"X":"1"}`},
		{name: "NoTimestamp", line: `{"_aws":{"CloudWatchMetrics":[{"Namespace":"ns","Dimensions":[],"Metrics":[{"Name":"X"}]}]},"X":1}`},
		{name: "AWSNamespace", line: `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"AWS/Lambda","Dimensions":[],"Metrics":[{"Name":"X"}]}]},"X":1}`},
		{name: "Truncated", line: `{"_aws":{"Timestamp":1,`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := parseEMF(tt.line)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, got)
		})
	}
}
