package alarm

import (
	"encoding/base64"
	"strconv"
	"time"
)

// History item types (HistoryItemType enum).
const (
	historyConfig = "ConfigurationUpdate"
	historyState  = "StateUpdate"
	historyAction = "Action"
)

// historyRetention is how long alarm history is kept: CloudWatch keeps it
// for two weeks (DescribeAlarmHistory API reference), deleted alarms' too.
const historyRetention = 14 * 24 * time.Hour

// maxHistory bounds the history of a long-running local cloud.
const maxHistory = 10000

type historyEntry struct {
	alarm   string
	t       time.Time
	kind    string
	summary string
	data    string
}

func (s *Service) addHistoryLocked(h historyEntry) {
	s.history = append(s.history, h)
	if len(s.history) > maxHistory {
		s.history = append(s.history[:0], s.history[len(s.history)-maxHistory:]...)
	}
}

func (s *Service) pruneHistoryLocked(now time.Time) {
	cutoff := now.Add(-historyRetention)
	i := 0
	for i < len(s.history) && s.history[i].t.Before(cutoff) {
		i++
	}
	if i > 0 {
		s.history = append(s.history[:0], s.history[i:]...)
	}
}

func (s *Service) opDescribeAlarmHistory(c *call) (any, error) {
	var in describeAlarmHistoryInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.HistoryItemType != nil {
		switch *in.HistoryItemType {
		case historyConfig, historyState, historyAction, "AlarmContributorStateUpdate", "AlarmContributorAction":
		default:
			return nil, enumErr(*in.HistoryItemType, "historyItemType", historyConfig, historyState, historyAction,
				"AlarmContributorStateUpdate", "AlarmContributorAction")
		}
	}
	descending := true
	if in.ScanBy != nil {
		switch *in.ScanBy {
		case "TimestampDescending":
		case "TimestampAscending":
			descending = false
		default:
			return nil, enumErr(*in.ScanBy, "scanBy", "TimestampDescending", "TimestampAscending")
		}
	}
	if err := checkAlarmTypes(in.AlarmTypes); err != nil {
		return nil, err
	}
	limit, err := maxRecords(in.MaxRecords, 100)
	if err != nil {
		return nil, err
	}
	offset, err := decodeOffset(in.NextToken)
	if err != nil {
		return nil, err
	}
	wantMetric := len(in.AlarmTypes) == 0
	for _, t := range in.AlarmTypes {
		if t == "MetricAlarm" {
			wantMetric = true
		}
	}
	s.mu.Lock()
	var matched []historyEntry
	for _, h := range s.history {
		if !wantMetric || in.AlarmName != nil && h.alarm != *in.AlarmName ||
			in.HistoryItemType != nil && h.kind != *in.HistoryItemType ||
			in.StartDate != nil && h.t.Before(in.StartDate.Time) ||
			in.EndDate != nil && h.t.After(in.EndDate.Time) {
			continue
		}
		matched = append(matched, h)
	}
	s.mu.Unlock()
	if descending {
		for i, j := 0, len(matched)-1; i < j; i, j = i+1, j-1 {
			matched[i], matched[j] = matched[j], matched[i]
		}
	}
	if offset > len(matched) {
		return nil, invalidNextToken()
	}
	page := matched[offset:]
	out := describeAlarmHistoryOutput{AlarmHistoryItems: []alarmHistoryItem{}}
	if len(page) > limit {
		page = page[:limit]
		out.NextToken = encodeOffset(offset + limit)
	}
	for _, h := range page {
		out.AlarmHistoryItems = append(out.AlarmHistoryItems, alarmHistoryItem{
			AlarmName: ptr(h.alarm), AlarmType: ptr("MetricAlarm"), Timestamp: ts(h.t),
			HistoryItemType: ptr(h.kind), HistorySummary: ptr(h.summary), HistoryData: ptr(h.data),
		})
	}
	return out, nil
}

// Pagination tokens are opaque to clients; here they carry an offset.
func encodeOffset(n int) *string {
	t := base64.RawURLEncoding.EncodeToString([]byte("o:" + strconv.Itoa(n)))
	return &t
}

func decodeOffset(tok *string) (int, error) {
	if tok == nil || *tok == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(*tok)
	if err != nil || len(raw) < 3 || string(raw[:2]) != "o:" {
		return 0, invalidNextToken()
	}
	n, err := strconv.Atoi(string(raw[2:]))
	if err != nil || n < 0 {
		return 0, invalidNextToken()
	}
	return n, nil
}

func ptr[T any](v T) *T { return &v }

func encodeB64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func decodeB64(s string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return string(b), err
}
