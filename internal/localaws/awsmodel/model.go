package awsmodel

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"sync"

	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel/internal/wire"
)

//go:embed model.json.gz
var artifact []byte

// Model is the loaded artifact: the served operations of every service.
type Model struct {
	// BotocoreVersion is the botocore release the models come from.
	BotocoreVersion string
	// License is the models' licence (Apache-2.0) and where they come from.
	License  License
	services map[string]*Service
	keys     []string
}

// License names a licence and its text's address.
type License struct{ Name, URL, Source string }

// Service is one AWS service as the local cloud serves it.
type Service struct {
	Key          string // local-cloud service key, e.g. "dynamodb", "streams.dynamodb", "monitoring"
	Model        string // botocore model directory, e.g. "dynamodbstreams", "cloudwatch"
	APIVersion   string
	ModelSHA256  string // sha256 of the decompressed service-2.json
	FileSHA256   string // sha256 of the service-2.json.gz botocore ships
	ServiceID    string
	Protocol     string   // json, rest-json, rest-xml, query, smithy-rpc-v2-cbor
	Protocols    []string // the model's protocols list, if any
	JSONVersion  string
	TargetPrefix string
	XMLNamespace string
	SigningName  string
	// QueryCompatible: awsQueryCompatible (SQS); errors also carry a legacy query code.
	QueryCompatible bool
	// LegacyQuery, when set, is where the query-protocol wire names come from.
	LegacyQuery *wire.Legacy

	ops    map[string]*Operation
	opList []*Operation
	shapes map[string]*Shape
	policy *policy
}

// Operation is one served operation.
type Operation struct {
	Service      *Service
	Name         string
	Method       string
	RequestURI   string
	ResponseCode int
	// Input is the input structure; nil for operations without input.
	Input             *Shape
	InputLocationName string
	InputXMLNamespace string
	HostPrefix        string

	uriOnce sync.Once
	uri     *uriTemplate
	uriErr  error
}

// Shape is a model shape with the constraints the validator enforces.
type Shape struct {
	Name     string
	Type     string // structure, list, map, string, integer, long, short, byte, boolean, float, double, timestamp, blob, union-less document
	Members  []*Member
	Member   *Ref // list element
	Key      *Ref // map key
	Value    *Ref // map value
	Min, Max *Bound
	Pattern  *Pattern
	Enum     []string

	Flattened       bool
	LocationName    string
	XMLNamespace    *wire.XMLNS
	Sensitive       bool
	Union           bool
	Document        bool
	Streaming       bool
	EventStream     bool
	Payload         string
	TimestampFormat string

	byName  map[string]*Member
	byWire  map[string]*Member // body wire names (locationName) that differ from member names
	enumSet map[string]struct{}
}

// Member is a structure member.
type Member struct {
	Name     string
	Required bool
	Ref
	// pathName is the name in Coral validation paths: the member name with
	// its first letter in lower case ("TableName" → "tableName", "KMSKeyArn" → "kMSKeyArn").
	pathName string
	// skip are the constraint kinds not enforced below this member (Leniencies).
	skip kindSet
}

// Ref is a reference to a shape with its serialization traits.
type Ref struct {
	Shape            *Shape
	Location         string // "", uri, querystring, header, headers, statusCode
	LocationName     string
	QueryName        string // query-protocol wire name ("" = default)
	QueryFlattened   bool
	Flattened        bool
	XMLAttribute     bool
	XMLNamespace     *wire.XMLNS
	IdempotencyToken bool
	HostLabel        bool
	JSONValue        bool
	Streaming        bool
	TimestampFormat  string
}

// Bound is a min or max trait: its text as the model writes it and its value.
type Bound struct {
	Text  string
	Float float64
}

var (
	loadOnce sync.Once
	loaded   *Model
	loadErr  error
)

// Load returns the embedded model, decoding it on first use.
func Load() (*Model, error) {
	loadOnce.Do(func() { loaded, loadErr = decode(artifact) })
	return loaded, loadErr
}

// MustLoad is Load for callers that treat a broken artifact as a bug.
func MustLoad() *Model {
	m, err := Load()
	if err != nil {
		panic(err)
	}
	return m
}

func decode(gz []byte) (*Model, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("awsmodel: artifact: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("awsmodel: artifact: %w", err)
	}
	var f wire.File
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("awsmodel: artifact: %w", err)
	}
	if f.Format != 1 {
		return nil, fmt.Errorf("awsmodel: artifact format %d, want 1", f.Format)
	}
	m := &Model{
		BotocoreVersion: f.BotocoreVersion,
		License:         License{Name: f.License.Name, URL: f.License.URL, Source: f.License.Source},
		services:        map[string]*Service{},
	}
	for _, ws := range f.Services {
		s, err := buildService(ws)
		if err != nil {
			return nil, fmt.Errorf("awsmodel: %s: %w", ws.Key, err)
		}
		m.services[s.Key] = s
		m.keys = append(m.keys, s.Key)
	}
	sort.Strings(m.keys)
	return m, nil
}

func buildService(ws wire.Service) (*Service, error) {
	s := &Service{
		Key: ws.Key, Model: ws.Model, APIVersion: ws.APIVersion, ModelSHA256: ws.ModelSHA256,
		FileSHA256: ws.FileSHA256, ServiceID: ws.ServiceID, Protocol: ws.Protocol, Protocols: ws.Protocols,
		JSONVersion: ws.JSONVersion, TargetPrefix: ws.TargetPrefix, XMLNamespace: ws.XMLNamespace,
		SigningName: ws.SigningName, QueryCompatible: ws.QueryCompatible, LegacyQuery: ws.LegacyQuery,
		ops: map[string]*Operation{}, shapes: map[string]*Shape{},
	}
	s.policy = policyFor(s.Key)
	for i := range ws.Shapes {
		w := &ws.Shapes[i]
		sh := &Shape{
			Name: w.Name, Type: w.Type, Enum: w.Enum, Flattened: w.Flattened, LocationName: w.LocationName,
			XMLNamespace: w.XMLNamespace, Sensitive: w.Sensitive, Union: w.Union, Document: w.Document,
			Streaming: w.Streaming, EventStream: w.EventStream, Payload: w.Payload, TimestampFormat: w.TimestampFormat,
		}
		var err error
		if sh.Min, err = bound(w.Min); err != nil {
			return nil, fmt.Errorf("shape %s min: %w", w.Name, err)
		}
		if sh.Max, err = bound(w.Max); err != nil {
			return nil, fmt.Errorf("shape %s max: %w", w.Name, err)
		}
		if w.Pattern != "" {
			sh.Pattern = newPattern(w.Pattern)
		}
		if len(w.Enum) > 0 {
			sh.enumSet = make(map[string]struct{}, len(w.Enum))
			for _, e := range w.Enum {
				sh.enumSet[e] = struct{}{}
			}
		}
		s.shapes[w.Name] = sh
	}
	ref := func(r *wire.Ref) (*Ref, error) {
		if r == nil {
			return nil, nil
		}
		t := s.shapes[r.Shape]
		if t == nil {
			return nil, fmt.Errorf("shape %s missing from artifact", r.Shape)
		}
		return &Ref{
			Shape: t, Location: r.Location, LocationName: r.LocationName, QueryName: r.QueryName,
			QueryFlattened: r.QueryFlattened, Flattened: r.Flattened, XMLAttribute: r.XMLAttribute,
			XMLNamespace: r.XMLNamespace, IdempotencyToken: r.IdempotencyToken, HostLabel: r.HostLabel,
			JSONValue: r.JSONValue, Streaming: r.Streaming, TimestampFormat: r.TimestampFormat,
		}, nil
	}
	for i := range ws.Shapes {
		w := &ws.Shapes[i]
		sh := s.shapes[w.Name]
		var err error
		if sh.Member, err = ref(w.Member); err != nil {
			return nil, err
		}
		if sh.Key, err = ref(w.Key); err != nil {
			return nil, err
		}
		if sh.Value, err = ref(w.Value); err != nil {
			return nil, err
		}
		req := map[string]bool{}
		for _, r := range w.Required {
			req[r] = true
		}
		if len(w.Members) > 0 {
			sh.byName = make(map[string]*Member, len(w.Members))
		}
		for j := range w.Members {
			wm := &w.Members[j]
			r, err := ref(&wm.Ref)
			if err != nil {
				return nil, err
			}
			mem := &Member{Name: wm.Name, Required: req[wm.Name], Ref: *r, pathName: lowerFirst(wm.Name)}
			sh.Members = append(sh.Members, mem)
			sh.byName[wm.Name] = mem
			if mem.Location == "" && mem.LocationName != "" && mem.LocationName != mem.Name {
				if sh.byWire == nil {
					sh.byWire = map[string]*Member{}
				}
				sh.byWire[mem.LocationName] = mem
			}
		}
	}
	for _, wo := range ws.Operations {
		op := &Operation{
			Service: s, Name: wo.Name, Method: wo.Method, RequestURI: wo.RequestURI, ResponseCode: wo.ResponseCode,
			InputLocationName: wo.InputLocationName, InputXMLNamespace: wo.InputXMLNamespace, HostPrefix: wo.HostPrefix,
		}
		if wo.Input != "" {
			op.Input = s.shapes[wo.Input]
			if op.Input == nil {
				return nil, fmt.Errorf("operation %s: input shape %s missing", wo.Name, wo.Input)
			}
		}
		s.ops[op.Name] = op
		s.opList = append(s.opList, op)
	}
	applyLeniencies(s)
	return s, nil
}

func bound(n json.Number) (*Bound, error) {
	if n == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return nil, err
	}
	return &Bound{Text: string(n), Float: f}, nil
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+('a'-'A')) + s[1:]
}

// Services returns the service keys, sorted.
func (m *Model) Services() []string { return append([]string(nil), m.keys...) }

// Service returns a service by its local-cloud key.
func (m *Model) Service(key string) *Service { return m.services[key] }

// Operation returns a served operation, or nil.
func (m *Model) Operation(service, operation string) *Operation {
	s := m.services[service]
	if s == nil {
		return nil
	}
	return s.ops[operation]
}

// Operations returns the served operations in the generator's order.
func (s *Service) Operations() []*Operation { return append([]*Operation(nil), s.opList...) }

// Operation returns a served operation by name, or nil.
func (s *Service) Operation(name string) *Operation { return s.ops[name] }

// Shape returns a shape reachable from a served input, or nil.
func (s *Service) Shape(name string) *Shape { return s.shapes[name] }

// MemberByName returns a structure member by its model name.
func (sh *Shape) MemberByName(name string) *Member { return sh.byName[name] }

// IsInteger reports whether the shape is an integral number type.
func (sh *Shape) IsInteger() bool {
	switch sh.Type {
	case "integer", "long", "short", "byte", "bigInteger":
		return true
	}
	return false
}

// IsNumber reports whether the shape is any number type.
func (sh *Shape) IsNumber() bool {
	return sh.IsInteger() || sh.Type == "float" || sh.Type == "double" || sh.Type == "bigDecimal"
}

// IsScalar reports whether the shape is neither a structure, list nor map.
func (sh *Shape) IsScalar() bool {
	switch sh.Type {
	case "structure", "list", "map", "union":
		return false
	}
	return true
}

// intRange is the range of an integral type, for overflow checks.
func intRange(t string) (lo, hi float64) {
	switch t {
	case "integer":
		return math.MinInt32, math.MaxInt32
	case "short":
		return math.MinInt16, math.MaxInt16
	case "byte":
		return math.MinInt8, math.MaxInt8
	}
	return math.MinInt64, math.MaxInt64
}

// wireKey returns the body key (JSON member name) of a member.
func (m *Member) wireKey() string {
	if m.Location == "" && m.LocationName != "" {
		return m.LocationName
	}
	return m.Name
}

// String returns "service:Operation".
func (op *Operation) String() string { return op.Service.Key + ":" + op.Name }

func (sh *Shape) String() string { return sh.Name + "(" + sh.Type + ")" }
