package alarm

import (
	"sort"
	"strings"
	"time"
)

// point is one stored datapoint: a single value, a Values/Counts array or a
// statistic set, already reduced to its statistic set plus raw values.
type point struct {
	t                    time.Time
	unit                 string
	count, sum, min, max float64
	raw                  []weighted // nil for statistic sets with unknown values
}

func valuePoint(t time.Time, unit string, v float64) point {
	return point{t: t, unit: unit, count: 1, sum: v, min: v, max: v, raw: []weighted{{v, 1}}}
}

// seriesKey identifies a metric: CloudWatch treats each combination of
// namespace, name and dimension set as its own metric ("Dimensions",
// cloudwatch_concepts.html), so a datapoint with an extra dimension does not
// feed an alarm on fewer dimensions.
type seriesKey struct {
	namespace, name, dims string
}

type series struct {
	namespace, name string
	dims            []dim // sorted by name
	points          []point
	last            time.Time // newest datapoint time, for ListMetrics RecentlyActive
}

type dim struct{ name, value string }

func canonicalDims(m map[string]string) ([]dim, string) {
	ds := make([]dim, 0, len(m))
	for k, v := range m {
		ds = append(ds, dim{k, v})
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].name < ds[j].name })
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.name)
		b.WriteByte(0)
		b.WriteString(d.value)
		b.WriteByte(0)
	}
	return ds, b.String()
}

// store holds every metric's datapoints. Callers hold Service.mu.
type store struct {
	series map[seriesKey]*series
}

func newStore() *store { return &store{series: map[seriesKey]*series{}} }

func (st *store) add(namespace, name string, dims map[string]string, p point) {
	ds, canon := canonicalDims(dims)
	k := seriesKey{namespace, name, canon}
	s := st.series[k]
	if s == nil {
		s = &series{namespace: namespace, name: name, dims: ds}
		st.series[k] = s
	}
	s.points = append(s.points, p)
	if p.t.After(s.last) {
		s.last = p.t
	}
}

func (st *store) lookup(namespace, name string, dims map[string]string) *series {
	_, canon := canonicalDims(dims)
	return st.series[seriesKey{namespace, name, canon}]
}

// prune drops datapoints older than cutoff, and metrics left without any.
func (st *store) prune(cutoff time.Time) {
	for k, s := range st.series {
		kept := s.points[:0]
		for _, p := range s.points {
			if !p.t.Before(cutoff) {
				kept = append(kept, p)
			}
		}
		clear(s.points[len(kept):])
		s.points = kept
		if len(kept) == 0 {
			delete(st.series, k)
		}
	}
}

// windows aggregates, in one pass, the n periods ending at now: period i
// holds the datapoints with now-(i+1)·p < t <= now-i·p, so a datapoint
// stamped exactly at an evaluation time counts in the period that ends then.
func (s *series) windows(now time.Time, p time.Duration, n int, unit string) []aggregate {
	out := make([]aggregate, n)
	if s == nil {
		return out
	}
	for _, pt := range s.points {
		if pt.t.After(now) || unit != "" && pt.unit != unit {
			continue
		}
		// now-(i+1)·p < t <= now-i·p  ⇔  i·p <= now-t < (i+1)·p
		if i := int64(now.Sub(pt.t) / p); i < int64(n) {
			out[i].add(pt)
		}
	}
	return out
}

// windowClosedStart aggregates from <= t < to, the alignment
// GetMetricStatistics uses (each datapoint's Timestamp is its period start).
func (s *series) windowClosedStart(from, to time.Time, unit string) (aggregate, string) {
	var a aggregate
	seenUnit := ""
	if s == nil {
		return a, seenUnit
	}
	for _, p := range s.points {
		if !p.t.Before(from) && p.t.Before(to) && (unit == "" || p.unit == unit) {
			a.add(p)
			if seenUnit == "" {
				seenUnit = p.unit
			}
		}
	}
	return a, seenUnit
}
