// Package stream emulates the DynamoDB Streams API (ListStreams,
// DescribeStream, GetShardIterator, GetRecords) over the JSON 1.0 protocol,
// reading the streams that package table captures.
//
// Shard iterators are self-contained tokens (stream ARN, shard id, position,
// issue time), so any number of readers can hold iterators at once and no
// read ever consumes a record. They expire 15 minutes after issue, like
// AWS's. Facts and error shapes follow docs/aws-behaviour.md §2, which
// comments cite by section.
package stream

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// TargetPrefix is the X-Amz-Target prefix of the DynamoDB Streams API.
const TargetPrefix = "DynamoDBStreams_20120810"

// Options configure a Service.
type Options struct {
	// Now is the clock for iterator expiry; nil means time.Now. Use the
	// same clock as the table service.
	Now func() time.Time
	// IteratorTTL is how long a shard iterator stays valid; zero means 15
	// minutes, AWS's value (docs/aws-behaviour.md §2.6).
	IteratorTTL time.Duration
}

// Service is the emulated DynamoDB Streams API; it implements http.Handler.
type Service struct {
	tables *table.Service
	opts   Options
	ops    map[string]func([]byte) (any, error)
}

// New returns a Streams API over the streams of tables.
func New(tables *table.Service, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.IteratorTTL <= 0 {
		opts.IteratorTTL = 15 * time.Minute
	}
	s := &Service{tables: tables, opts: opts}
	s.ops = map[string]func([]byte) (any, error){
		"ListStreams":      s.listStreams,
		"DescribeStream":   s.describeStream,
		"GetShardIterator": s.getShardIterator,
		"GetRecords":       s.getRecords,
	}
	return s
}

// ServeHTTP implements http.Handler.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	prefix, op, _ := strings.Cut(r.Header.Get("X-Amz-Target"), ".")
	h := s.ops[op]
	if prefix != TargetPrefix || h == nil {
		table.WriteError(w, apiErr("UnknownOperationException",
			"operation %q is not emulated by the taskpipe local cloud (DynamoDB Streams supports: DescribeStream, GetRecords, GetShardIterator, ListStreams)",
			r.Header.Get("X-Amz-Target")))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		table.WriteError(w, apiErr("SerializationException", "read request body: %v", err))
		return
	}
	if e := table.CheckModel(emu.ServiceStreams, op, body); e != nil {
		table.WriteError(w, e)
		return
	}
	out, err := h(body)
	if err != nil {
		var ae *table.APIError
		if !errors.As(err, &ae) {
			ae = &table.APIError{Code: "InternalServerError", Status: http.StatusInternalServerError, Message: "local cloud: " + err.Error()}
		}
		table.WriteError(w, ae)
		return
	}
	table.WriteResult(w, out)
}

func apiErr(code, format string, args ...any) *table.APIError {
	return &table.APIError{Code: code, Message: fmt.Sprintf(format, args...)}
}

func validation(format string, args ...any) *table.APIError {
	return apiErr("ValidationException", format, args...)
}

func notFound(arn string) *table.APIError {
	// AWS-recorded wording (docs/aws-behaviour.md §2.1).
	return apiErr("ResourceNotFoundException", "Requested resource not found: Stream: %s not found", arn)
}

func errTrimmed() *table.APIError {
	// Wording of the model's TrimmedDataAccessException documentation.
	return apiErr("TrimmedDataAccessException", "The operation attempted to read past the oldest stream record in a shard.")
}

func decode(body []byte, v any) error {
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return apiErr("SerializationException", "malformed JSON request: %v", err)
	}
	return nil
}

// streamARN matches stream ARNs: table ARN + "/stream/" + millisecond label
// (docs/aws-behaviour.md §2.3). Malformed ARNs are a ValidationException on AWS,
// unknown well-formed ones a ResourceNotFoundException.
var streamARN = regexp.MustCompile(`^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table/[a-zA-Z0-9_.-]{3,255}/stream/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$`)

// lookup resolves a StreamArn parameter.
func (s *Service) lookup(arn string) (*table.Stream, error) {
	if arn == "" {
		return nil, validation("1 validation error detected: Value null at 'streamArn' failed to satisfy constraint: Member must not be null")
	}
	if !streamARN.MatchString(arn) {
		return nil, validation("Invalid StreamArn")
	}
	st, err := s.tables.Stream(arn)
	if err != nil {
		return nil, notFound(arn)
	}
	return st, nil
}

type streamSummary struct {
	StreamArn   string `json:"StreamArn"`
	StreamLabel string `json:"StreamLabel"`
	TableName   string `json:"TableName"`
}

func (s *Service) listStreams(body []byte) (any, error) {
	var in struct {
		ExclusiveStartStreamArn *string
		Limit                   *int32
		TableName               *string
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return nil, validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and 100", *in.Limit)
		}
		limit = int(*in.Limit)
	}
	start := ""
	if in.ExclusiveStartStreamArn != nil {
		start = *in.ExclusiveStartStreamArn
		if !streamARN.MatchString(start) {
			return nil, validation("Invalid ExclusiveStartStreamArn")
		}
	}
	name := ""
	if in.TableName != nil {
		name = *in.TableName
	}
	streams := s.tables.Streams(name)
	if name != "" && len(streams) == 0 && !s.tables.HasTable(name) {
		return nil, apiErr("ResourceNotFoundException", "Requested resource not found: Table: %s not found", name)
	}
	out := struct {
		LastEvaluatedStreamArn string          `json:"LastEvaluatedStreamArn,omitempty"`
		Streams                []streamSummary `json:"Streams"`
	}{Streams: []streamSummary{}}
	// Streams come sorted by ARN, so "after this ARN" is well defined even
	// when that stream has since expired.
	for _, st := range streams {
		if start != "" && st.ARN() <= start {
			continue
		}
		if len(out.Streams) == limit {
			out.LastEvaluatedStreamArn = out.Streams[limit-1].StreamArn
			break
		}
		out.Streams = append(out.Streams, streamSummary{StreamArn: st.ARN(), StreamLabel: st.Label(), TableName: st.TableName()})
	}
	return out, nil
}

type sequenceRange struct {
	StartingSequenceNumber string `json:"StartingSequenceNumber"`
	EndingSequenceNumber   string `json:"EndingSequenceNumber,omitempty"`
}

type shard struct {
	SequenceNumberRange sequenceRange `json:"SequenceNumberRange"`
	ShardID             string        `json:"ShardId"`
}

func (s *Service) describeStream(body []byte) (any, error) {
	var in struct {
		ExclusiveStartShardId *string
		Limit                 *int32
		StreamArn             *string
		ShardFilter           *struct {
			Type    string
			ShardId *string
		}
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > 100) {
		return nil, validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and 100", *in.Limit)
	}
	if f := in.ShardFilter; f != nil && f.Type != "CHILD_SHARDS" {
		return nil, validation("1 validation error detected: Value '%s' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]", f.Type)
	}
	var arn string
	if in.StreamArn != nil {
		arn = *in.StreamArn
	}
	st, err := s.lookup(arn)
	if err != nil {
		return nil, err
	}
	info := st.Info()
	shards := []shard{}
	// One shard per stream; it has no children, and shards are listed in
	// id order after ExclusiveStartShardId (docs/aws-behaviour.md §2.2).
	after := ""
	if in.ExclusiveStartShardId != nil {
		after = *in.ExclusiveStartShardId
	}
	if in.ShardFilter == nil && info.ShardID > after {
		shards = append(shards, shard{ShardID: info.ShardID, SequenceNumberRange: sequenceRange{
			StartingSequenceNumber: info.StartingSequenceNumber, EndingSequenceNumber: info.EndingSequenceNumber,
		}})
	}
	return map[string]any{"StreamDescription": map[string]any{
		"CreationRequestDateTime": float64(info.CreatedAt.UnixMilli()) / 1000,
		"KeySchema":               info.KeySchema,
		"Shards":                  shards,
		"StreamArn":               info.ARN,
		"StreamLabel":             info.Label,
		"StreamStatus":            info.Status,
		"StreamViewType":          info.ViewType,
		"TableName":               info.TableName,
	}}, nil
}

// iterator is the content of a shard iterator token.
type iterator struct {
	ARN    string `json:"a"`
	Shard  string `json:"s"`
	Pos    uint64 `json:"p"`
	Issued int64  `json:"t"` // Unix milliseconds
}

func (it iterator) encode() string {
	b, err := json.Marshal(it)
	if err != nil {
		panic(fmt.Sprintf("stream: encode iterator: %v", err)) // plain struct of strings and ints
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeIterator parses a token; anything else is "Invalid ShardIterator"
// (a ValidationException on AWS).
func decodeIterator(tok string) (iterator, error) {
	var it iterator
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || json.Unmarshal(b, &it) != nil || !streamARN.MatchString(it.ARN) || it.Shard == "" || it.Issued <= 0 {
		return iterator{}, validation("Invalid ShardIterator")
	}
	return it, nil
}

func (s *Service) getShardIterator(body []byte) (any, error) {
	var in struct {
		SequenceNumber    *string
		ShardId           *string
		ShardIteratorType string
		StreamArn         *string
		Timestamp         *float64
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.ShardId == nil || *in.ShardId == "" {
		return nil, validation("1 validation error detected: Value null at 'shardId' failed to satisfy constraint: Member must not be null")
	}
	typ := in.ShardIteratorType
	withSeq := typ == "AT_SEQUENCE_NUMBER" || typ == "AFTER_SEQUENCE_NUMBER"
	switch {
	case typ == "":
		return nil, validation("1 validation error detected: Value null at 'shardIteratorType' failed to satisfy constraint: Member must not be null")
	case typ != "TRIM_HORIZON" && typ != "LATEST" && typ != "AT_TIMESTAMP" && !withSeq:
		return nil, validation("1 validation error detected: Value '%s' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, AT_SEQUENCE_NUMBER, AT_TIMESTAMP, LATEST, TRIM_HORIZON]", typ)
	// AT/AFTER need a sequence number and the other types refuse one
	// (ValidationException on AWS; scylladb test_streams.py, run against
	// DynamoDB).
	case withSeq && in.SequenceNumber == nil:
		return nil, validation("Invalid SequenceNumber: a SequenceNumber is required for ShardIteratorType %s", typ)
	case !withSeq && in.SequenceNumber != nil:
		return nil, validation("Invalid SequenceNumber: a SequenceNumber must not be given for ShardIteratorType %s", typ)
	case typ == "AT_TIMESTAMP" && in.Timestamp == nil:
		return nil, validation("A Timestamp is required for ShardIteratorType AT_TIMESTAMP")
	case typ != "AT_TIMESTAMP" && in.Timestamp != nil:
		return nil, validation("A Timestamp can only be given for ShardIteratorType AT_TIMESTAMP")
	}
	var arn string
	if in.StreamArn != nil {
		arn = *in.StreamArn
	}
	st, err := s.lookup(arn)
	if err != nil {
		return nil, err
	}
	if *in.ShardId != st.ShardID() {
		return nil, apiErr("ResourceNotFoundException", "Requested resource not found: Shard: %s in Stream: %s not found", *in.ShardId, arn)
	}
	var pos table.Cursor
	switch typ {
	case "TRIM_HORIZON":
		pos = st.TrimHorizon()
	case "LATEST":
		pos = st.Latest()
	case "AT_TIMESTAMP":
		// The SDK documents AT_TIMESTAMP: the first record at or after the
		// time, the oldest retained one for a time before the trim
		// horizon, and a ValidationException for a time in the future.
		at := time.UnixMilli(int64(*in.Timestamp * 1000))
		if at.After(s.opts.Now()) {
			return nil, validation("The timestamp %v is in the future", at.UTC())
		}
		pos = st.AtTime(at)
	default:
		seek := st.AtSequenceNumber
		if typ == "AFTER_SEQUENCE_NUMBER" {
			seek = st.AfterSequenceNumber
		}
		if pos, err = seek(*in.SequenceNumber); err != nil {
			if errors.Is(err, table.ErrTrimmed) {
				return nil, errTrimmed()
			}
			return nil, validation("Invalid SequenceNumber %s for shard %s of stream %s", *in.SequenceNumber, st.ShardID(), arn)
		}
	}
	tok := iterator{ARN: st.ARN(), Shard: st.ShardID(), Pos: uint64(pos), Issued: s.opts.Now().UnixMilli()}
	return map[string]string{"ShardIterator": tok.encode()}, nil
}

func (s *Service) getRecords(body []byte) (any, error) {
	var in struct {
		Limit         *int32
		ShardIterator *string
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.ShardIterator == nil || *in.ShardIterator == "" {
		return nil, validation("1 validation error detected: Value null at 'shardIterator' failed to satisfy constraint: Member must not be null")
	}
	limit := 1000
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 1000 {
			return nil, validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 1000 and greater than or equal to 1", *in.Limit)
		}
		limit = int(*in.Limit)
	}
	it, err := decodeIterator(*in.ShardIterator)
	if err != nil {
		return nil, err
	}
	now := s.opts.Now()
	if now.Sub(time.UnixMilli(it.Issued)) > s.opts.IteratorTTL {
		// Wording of the model's ExpiredIteratorException documentation.
		return nil, apiErr("ExpiredIteratorException", "The shard iterator has expired and can no longer be used to retrieve stream records. A shard iterator expires 15 minutes after it is retrieved using the GetShardIterator action.")
	}
	st, err := s.tables.Stream(it.ARN)
	if err != nil {
		return nil, notFound(it.ARN)
	}
	if it.Shard != st.ShardID() {
		return nil, validation("Invalid ShardIterator")
	}
	res, err := st.Read(table.Cursor(it.Pos), limit)
	switch {
	case errors.Is(err, table.ErrTrimmed):
		return nil, errTrimmed()
	case err != nil:
		return nil, validation("Invalid ShardIterator")
	}
	out := struct {
		NextShardIterator string         `json:"NextShardIterator,omitempty"`
		Records           []table.Record `json:"Records"`
	}{Records: res.Records}
	if out.Records == nil {
		out.Records = []table.Record{}
	}
	// A closed, fully read shard has no next iterator (scylladb
	// test_streams.py, test_streams_closed_read, run against DynamoDB).
	if !res.End {
		out.NextShardIterator = iterator{ARN: it.ARN, Shard: it.Shard, Pos: uint64(res.Next), Issued: now.UnixMilli()}.encode()
	}
	return out, nil
}
