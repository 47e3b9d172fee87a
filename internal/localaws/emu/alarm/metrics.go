package alarm

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// PutMetricData limits (PutMetricData API reference): 1000 metrics per
// request, 150 values per Values array, timestamps up to two weeks in the
// past and two hours in the future, StorageResolution 1 or 60.
const (
	maxDatums       = 1000
	maxValues       = 150
	maxPast         = 14 * 24 * time.Hour
	maxFuture       = 2 * time.Hour
	maxStatPoints   = 1440 // GetMetricStatistics datapoints per call
	listMetricsPage = 500
)

type pendingPoint struct {
	name string
	dims map[string]string
	p    point
}

func (s *Service) opPutMetricData(c *call) (any, error) {
	var in putMetricDataInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.Namespace == nil {
		return nil, missingParam("The parameter Namespace is required.")
	}
	if err := checkNamespace(*in.Namespace); err != nil {
		return nil, err
	}
	// Service namespaces are CloudWatch's own ("You cannot specify a
	// namespace that begins with AWS/", PutMetricData Namespace).
	if strings.HasPrefix(*in.Namespace, "AWS/") {
		return nil, invalidValue("The value %s for parameter Namespace is invalid: namespaces starting with AWS/ are reserved for AWS services.", *in.Namespace)
	}
	datums := append([]metricDatum(nil), in.MetricData...)
	for _, e := range in.EntityMetricData {
		datums = append(datums, e.MetricData...)
	}
	if len(datums) == 0 {
		return nil, missingParam("The parameter MetricData is required.")
	}
	if len(datums) > maxDatums {
		return nil, invalidValue("The collection MetricData must not have a size greater than %d.", maxDatums)
	}
	now := epochMillis(s.opts.Now())
	// Validate everything first: a bad datum rejects the whole request and
	// stores nothing, as CloudWatch does.
	pending := make([]pendingPoint, 0, len(datums))
	for i, d := range datums {
		pp, err := datumPoint(d, fmt.Sprintf("MetricData.member.%d", i+1), now)
		if err != nil {
			return nil, err
		}
		if pp.p.count > 0 {
			pending = append(pending, pp)
		}
	}
	s.mu.Lock()
	for _, pp := range pending {
		s.metrics.add(*in.Namespace, pp.name, pp.dims, pp.p)
	}
	s.mu.Unlock()
	return empty{}, nil
}

func datumPoint(d metricDatum, path string, now time.Time) (pendingPoint, error) {
	var pp pendingPoint
	if d.MetricName == nil {
		return pp, missingParam("The parameter %s.MetricName is required.", path)
	}
	if err := checkLen(*d.MetricName, path+".metricName", 1, 255); err != nil {
		return pp, err
	}
	dims, err := checkDimensions(d.Dimensions, path+".dimensions")
	if err != nil {
		return pp, err
	}
	unit := unitOrNone("")
	if d.Unit != nil {
		if !oneOf(*d.Unit, standardUnits) {
			return pp, enumErr(*d.Unit, path+".unit", standardUnits...)
		}
		unit = *d.Unit
	}
	if d.StorageResolution != nil && *d.StorageResolution != 1 && *d.StorageResolution != 60 {
		return pp, invalidValue("The parameter %s.StorageResolution must be 1 or 60.", path)
	}
	t := now
	if d.Timestamp != nil {
		t = epochMillis(d.Timestamp.Time)
		if t.Before(now.Add(-maxPast)) || t.After(now.Add(maxFuture)) {
			return pp, invalidValue("The parameter %s.Timestamp must specify a time no more than two weeks in the past and no more than two hours in the future.", path)
		}
	}
	given := 0
	for _, b := range []bool{d.Value != nil, d.StatisticValues != nil, d.Values != nil} {
		if b {
			given++
		}
	}
	switch {
	case given == 0:
		return pp, missingParam("One of the parameters %s.Value, %s.Values or %s.StatisticValues must be specified.", path, path, path)
	case given > 1:
		return pp, invalidCombination("The parameters %s.Value, %s.Values and %s.StatisticValues are mutually exclusive; specify one.", path, path, path)
	case d.Counts != nil && d.Values == nil:
		return pp, invalidCombination("The parameter %s.Counts needs %s.Values.", path, path)
	}
	pp.name, pp.dims = *d.MetricName, dims
	switch {
	case d.Value != nil:
		if !finite(*d.Value) {
			return pp, invalidValue("The value %v for parameter %s.Value is invalid: values must be finite and within ±2^360.", *d.Value, path)
		}
		pp.p = valuePoint(t, unit, *d.Value)
	case d.StatisticValues != nil:
		sv := d.StatisticValues
		for _, m := range []struct {
			name string
			v    *float64
		}{{"SampleCount", sv.SampleCount}, {"Sum", sv.Sum}, {"Minimum", sv.Minimum}, {"Maximum", sv.Maximum}} {
			if m.v == nil {
				return pp, missingParam("The parameter %s.StatisticValues.%s is required.", path, m.name)
			}
			if !finite(*m.v) {
				return pp, invalidValue("The value %v for parameter %s.StatisticValues.%s is invalid.", *m.v, path, m.name)
			}
		}
		if *sv.SampleCount <= 0 {
			return pp, invalidValue("The parameter %s.StatisticValues.SampleCount must be greater than 0.", path)
		}
		if *sv.Minimum > *sv.Maximum {
			return pp, invalidValue("The parameter %s.StatisticValues.Minimum must not exceed Maximum.", path)
		}
		pp.p = point{t: t, unit: unit, count: *sv.SampleCount, sum: *sv.Sum, min: *sv.Minimum, max: *sv.Maximum}
		// CloudWatch can still answer percentiles for a statistic set whose
		// samples all had one value ("Percentiles", Statistics-definitions).
		if *sv.SampleCount == 1 || *sv.Minimum == *sv.Maximum {
			pp.p.raw = []weighted{{*sv.Minimum, *sv.SampleCount}}
		}
	default:
		if len(d.Values) > maxValues {
			return pp, invalidValue("The collection %s.Values must not have a size greater than %d.", path, maxValues)
		}
		if d.Counts != nil && len(d.Counts) != len(d.Values) {
			return pp, invalidValue("The parameters %s.Values and %s.Counts must be arrays of the same size.", path, path)
		}
		p := point{t: t, unit: unit, min: math.Inf(1), max: math.Inf(-1)}
		for j, v := range d.Values {
			n := 1.0
			if d.Counts != nil {
				n = d.Counts[j]
			}
			if !finite(v) || !finite(n) || n < 0 {
				return pp, invalidValue("The parameter %s.Values/Counts entry %d is invalid: values must be finite and counts non-negative.", path, j+1)
			}
			if n == 0 {
				continue
			}
			p.count += n
			p.sum += v * n
			p.min = math.Min(p.min, v)
			p.max = math.Max(p.max, v)
			p.raw = append(p.raw, weighted{v, n})
		}
		if p.count == 0 {
			p = point{}
		}
		pp.p = p
	}
	return pp, nil
}

// validStatPeriod: standard resolution periods are multiples of 60;
// high-resolution data can be asked for at 1, 5, 10, 20 or 30 s
// (GetMetricStatistics Period).
func validStatPeriod(p int32) bool {
	switch p {
	case 1, 5, 10, 20, 30:
		return true
	}
	return p >= 60 && p%60 == 0
}

func (s *Service) opGetMetricStatistics(c *call) (any, error) {
	var in getMetricStatisticsInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	for _, m := range []struct {
		name    string
		missing bool
	}{{"Namespace", in.Namespace == nil}, {"MetricName", in.MetricName == nil},
		{"StartTime", in.StartTime == nil}, {"EndTime", in.EndTime == nil}, {"Period", in.Period == nil}} {
		if m.missing {
			return nil, missingParam("The parameter %s is required.", m.name)
		}
	}
	if len(in.Statistics) == 0 && len(in.ExtendedStatistics) == 0 {
		return nil, missingParam("Must specify either Statistics or ExtendedStatistics.")
	}
	if len(in.Statistics) > 0 && len(in.ExtendedStatistics) > 0 {
		return nil, invalidCombination("Statistics and ExtendedStatistics are mutually exclusive; specify one.")
	}
	if len(in.Statistics) > 5 || len(in.ExtendedStatistics) > 10 {
		return nil, invalidValue("At most 5 Statistics or 10 ExtendedStatistics can be requested.")
	}
	for _, st := range in.Statistics {
		if !isSimpleStat(st) {
			return nil, enumErr(st, "statistics", simpleStats...)
		}
	}
	exts := make([]extendedStat, len(in.ExtendedStatistics))
	for i, e := range in.ExtendedStatistics {
		es, err := parseExtendedStatistic(e)
		if err != nil {
			return nil, invalidValue("%s", err.Error())
		}
		exts[i] = es
	}
	if !validStatPeriod(*in.Period) {
		return nil, invalidValue("The parameter Period must be 1, 5, 10, 20, 30 or a multiple of 60.")
	}
	start, end := epochMillis(in.StartTime.Time), epochMillis(in.EndTime.Time)
	if !start.Before(end) {
		return nil, invalidValue("The parameter StartTime must be less than the parameter EndTime.")
	}
	period := time.Duration(*in.Period) * time.Second
	// Sub saturates instead of overflowing, and the division cannot
	// overflow, so absurd ranges are refused rather than looped over.
	span := end.Sub(start)
	buckets := int64(span / period)
	if span%period != 0 {
		buckets++
	}
	if buckets > maxStatPoints {
		return nil, invalidCombination("You have requested up to %d datapoints, which exceeds the limit of %d. You may reduce the datapoints requested by increasing Period, or decreasing the time range.",
			buckets, maxStatPoints)
	}
	dims, err := checkDimensions(in.Dimensions, "dimensions")
	if err != nil {
		return nil, err
	}
	unit := ""
	if in.Unit != nil {
		if !oneOf(*in.Unit, standardUnits) {
			return nil, enumErr(*in.Unit, "unit", standardUnits...)
		}
		unit = *in.Unit
	}
	out := getMetricStatisticsOutput{Label: in.MetricName, Datapoints: []datapoint{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	series := s.metrics.lookup(*in.Namespace, *in.MetricName, dims)
	for from := start; from.Before(end); from = from.Add(period) {
		to := from.Add(period)
		if to.After(end) {
			to = end
		}
		agg, seenUnit := series.windowClosedStart(from, to, unit)
		if agg.empty() {
			continue
		}
		dp := datapoint{Timestamp: ts(from), Unit: ptr(seenUnit)}
		for _, st := range in.Statistics {
			v, _ := simpleValue(st, &agg)
			switch st {
			case statSampleCount:
				dp.SampleCount = ptr(v)
			case statAverage:
				dp.Average = ptr(v)
			case statSum:
				dp.Sum = ptr(v)
			case statMinimum:
				dp.Minimum = ptr(v)
			case statMaximum:
				dp.Maximum = ptr(v)
			}
		}
		for _, es := range exts {
			if v, ok := es.compute(&agg); ok {
				if dp.ExtendedStatistics == nil {
					dp.ExtendedStatistics = map[string]float64{}
				}
				dp.ExtendedStatistics[es.sourceText] = v
			}
		}
		out.Datapoints = append(out.Datapoints, dp)
	}
	return out, nil
}

func (s *Service) opListMetrics(c *call) (any, error) {
	var in listMetricsInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if len(in.Dimensions) > 10 {
		return nil, invalidValue("At most 10 dimension filters can be given.")
	}
	for i, f := range in.Dimensions {
		if f.Name == nil {
			return nil, requiredErr(fmt.Sprintf("dimensions.%d.member.name", i+1))
		}
	}
	if in.RecentlyActive != nil && *in.RecentlyActive != "PT3H" {
		return nil, enumErr(*in.RecentlyActive, "recentlyActive", "PT3H")
	}
	offset, err := decodeOffset(in.NextToken)
	if err != nil {
		return nil, err
	}
	now := s.opts.Now()
	s.mu.Lock()
	var matched []*series
	for _, se := range s.metrics.series {
		if in.Namespace != nil && se.namespace != *in.Namespace ||
			in.MetricName != nil && se.name != *in.MetricName ||
			in.RecentlyActive != nil && se.last.Before(now.Add(-3*time.Hour)) ||
			!matchDimFilters(se.dims, in.Dimensions) {
			continue
		}
		matched = append(matched, se)
	}
	out := listMetricsOutput{Metrics: []metric{}}
	sort.Slice(matched, func(i, j int) bool {
		a, b := matched[i], matched[j]
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		if a.name != b.name {
			return a.name < b.name
		}
		_, ca := canonicalDims(dimMap(a.dims))
		_, cb := canonicalDims(dimMap(b.dims))
		return ca < cb
	})
	if offset > len(matched) {
		s.mu.Unlock()
		return nil, invalidNextToken()
	}
	page := matched[offset:]
	if len(page) > listMetricsPage {
		page = page[:listMetricsPage]
		out.NextToken = encodeOffset(offset + listMetricsPage)
	}
	for _, se := range page {
		m := metric{Namespace: ptr(se.namespace), MetricName: ptr(se.name), Dimensions: []dimension{}}
		for _, d := range se.dims {
			m.Dimensions = append(m.Dimensions, dimension{Name: ptr(d.name), Value: ptr(d.value)})
		}
		out.Metrics = append(out.Metrics, m)
	}
	s.mu.Unlock()
	return out, nil
}

func matchDimFilters(ds []dim, filters []dimensionFilter) bool {
	for _, f := range filters {
		found := false
		for _, d := range ds {
			if d.name == *f.Name && (f.Value == nil || d.value == *f.Value) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func dimMap(ds []dim) map[string]string {
	m := make(map[string]string, len(ds))
	for _, d := range ds {
		m[d.name] = d.value
	}
	return m
}
