package alarm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Wire shapes of the CloudWatch operations the local cloud serves. Field
// names are the Smithy member names (botocore data/cloudwatch/2010-08-01
// service-2.json), so one set of structs serves both protocols: the CBOR
// codec (cbor.go) and encoding/json (AWS JSON 1.0) both key on the json tag.
// Optional members are pointers or nil slices so that "absent" and "zero"
// stay distinct, as the validation rules need.

// timestamp is a Smithy timestamp. Both protocols send epoch seconds: CBOR
// as tag 1 around an integer or float, JSON as a bare number (the AWS JSON
// protocols' default timestamp format).
type timestamp struct{ time.Time }

func ts(t time.Time) *timestamp { return &timestamp{t} }

// MarshalJSON writes epoch seconds with millisecond precision.
func (t timestamp) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(float64(t.UnixMilli())/1e3, 'f', -1, 64)), nil
}

// UnmarshalJSON reads epoch seconds; an RFC 3339 string is accepted too,
// because some clients send one.
func (t *timestamp) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return fmt.Errorf("timestamp %q is neither epoch seconds nor RFC 3339", s)
		}
		t.Time = v
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("timestamp %s is not epoch seconds", b)
	}
	t.Time = time.UnixMilli(int64(math.Round(f * 1e3)))
	return nil
}

type dimension struct {
	Name  *string `json:"Name,omitempty"`
	Value *string `json:"Value,omitempty"`
}

type dimensionFilter struct {
	Name  *string `json:"Name,omitempty"`
	Value *string `json:"Value,omitempty"`
}

type tag struct {
	Key   *string `json:"Key,omitempty"`
	Value *string `json:"Value,omitempty"`
}

type metric struct {
	Namespace  *string     `json:"Namespace,omitempty"`
	MetricName *string     `json:"MetricName,omitempty"`
	Dimensions []dimension `json:"Dimensions,omitempty"`
}

type metricStat struct {
	Metric *metric `json:"Metric,omitempty"`
	Period *int32  `json:"Period,omitempty"`
	Stat   *string `json:"Stat,omitempty"`
	Unit   *string `json:"Unit,omitempty"`
}

type metricDataQuery struct {
	ID         *string     `json:"Id,omitempty"`
	MetricStat *metricStat `json:"MetricStat,omitempty"`
	Expression *string     `json:"Expression,omitempty"`
	Label      *string     `json:"Label,omitempty"`
	ReturnData *bool       `json:"ReturnData,omitempty"`
	Period     *int32      `json:"Period,omitempty"`
	AccountID  *string     `json:"AccountId,omitempty"`
}

type putMetricAlarmInput struct {
	AlarmName                        *string           `json:"AlarmName,omitempty"`
	AlarmDescription                 *string           `json:"AlarmDescription,omitempty"`
	ActionsEnabled                   *bool             `json:"ActionsEnabled,omitempty"`
	OKActions                        []string          `json:"OKActions,omitempty"`
	AlarmActions                     []string          `json:"AlarmActions,omitempty"`
	InsufficientDataActions          []string          `json:"InsufficientDataActions,omitempty"`
	MetricName                       *string           `json:"MetricName,omitempty"`
	Namespace                        *string           `json:"Namespace,omitempty"`
	Statistic                        *string           `json:"Statistic,omitempty"`
	ExtendedStatistic                *string           `json:"ExtendedStatistic,omitempty"`
	Dimensions                       []dimension       `json:"Dimensions,omitempty"`
	Period                           *int32            `json:"Period,omitempty"`
	Unit                             *string           `json:"Unit,omitempty"`
	EvaluationPeriods                *int32            `json:"EvaluationPeriods,omitempty"`
	DatapointsToAlarm                *int32            `json:"DatapointsToAlarm,omitempty"`
	Threshold                        *float64          `json:"Threshold,omitempty"`
	ComparisonOperator               *string           `json:"ComparisonOperator,omitempty"`
	TreatMissingData                 *string           `json:"TreatMissingData,omitempty"`
	EvaluateLowSampleCountPercentile *string           `json:"EvaluateLowSampleCountPercentile,omitempty"`
	Metrics                          []metricDataQuery `json:"Metrics,omitempty"`
	Tags                             []tag             `json:"Tags,omitempty"`
	ThresholdMetricID                *string           `json:"ThresholdMetricId,omitempty"`
	// Present only so that a request using them is refused clearly rather
	// than silently treated as a plain metric alarm.
	EvaluationCriteria  any    `json:"EvaluationCriteria,omitempty"`
	EvaluationInterval  *int32 `json:"EvaluationInterval,omitempty"`
	WarmUpConfiguration any    `json:"WarmUpConfiguration,omitempty"`
}

// metricAlarm is the MetricAlarm output shape.
type metricAlarm struct {
	AlarmName                          *string           `json:"AlarmName,omitempty"`
	AlarmArn                           *string           `json:"AlarmArn,omitempty"`
	AlarmDescription                   *string           `json:"AlarmDescription,omitempty"`
	AlarmConfigurationUpdatedTimestamp *timestamp        `json:"AlarmConfigurationUpdatedTimestamp,omitempty"`
	ActionsEnabled                     *bool             `json:"ActionsEnabled,omitempty"`
	OKActions                          []string          `json:"OKActions"`
	AlarmActions                       []string          `json:"AlarmActions"`
	InsufficientDataActions            []string          `json:"InsufficientDataActions"`
	StateValue                         *string           `json:"StateValue,omitempty"`
	StateReason                        *string           `json:"StateReason,omitempty"`
	StateReasonData                    *string           `json:"StateReasonData,omitempty"`
	StateUpdatedTimestamp              *timestamp        `json:"StateUpdatedTimestamp,omitempty"`
	MetricName                         *string           `json:"MetricName,omitempty"`
	Namespace                          *string           `json:"Namespace,omitempty"`
	Statistic                          *string           `json:"Statistic,omitempty"`
	ExtendedStatistic                  *string           `json:"ExtendedStatistic,omitempty"`
	Dimensions                         []dimension       `json:"Dimensions"`
	Period                             *int32            `json:"Period,omitempty"`
	Unit                               *string           `json:"Unit,omitempty"`
	EvaluationPeriods                  *int32            `json:"EvaluationPeriods,omitempty"`
	DatapointsToAlarm                  *int32            `json:"DatapointsToAlarm,omitempty"`
	Threshold                          *float64          `json:"Threshold,omitempty"`
	ComparisonOperator                 *string           `json:"ComparisonOperator,omitempty"`
	TreatMissingData                   *string           `json:"TreatMissingData,omitempty"`
	EvaluateLowSampleCountPercentile   *string           `json:"EvaluateLowSampleCountPercentile,omitempty"`
	Metrics                            []metricDataQuery `json:"Metrics,omitempty"`
	StateTransitionedTimestamp         *timestamp        `json:"StateTransitionedTimestamp,omitempty"`
}

type describeAlarmsInput struct {
	AlarmNames          []string `json:"AlarmNames,omitempty"`
	AlarmNamePrefix     *string  `json:"AlarmNamePrefix,omitempty"`
	AlarmTypes          []string `json:"AlarmTypes,omitempty"`
	ChildrenOfAlarmName *string  `json:"ChildrenOfAlarmName,omitempty"`
	ParentsOfAlarmName  *string  `json:"ParentsOfAlarmName,omitempty"`
	StateValue          *string  `json:"StateValue,omitempty"`
	ActionPrefix        *string  `json:"ActionPrefix,omitempty"`
	MaxRecords          *int32   `json:"MaxRecords,omitempty"`
	NextToken           *string  `json:"NextToken,omitempty"`
}

type describeAlarmsOutput struct {
	CompositeAlarms []struct{}    `json:"CompositeAlarms"`
	MetricAlarms    []metricAlarm `json:"MetricAlarms"`
	NextToken       *string       `json:"NextToken,omitempty"`
}

type describeAlarmsForMetricInput struct {
	MetricName        *string     `json:"MetricName,omitempty"`
	Namespace         *string     `json:"Namespace,omitempty"`
	Statistic         *string     `json:"Statistic,omitempty"`
	ExtendedStatistic *string     `json:"ExtendedStatistic,omitempty"`
	Dimensions        []dimension `json:"Dimensions,omitempty"`
	Period            *int32      `json:"Period,omitempty"`
	Unit              *string     `json:"Unit,omitempty"`
}

type describeAlarmsForMetricOutput struct {
	MetricAlarms []metricAlarm `json:"MetricAlarms"`
}

type alarmNamesInput struct {
	AlarmNames []string `json:"AlarmNames,omitempty"`
}

type setAlarmStateInput struct {
	AlarmName       *string `json:"AlarmName,omitempty"`
	StateValue      *string `json:"StateValue,omitempty"`
	StateReason     *string `json:"StateReason,omitempty"`
	StateReasonData *string `json:"StateReasonData,omitempty"`
}

type describeAlarmHistoryInput struct {
	AlarmName       *string    `json:"AlarmName,omitempty"`
	AlarmTypes      []string   `json:"AlarmTypes,omitempty"`
	HistoryItemType *string    `json:"HistoryItemType,omitempty"`
	StartDate       *timestamp `json:"StartDate,omitempty"`
	EndDate         *timestamp `json:"EndDate,omitempty"`
	MaxRecords      *int32     `json:"MaxRecords,omitempty"`
	NextToken       *string    `json:"NextToken,omitempty"`
	ScanBy          *string    `json:"ScanBy,omitempty"`
}

type alarmHistoryItem struct {
	AlarmName       *string    `json:"AlarmName,omitempty"`
	AlarmType       *string    `json:"AlarmType,omitempty"`
	Timestamp       *timestamp `json:"Timestamp,omitempty"`
	HistoryItemType *string    `json:"HistoryItemType,omitempty"`
	HistorySummary  *string    `json:"HistorySummary,omitempty"`
	HistoryData     *string    `json:"HistoryData,omitempty"`
}

type describeAlarmHistoryOutput struct {
	AlarmHistoryItems []alarmHistoryItem `json:"AlarmHistoryItems"`
	NextToken         *string            `json:"NextToken,omitempty"`
}

type statisticSet struct {
	SampleCount *float64 `json:"SampleCount,omitempty"`
	Sum         *float64 `json:"Sum,omitempty"`
	Minimum     *float64 `json:"Minimum,omitempty"`
	Maximum     *float64 `json:"Maximum,omitempty"`
}

type metricDatum struct {
	MetricName        *string       `json:"MetricName,omitempty"`
	Dimensions        []dimension   `json:"Dimensions,omitempty"`
	Timestamp         *timestamp    `json:"Timestamp,omitempty"`
	Value             *float64      `json:"Value,omitempty"`
	StatisticValues   *statisticSet `json:"StatisticValues,omitempty"`
	Values            []float64     `json:"Values,omitempty"`
	Counts            []float64     `json:"Counts,omitempty"`
	Unit              *string       `json:"Unit,omitempty"`
	StorageResolution *int32        `json:"StorageResolution,omitempty"`
}

type entityMetricData struct {
	Entity     any           `json:"Entity,omitempty"`
	MetricData []metricDatum `json:"MetricData,omitempty"`
}

type putMetricDataInput struct {
	Namespace              *string            `json:"Namespace,omitempty"`
	MetricData             []metricDatum      `json:"MetricData,omitempty"`
	EntityMetricData       []entityMetricData `json:"EntityMetricData,omitempty"`
	StrictEntityValidation *bool              `json:"StrictEntityValidation,omitempty"`
}

type getMetricStatisticsInput struct {
	Namespace          *string     `json:"Namespace,omitempty"`
	MetricName         *string     `json:"MetricName,omitempty"`
	Dimensions         []dimension `json:"Dimensions,omitempty"`
	StartTime          *timestamp  `json:"StartTime,omitempty"`
	EndTime            *timestamp  `json:"EndTime,omitempty"`
	Period             *int32      `json:"Period,omitempty"`
	Statistics         []string    `json:"Statistics,omitempty"`
	ExtendedStatistics []string    `json:"ExtendedStatistics,omitempty"`
	Unit               *string     `json:"Unit,omitempty"`
}

type datapoint struct {
	Timestamp          *timestamp         `json:"Timestamp,omitempty"`
	SampleCount        *float64           `json:"SampleCount,omitempty"`
	Average            *float64           `json:"Average,omitempty"`
	Sum                *float64           `json:"Sum,omitempty"`
	Minimum            *float64           `json:"Minimum,omitempty"`
	Maximum            *float64           `json:"Maximum,omitempty"`
	Unit               *string            `json:"Unit,omitempty"`
	ExtendedStatistics map[string]float64 `json:"ExtendedStatistics,omitempty"`
}

type getMetricStatisticsOutput struct {
	Label      *string     `json:"Label,omitempty"`
	Datapoints []datapoint `json:"Datapoints"`
}

type listMetricsInput struct {
	Namespace             *string           `json:"Namespace,omitempty"`
	MetricName            *string           `json:"MetricName,omitempty"`
	Dimensions            []dimensionFilter `json:"Dimensions,omitempty"`
	NextToken             *string           `json:"NextToken,omitempty"`
	RecentlyActive        *string           `json:"RecentlyActive,omitempty"`
	IncludeLinkedAccounts *bool             `json:"IncludeLinkedAccounts,omitempty"`
	OwningAccount         *string           `json:"OwningAccount,omitempty"`
}

type listMetricsOutput struct {
	Metrics   []metric `json:"Metrics"`
	NextToken *string  `json:"NextToken,omitempty"`
}

type tagResourceInput struct {
	ResourceARN *string `json:"ResourceARN,omitempty"`
	Tags        []tag   `json:"Tags,omitempty"`
}

type untagResourceInput struct {
	ResourceARN *string  `json:"ResourceARN,omitempty"`
	TagKeys     []string `json:"TagKeys,omitempty"`
}

type listTagsForResourceInput struct {
	ResourceARN *string `json:"ResourceARN,omitempty"`
}

type listTagsForResourceOutput struct {
	Tags []tag `json:"Tags"`
}

type putDashboardInput struct {
	DashboardName *string `json:"DashboardName,omitempty"`
	DashboardBody *string `json:"DashboardBody,omitempty"`
	Tags          []tag   `json:"Tags,omitempty"`
}

type dashboardValidationMessage struct {
	DataPath *string `json:"DataPath,omitempty"`
	Message  *string `json:"Message,omitempty"`
}

type putDashboardOutput struct {
	DashboardValidationMessages []dashboardValidationMessage `json:"DashboardValidationMessages"`
}

type getDashboardInput struct {
	DashboardName *string `json:"DashboardName,omitempty"`
}

type getDashboardOutput struct {
	DashboardArn  *string `json:"DashboardArn,omitempty"`
	DashboardBody *string `json:"DashboardBody,omitempty"`
	DashboardName *string `json:"DashboardName,omitempty"`
}

type deleteDashboardsInput struct {
	DashboardNames []string `json:"DashboardNames,omitempty"`
}

type listDashboardsInput struct {
	DashboardNamePrefix *string `json:"DashboardNamePrefix,omitempty"`
	NextToken           *string `json:"NextToken,omitempty"`
}

type dashboardEntry struct {
	DashboardName *string    `json:"DashboardName,omitempty"`
	DashboardArn  *string    `json:"DashboardArn,omitempty"`
	LastModified  *timestamp `json:"LastModified,omitempty"`
	Size          *int64     `json:"Size,omitempty"`
}

type listDashboardsOutput struct {
	DashboardEntries []dashboardEntry `json:"DashboardEntries"`
	NextToken        *string          `json:"NextToken,omitempty"`
}

// empty is the output of operations whose output is Smithy's Unit.
type empty struct{}
