package alarm

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/aws/smithy-go/encoding/cbor"
)

// A small reflection codec between the wire structs (wire.go) and CBOR
// values from github.com/aws/smithy-go/encoding/cbor, keyed on the json
// tags. It covers exactly what Smithy RPC v2 CBOR uses for CloudWatch:
// maps keyed by member name, definite or indefinite lists and maps (the
// decoder accepts both), text strings, integers, floats (float16/32/64),
// booleans, null, and timestamps as tag 1 around epoch seconds
// (smithy-go transport/http/protocol/internal/cbor ShapeDeserializer.ReadTime
// accepts an integer or a float; the SDK's request snapshots send float64).

var timestampType = reflect.TypeFor[timestamp]()

type fieldInfo struct {
	name      string
	index     int
	omitempty bool
}

var fieldCache sync.Map // reflect.Type → []fieldInfo

func fieldsOf(t reflect.Type) []fieldInfo {
	if v, ok := fieldCache.Load(t); ok {
		return v.([]fieldInfo)
	}
	var out []fieldInfo
	for i := range t.NumField() {
		f := t.Field(i)
		tagv, ok := f.Tag.Lookup("json")
		if !ok || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tagv, ",")
		if name == "-" {
			continue
		}
		out = append(out, fieldInfo{name: name, index: i, omitempty: strings.Contains(opts, "omitempty")})
	}
	fieldCache.Store(t, out)
	return out
}

// encodeCBOR renders v (a wire struct or pointer to one) as CBOR.
func encodeCBOR(v any) []byte {
	return cbor.Encode(toCBOR(reflect.ValueOf(v)))
}

func toCBOR(v reflect.Value) cbor.Value {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return &cbor.Nil{}
		}
		return toCBOR(v.Elem())
	case reflect.Struct:
		if v.Type() == timestampType {
			t := v.Interface().(timestamp)
			return &cbor.Tag{ID: 1, Value: cbor.Float64(float64(t.UnixMilli()) / 1e3)}
		}
		m := cbor.Map{}
		for _, f := range fieldsOf(v.Type()) {
			fv := v.Field(f.index)
			if isAbsent(fv) {
				if f.omitempty {
					continue
				}
				if fv.Kind() == reflect.Slice {
					m[f.name] = cbor.List{}
					continue
				}
				if fv.Kind() == reflect.Map {
					m[f.name] = cbor.Map{}
					continue
				}
			}
			m[f.name] = toCBOR(fv)
		}
		return m
	case reflect.Slice:
		l := make(cbor.List, v.Len())
		for i := range l {
			l[i] = toCBOR(v.Index(i))
		}
		return l
	case reflect.Map:
		m := cbor.Map{}
		iter := v.MapRange()
		for iter.Next() {
			m[iter.Key().String()] = toCBOR(iter.Value())
		}
		return m
	case reflect.String:
		return cbor.String(v.String())
	case reflect.Bool:
		return cbor.Bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := v.Int()
		if n < 0 {
			return cbor.NegInt(uint64(-(n + 1)) + 1)
		}
		return cbor.Uint(uint64(n))
	case reflect.Float32, reflect.Float64:
		return cbor.Float64(v.Float())
	default:
		// Only reachable by a programming error in the wire structs.
		panic(fmt.Sprintf("alarm: no CBOR encoding for %s", v.Type()))
	}
}

func isAbsent(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return v.IsNil()
	}
	return false
}

// decodeCBOR decodes a CBOR request body into the wire struct *out.
// Unknown members are ignored, as Smithy servers must for forward
// compatibility; a member of the wrong type is an error naming it.
func decodeCBOR(body []byte, out any) error {
	if len(body) == 0 {
		return nil // an operation without input members may send no body
	}
	v, err := cbor.Decode(body)
	if err != nil {
		return fmt.Errorf("decode CBOR: %w", err)
	}
	if _, ok := v.(cbor.Map); !ok {
		return fmt.Errorf("request body is a CBOR %s, not a map", cborKind(v))
	}
	return fromCBOR(v, reflect.ValueOf(out).Elem(), "")
}

func fromCBOR(cv cbor.Value, v reflect.Value, path string) error {
	if _, null := cv.(*cbor.Nil); null {
		return nil
	}
	if _, undef := cv.(*cbor.Undefined); undef {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		if err := fromCBOR(cv, elem.Elem(), path); err != nil {
			return err
		}
		v.Set(elem)
		return nil
	case reflect.Interface:
		// Members the local cloud refuses (EvaluationCriteria, Entity):
		// only their presence matters.
		v.Set(reflect.ValueOf(cv))
		return nil
	case reflect.Struct:
		if v.Type() == timestampType {
			t, err := cbor.AsTime(cv)
			if err != nil {
				return typeErr(path, "a timestamp (tag 1)", cv)
			}
			v.Set(reflect.ValueOf(timestamp{t.UTC()}))
			return nil
		}
		m, ok := cv.(cbor.Map)
		if !ok {
			return typeErr(path, "a structure", cv)
		}
		for _, f := range fieldsOf(v.Type()) {
			mv, present := m[f.name]
			if !present {
				continue
			}
			if err := fromCBOR(mv, v.Field(f.index), join(path, f.name)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		l, ok := cv.(cbor.List)
		if !ok {
			return typeErr(path, "a list", cv)
		}
		s := reflect.MakeSlice(v.Type(), len(l), len(l))
		for i, item := range l {
			if err := fromCBOR(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		m, ok := cv.(cbor.Map)
		if !ok {
			return typeErr(path, "a map", cv)
		}
		out := reflect.MakeMapWithSize(v.Type(), len(m))
		for k, item := range m {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := fromCBOR(item, e, join(path, k)); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
		v.Set(out)
		return nil
	case reflect.String:
		s, ok := cv.(cbor.String)
		if !ok {
			return typeErr(path, "a string", cv)
		}
		v.SetString(string(s))
		return nil
	case reflect.Bool:
		b, ok := cv.(cbor.Bool)
		if !ok {
			return typeErr(path, "a boolean", cv)
		}
		v.SetBool(bool(b))
		return nil
	case reflect.Int32:
		n, err := cbor.AsInt32(cv)
		if err != nil {
			return typeErr(path, "a 32-bit integer", cv)
		}
		v.SetInt(int64(n))
		return nil
	case reflect.Int64, reflect.Int:
		n, err := cbor.AsInt64(cv)
		if err != nil {
			return typeErr(path, "an integer", cv)
		}
		v.SetInt(n)
		return nil
	case reflect.Float64:
		f, err := cbor.AsFloat64(cv)
		if err != nil {
			return typeErr(path, "a number", cv)
		}
		v.SetFloat(f)
		return nil
	default:
		panic(fmt.Sprintf("alarm: no CBOR decoding into %s", v.Type()))
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func typeErr(path, want string, got cbor.Value) error {
	return fmt.Errorf("member %s must be %s, got a CBOR %s", path, want, cborKind(got))
}

func cborKind(v cbor.Value) string {
	switch vv := v.(type) {
	case cbor.Uint, cbor.NegInt:
		return "integer"
	case cbor.Float32, cbor.Float64:
		return "float"
	case cbor.String:
		return "text string"
	case cbor.Slice:
		return "byte string"
	case cbor.List:
		return "list"
	case cbor.Map:
		return "map"
	case *cbor.Tag:
		return fmt.Sprintf("tag %d", vv.ID)
	case cbor.Bool:
		return "boolean"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// epochMillis is how CloudWatch keeps timestamps: millisecond precision.
func epochMillis(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()).UTC() }

// finite reports whether f is usable as a metric value: CloudWatch rejects
// NaN, ±Inf and magnitudes beyond 2^360 (PutMetricData API reference).
func finite(f float64) bool {
	return !math.IsNaN(f) && !math.IsInf(f, 0) && math.Abs(f) <= math.Ldexp(1, 360)
}
