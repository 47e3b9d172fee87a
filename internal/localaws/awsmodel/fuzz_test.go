package awsmodel

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// byteTree builds a generic value from fuzz bytes: bounded depth (6) and
// collection sizes (8), so every input is validated in bounded time.
type byteTree struct {
	b []byte
	i int
}

func (t *byteTree) next() byte {
	if t.i >= len(t.b) {
		return 0
	}
	c := t.b[t.i]
	t.i++
	return c
}

func (t *byteTree) str() string {
	n := int(t.next() % 24)
	if t.i+n > len(t.b) {
		n = len(t.b) - t.i
	}
	s := string(t.b[t.i : t.i+n])
	t.i += n
	return s
}

var fuzzKeys = []string{"TableName", "Key", "Item", "QueueUrl", "MessageBody", "Name", "FunctionName", "Tags", "Limit",
	"logGroupName", "logEvents", "MetricData", "Bucket", "Attributes", "Entries", "S", "N", "M", "L", "Value", "Id"}

func (t *byteTree) value(depth int) any {
	c := t.next()
	if depth >= 6 {
		c %= 6
	}
	switch c % 9 {
	case 0:
		return nil
	case 1:
		return t.str()
	case 2:
		return json.Number(strconv.Itoa(int(int8(t.next())) * int(t.next())))
	case 3:
		return c&0x10 != 0
	case 4:
		return float64(int8(t.next())) / 3
	case 5:
		return json.Number(t.str())
	case 6, 7:
		n := int(t.next() % 8)
		m := make(map[string]any, n)
		for j := 0; j < n; j++ {
			k := t.str()
			if t.next()%2 == 0 {
				k = fuzzKeys[int(t.next())%len(fuzzKeys)]
			}
			m[k] = t.value(depth + 1)
		}
		return m
	default:
		n := int(t.next() % 8)
		l := make([]any, n)
		for j := range l {
			l[j] = t.value(depth + 1)
		}
		return l
	}
}

var allOps = func() []*Operation {
	m := MustLoad()
	var out []*Operation
	for _, k := range m.Services() {
		out = append(out, m.Service(k).Operations()...)
	}
	return out
}()

func pickOp(data []byte) *Operation {
	h := fnv.New32a()
	h.Write(data[:min(len(data), 4)])
	return allOps[int(h.Sum32()%uint32(len(allOps)))]
}

// FuzzValidate feeds random generic trees, JSON bodies, query forms and
// request paths to every operation: no panic, bounded time, and every
// rejection is a well-formed *Error.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{updateItemJSON, sendMessageJSON, createFunctionJSON, createPipeJSON, createScheduleJSON, putMetricAlarmJSON,
		`{"TableName":"","Key":{"a":{"M":{"b":{"L":[{"S":"x"}]}}}}}`, `Tags.member.1.Key=a&Tags.member.1.Value=b&RoleName=r`,
		`Attribute.1.Name=x&Attribute.1.Value=y&QueueUrl=u`, "\x00\x01\x02\x03\x04\x05\x06\x07\x08"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			data = data[:4096]
		}
		start := time.Now()
		op := pickOp(data)
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				// A watchdog: a stuck validation fails instead of hanging the fuzzer.
				panic(fmt.Sprintf("%s: input takes over 5s: %q", op, data))
			}
		}()
		check := func(e *Error) {
			if e == nil {
				return
			}
			if e.Code == "" || e.Message == "" || e.Status != 400 || len(e.Violations) == 0 {
				t.Fatalf("%s: malformed error %+v", op, e)
			}
		}
		tree := &byteTree{b: data}
		check(op.Validate(tree.value(0)))
		check(op.Validate(map[string]any{"TableName": tree.value(1), "QueueUrl": tree.value(1), "Name": tree.value(1), "Bucket": tree.value(1)}))
		if v, err := DecodeJSON(data); err == nil {
			check(op.Validate(v))
		}
		if form, err := url.ParseQuery(string(data)); err == nil {
			check(op.Validate(op.QueryInput(form)))
		}
		if u, err := url.Parse("/" + url.PathEscape(string(data[:min(len(data), 64)]))); err == nil {
			r := httptest.NewRequest("GET", "http://x/", nil)
			r.URL.Path, r.URL.RawPath = u.Path, u.RawPath
			if in, err := op.HTTPInput(r, tree.value(2)); err == nil {
				check(op.Validate(in))
			}
		}
		if op.Input != nil && op.Input.Payload != "" {
			if p, err := op.XMLPayload(data); err == nil && p != nil {
				check(op.Validate(map[string]any{op.Input.Payload: p}))
			}
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%s took %v", op, d)
		}
	})
}

func BenchmarkValidateDynamoDBUpdateItem(b *testing.B) {
	op := MustLoad().Operation("dynamodb", "UpdateItem")
	in, _ := DecodeJSON([]byte(updateItemJSON))
	if e := op.Validate(in); e != nil {
		b.Fatal(e)
	}
	b.ReportAllocs()
	for b.Loop() {
		if e := op.Validate(in); e != nil {
			b.Fatal(e)
		}
	}
}

func BenchmarkValidateSQSSendMessage(b *testing.B) {
	op := MustLoad().Operation("sqs", "SendMessage")
	in, _ := DecodeJSON([]byte(sendMessageJSON))
	if e := op.Validate(in); e != nil {
		b.Fatal(e)
	}
	b.ReportAllocs()
	for b.Loop() {
		if e := op.Validate(in); e != nil {
			b.Fatal(e)
		}
	}
}

// BenchmarkValidateByName includes the lookup the package-level Validate does.
func BenchmarkValidateByName(b *testing.B) {
	in, _ := DecodeJSON([]byte(updateItemJSON))
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate("dynamodb", "UpdateItem", in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateRejected(b *testing.B) {
	op := MustLoad().Operation("dynamodb", "PutItem")
	in := map[string]any{"TableName": "", "Item": map[string]any{}}
	b.ReportAllocs()
	for b.Loop() {
		if e := op.Validate(in); e == nil {
			b.Fatal("accepted")
		}
	}
}
