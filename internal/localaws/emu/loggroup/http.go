package loggroup

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

const (
	contentType = "application/x-amz-json-1.1"
	// targetPrefix is the X-Amz-Target prefix of every operation.
	targetPrefix = "Logs_20140328."
	// maxRequestBytes bounds a request body: a PutLogEvents batch is at
	// most 1 MiB of messages, plus JSON framing and escaping.
	maxRequestBytes = 8 << 20
	// maxBatchBytes, maxBatchEvents and maxBatchSpan are the PutLogEvents
	// batch limits (API reference, "PutLogEvents").
	maxBatchBytes  = 1 << 20
	maxBatchEvents = 10000
	maxBatchSpan   = 24 * time.Hour
	// tooOld and tooNew bound accepted timestamps ("None of the log events
	// in the batch can be more than 2 hours in the future … older than 14
	// days or older than the retention period of the log group").
	tooOld = 14 * 24 * time.Hour
	tooNew = 2 * time.Hour
	// maxGetEvents and maxGetBytes bound a GetLogEvents or FilterLogEvents
	// page ("up to 1 MB (up to 10,000 log events)").
	maxGetEvents = 10000
	maxGetBytes  = 1 << 20
)

type handlerFunc func(s *Service, body []byte) (any, *Error)

var operations = map[string]handlerFunc{
	"CreateLogGroup":        (*Service).httpCreateLogGroup,
	"DeleteLogGroup":        (*Service).httpDeleteLogGroup,
	"DescribeLogGroups":     (*Service).httpDescribeLogGroups,
	"PutRetentionPolicy":    (*Service).httpPutRetentionPolicy,
	"DeleteRetentionPolicy": (*Service).httpDeleteRetentionPolicy,
	"TagResource":           (*Service).httpTagResource,
	"UntagResource":         (*Service).httpUntagResource,
	"ListTagsForResource":   (*Service).httpListTagsForResource,
	"TagLogGroup":           (*Service).httpTagLogGroup,
	"UntagLogGroup":         (*Service).httpUntagLogGroup,
	"ListTagsLogGroup":      (*Service).httpListTagsLogGroup,
	"CreateLogStream":       (*Service).httpCreateLogStream,
	"DeleteLogStream":       (*Service).httpDeleteLogStream,
	"DescribeLogStreams":    (*Service).httpDescribeLogStreams,
	"PutLogEvents":          (*Service).httpPutLogEvents,
	"GetLogEvents":          (*Service).httpGetLogEvents,
	"FilterLogEvents":       (*Service).httpFilterLogEvents,
}

// ServeHTTP serves the CloudWatch Logs API in the AWS JSON 1.1 protocol.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("x-amzn-RequestId", uuid.NewString())
	opName, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), targetPrefix)
	h := operations[opName]
	if !ok || h == nil {
		writeError(w, errorf(ErrUnknownOperation, "operation %q is not emulated by the taskpipe local cloud's CloudWatch Logs", r.Header.Get("X-Amz-Target")))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	if err != nil {
		writeError(w, errorf(ErrSerialization, "read request body: %v", err))
		return
	}
	if len(body) > maxRequestBytes {
		writeError(w, errorf(ErrInvalidParameter, "Request body exceeds %d bytes", maxRequestBytes))
		return
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if e := checkModel(opName, body); e != nil {
		writeError(w, e)
		return
	}
	out, apiErr := h(s, body)
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	emu.WriteJSON(w, contentType, out)
}

// decode unmarshals a request body; unknown members are ignored, as the
// AWS JSON protocols do.
func decode(body []byte, v any) *Error {
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return errorf(ErrSerialization, "Unexpected value type for member %s: %v", te.Field, err)
		}
		return errorf(ErrSerialization, "Invalid JSON request body: %v", err)
	}
	return nil
}

func required(name, member string) *Error {
	if name == "" {
		return errValidation("null", member, "Member must not be null")
	}
	return nil
}

type empty struct{}

// ---- groups ----

type createLogGroupInput struct {
	LogGroupName              string            `json:"logGroupName"`
	KmsKeyID                  string            `json:"kmsKeyId"`
	Tags                      map[string]string `json:"tags"`
	LogGroupClass             string            `json:"logGroupClass"`
	DeletionProtectionEnabled bool              `json:"deletionProtectionEnabled"`
}

func (s *Service) httpCreateLogGroup(body []byte) (any, *Error) {
	var in createLogGroupInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := required(in.LogGroupName, "logGroupName"); err != nil {
		return nil, err
	}
	return empty{}, asError(s.CreateGroup(CreateGroupInput{
		Name: in.LogGroupName, Class: in.LogGroupClass, KMSKeyID: in.KmsKeyID,
		DeletionProtection: in.DeletionProtectionEnabled, Tags: in.Tags,
	}))
}

type groupNameInput struct {
	LogGroupName string `json:"logGroupName"`
}

func (s *Service) httpDeleteLogGroup(body []byte) (any, *Error) {
	var in groupNameInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := required(in.LogGroupName, "logGroupName"); err != nil {
		return nil, err
	}
	return empty{}, asError(s.DeleteGroup(in.LogGroupName))
}

type describeLogGroupsInput struct {
	LogGroupNamePrefix  string   `json:"logGroupNamePrefix"`
	LogGroupNamePattern string   `json:"logGroupNamePattern"`
	LogGroupIdentifiers []string `json:"logGroupIdentifiers"`
	LogGroupClass       string   `json:"logGroupClass"`
	Limit               *int     `json:"limit"`
	NextToken           string   `json:"nextToken"`
}

type logGroupOut struct {
	LogGroupName              string `json:"logGroupName"`
	CreationTime              int64  `json:"creationTime"`
	RetentionInDays           *int   `json:"retentionInDays,omitempty"`
	MetricFilterCount         int    `json:"metricFilterCount"`
	Arn                       string `json:"arn"`
	LogGroupArn               string `json:"logGroupArn"`
	StoredBytes               int64  `json:"storedBytes"`
	LogGroupClass             string `json:"logGroupClass"`
	KmsKeyID                  string `json:"kmsKeyId,omitempty"`
	DeletionProtectionEnabled bool   `json:"deletionProtectionEnabled"`
}

type describeLogGroupsOutput struct {
	LogGroups []logGroupOut `json:"logGroups"`
	NextToken string        `json:"nextToken,omitempty"`
}

func (s *Service) httpDescribeLogGroups(body []byte) (any, *Error) {
	var in describeLogGroupsInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	limit, err := pageLimit(in.Limit, 50, 50)
	if err != nil {
		return nil, err
	}
	// Source: DescribeLogGroups API reference — the prefix and the pattern
	// cannot be combined, nor either with logGroupIdentifiers.
	if in.LogGroupNamePrefix != "" && in.LogGroupNamePattern != "" {
		return nil, errorf(ErrInvalidParameter, "LogGroup name prefix and LogGroup name pattern are mutually exclusive parameters.")
	}
	if len(in.LogGroupIdentifiers) > 0 && (in.LogGroupNamePrefix != "" || in.LogGroupNamePattern != "") {
		return nil, errorf(ErrInvalidParameter, "logGroupIdentifiers cannot be combined with logGroupNamePrefix or logGroupNamePattern.")
	}
	ids := map[string]bool{}
	for _, id := range in.LogGroupIdentifiers {
		name, err := s.groupFromIdentifier(id)
		if err != nil {
			return nil, err
		}
		ids[name] = true
	}
	after, err := decodeToken(in.NextToken, "g")
	if err != nil {
		return nil, err
	}
	pattern := strings.ToLower(in.LogGroupNamePattern)

	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.groups))
	for n, g := range s.groups {
		switch {
		case !strings.HasPrefix(n, in.LogGroupNamePrefix):
		case pattern != "" && !strings.Contains(strings.ToLower(n), pattern):
		case len(ids) > 0 && !ids[n]:
		case in.LogGroupClass != "" && g.class != in.LogGroupClass:
		case after != "" && n <= after:
		default:
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := describeLogGroupsOutput{LogGroups: []logGroupOut{}}
	if len(names) > limit {
		out.NextToken = encodeToken("g", names[limit-1])
		names = names[:limit]
	}
	for _, n := range names {
		g := s.groups[n]
		info := s.info(g)
		o := logGroupOut{
			LogGroupName: n, CreationTime: g.created, Arn: info.ARN + ":*", LogGroupArn: info.ARN,
			StoredBytes: info.StoredBytes, LogGroupClass: g.class, KmsKeyID: g.kmsKeyID,
			DeletionProtectionEnabled: g.deletionProtection,
		}
		if g.retention > 0 {
			days := g.retention
			o.RetentionInDays = &days
		}
		out.LogGroups = append(out.LogGroups, o)
	}
	return out, nil
}

type putRetentionPolicyInput struct {
	LogGroupName    string `json:"logGroupName"`
	RetentionInDays *int   `json:"retentionInDays"`
}

func (s *Service) httpPutRetentionPolicy(body []byte) (any, *Error) {
	var in putRetentionPolicyInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := required(in.LogGroupName, "logGroupName"); err != nil {
		return nil, err
	}
	if in.RetentionInDays == nil {
		return nil, errValidation("null", "retentionInDays", "Member must not be null")
	}
	if !validRetention(*in.RetentionInDays) {
		return nil, errValidation(*in.RetentionInDays, "retentionInDays", "Member must satisfy enum value set: "+retentionEnum())
	}
	return empty{}, asError(s.SetRetention(in.LogGroupName, *in.RetentionInDays))
}

func (s *Service) httpDeleteRetentionPolicy(body []byte) (any, *Error) {
	var in groupNameInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := required(in.LogGroupName, "logGroupName"); err != nil {
		return nil, err
	}
	return empty{}, asError(s.SetRetention(in.LogGroupName, 0))
}

// ---- tags ----

type tagResourceInput struct {
	ResourceArn string            `json:"resourceArn"`
	Tags        map[string]string `json:"tags"`
	TagKeys     []string          `json:"tagKeys"`
}

type tagsOutput struct {
	Tags map[string]string `json:"tags"`
}

func (s *Service) httpTagResource(body []byte) (any, *Error) {
	var in tagResourceInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	name, err := s.groupFromARN(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	return empty{}, asError(s.TagGroup(name, in.Tags))
}

func (s *Service) httpUntagResource(body []byte) (any, *Error) {
	var in tagResourceInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	name, err := s.groupFromARN(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	return empty{}, asError(s.UntagGroup(name, in.TagKeys))
}

func (s *Service) httpListTagsForResource(body []byte) (any, *Error) {
	var in tagResourceInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	name, err := s.groupFromARN(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	info, gerr := s.Group(name)
	if gerr != nil {
		return nil, asError(gerr)
	}
	return tagsOutput{Tags: info.Tags}, nil
}

type tagLogGroupInput struct {
	LogGroupName string          `json:"logGroupName"`
	Tags         json.RawMessage `json:"tags"`
}

// httpTagLogGroup serves the older TagLogGroup (tags is a map).
func (s *Service) httpTagLogGroup(body []byte) (any, *Error) {
	var in tagLogGroupInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	var tags map[string]string
	if len(in.Tags) > 0 {
		if err := decode(in.Tags, &tags); err != nil {
			return nil, err
		}
	}
	return empty{}, asError(s.TagGroup(in.LogGroupName, tags))
}

// httpUntagLogGroup serves the older UntagLogGroup (tags is a key list).
func (s *Service) httpUntagLogGroup(body []byte) (any, *Error) {
	var in tagLogGroupInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	var keys []string
	if len(in.Tags) > 0 {
		if err := decode(in.Tags, &keys); err != nil {
			return nil, err
		}
	}
	return empty{}, asError(s.UntagGroup(in.LogGroupName, keys))
}

func (s *Service) httpListTagsLogGroup(body []byte) (any, *Error) {
	var in groupNameInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	info, err := s.Group(in.LogGroupName)
	if err != nil {
		return nil, asError(err)
	}
	return tagsOutput{Tags: info.Tags}, nil
}

// ---- streams ----

type streamInput struct {
	LogGroupName  string `json:"logGroupName"`
	LogStreamName string `json:"logStreamName"`
}

func (s *Service) httpCreateLogStream(body []byte) (any, *Error) {
	var in streamInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := required(in.LogGroupName, "logGroupName"); err != nil {
		return nil, err
	}
	if err := required(in.LogStreamName, "logStreamName"); err != nil {
		return nil, err
	}
	return empty{}, asError(s.CreateStream(in.LogGroupName, in.LogStreamName))
}

func (s *Service) httpDeleteLogStream(body []byte) (any, *Error) {
	var in streamInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	return empty{}, asError(s.DeleteStream(in.LogGroupName, in.LogStreamName))
}

type describeLogStreamsInput struct {
	LogGroupName        string `json:"logGroupName"`
	LogGroupIdentifier  string `json:"logGroupIdentifier"`
	LogStreamNamePrefix string `json:"logStreamNamePrefix"`
	OrderBy             string `json:"orderBy"`
	Descending          bool   `json:"descending"`
	NextToken           string `json:"nextToken"`
	Limit               *int   `json:"limit"`
}

type logStreamOut struct {
	LogStreamName       string `json:"logStreamName"`
	CreationTime        int64  `json:"creationTime"`
	FirstEventTimestamp int64  `json:"firstEventTimestamp,omitempty"`
	LastEventTimestamp  int64  `json:"lastEventTimestamp,omitempty"`
	LastIngestionTime   int64  `json:"lastIngestionTime,omitempty"`
	UploadSequenceToken string `json:"uploadSequenceToken,omitempty"`
	Arn                 string `json:"arn"`
	StoredBytes         int64  `json:"storedBytes"`
}

type describeLogStreamsOutput struct {
	LogStreams []logStreamOut `json:"logStreams"`
	NextToken  string         `json:"nextToken,omitempty"`
}

// resolveGroup picks the group of a request that names it by
// logGroupName or logGroupIdentifier (exactly one).
func (s *Service) resolveGroup(name, identifier string) (string, *Error) {
	switch {
	case name != "" && identifier != "":
		return "", errorf(ErrInvalidParameter, "LogGroup name and LogGroup identifier are mutually exclusive parameters.")
	case identifier != "":
		return s.groupFromIdentifier(identifier)
	case name == "":
		return "", errorf(ErrInvalidParameter, "Either the logGroupName or the logGroupIdentifier must be specified.")
	}
	return name, nil
}

func (s *Service) httpDescribeLogStreams(body []byte) (any, *Error) {
	var in describeLogStreamsInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	groupName, err := s.resolveGroup(in.LogGroupName, in.LogGroupIdentifier)
	if err != nil {
		return nil, err
	}
	limit, err := pageLimit(in.Limit, 50, 50)
	if err != nil {
		return nil, err
	}
	switch in.OrderBy {
	case "", "LogStreamName":
	case "LastEventTime":
		// Source: DescribeLogStreams API reference ("If you order the
		// results by event time, you cannot specify the
		// logStreamNamePrefix parameter").
		if in.LogStreamNamePrefix != "" {
			return nil, errorf(ErrInvalidParameter, "Cannot order by LastEventTime with a logStreamNamePrefix.")
		}
	default:
		return nil, errValidation(in.OrderBy, "orderBy", "Member must satisfy enum value set: [LogStreamName, LastEventTime]")
	}
	offset := 0
	if in.NextToken != "" {
		tok, err := decodeToken(in.NextToken, "s")
		if err != nil {
			return nil, err
		}
		n, perr := strconv.Atoi(tok)
		if perr != nil || n < 0 {
			return nil, errInvalidToken()
		}
		offset = n
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[groupName]
	if !ok {
		return nil, errNoGroup()
	}
	s.expireGroup(g)
	streams := make([]*stream, 0, len(g.streams))
	for n, st := range g.streams {
		if strings.HasPrefix(n, in.LogStreamNamePrefix) {
			streams = append(streams, st)
		}
	}
	sort.Slice(streams, func(i, j int) bool {
		a, b := streams[i], streams[j]
		if in.OrderBy == "LastEventTime" && a.lastEvent != b.lastEvent {
			return a.lastEvent < b.lastEvent
		}
		return a.name < b.name
	})
	if in.Descending {
		for i, j := 0, len(streams)-1; i < j; i, j = i+1, j-1 {
			streams[i], streams[j] = streams[j], streams[i]
		}
	}
	out := describeLogStreamsOutput{LogStreams: []logStreamOut{}}
	if offset > len(streams) {
		offset = len(streams)
	}
	streams = streams[offset:]
	if len(streams) > limit {
		out.NextToken = encodeToken("s", strconv.Itoa(offset+limit))
		streams = streams[:limit]
	}
	for _, st := range streams {
		o := logStreamOut{
			LogStreamName: st.name, CreationTime: st.created, Arn: s.groupARN(groupName) + ":log-stream:" + st.name,
			StoredBytes: st.storedBytes,
		}
		if len(st.events) > 0 {
			o.FirstEventTimestamp, o.LastEventTimestamp, o.LastIngestionTime = st.firstEvent, st.lastEvent, st.lastIngested
		}
		out.LogStreams = append(out.LogStreams, o)
	}
	return out, nil
}

// ---- events ----

type inputLogEvent struct {
	Timestamp *int64  `json:"timestamp"`
	Message   *string `json:"message"`
}

type putLogEventsInput struct {
	LogGroupName  string          `json:"logGroupName"`
	LogStreamName string          `json:"logStreamName"`
	LogEvents     []inputLogEvent `json:"logEvents"`
}

type rejectedInfo struct {
	TooNewLogEventStartIndex *int `json:"tooNewLogEventStartIndex,omitempty"`
	TooOldLogEventEndIndex   *int `json:"tooOldLogEventEndIndex,omitempty"`
	ExpiredLogEventEndIndex  *int `json:"expiredLogEventEndIndex,omitempty"`
}

type putLogEventsOutput struct {
	NextSequenceToken     string        `json:"nextSequenceToken"`
	RejectedLogEventsInfo *rejectedInfo `json:"rejectedLogEventsInfo,omitempty"`
}

func (s *Service) httpPutLogEvents(body []byte) (any, *Error) {
	var in putLogEventsInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := required(in.LogGroupName, "logGroupName"); err != nil {
		return nil, err
	}
	if err := required(in.LogStreamName, "logStreamName"); err != nil {
		return nil, err
	}
	if len(in.LogEvents) == 0 {
		return nil, errValidation("[]", "logEvents", "Member must have length greater than or equal to 1")
	}
	if len(in.LogEvents) > maxBatchEvents {
		return nil, errValidation(len(in.LogEvents), "logEvents", "Member must have length less than or equal to 10000")
	}
	size := 0
	for i, e := range in.LogEvents {
		if e.Timestamp == nil {
			return nil, errValidation("null", fmt.Sprintf("logEvents.%d.member.timestamp", i+1), "Member must not be null")
		}
		if e.Message == nil || *e.Message == "" {
			return nil, errValidation("", fmt.Sprintf("logEvents.%d.member.message", i+1), "Member must have length greater than or equal to 1")
		}
		if i > 0 && *e.Timestamp < *in.LogEvents[i-1].Timestamp {
			return nil, errorf(ErrInvalidParameter, "Log events in a single PutLogEvents request must be in chronological order.")
		}
		size += len(*e.Message) + eventOverhead
	}
	if size > maxBatchBytes {
		return nil, errorf(ErrInvalidParameter, "Upload too large: %d bytes exceeds limit of %d", size, maxBatchBytes)
	}
	first, last := *in.LogEvents[0].Timestamp, *in.LogEvents[len(in.LogEvents)-1].Timestamp
	if time.Duration(last-first)*time.Millisecond > maxBatchSpan {
		return nil, errorf(ErrInvalidParameter, "The batch of log events in a single PutLogEvents request cannot span more than 24 hours.")
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[in.LogGroupName]
	if !ok {
		return nil, errNoGroup()
	}
	st, ok := g.streams[in.LogStreamName]
	if !ok {
		return nil, errNoStream()
	}
	now := s.nowMS()
	oldCut := now - tooOld.Milliseconds()
	newCut := now + tooNew.Milliseconds()
	expCut := s.retentionCutoff(g)
	var rej rejectedInfo
	for i, e := range in.LogEvents {
		ts := *e.Timestamp
		switch {
		case ts < oldCut:
			idx := i
			rej.TooOldLogEventEndIndex = &idx
		case ts < expCut:
			idx := i
			rej.ExpiredLogEventEndIndex = &idx
		case ts > newCut:
			if rej.TooNewLogEventStartIndex == nil {
				idx := i
				rej.TooNewLogEventStartIndex = &idx
			}
		default:
			s.insert(st, ts, now, *e.Message)
		}
	}
	out := putLogEventsOutput{NextSequenceToken: fmt.Sprintf("%056d", s.seq)}
	if rej != (rejectedInfo{}) {
		out.RejectedLogEventsInfo = &rej
	}
	return out, nil
}

type getLogEventsInput struct {
	LogGroupName       string `json:"logGroupName"`
	LogGroupIdentifier string `json:"logGroupIdentifier"`
	LogStreamName      string `json:"logStreamName"`
	StartTime          *int64 `json:"startTime"`
	EndTime            *int64 `json:"endTime"`
	NextToken          string `json:"nextToken"`
	Limit              *int   `json:"limit"`
	StartFromHead      bool   `json:"startFromHead"`
}

type outputLogEvent struct {
	Timestamp     int64  `json:"timestamp"`
	Message       string `json:"message"`
	IngestionTime int64  `json:"ingestionTime"`
}

type getLogEventsOutput struct {
	Events            []outputLogEvent `json:"events"`
	NextForwardToken  string           `json:"nextForwardToken"`
	NextBackwardToken string           `json:"nextBackwardToken"`
}

// inRange reports whether ts is in [start, end): startTime is inclusive
// and endTime exclusive (GetLogEvents and FilterLogEvents API reference).
func inRange(ts int64, start, end *int64) bool {
	return (start == nil || ts >= *start) && (end == nil || ts < *end)
}

func (s *Service) httpGetLogEvents(body []byte) (any, *Error) {
	var in getLogEventsInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	groupName, err := s.resolveGroup(in.LogGroupName, in.LogGroupIdentifier)
	if err != nil {
		return nil, err
	}
	if err := required(in.LogStreamName, "logStreamName"); err != nil {
		return nil, err
	}
	limit, err := pageLimit(in.Limit, maxGetEvents, maxGetEvents)
	if err != nil {
		return nil, err
	}
	var tok *pageToken
	if in.NextToken != "" {
		t, err := parsePageToken(in.NextToken)
		if err != nil {
			return nil, err
		}
		tok = &t
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[groupName]
	if !ok {
		return nil, errNoGroup()
	}
	st, ok := g.streams[in.LogStreamName]
	if !ok {
		return nil, errNoStream()
	}
	s.expireGroup(g)
	window := make([]event, 0, len(st.events))
	for _, e := range st.events {
		if inRange(e.ts, in.StartTime, in.EndTime) {
			window = append(window, e)
		}
	}
	forward := in.StartFromHead
	if tok != nil {
		forward = tok.forward
		window = tok.filter(window)
	}
	page := takePage(window, limit, forward)
	out := getLogEventsOutput{Events: make([]outputLogEvent, len(page))}
	for i, e := range page {
		out.Events[i] = outputLogEvent{Timestamp: e.ts, Message: e.msg, IngestionTime: e.ingested}
	}
	switch {
	case len(page) > 0:
		out.NextForwardToken = pageToken{forward: true, at: page[len(page)-1].key()}.String()
		out.NextBackwardToken = pageToken{forward: false, at: page[0].key()}.String()
	case tok != nil && tok.forward:
		// At the end of the stream the same token comes back (API
		// reference: "If you have reached the end of the stream, it
		// returns the same token you passed in").
		out.NextForwardToken = tok.String()
		out.NextBackwardToken = pageToken{forward: false, at: tok.at.next()}.String()
	case tok != nil:
		out.NextBackwardToken = tok.String()
		out.NextForwardToken = pageToken{forward: true, at: tok.at.prev()}.String()
	default:
		out.NextForwardToken = pageToken{forward: true, at: minKey}.String()
		out.NextBackwardToken = pageToken{forward: false, at: minKey}.String()
	}
	return out, nil
}

// takePage returns up to limit events (and at most maxGetBytes) from the
// head or the tail of events, in ascending order.
func takePage(events []event, limit int, fromHead bool) []event {
	n, size := 0, 0
	for n < len(events) && n < limit {
		var e event
		if fromHead {
			e = events[n]
		} else {
			e = events[len(events)-1-n]
		}
		size += len(e.msg) + eventOverhead
		if size > maxGetBytes && n > 0 {
			break
		}
		n++
	}
	if fromHead {
		return events[:n]
	}
	return events[len(events)-n:]
}

type filterLogEventsInput struct {
	LogGroupName        string   `json:"logGroupName"`
	LogGroupIdentifier  string   `json:"logGroupIdentifier"`
	LogStreamNames      []string `json:"logStreamNames"`
	LogStreamNamePrefix string   `json:"logStreamNamePrefix"`
	StartTime           *int64   `json:"startTime"`
	EndTime             *int64   `json:"endTime"`
	FilterPattern       string   `json:"filterPattern"`
	NextToken           string   `json:"nextToken"`
	Limit               *int     `json:"limit"`
}

type filteredLogEvent struct {
	LogStreamName string `json:"logStreamName"`
	Timestamp     int64  `json:"timestamp"`
	Message       string `json:"message"`
	IngestionTime int64  `json:"ingestionTime"`
	EventID       string `json:"eventId"`
}

type filterLogEventsOutput struct {
	Events    []filteredLogEvent `json:"events"`
	NextToken string             `json:"nextToken,omitempty"`
}

func (s *Service) httpFilterLogEvents(body []byte) (any, *Error) {
	var in filterLogEventsInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	groupName, err := s.resolveGroup(in.LogGroupName, in.LogGroupIdentifier)
	if err != nil {
		return nil, err
	}
	if len(in.LogStreamNames) > 0 && in.LogStreamNamePrefix != "" {
		return nil, errorf(ErrInvalidParameter, "logStreamNames and logStreamNamePrefix are mutually exclusive parameters.")
	}
	if len(in.LogStreamNames) > 100 {
		return nil, errValidation(len(in.LogStreamNames), "logStreamNames", "Member must have length less than or equal to 100")
	}
	limit, err := pageLimit(in.Limit, maxGetEvents, maxGetEvents)
	if err != nil {
		return nil, err
	}
	pat, err := parsePattern(in.FilterPattern)
	if err != nil {
		return nil, err
	}
	after := minKey
	if in.NextToken != "" {
		t, err := parsePageToken(in.NextToken)
		if err != nil || !t.forward {
			return nil, errInvalidToken()
		}
		after = t.at
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[groupName]
	if !ok {
		return nil, errNoGroup()
	}
	s.expireGroup(g)
	var streams []*stream
	if len(in.LogStreamNames) > 0 {
		for _, n := range in.LogStreamNames {
			st, ok := g.streams[n]
			if !ok {
				return nil, errNoStream()
			}
			streams = append(streams, st)
		}
	} else {
		for n, st := range g.streams {
			if strings.HasPrefix(n, in.LogStreamNamePrefix) {
				streams = append(streams, st)
			}
		}
	}
	type hit struct {
		e      event
		stream string
	}
	var hits []hit
	for _, st := range streams {
		for _, e := range st.events {
			if after.less(e.key()) && inRange(e.ts, in.StartTime, in.EndTime) && pat.match(e.msg) {
				hits = append(hits, hit{e, st.name})
			}
		}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].e.key().less(hits[j].e.key()) })
	out := filterLogEventsOutput{Events: []filteredLogEvent{}}
	size := 0
	for i, h := range hits {
		size += len(h.e.msg) + eventOverhead
		if i == limit || (size > maxGetBytes && i > 0) {
			out.NextToken = pageToken{forward: true, at: hits[i-1].e.key()}.String()
			break
		}
		out.Events = append(out.Events, filteredLogEvent{
			LogStreamName: h.stream, Timestamp: h.e.ts, Message: h.e.msg, IngestionTime: h.e.ingested,
			EventID: fmt.Sprintf("%020d%020d", uint64(h.e.ts), h.e.seq),
		})
	}
	return out, nil
}

// ---- pagination ----

func pageLimit(v *int, def, max int) (int, *Error) {
	if v == nil {
		return def, nil
	}
	if *v < 1 || *v > max {
		return 0, errValidation(*v, "limit", fmt.Sprintf("Member must have value between 1 and %d", max))
	}
	return *v, nil
}

func errInvalidToken() *Error {
	return errorf(ErrInvalidParameter, "The specified nextToken is invalid.")
}

// encodeToken makes an opaque pagination token of kind (one letter) and
// value; decodeToken checks the kind, so a token from another operation
// is refused.
func encodeToken(kind, value string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + value))
}

func decodeToken(tok, kind string) (string, *Error) {
	if tok == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", errInvalidToken()
	}
	v, ok := strings.CutPrefix(string(raw), kind+":")
	if !ok {
		return "", errInvalidToken()
	}
	return v, nil
}

// minKey sorts before every event.
var minKey = key{ts: -1 << 63, seq: 0}

func (k key) next() key {
	if k.seq == ^uint64(0) {
		return key{ts: k.ts + 1}
	}
	return key{ts: k.ts, seq: k.seq + 1}
}

func (k key) prev() key {
	if k == minKey {
		return k
	}
	if k.seq == 0 {
		return key{ts: k.ts - 1, seq: ^uint64(0)}
	}
	return key{ts: k.ts, seq: k.seq - 1}
}

// pageToken is a GetLogEvents token: "f/<ts>/<seq>" reads the events after
// the key, "b/<ts>/<seq>" the events before it.
type pageToken struct {
	forward bool
	at      key
}

func (t pageToken) String() string {
	d := "b"
	if t.forward {
		d = "f"
	}
	return fmt.Sprintf("%s/%d/%d", d, t.at.ts, t.at.seq)
}

func parsePageToken(s string) (pageToken, *Error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 || (parts[0] != "f" && parts[0] != "b") {
		return pageToken{}, errInvalidToken()
	}
	ts, err1 := strconv.ParseInt(parts[1], 10, 64)
	seq, err2 := strconv.ParseUint(parts[2], 10, 64)
	if err1 != nil || err2 != nil {
		return pageToken{}, errInvalidToken()
	}
	return pageToken{forward: parts[0] == "f", at: key{ts: ts, seq: seq}}, nil
}

// filter keeps the events the token reads: after it (forward) or before
// it (backward).
func (t pageToken) filter(events []event) []event {
	if t.forward {
		i := sort.Search(len(events), func(i int) bool { return t.at.less(events[i].key()) })
		return events[i:]
	}
	i := sort.Search(len(events), func(i int) bool { return !events[i].key().less(t.at) })
	return events[:i]
}

// asError converts a Go API error to the wire error (always an *Error).
func asError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Type: "ServiceUnavailableException", Status: http.StatusInternalServerError, Message: err.Error()}
}
