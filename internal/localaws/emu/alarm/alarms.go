package alarm

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits and enums from the CloudWatch model (botocore
// data/cloudwatch/2010-08-01/service-2.json) and the PutMetricAlarm API
// reference.
const (
	maxDimensions   = 30
	maxActions      = 5
	maxAlarmTags    = 50
	maxBatchNames   = 100
	maxEvalSeconds  = 7 * 24 * 3600 // Period × EvaluationPeriods
	maxShortSeconds = 24 * 3600     // … when Period < 1 h
)

var standardUnits = []string{"Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes",
	"Gigabytes", "Terabytes", "Bits", "Kilobits", "Megabits", "Gigabits", "Terabits", "Percent", "Count",
	"Bytes/Second", "Kilobytes/Second", "Megabytes/Second", "Gigabytes/Second", "Terabytes/Second",
	"Bits/Second", "Kilobits/Second", "Megabits/Second", "Gigabits/Second", "Terabits/Second",
	"Count/Second", "None"}

var comparisonNames = []string{"GreaterThanOrEqualToThreshold", "GreaterThanThreshold", "LessThanThreshold",
	"LessThanOrEqualToThreshold", "LessThanLowerOrGreaterThanUpperThreshold", "LessThanLowerThreshold",
	"GreaterThanUpperThreshold"}

var stateValues = []string{StateOK, StateAlarm, StateInsufficientData}

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// enumErr is the framework validation error AWS answers for a value
// outside an enum, e.g. "1 validation error detected: Value 'Foo' at
// 'comparisonOperator' failed to satisfy constraint: Member must satisfy
// enum value set: [...]".
func enumErr(v, member string, set ...string) error {
	return validationErr("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]",
		v, member, strings.Join(set, ", "))
}

func requiredErr(member string) error {
	return validationErr("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", member)
}

func lengthErr(v, member string, lo, hi int) error {
	return validationErr("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length between %d and %d",
		v, member, lo, hi)
}

func checkLen(v, member string, lo, hi int) error {
	n := utf8.RuneCountInString(v)
	if n < lo || n > hi {
		return lengthErr(v, member, lo, hi)
	}
	return nil
}

func maxRecords(v *int32, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v < 1 || *v > 100 {
		return 0, validationErr("1 validation error detected: Value '%d' at 'maxRecords' failed to satisfy constraint: Member must have value between 1 and 100", *v)
	}
	return int(*v), nil
}

func checkAlarmTypes(types []string) error {
	for _, t := range types {
		if t != "MetricAlarm" && t != "CompositeAlarm" {
			return enumErr(t, "alarmTypes", "CompositeAlarm", "MetricAlarm")
		}
	}
	return nil
}

// checkDimensions validates a dimension list and returns it as a map.
func checkDimensions(ds []dimension, member string) (map[string]string, error) {
	if len(ds) > maxDimensions {
		return nil, validationErr("1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", member, maxDimensions)
	}
	out := make(map[string]string, len(ds))
	for i, d := range ds {
		if d.Name == nil {
			return nil, requiredErr(fmt.Sprintf("%s.%d.member.name", member, i+1))
		}
		if d.Value == nil {
			return nil, requiredErr(fmt.Sprintf("%s.%d.member.value", member, i+1))
		}
		if err := checkLen(*d.Name, fmt.Sprintf("%s.%d.member.name", member, i+1), 1, 255); err != nil {
			return nil, err
		}
		if err := checkLen(*d.Value, fmt.Sprintf("%s.%d.member.value", member, i+1), 1, 1024); err != nil {
			return nil, err
		}
		if _, dup := out[*d.Name]; dup {
			return nil, invalidValue("The dimension name %q is given more than once", *d.Name)
		}
		out[*d.Name] = *d.Value
	}
	return out, nil
}

func checkTags(tags []tag, member string, max int) (map[string]string, error) {
	if len(tags) > max {
		return nil, invalidValue("at most %d tags can be given, got %d", max, len(tags))
	}
	out := make(map[string]string, len(tags))
	for i, t := range tags {
		if t.Key == nil {
			return nil, requiredErr(fmt.Sprintf("%s.%d.member.key", member, i+1))
		}
		if t.Value == nil {
			return nil, requiredErr(fmt.Sprintf("%s.%d.member.value", member, i+1))
		}
		if err := checkLen(*t.Key, fmt.Sprintf("%s.%d.member.key", member, i+1), 1, 128); err != nil {
			return nil, err
		}
		if err := checkLen(*t.Value, fmt.Sprintf("%s.%d.member.value", member, i+1), 0, 256); err != nil {
			return nil, err
		}
		out[*t.Key] = *t.Value
	}
	return out, nil
}

func checkActions(actions []string, member string) error {
	if len(actions) > maxActions {
		return validationErr("1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", member, maxActions)
	}
	for i, a := range actions {
		if err := checkLen(a, fmt.Sprintf("%s.%d.member", member, i+1), 1, 1024); err != nil {
			return err
		}
		if !strings.HasPrefix(a, "arn:") || strings.Count(a, ":") < 5 {
			return validationErr("Invalid arn syntax: %s", a)
		}
	}
	return nil
}

// validPeriod: "Valid values are 10, 20, 30, and any multiple of 60"
// (PutMetricAlarm API reference, Period).
func validPeriod(p int32) bool {
	return p == 10 || p == 20 || p == 30 || (p >= 60 && p%60 == 0)
}

// newAlarm validates a PutMetricAlarm request and builds the alarm's
// configuration.
func (s *Service) newAlarm(in *putMetricAlarmInput) (*alarmDef, error) {
	if in.AlarmName == nil {
		return nil, requiredErr("alarmName")
	}
	if err := checkLen(*in.AlarmName, "alarmName", 1, 255); err != nil {
		return nil, err
	}
	if in.AlarmDescription != nil {
		if err := checkLen(*in.AlarmDescription, "alarmDescription", 0, 1024); err != nil {
			return nil, err
		}
	}
	for _, l := range []struct {
		member string
		list   []string
	}{{"oKActions", in.OKActions}, {"alarmActions", in.AlarmActions}, {"insufficientDataActions", in.InsufficientDataActions}} {
		if err := checkActions(l.list, l.member); err != nil {
			return nil, err
		}
	}
	switch {
	case in.EvaluationCriteria != nil || in.EvaluationInterval != nil:
		return nil, notSupported("a PromQL alarm (EvaluationCriteria, EvaluationInterval)")
	case in.WarmUpConfiguration != nil:
		return nil, notSupported("an alarm warm-up period (WarmUpConfiguration)")
	case len(in.Metrics) > 0:
		return nil, notSupported("a metric math alarm (Metrics); give MetricName, Namespace, Statistic and Period")
	case in.ThresholdMetricID != nil:
		return nil, notSupported("an anomaly detection alarm (ThresholdMetricId)")
	}
	if in.MetricName == nil {
		return nil, validationErr("MetricName is required for an alarm on a single metric")
	}
	if in.Namespace == nil {
		return nil, validationErr("Namespace is required for an alarm on a single metric")
	}
	if err := checkLen(*in.MetricName, "metricName", 1, 255); err != nil {
		return nil, err
	}
	if err := checkNamespace(*in.Namespace); err != nil {
		return nil, err
	}
	a := &alarmDef{
		name: *in.AlarmName, namespace: *in.Namespace, metricName: *in.MetricName,
		actionsEnabled: in.ActionsEnabled == nil || *in.ActionsEnabled,
		okActions:      nonNil(in.OKActions), alarmActions: nonNil(in.AlarmActions), insufficient: nonNil(in.InsufficientDataActions),
		dimList: in.Dimensions,
	}
	if in.AlarmDescription != nil {
		a.description = *in.AlarmDescription
	}
	switch {
	case in.Statistic != nil && in.ExtendedStatistic != nil:
		return nil, invalidCombination("Statistic and ExtendedStatistic are mutually exclusive: give exactly one")
	case in.Statistic == nil && in.ExtendedStatistic == nil:
		return nil, invalidCombination("Exactly one of Statistic and ExtendedStatistic must be given for an alarm on a single metric")
	case in.Statistic != nil:
		if !isSimpleStat(*in.Statistic) {
			return nil, enumErr(*in.Statistic, "statistic", simpleStats...)
		}
		a.statistic = *in.Statistic
	default:
		es, err := parseExtendedStatistic(*in.ExtendedStatistic)
		if err != nil {
			return nil, invalidValue("%s", err.Error())
		}
		a.extended = &es
	}
	dims, err := checkDimensions(in.Dimensions, "dimensions")
	if err != nil {
		return nil, err
	}
	a.dims = dims
	if in.Period == nil {
		return nil, validationErr("Period is required for an alarm on a single metric")
	}
	if *in.Period < 1 || !validPeriod(*in.Period) {
		return nil, validationErr("Period (%d) must be 10, 20, 30 or a multiple of 60", *in.Period)
	}
	a.period = time.Duration(*in.Period) * time.Second
	if in.Unit != nil {
		if !oneOf(*in.Unit, standardUnits) {
			return nil, enumErr(*in.Unit, "unit", standardUnits...)
		}
		a.unit = *in.Unit
	}
	if in.EvaluationPeriods == nil {
		return nil, requiredErr("evaluationPeriods")
	}
	if *in.EvaluationPeriods < 1 {
		return nil, validationErr("1 validation error detected: Value '%d' at 'evaluationPeriods' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.EvaluationPeriods)
	}
	a.evalPeriods = int(*in.EvaluationPeriods)
	total := int64(*in.Period) * int64(*in.EvaluationPeriods)
	if total > maxEvalSeconds {
		return nil, validationErr("Period (%d) multiplied by EvaluationPeriods (%d) must not exceed %d seconds (7 days)",
			*in.Period, *in.EvaluationPeriods, maxEvalSeconds)
	}
	if *in.Period < 3600 && total > maxShortSeconds {
		return nil, validationErr("Period (%d) multiplied by EvaluationPeriods (%d) must not exceed %d seconds (1 day) for periods under an hour",
			*in.Period, *in.EvaluationPeriods, maxShortSeconds)
	}
	a.datapointsToAlarm = a.evalPeriods
	if in.DatapointsToAlarm != nil {
		if *in.DatapointsToAlarm < 1 {
			return nil, validationErr("1 validation error detected: Value '%d' at 'datapointsToAlarm' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.DatapointsToAlarm)
		}
		if *in.DatapointsToAlarm > *in.EvaluationPeriods {
			return nil, validationErr("DatapointsToAlarm (%d) must be less than or equal to EvaluationPeriods (%d)",
				*in.DatapointsToAlarm, *in.EvaluationPeriods)
		}
		a.datapointsToAlarm = int(*in.DatapointsToAlarm)
	}
	if in.ComparisonOperator == nil {
		return nil, requiredErr("comparisonOperator")
	}
	if !oneOf(*in.ComparisonOperator, comparisonNames) {
		return nil, enumErr(*in.ComparisonOperator, "comparisonOperator", comparisonNames...)
	}
	if bandComparisons[*in.ComparisonOperator] {
		return nil, notSupported("the anomaly detection operator " + *in.ComparisonOperator)
	}
	a.comparison = *in.ComparisonOperator
	if in.Threshold == nil {
		return nil, validationErr("Threshold is required for an alarm with a static threshold")
	}
	if !finite(*in.Threshold) {
		return nil, invalidValue("Threshold must be a finite number")
	}
	a.threshold = *in.Threshold
	if in.TreatMissingData != nil {
		switch *in.TreatMissingData {
		case missingMissing, missingIgnore, missingBreaching, missingNotBreaching:
		default:
			return nil, validationErr("TreatMissingData %q is not valid: use breaching, notBreaching, ignore or missing", *in.TreatMissingData)
		}
		a.treatMissing = *in.TreatMissingData
	}
	if in.EvaluateLowSampleCountPercentile != nil {
		switch *in.EvaluateLowSampleCountPercentile {
		case "evaluate", "ignore":
		default:
			return nil, validationErr("EvaluateLowSampleCountPercentile %q is not valid: use evaluate or ignore", *in.EvaluateLowSampleCountPercentile)
		}
		a.evalLowSample = *in.EvaluateLowSampleCountPercentile
	}
	tags, err := checkTags(in.Tags, "tags", maxAlarmTags)
	if err != nil {
		return nil, err
	}
	a.tags = tags
	return a, nil
}

// checkNamespace: 1–255 characters, pattern [^:].* (the model's Namespace shape).
func checkNamespace(ns string) error {
	if err := checkLen(ns, "namespace", 1, 255); err != nil {
		return err
	}
	if strings.HasPrefix(ns, ":") {
		return validationErr("1 validation error detected: Value '%s' at 'namespace' failed to satisfy constraint: Member must satisfy regular expression pattern: [^:].*", ns)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *Service) opPutMetricAlarm(c *call) (any, error) {
	var in putMetricAlarmInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	a, err := s.newAlarm(&in)
	if err != nil {
		return nil, err
	}
	now := epochMillis(s.opts.Now())
	a.configUpdated = now
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.alarms[a.name]
	kind := "Create"
	if old != nil {
		// "When you update an existing alarm, its state is left unchanged,
		// but the update completely overwrites the previous configuration"
		// and tags given on update are ignored (PutMetricAlarm API reference).
		kind = "Update"
		a.state, a.reason, a.reasonData = old.state, old.reason, old.reasonData
		a.stateUpdated, a.stateTransitioned = old.stateUpdated, old.stateTransitioned
		a.tags = old.tags
	} else {
		a.state, a.reason = StateInsufficientData, "Unchecked: Initial alarm creation"
		a.stateUpdated, a.stateTransitioned = now, now
	}
	s.alarms[a.name] = a
	verb := map[string]string{"Create": "created", "Update": "updated"}[kind]
	s.addHistoryLocked(historyEntry{alarm: a.name, t: now, kind: historyConfig,
		summary: fmt.Sprintf("Alarm %q %s", a.name, verb),
		data:    mustJSON(map[string]any{"version": "1.0", "type": kind})})
	return empty{}, nil
}

func (s *Service) describe(a *alarmDef) metricAlarm {
	out := metricAlarm{
		AlarmName: ptr(a.name), AlarmArn: ptr(s.alarmARN(a.name)),
		AlarmConfigurationUpdatedTimestamp: ts(a.configUpdated), ActionsEnabled: ptr(a.actionsEnabled),
		OKActions: a.okActions, AlarmActions: a.alarmActions, InsufficientDataActions: a.insufficient,
		StateValue: ptr(a.state), StateReason: ptr(a.reason), StateUpdatedTimestamp: ts(a.stateUpdated),
		StateTransitionedTimestamp: ts(a.stateTransitioned),
		MetricName:                 ptr(a.metricName), Namespace: ptr(a.namespace),
		Dimensions: nonNilDims(a.dimList), Period: ptr(int32(a.period / time.Second)),
		EvaluationPeriods: ptr(int32(a.evalPeriods)), DatapointsToAlarm: ptr(int32(a.datapointsToAlarm)),
		Threshold: ptr(a.threshold), ComparisonOperator: ptr(a.comparison),
	}
	if a.description != "" {
		out.AlarmDescription = ptr(a.description)
	}
	if a.reasonData != "" {
		out.StateReasonData = ptr(a.reasonData)
	}
	if a.statistic != "" {
		out.Statistic = ptr(a.statistic)
	}
	if a.extended != nil {
		out.ExtendedStatistic = ptr(a.extended.sourceText)
	}
	if a.unit != "" {
		out.Unit = ptr(a.unit)
	}
	if a.treatMissing != "" {
		out.TreatMissingData = ptr(a.treatMissing)
	}
	if a.evalLowSample != "" {
		out.EvaluateLowSampleCountPercentile = ptr(a.evalLowSample)
	}
	return out
}

func nonNilDims(d []dimension) []dimension {
	if d == nil {
		return []dimension{}
	}
	return d
}

func (s *Service) opDescribeAlarms(c *call) (any, error) {
	var in describeAlarmsInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if len(in.AlarmNames) > maxBatchNames {
		return nil, validationErr("at most %d AlarmNames can be given", maxBatchNames)
	}
	if len(in.AlarmNames) > 0 && in.AlarmNamePrefix != nil {
		return nil, invalidCombination("AlarmNames and AlarmNamePrefix cannot be given together")
	}
	if in.StateValue != nil && !oneOf(*in.StateValue, stateValues) {
		return nil, enumErr(*in.StateValue, "stateValue", stateValues...)
	}
	if err := checkAlarmTypes(in.AlarmTypes); err != nil {
		return nil, err
	}
	limit, err := maxRecords(in.MaxRecords, 50)
	if err != nil {
		return nil, err
	}
	after := ""
	if in.NextToken != nil && *in.NextToken != "" {
		after, err = decodeNameToken(*in.NextToken)
		if err != nil {
			return nil, err
		}
	}
	out := describeAlarmsOutput{CompositeAlarms: []struct{}{}, MetricAlarms: []metricAlarm{}}
	// "If you omit this parameter, only metric alarms are returned"
	// (DescribeAlarms AlarmTypes); ChildrenOf/ParentsOfAlarmName concern
	// composite alarms, which the local cloud does not have.
	wantMetric := len(in.AlarmTypes) == 0 || oneOf("MetricAlarm", in.AlarmTypes)
	if !wantMetric || in.ChildrenOfAlarmName != nil || in.ParentsOfAlarmName != nil {
		return out, nil
	}
	names := map[string]bool{}
	for _, n := range in.AlarmNames {
		names[n] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var matched []*alarmDef
	for _, a := range s.alarms {
		if len(names) > 0 && !names[a.name] ||
			in.AlarmNamePrefix != nil && !strings.HasPrefix(a.name, *in.AlarmNamePrefix) ||
			in.StateValue != nil && a.state != *in.StateValue ||
			in.ActionPrefix != nil && !hasActionPrefix(a, *in.ActionPrefix) ||
			after != "" && a.name <= after {
			continue
		}
		matched = append(matched, a)
	}
	sort.Slice(matched, func(i, j int) bool { return matched[i].name < matched[j].name })
	if len(matched) > limit {
		matched = matched[:limit]
		out.NextToken = ptr(encodeNameToken(matched[limit-1].name))
	}
	for _, a := range matched {
		out.MetricAlarms = append(out.MetricAlarms, s.describe(a))
	}
	return out, nil
}

func hasActionPrefix(a *alarmDef, prefix string) bool {
	for _, list := range [][]string{a.okActions, a.alarmActions, a.insufficient} {
		for _, act := range list {
			if strings.HasPrefix(act, prefix) {
				return true
			}
		}
	}
	return false
}

func encodeNameToken(name string) string {
	return "n:" + encodeB64(name)
}

func decodeNameToken(tok string) (string, error) {
	rest, ok := strings.CutPrefix(tok, "n:")
	if !ok {
		return "", invalidNextToken()
	}
	name, err := decodeB64(rest)
	if err != nil || name == "" {
		return "", invalidNextToken()
	}
	return name, nil
}

func (s *Service) opDescribeAlarmsForMetric(c *call) (any, error) {
	var in describeAlarmsForMetricInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.MetricName == nil {
		return nil, requiredErr("metricName")
	}
	if in.Namespace == nil {
		return nil, requiredErr("namespace")
	}
	dims, err := checkDimensions(in.Dimensions, "dimensions")
	if err != nil {
		return nil, err
	}
	_, canon := canonicalDims(dims)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := describeAlarmsForMetricOutput{MetricAlarms: []metricAlarm{}}
	var matched []*alarmDef
	for _, a := range s.alarms {
		if a.namespace != *in.Namespace || a.metricName != *in.MetricName {
			continue
		}
		if _, ac := canonicalDims(a.dims); in.Dimensions != nil && ac != canon {
			continue
		}
		if in.Statistic != nil && a.statistic != *in.Statistic ||
			in.ExtendedStatistic != nil && (a.extended == nil || a.extended.sourceText != *in.ExtendedStatistic) ||
			in.Period != nil && int32(a.period/time.Second) != *in.Period ||
			in.Unit != nil && a.unit != *in.Unit {
			continue
		}
		matched = append(matched, a)
	}
	sort.Slice(matched, func(i, j int) bool { return matched[i].name < matched[j].name })
	for _, a := range matched {
		out.MetricAlarms = append(out.MetricAlarms, s.describe(a))
	}
	return out, nil
}

// opDeleteAlarms deletes the named alarms. "If you specify any incorrect
// alarm names, the alarms you specify with correct names are still
// deleted" (DeleteAlarms API reference): unknown names are skipped.
func (s *Service) opDeleteAlarms(c *call) (any, error) {
	var in alarmNamesInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.AlarmNames == nil {
		return nil, requiredErr("alarmNames")
	}
	if len(in.AlarmNames) > maxBatchNames {
		return nil, validationErr("at most %d AlarmNames can be given", maxBatchNames)
	}
	now := epochMillis(s.opts.Now())
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range in.AlarmNames {
		if _, ok := s.alarms[n]; !ok {
			continue
		}
		delete(s.alarms, n)
		s.addHistoryLocked(historyEntry{alarm: n, t: now, kind: historyConfig,
			summary: fmt.Sprintf("Alarm %q deleted", n), data: mustJSON(map[string]any{"version": "1.0", "type": "Delete"})})
	}
	return empty{}, nil
}

func (s *Service) setActions(c *call, enabled bool) (any, error) {
	var in alarmNamesInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.AlarmNames == nil {
		return nil, requiredErr("alarmNames")
	}
	if len(in.AlarmNames) > maxBatchNames {
		return nil, validationErr("at most %d AlarmNames can be given", maxBatchNames)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range in.AlarmNames {
		if a := s.alarms[n]; a != nil {
			a.actionsEnabled = enabled
		}
	}
	return empty{}, nil
}

func (s *Service) opEnableAlarmActions(c *call) (any, error)  { return s.setActions(c, true) }
func (s *Service) opDisableAlarmActions(c *call) (any, error) { return s.setActions(c, false) }

// opSetAlarmState sets an alarm's state until the next evaluation says
// otherwise ("Metric alarms return to their actual state quickly",
// SetAlarmState API reference).
func (s *Service) opSetAlarmState(c *call) (any, error) {
	var in setAlarmStateInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	switch {
	case in.AlarmName == nil:
		return nil, requiredErr("alarmName")
	case in.StateValue == nil:
		return nil, requiredErr("stateValue")
	case in.StateReason == nil:
		return nil, requiredErr("stateReason")
	}
	if !oneOf(*in.StateValue, stateValues) {
		return nil, enumErr(*in.StateValue, "stateValue", stateValues...)
	}
	if err := checkLen(*in.StateReason, "stateReason", 0, 1023); err != nil {
		return nil, err
	}
	data := ""
	if in.StateReasonData != nil {
		if err := checkLen(*in.StateReasonData, "stateReasonData", 0, 4000); err != nil {
			return nil, err
		}
		if !json.Valid([]byte(*in.StateReasonData)) {
			return nil, invalidFormat("StateReasonData is not valid JSON")
		}
		data = *in.StateReasonData
	}
	now := epochMillis(s.opts.Now())
	s.mu.Lock()
	a := s.alarms[*in.AlarmName]
	if a == nil {
		s.mu.Unlock()
		return nil, alarmNotFound("Alarm %s does not exist", *in.AlarmName)
	}
	var lines []string
	if a.state != *in.StateValue {
		lines = append(lines, s.transitionLocked(a, now, *in.StateValue, *in.StateReason, data))
	} else {
		a.reason, a.reasonData, a.stateUpdated = *in.StateReason, data, now
	}
	s.mu.Unlock()
	s.printLines(lines)
	return empty{}, nil
}
