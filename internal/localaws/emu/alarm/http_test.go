package alarm_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/alarm"
)

func TestPutDescribeDeleteAlarm(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	in := dlqAlarm("tasks-dlq-not-empty", "tasks-dlq")
	in.AlarmDescription = aws.String("the work DLQ has a message")
	in.OKActions = []string{"arn:aws:sns:us-east-1:000000000000:ok"}
	in.Unit = types.StandardUnitCount
	in.Tags = []types.Tag{{Key: aws.String("team"), Value: aws.String("scrape")}}
	_, err := e.client.PutMetricAlarm(ctx(t), in)
	require.NoError(t, err)

	a := describeOne(t, e, "tasks-dlq-not-empty")
	require.Equal(t, "arn:aws:cloudwatch:us-east-1:000000000000:alarm:tasks-dlq-not-empty", aws.ToString(a.AlarmArn))
	require.Equal(t, "the work DLQ has a message", aws.ToString(a.AlarmDescription))
	require.Equal(t, types.StateValueInsufficientData, a.StateValue)
	require.Equal(t, "Unchecked: Initial alarm creation", aws.ToString(a.StateReason))
	require.Equal(t, e.clock.Now(), a.StateUpdatedTimestamp.UTC())
	require.Equal(t, e.clock.Now(), a.AlarmConfigurationUpdatedTimestamp.UTC())
	require.Equal(t, "AWS/SQS", aws.ToString(a.Namespace))
	require.Equal(t, "ApproximateNumberOfMessagesVisible", aws.ToString(a.MetricName))
	require.Equal(t, in.Dimensions, a.Dimensions)
	require.Equal(t, types.StatisticMaximum, a.Statistic)
	require.Equal(t, int32(60), aws.ToInt32(a.Period))
	require.Equal(t, int32(1), aws.ToInt32(a.EvaluationPeriods))
	require.Equal(t, int32(1), aws.ToInt32(a.DatapointsToAlarm))
	require.Equal(t, types.ComparisonOperatorGreaterThanOrEqualToThreshold, a.ComparisonOperator)
	require.InDelta(t, 1.0, aws.ToFloat64(a.Threshold), 0)
	require.Equal(t, "notBreaching", aws.ToString(a.TreatMissingData))
	require.Equal(t, types.StandardUnitCount, a.Unit)
	require.Equal(t, in.AlarmActions, a.AlarmActions)
	require.Equal(t, in.OKActions, a.OKActions)
	require.Empty(t, a.InsufficientDataActions)
	require.True(t, aws.ToBool(a.ActionsEnabled))

	tags, err := e.client.ListTagsForResource(ctx(t), &cloudwatch.ListTagsForResourceInput{ResourceARN: a.AlarmArn})
	require.NoError(t, err)
	require.Equal(t, []types.Tag{{Key: aws.String("team"), Value: aws.String("scrape")}}, tags.Tags)

	// An update keeps state and tags, replaces the configuration.
	in.Threshold = aws.Float64(5)
	in.Tags = []types.Tag{{Key: aws.String("ignored"), Value: aws.String("on update")}}
	_, err = e.client.PutMetricAlarm(ctx(t), in)
	require.NoError(t, err)
	a = describeOne(t, e, "tasks-dlq-not-empty")
	require.InDelta(t, 5.0, aws.ToFloat64(a.Threshold), 0)
	tags, err = e.client.ListTagsForResource(ctx(t), &cloudwatch.ListTagsForResourceInput{ResourceARN: a.AlarmArn})
	require.NoError(t, err)
	require.Len(t, tags.Tags, 1)
	require.Equal(t, "team", aws.ToString(tags.Tags[0].Key))

	// Deleting an unknown name alongside a real one deletes the real one.
	_, err = e.client.DeleteAlarms(ctx(t), &cloudwatch.DeleteAlarmsInput{AlarmNames: []string{"tasks-dlq-not-empty", "nope"}})
	require.NoError(t, err)
	out, err := e.client.DescribeAlarms(ctx(t), &cloudwatch.DescribeAlarmsInput{})
	require.NoError(t, err)
	require.Empty(t, out.MetricAlarms)

	hist, err := e.client.DescribeAlarmHistory(ctx(t), &cloudwatch.DescribeAlarmHistoryInput{
		AlarmName: aws.String("tasks-dlq-not-empty"), HistoryItemType: types.HistoryItemTypeConfigurationUpdate,
		ScanBy: types.ScanByTimestampAscending,
	})
	require.NoError(t, err)
	var summaries []string
	for _, h := range hist.AlarmHistoryItems {
		summaries = append(summaries, aws.ToString(h.HistorySummary))
	}
	require.Equal(t, []string{`Alarm "tasks-dlq-not-empty" created`, `Alarm "tasks-dlq-not-empty" updated`,
		`Alarm "tasks-dlq-not-empty" deleted`}, summaries)
}

// apiErr asserts err is the modeled error T with the legacy query code
// and HTTP status AWS sends.
func requireAPIError[T error](t *testing.T, err error, code string, status int, contains string) {
	t.Helper()
	require.Error(t, err)
	var typed T
	require.True(t, errors.As(err, &typed), "error %v (%T) is not a %T", err, err, typed)
	var ae smithy.APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, code, ae.ErrorCode())
	require.Contains(t, ae.ErrorMessage(), contains)
	var re *awshttp.ResponseError
	require.ErrorAs(t, err, &re)
	require.Equal(t, status, re.HTTPStatusCode())
}

func TestPutMetricAlarmValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	tests := []struct {
		name     string
		mutate   func(*cloudwatch.PutMetricAlarmInput)
		check    func(*testing.T, error)
		contains string
	}{
		{"datapoints over evaluation periods", func(in *cloudwatch.PutMetricAlarmInput) {
			in.EvaluationPeriods, in.DatapointsToAlarm = aws.Int32(2), aws.Int32(3)
		}, func(t *testing.T, err error) {
			requireAPIError[*types.ValidationException](t, err, "ValidationError", 400, "DatapointsToAlarm (3) must be less than or equal to EvaluationPeriods (2)")
		}, ""},
		{"period not 10/20/30 or a multiple of 60", func(in *cloudwatch.PutMetricAlarmInput) { in.Period = aws.Int32(45) },
			func(t *testing.T, err error) {
				requireAPIError[*types.ValidationException](t, err, "ValidationError", 400, "Period (45) must be 10, 20, 30 or a multiple of 60")
			}, ""},
		{"high-resolution period", func(in *cloudwatch.PutMetricAlarmInput) { in.Period = aws.Int32(10) }, nil, ""},
		{"evaluation window over one day", func(in *cloudwatch.PutMetricAlarmInput) {
			in.Period, in.EvaluationPeriods, in.DatapointsToAlarm = aws.Int32(60), aws.Int32(1441), nil
		}, func(t *testing.T, err error) {
			requireAPIError[*types.ValidationException](t, err, "ValidationError", 400, "1 day")
		}, ""},
		{"unknown comparison operator", func(in *cloudwatch.PutMetricAlarmInput) { in.ComparisonOperator = "GreaterThanSometimes" },
			func(t *testing.T, err error) {
				requireAPIError[*types.ValidationException](t, err, "ValidationError", 400, "Member must satisfy enum value set")
			}, ""},
		{"statistic and extended statistic", func(in *cloudwatch.PutMetricAlarmInput) { in.ExtendedStatistic = aws.String("p99") },
			func(t *testing.T, err error) {
				requireAPIError[*types.InvalidParameterCombinationException](t, err, "InvalidParameterCombination", 400, "mutually exclusive")
			}, ""},
		{"extended statistic p99.9", func(in *cloudwatch.PutMetricAlarmInput) { in.Statistic, in.ExtendedStatistic = "", aws.String("p99.9") }, nil, ""},
		{"extended statistic TM(10%:90%)", func(in *cloudwatch.PutMetricAlarmInput) {
			in.Statistic, in.ExtendedStatistic = "", aws.String("TM(10%:90%)")
		}, nil, ""},
		{"bad extended statistic", func(in *cloudwatch.PutMetricAlarmInput) { in.Statistic, in.ExtendedStatistic = "", aws.String("p101") },
			func(t *testing.T, err error) {
				requireAPIError[*types.InvalidParameterValueException](t, err, "InvalidParameterValue", 400, "p101")
			}, ""},
		{"unknown statistic", func(in *cloudwatch.PutMetricAlarmInput) { in.Statistic = "Median" },
			func(t *testing.T, err error) {
				requireAPIError[*types.ValidationException](t, err, "ValidationError", 400, "Median")
			}, ""},
		{"treat missing data", func(in *cloudwatch.PutMetricAlarmInput) { in.TreatMissingData = aws.String("sometimes") },
			func(t *testing.T, err error) {
				requireAPIError[*types.ValidationException](t, err, "ValidationError", 400, "TreatMissingData")
			}, ""},
		{"31 dimensions", func(in *cloudwatch.PutMetricAlarmInput) {
			in.Dimensions = nil
			for i := range 31 {
				in.Dimensions = append(in.Dimensions, types.Dimension{Name: aws.String(fmt.Sprint("d", i)), Value: aws.String("v")})
			}
		}, func(t *testing.T, err error) {
			requireAPIError[*types.ValidationException](t, err, "ValidationError", 400, "less than or equal to 30")
		}, ""},
		{"metric math", func(in *cloudwatch.PutMetricAlarmInput) {
			in.MetricName, in.Namespace, in.Statistic, in.Period, in.Dimensions = nil, nil, "", nil, nil
			in.Metrics = []types.MetricDataQuery{{Id: aws.String("e1"), Expression: aws.String("RATE(m1)")}}
		}, func(t *testing.T, err error) {
			requireAPIError[*types.InvalidParameterValueException](t, err, "InvalidParameterValue", 400, "not supported by the taskpipe local cloud")
		}, ""},
		{"anomaly band operator", func(in *cloudwatch.PutMetricAlarmInput) {
			in.ComparisonOperator = types.ComparisonOperatorLessThanLowerOrGreaterThanUpperThreshold
		}, func(t *testing.T, err error) {
			requireAPIError[*types.InvalidParameterValueException](t, err, "InvalidParameterValue", 400, "not supported")
		}, ""},
		{"bad action arn", func(in *cloudwatch.PutMetricAlarmInput) { in.AlarmActions = []string{"sns-topic"} },
			func(t *testing.T, err error) {
				requireAPIError[*types.ValidationException](t, err, "ValidationError", 400, "Invalid arn syntax")
			}, ""},
		{"missing threshold", func(in *cloudwatch.PutMetricAlarmInput) { in.Threshold = nil },
			func(t *testing.T, err error) {
				requireAPIError[*types.ValidationException](t, err, "ValidationError", 400, "Threshold is required")
			}, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := dlqAlarm(fmt.Sprintf("v%d", i), "q")
			tt.mutate(in)
			_, err := e.client.PutMetricAlarm(ctx(t), in)
			if tt.check == nil {
				require.NoError(t, err)
				return
			}
			tt.check(t, err)
			out, derr := e.client.DescribeAlarms(ctx(t), &cloudwatch.DescribeAlarmsInput{AlarmNames: []string{*in.AlarmName}})
			require.NoError(t, derr)
			require.Empty(t, out.MetricAlarms, "a rejected alarm must not be stored")
		})
	}
}

func TestDescribeAlarmsFiltersAndPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	for _, n := range []string{"b-2", "a-1", "b-1", "c-1", "b-3"} {
		_, err := e.client.PutMetricAlarm(ctx(t), dlqAlarm(n, "q-"+n))
		require.NoError(t, err)
	}
	_, err := e.client.SetAlarmState(ctx(t), &cloudwatch.SetAlarmStateInput{AlarmName: aws.String("b-3"),
		StateValue: types.StateValueAlarm, StateReason: aws.String("testing")})
	require.NoError(t, err)

	var names []string
	pages := cloudwatch.NewDescribeAlarmsPaginator(e.client, &cloudwatch.DescribeAlarmsInput{MaxRecords: aws.Int32(2)})
	n := 0
	for pages.HasMorePages() {
		p, err := pages.NextPage(ctx(t))
		require.NoError(t, err)
		n++
		for _, a := range p.MetricAlarms {
			names = append(names, aws.ToString(a.AlarmName))
		}
	}
	require.Equal(t, 3, n)
	require.Equal(t, []string{"a-1", "b-1", "b-2", "b-3", "c-1"}, names)

	tests := []struct {
		name string
		in   cloudwatch.DescribeAlarmsInput
		want []string
	}{
		{"prefix", cloudwatch.DescribeAlarmsInput{AlarmNamePrefix: aws.String("b-")}, []string{"b-1", "b-2", "b-3"}},
		{"state", cloudwatch.DescribeAlarmsInput{StateValue: types.StateValueAlarm}, []string{"b-3"}},
		{"names", cloudwatch.DescribeAlarmsInput{AlarmNames: []string{"c-1", "a-1", "zz"}}, []string{"a-1", "c-1"}},
		{"composite only", cloudwatch.DescribeAlarmsInput{AlarmTypes: []types.AlarmType{types.AlarmTypeCompositeAlarm}}, nil},
		{"action prefix", cloudwatch.DescribeAlarmsInput{ActionPrefix: aws.String("arn:aws:sns:us-east-1:000000000000:al"),
			AlarmNamePrefix: aws.String("a")}, []string{"a-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := e.client.DescribeAlarms(ctx(t), &tt.in)
			require.NoError(t, err)
			var got []string
			for _, a := range out.MetricAlarms {
				got = append(got, aws.ToString(a.AlarmName))
			}
			require.Equal(t, tt.want, got)
		})
	}

	_, err = e.client.DescribeAlarms(ctx(t), &cloudwatch.DescribeAlarmsInput{NextToken: aws.String("garbage")})
	requireAPIError[*types.InvalidNextToken](t, err, "InvalidNextToken", 400, "NextToken")
	_, err = e.client.DescribeAlarms(ctx(t), &cloudwatch.DescribeAlarmsInput{AlarmNames: []string{"a"}, AlarmNamePrefix: aws.String("a")})
	requireAPIError[*types.InvalidParameterCombinationException](t, err, "InvalidParameterCombination", 400, "AlarmNamePrefix")

	forMetric, err := e.client.DescribeAlarmsForMetric(ctx(t), &cloudwatch.DescribeAlarmsForMetricInput{
		Namespace: aws.String("AWS/SQS"), MetricName: aws.String("ApproximateNumberOfMessagesVisible"),
		Dimensions: []types.Dimension{{Name: aws.String("QueueName"), Value: aws.String("q-b-2")}},
	})
	require.NoError(t, err)
	require.Len(t, forMetric.MetricAlarms, 1)
	require.Equal(t, "b-2", aws.ToString(forMetric.MetricAlarms[0].AlarmName))
}

func TestSetAlarmStateAndHistory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	_, err := e.client.PutMetricAlarm(ctx(t), dlqAlarm("dlq", "dlq"))
	require.NoError(t, err)
	e.clock.Advance(time.Second)
	_, err = e.client.SetAlarmState(ctx(t), &cloudwatch.SetAlarmStateInput{AlarmName: aws.String("dlq"),
		StateValue: types.StateValueAlarm, StateReason: aws.String("drill"), StateReasonData: aws.String(`{"drill":true}`)})
	require.NoError(t, err)
	a := describeOne(t, e, "dlq")
	require.Equal(t, types.StateValueAlarm, a.StateValue)
	require.Equal(t, "drill", aws.ToString(a.StateReason))
	require.JSONEq(t, `{"drill":true}`, aws.ToString(a.StateReasonData))
	require.Equal(t, e.clock.Now(), a.StateTransitionedTimestamp.UTC())
	require.Equal(t, "alarm dlq: INSUFFICIENT_DATA -> ALARM: drill\n", e.console.String())

	// The next evaluation puts the alarm back where its data says: no
	// data, treated as not breaching → OK.
	e.svc.EvaluateNow()
	require.Equal(t, types.StateValueOk, describeOne(t, e, "dlq").StateValue)

	hist, err := e.client.DescribeAlarmHistory(ctx(t), &cloudwatch.DescribeAlarmHistoryInput{
		AlarmName: aws.String("dlq"), HistoryItemType: types.HistoryItemTypeStateUpdate})
	require.NoError(t, err)
	require.Len(t, hist.AlarmHistoryItems, 2)
	require.Equal(t, "Alarm updated from ALARM to OK", aws.ToString(hist.AlarmHistoryItems[0].HistorySummary), "newest first")
	require.Equal(t, "Alarm updated from INSUFFICIENT_DATA to ALARM", aws.ToString(hist.AlarmHistoryItems[1].HistorySummary))
	require.Contains(t, aws.ToString(hist.AlarmHistoryItems[1].HistoryData), `"newState"`)

	_, err = e.client.SetAlarmState(ctx(t), &cloudwatch.SetAlarmStateInput{AlarmName: aws.String("dlq"),
		StateValue: types.StateValueAlarm, StateReason: aws.String("x"), StateReasonData: aws.String("{not json")})
	requireAPIError[*types.InvalidFormatFault](t, err, "InvalidFormat", 400, "JSON")
	_, err = e.client.SetAlarmState(ctx(t), &cloudwatch.SetAlarmStateInput{AlarmName: aws.String("missing"),
		StateValue: types.StateValueAlarm, StateReason: aws.String("x")})
	requireAPIError[*types.ResourceNotFound](t, err, "ResourceNotFound", 404, "missing")
}

func TestPutMetricDataAndStatistics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	now := e.clock.Now()
	dims := []types.Dimension{{Name: aws.String("Function"), Value: aws.String("scraper")}}
	_, err := e.client.PutMetricData(ctx(t), &cloudwatch.PutMetricDataInput{
		Namespace: aws.String("taskpipe"),
		MetricData: []types.MetricDatum{
			{MetricName: aws.String("Latency"), Dimensions: dims, Timestamp: aws.Time(now.Add(-90 * time.Second)),
				Values: []float64{100, 200, 300}, Counts: []float64{1, 2, 1}, Unit: types.StandardUnitMilliseconds},
			{MetricName: aws.String("Latency"), Dimensions: dims, Timestamp: aws.Time(now.Add(-30 * time.Second)),
				Value: aws.Float64(50), Unit: types.StandardUnitMilliseconds},
			{MetricName: aws.String("Latency"), Dimensions: dims, Timestamp: aws.Time(now.Add(-20 * time.Second)),
				StatisticValues: &types.StatisticSet{SampleCount: aws.Float64(2), Sum: aws.Float64(20), Minimum: aws.Float64(5), Maximum: aws.Float64(15)},
				Unit:            types.StandardUnitMilliseconds},
		},
	})
	require.NoError(t, err)

	st, err := e.client.GetMetricStatistics(ctx(t), &cloudwatch.GetMetricStatisticsInput{
		Namespace: aws.String("taskpipe"), MetricName: aws.String("Latency"), Dimensions: dims,
		StartTime: aws.Time(now.Add(-2 * time.Minute)), EndTime: aws.Time(now), Period: aws.Int32(60),
		Statistics: []types.Statistic{types.StatisticSampleCount, types.StatisticSum, types.StatisticAverage,
			types.StatisticMinimum, types.StatisticMaximum},
	})
	require.NoError(t, err)
	require.Equal(t, "Latency", aws.ToString(st.Label))
	require.Len(t, st.Datapoints, 2)
	first, second := st.Datapoints[0], st.Datapoints[1]
	require.Equal(t, now.Add(-2*time.Minute), first.Timestamp.UTC())
	require.InDelta(t, 4.0, aws.ToFloat64(first.SampleCount), 0)
	require.InDelta(t, 800.0, aws.ToFloat64(first.Sum), 0)
	require.InDelta(t, 200.0, aws.ToFloat64(first.Average), 0)
	require.Equal(t, types.StandardUnitMilliseconds, first.Unit)
	require.InDelta(t, 3.0, aws.ToFloat64(second.SampleCount), 0)
	require.InDelta(t, 70.0, aws.ToFloat64(second.Sum), 0)
	require.InDelta(t, 5.0, aws.ToFloat64(second.Minimum), 0)
	require.InDelta(t, 50.0, aws.ToFloat64(second.Maximum), 0)

	pct, err := e.client.GetMetricStatistics(ctx(t), &cloudwatch.GetMetricStatisticsInput{
		Namespace: aws.String("taskpipe"), MetricName: aws.String("Latency"), Dimensions: dims,
		StartTime: aws.Time(now.Add(-2 * time.Minute)), EndTime: aws.Time(now.Add(-time.Minute)), Period: aws.Int32(60),
		ExtendedStatistics: []string{"p50", "p99", "tm75"},
	})
	require.NoError(t, err)
	require.Len(t, pct.Datapoints, 1)
	require.Equal(t, map[string]float64{"p50": 200, "p99": 300, "tm75": 500.0 / 3}, pct.Datapoints[0].ExtendedStatistics)

	list, err := e.client.ListMetrics(ctx(t), &cloudwatch.ListMetricsInput{Namespace: aws.String("taskpipe"),
		Dimensions: []types.DimensionFilter{{Name: aws.String("Function")}}})
	require.NoError(t, err)
	require.Len(t, list.Metrics, 1)
	require.Equal(t, "Latency", aws.ToString(list.Metrics[0].MetricName))
	require.Equal(t, dims, list.Metrics[0].Dimensions)
}

func TestPutMetricDataValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	tests := []struct {
		name  string
		in    cloudwatch.PutMetricDataInput
		check func(*testing.T, error)
	}{
		{"AWS namespace", cloudwatch.PutMetricDataInput{Namespace: aws.String("AWS/SQS"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("m"), Value: aws.Float64(1)}}},
			func(t *testing.T, err error) {
				requireAPIError[*types.InvalidParameterValueException](t, err, "InvalidParameterValue", 400, "AWS/SQS")
			}},
		{"value and statistic set", cloudwatch.PutMetricDataInput{Namespace: aws.String("n"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("m"), Value: aws.Float64(1),
				StatisticValues: &types.StatisticSet{SampleCount: aws.Float64(1), Sum: aws.Float64(1), Minimum: aws.Float64(1), Maximum: aws.Float64(1)}}}},
			func(t *testing.T, err error) {
				requireAPIError[*types.InvalidParameterCombinationException](t, err, "InvalidParameterCombination", 400, "mutually exclusive")
			}},
		{"no value", cloudwatch.PutMetricDataInput{Namespace: aws.String("n"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("m")}}},
			func(t *testing.T, err error) {
				requireAPIError[*types.MissingRequiredParameterException](t, err, "MissingParameter", 400, "MetricData.member.1.Value")
			}},
		{"counts without matching values", cloudwatch.PutMetricDataInput{Namespace: aws.String("n"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("m"), Values: []float64{1, 2}, Counts: []float64{1}}}},
			func(t *testing.T, err error) {
				requireAPIError[*types.InvalidParameterValueException](t, err, "InvalidParameterValue", 400, "same size")
			}},
		{"timestamp three weeks old", cloudwatch.PutMetricDataInput{Namespace: aws.String("n"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("m"), Value: aws.Float64(1),
				Timestamp: aws.Time(time.Date(2026, 4, 15, 0, 0, 0, 0, time.UTC))}}},
			func(t *testing.T, err error) {
				requireAPIError[*types.InvalidParameterValueException](t, err, "InvalidParameterValue", 400, "two weeks")
			}},
		{"storage resolution 5", cloudwatch.PutMetricDataInput{Namespace: aws.String("n"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("m"), Value: aws.Float64(1), StorageResolution: aws.Int32(5)}}},
			func(t *testing.T, err error) {
				requireAPIError[*types.InvalidParameterValueException](t, err, "InvalidParameterValue", 400, "StorageResolution")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := e.client.PutMetricData(ctx(t), &tt.in)
			tt.check(t, err)
		})
	}
	// A rejected request stores nothing, not even its valid datums.
	_, err := e.client.PutMetricData(ctx(t), &cloudwatch.PutMetricDataInput{Namespace: aws.String("atomic"),
		MetricData: []types.MetricDatum{{MetricName: aws.String("ok"), Value: aws.Float64(1)}, {MetricName: aws.String("bad")}}})
	require.Error(t, err)
	list, err := e.client.ListMetrics(ctx(t), &cloudwatch.ListMetricsInput{Namespace: aws.String("atomic")})
	require.NoError(t, err)
	require.Empty(t, list.Metrics)
}

// TestPutMetricDataGzip sends a request big enough for the SDK's request
// compression (10 KiB by default), so the body arrives gzip-encoded.
func TestPutMetricDataGzip(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	var data []types.MetricDatum
	for i := range 300 {
		data = append(data, types.MetricDatum{MetricName: aws.String(fmt.Sprintf("metric-with-a-long-name-%04d", i)),
			Dimensions: []types.Dimension{{Name: aws.String("Function"), Value: aws.String("scraper")}}, Value: aws.Float64(float64(i))})
	}
	_, err := e.client.PutMetricData(ctx(t), &cloudwatch.PutMetricDataInput{Namespace: aws.String("bulk"), MetricData: data})
	require.NoError(t, err)
	e.mu.Lock()
	require.Equal(t, "gzip", e.encodings[len(e.encodings)-1])
	e.mu.Unlock()
	var names []string
	pages := cloudwatch.NewListMetricsPaginator(e.client, &cloudwatch.ListMetricsInput{Namespace: aws.String("bulk")})
	for pages.HasMorePages() {
		p, err := pages.NextPage(ctx(t))
		require.NoError(t, err)
		for _, m := range p.Metrics {
			names = append(names, aws.ToString(m.MetricName))
		}
	}
	require.Len(t, names, 300)
}

func TestDashboards(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	body := `{"widgets":[{"type":"metric","x":0,"y":0,"width":12,"height":6,"properties":{"metrics":[["AWS/SQS","ApproximateNumberOfMessagesVisible","QueueName","tasks-dlq"]],"region":"us-east-1"}}]}`
	put, err := e.client.PutDashboard(ctx(t), &cloudwatch.PutDashboardInput{DashboardName: aws.String("taskpipe"), DashboardBody: aws.String(body)})
	require.NoError(t, err)
	require.Empty(t, put.DashboardValidationMessages)
	got, err := e.client.GetDashboard(ctx(t), &cloudwatch.GetDashboardInput{DashboardName: aws.String("taskpipe")})
	require.NoError(t, err)
	require.Equal(t, body, aws.ToString(got.DashboardBody))
	require.Equal(t, "arn:aws:cloudwatch::000000000000:dashboard/taskpipe", aws.ToString(got.DashboardArn))
	list, err := e.client.ListDashboards(ctx(t), &cloudwatch.ListDashboardsInput{DashboardNamePrefix: aws.String("task")})
	require.NoError(t, err)
	require.Len(t, list.DashboardEntries, 1)
	require.Equal(t, int64(len(body)), aws.ToInt64(list.DashboardEntries[0].Size))
	require.Equal(t, e.clock.Now(), list.DashboardEntries[0].LastModified.UTC())

	for _, bad := range []struct{ body, path string }{
		{`not json`, ""},
		{`{"widgets":{}}`, "/widgets"},
		{`{"title":"no widgets"}`, ""},
		{`{"widgets":[{"type":"chart","properties":{}}]}`, "/widgets/0/type"},
		{`{"widgets":[{"type":"text"}]}`, "/widgets/0"},
	} {
		_, err := e.client.PutDashboard(ctx(t), &cloudwatch.PutDashboardInput{DashboardName: aws.String("bad"), DashboardBody: aws.String(bad.body)})
		requireAPIError[*types.DashboardInvalidInputError](t, err, "InvalidParameterInput", 400, "DashboardBody")
		var die *types.DashboardInvalidInputError
		require.ErrorAs(t, err, &die)
		require.NotEmpty(t, die.DashboardValidationMessages, bad.body)
		require.Equal(t, bad.path, aws.ToString(die.DashboardValidationMessages[0].DataPath), bad.body)
	}
	_, err = e.client.PutDashboard(ctx(t), &cloudwatch.PutDashboardInput{DashboardName: aws.String("has space"), DashboardBody: aws.String(body)})
	requireAPIError[*types.InvalidParameterValueException](t, err, "InvalidParameterValue", 400, "DashboardName")

	_, err = e.client.DeleteDashboards(ctx(t), &cloudwatch.DeleteDashboardsInput{DashboardNames: []string{"taskpipe"}})
	require.NoError(t, err)
	_, err = e.client.GetDashboard(ctx(t), &cloudwatch.GetDashboardInput{DashboardName: aws.String("taskpipe")})
	requireAPIError[*types.DashboardNotFoundError](t, err, "ResourceNotFound", 404, "taskpipe")
	_, err = e.client.DeleteDashboards(ctx(t), &cloudwatch.DeleteDashboardsInput{DashboardNames: []string{"taskpipe"}})
	requireAPIError[*types.DashboardNotFoundError](t, err, "ResourceNotFound", 404, "taskpipe")
}

func TestTags(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	_, err := e.client.PutMetricAlarm(ctx(t), dlqAlarm("tagged", "q"))
	require.NoError(t, err)
	arn := aws.String("arn:aws:cloudwatch:us-east-1:000000000000:alarm:tagged")
	_, err = e.client.TagResource(ctx(t), &cloudwatch.TagResourceInput{ResourceARN: arn, Tags: []types.Tag{
		{Key: aws.String("b"), Value: aws.String("2")}, {Key: aws.String("a"), Value: aws.String("1")}}})
	require.NoError(t, err)
	_, err = e.client.UntagResource(ctx(t), &cloudwatch.UntagResourceInput{ResourceARN: arn, TagKeys: []string{"b", "absent"}})
	require.NoError(t, err)
	out, err := e.client.ListTagsForResource(ctx(t), &cloudwatch.ListTagsForResourceInput{ResourceARN: arn})
	require.NoError(t, err)
	require.Equal(t, []types.Tag{{Key: aws.String("a"), Value: aws.String("1")}}, out.Tags)

	_, err = e.client.TagResource(ctx(t), &cloudwatch.TagResourceInput{
		ResourceARN: aws.String("arn:aws:cloudwatch:us-east-1:000000000000:alarm:ghost"),
		Tags:        []types.Tag{{Key: aws.String("a"), Value: aws.String("1")}}})
	requireAPIError[*types.ResourceNotFoundException](t, err, "ResourceNotFoundException", 404, "ghost")
	var rnf *types.ResourceNotFoundException
	require.ErrorAs(t, err, &rnf)
	require.Equal(t, "ghost", aws.ToString(rnf.ResourceId))
	require.Equal(t, "Alarm", aws.ToString(rnf.ResourceType))
}

func TestUnknownOperationAndMethod(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	_, err := e.client.GetMetricData(ctx(t), &cloudwatch.GetMetricDataInput{
		MetricDataQueries: []types.MetricDataQuery{{Id: aws.String("m1"), Expression: aws.String("1")}},
		StartTime:         aws.Time(e.clock.Now().Add(-time.Hour)), EndTime: aws.Time(e.clock.Now())})
	var ae smithy.APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "InvalidAction", ae.ErrorCode())
	require.Contains(t, ae.ErrorMessage(), "GetMetricData is not emulated")

	resp, err := http.Get(e.url + "/service/GraniteServiceVersion20100801/operation/DescribeAlarms")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	require.True(t, strings.HasPrefix(resp.Header.Get("X-Amzn-Query-Error"), "InvalidAction;"))
}
