package alarm

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

var fuzzOps = func() []string {
	names := make([]string, 0, len(operations))
	for n := range operations {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}()

func fuzzSeeds() []map[string]any {
	now := timestamp{t0}
	return []map[string]any{
		{"AlarmName": "a", "Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible", "Statistic": "Maximum",
			"Period": 60, "EvaluationPeriods": 1, "Threshold": 1.0, "ComparisonOperator": "GreaterThanOrEqualToThreshold",
			"Dimensions": []map[string]string{{"Name": "QueueName", "Value": "dlq"}}, "TreatMissingData": "notBreaching"},
		{"Namespace": "taskpipe", "MetricData": []map[string]any{{"MetricName": "m", "Values": []float64{1, 2}, "Counts": []float64{1, 3},
			"Timestamp": now, "StatisticValues": map[string]float64{"SampleCount": 1}}}},
		{"Namespace": "taskpipe", "MetricName": "m", "StartTime": timestamp{t0.Add(-time.Hour)}, "EndTime": now, "Period": 60,
			"ExtendedStatistics": []string{"p99", "TM(10%:90%)", "PR(:5)"}},
		{"AlarmNames": []string{"a"}, "MaxRecords": 1, "NextToken": "n:YQ"},
		{"DashboardName": "d", "DashboardBody": `{"widgets":[{"type":"text","properties":{}}]}`},
		{"ResourceARN": "arn:aws:cloudwatch:us-east-1:000000000000:alarm:a", "Tags": []map[string]string{{"Key": "k", "Value": "v"}}},
		{"AlarmName": "a", "StateValue": "ALARM", "StateReason": "r", "StateReasonData": "{}"},
	}
}

// FuzzServeCBOR sends arbitrary CBOR bodies to every operation. Whatever
// the body, the service must answer (no panic) with a 2xx or a 4xx error,
// never a 5xx: bad input is the caller's fault.
func FuzzServeCBOR(f *testing.F) {
	for i, seed := range fuzzSeeds() {
		f.Add(uint8(i), encodeCBOR(seed))
	}
	f.Add(uint8(0), []byte{0xbf, 0x69, 'A', 'l', 'a', 'r', 'm', 'N', 'a', 'm', 'e', 0x61, 'x', 0xff}) // indefinite map
	f.Add(uint8(3), []byte{0x9f, 0x01})                                                               // truncated list
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		s := fuzzService()
		name := fuzzOps[int(op)%len(fuzzOps)]
		req := httptest.NewRequest(http.MethodPost, cborServicePath+name, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/cbor")
		req.Header.Set("Smithy-Protocol", "rpc-v2-cbor")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		require.Less(t, rec.Code, 500, "%s answered %d: %s", name, rec.Code, rec.Body.String())
	})
}

// FuzzServeJSON does the same over AWS JSON 1.0.
func FuzzServeJSON(f *testing.F) {
	for i, seed := range fuzzSeeds() {
		b, err := json.Marshal(seed)
		require.NoError(f, err)
		f.Add(uint8(i), b)
	}
	f.Add(uint8(1), []byte(`{"Namespace":"n","MetricData":[{"MetricName":"m","Value":1e400}]}`))
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		s := fuzzService()
		name := fuzzOps[int(op)%len(fuzzOps)]
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("X-Amz-Target", jsonTargetPref+name)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		require.Less(t, rec.Code, 500, "%s answered %d: %s", name, rec.Code, rec.Body.String())
	})
}

// fuzzService has one alarm, one dashboard and some data, so that the
// operations that read state get past "not found".
func fuzzService() *Service {
	s := New(Options{Now: func() time.Time { return t0 }})
	s.PutMetrics(emu.Metric{Namespace: "taskpipe", Name: "m", Value: 3, Time: t0.Add(-time.Minute)})
	body := encodeCBOR(fuzzSeeds()[0])
	if _, err := s.opPutMetricAlarm(&call{proto: protoCBOR, body: body}); err != nil {
		panic(err)
	}
	return s
}

// TestHugeStatisticsRangeIsRefused guards the bucket arithmetic: a range
// of centuries must be refused at once, not looped over.
func TestHugeStatisticsRangeIsRefused(t *testing.T) {
	t.Parallel()
	s := fuzzService()
	body, err := json.Marshal(map[string]any{"Namespace": "taskpipe", "MetricName": "m", "Period": 60,
		"StartTime": -62135596800.0, "EndTime": 253402300799.0, "Statistics": []string{"Sum"}})
	require.NoError(t, err)
	_, err = s.opGetMetricStatistics(&call{proto: protoJSON, body: body})
	require.ErrorContains(t, err, "exceeds the limit of 1440")
}
