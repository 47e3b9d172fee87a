package function

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// EMF limits from "Specification: Embedded metric format" (CloudWatch
// user guide): at most 30 dimensions per set, 100 metrics per directive
// and 100 values per metric.
const (
	emfMaxDimensions = 30
	emfMaxMetrics    = 100
	emfMaxValues     = 100
)

type emfDoc struct {
	AWS *struct {
		Timestamp         *json.Number `json:"Timestamp"`
		CloudWatchMetrics []struct {
			Namespace  string     `json:"Namespace"`
			Dimensions [][]string `json:"Dimensions"`
			Metrics    []struct {
				Name string `json:"Name"`
				Unit string `json:"Unit"`
			} `json:"Metrics"`
		} `json:"CloudWatchMetrics"`
	} `json:"_aws"`
}

// parseEMF extracts the datapoints of one log line in Embedded Metric
// Format. ok is false when the line is not EMF or breaks the
// specification; CloudWatch then keeps the line as a log event and
// extracts nothing, and so does the local cloud.
func parseEMF(line string) (metrics []emu.Metric, ok bool) {
	trimmed := strings.TrimSpace(line)
	if !strings.HasPrefix(trimmed, "{") || !strings.Contains(trimmed, `"_aws"`) {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	var root map[string]json.RawMessage
	if err := dec.Decode(&root); err != nil {
		return nil, false
	}
	var doc emfDoc
	if err := json.Unmarshal([]byte(trimmed), &doc); err != nil || doc.AWS == nil || doc.AWS.Timestamp == nil {
		return nil, false
	}
	ms, err := doc.AWS.Timestamp.Int64()
	if err != nil {
		return nil, false
	}
	at := time.UnixMilli(ms).UTC()
	if len(doc.AWS.CloudWatchMetrics) == 0 {
		return nil, false
	}
	for _, d := range doc.AWS.CloudWatchMetrics {
		if d.Namespace == "" || len(d.Namespace) > 255 || strings.HasPrefix(d.Namespace, "AWS/") || len(d.Metrics) > emfMaxMetrics {
			return nil, false
		}
		sets := d.Dimensions
		if len(sets) == 0 {
			sets = [][]string{{}}
		}
		dimSets := make([]map[string]string, 0, len(sets))
		for _, set := range sets {
			if len(set) > emfMaxDimensions {
				return nil, false
			}
			dims := make(map[string]string, len(set))
			for _, name := range set {
				v, ok := stringMember(root, name)
				if !ok {
					return nil, false
				}
				dims[name] = v
			}
			dimSets = append(dimSets, dims)
		}
		for _, m := range d.Metrics {
			values, ok := numberMember(root, m.Name)
			if !ok {
				return nil, false
			}
			unit := m.Unit
			if unit == "" {
				unit = "None"
			}
			for _, dims := range dimSets {
				for _, v := range values {
					metrics = append(metrics, emu.Metric{
						Namespace: d.Namespace, Name: m.Name, Dimensions: copyMap(dims),
						Value: v, Unit: unit, Time: at,
					})
				}
			}
		}
	}
	return metrics, true
}

// stringMember reads a dimension value: a root member that is a string.
func stringMember(root map[string]json.RawMessage, name string) (string, bool) {
	raw, ok := root[name]
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || s == "" {
		return "", false
	}
	return s, true
}

// numberMember reads a metric value: a number or an array of numbers.
func numberMember(root map[string]json.RawMessage, name string) ([]float64, bool) {
	raw, ok := root[name]
	if !ok || name == "" {
		return nil, false
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var vs []float64
		if err := json.Unmarshal(raw, &vs); err != nil || len(vs) == 0 || len(vs) > emfMaxValues {
			return nil, false
		}
		return vs, true
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, false
	}
	return []float64{v}, true
}
