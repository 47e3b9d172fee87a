package bucket

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// Options configures a Service. Zero values take the defaults.
type Options struct {
	// Now is the clock of object timestamps (default time.Now).
	Now func() time.Time
}

// Service is the S3 emulation; it implements http.Handler.
type Service struct {
	backend *s3mem.Backend
	fake    http.Handler

	mu sync.Mutex
	// configs holds each bucket's configuration sub-resources, by bucket
	// and sub-resource name (the query key: "policy", "encryption", …).
	configs map[string]map[string][]byte
}

// New returns an empty S3.
func New(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	ts := clock(o.Now)
	be := s3mem.New(s3mem.WithTimeSource(ts))
	fake := gofakes3.New(be, gofakes3.WithTimeSource(ts),
		// The local cloud runs on a test clock that may be far from the
		// signing time; SigV4 is not verified here at all.
		gofakes3.WithTimeSkewLimit(0))
	return &Service{backend: be, fake: fake.Server(), configs: map[string]map[string][]byte{}}
}

// clock adapts a Now function to gofakes3.TimeSource.
type clock func() time.Time

func (c clock) Now() time.Time                  { return c() }
func (c clock) Since(t time.Time) time.Duration { return c().Sub(t) }

// Usage is what a bucket holds.
type Usage struct {
	Objects int
	Bytes   int64
}

// Usage returns the object count and bytes under prefix in bucket name.
func (s *Service) Usage(name, prefix string) (Usage, error) {
	var p *gofakes3.Prefix
	if prefix != "" {
		p = &gofakes3.Prefix{Prefix: prefix, HasPrefix: true}
	}
	list, err := s.backend.ListBucket(name, p, gofakes3.ListBucketPage{})
	if err != nil {
		return Usage{}, fmt.Errorf("bucket: usage of %s: %w", name, err)
	}
	var u Usage
	for _, c := range list.Contents {
		u.Objects++
		u.Bytes += c.Size
	}
	return u, nil
}

// configResources are the bucket sub-resources this package keeps itself,
// with the operation names (Put, Get, Delete) and the error S3 answers a
// Get of one that was never set.
var configResources = map[string]struct {
	put, get, del string
	missing       s3Error
}{
	"policy": {"PutBucketPolicy", "GetBucketPolicy", "DeleteBucketPolicy",
		s3Error{http.StatusNotFound, "NoSuchBucketPolicy", "The bucket policy does not exist"}},
	"encryption": {"PutBucketEncryption", "GetBucketEncryption", "DeleteBucketEncryption", s3Error{}},
	"publicAccessBlock": {"PutPublicAccessBlock", "GetPublicAccessBlock", "DeletePublicAccessBlock",
		s3Error{http.StatusNotFound, "NoSuchPublicAccessBlockConfiguration", "The public access block configuration was not found"}},
	"lifecycle": {"PutBucketLifecycleConfiguration", "GetBucketLifecycleConfiguration", "DeleteBucketLifecycle",
		s3Error{http.StatusNotFound, "NoSuchLifecycleConfiguration", "The lifecycle configuration does not exist"}},
	"tagging": {"PutBucketTagging", "GetBucketTagging", "DeleteBucketTagging",
		s3Error{http.StatusNotFound, "NoSuchTagSet", "The TagSet does not exist"}},
	"ownershipControls": {"PutBucketOwnershipControls", "GetBucketOwnershipControls", "DeleteBucketOwnershipControls",
		s3Error{http.StatusNotFound, "OwnershipControlsNotFoundError", "The bucket ownership controls were not found"}},
}

// defaultEncryption is what GetBucketEncryption answers for a bucket with
// no configuration of its own: SSE-S3 (see the package documentation).
const defaultEncryption = `<?xml version="1.0" encoding="UTF-8"?>` +
	`<ServerSideEncryptionConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule>` +
	`<ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault>` +
	`<BucketKeyEnabled>false</BucketKeyEnabled></Rule></ServerSideEncryptionConfiguration>`

// OperationName implements emu.OperationNamer.
func (s *Service) OperationName(r *http.Request) string {
	c := r.Clone(r.Context())
	virtualHost(c)
	bucketName, key := splitPath(c.URL.Path)
	op, _ := operation(c, bucketName, key)
	return op
}

// Target returns the bucket and object key a request addresses, path-style
// or virtual-hosted ("" when it names none), for the local cloud's IAM
// checks.
func Target(r *http.Request) (bucketName, key string) {
	c := r.Clone(r.Context())
	virtualHost(c)
	return splitPath(c.URL.Path)
}

// ServeHTTP implements http.Handler.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	virtualHost(r)
	bucketName, key := splitPath(r.URL.Path)
	op, sub := operation(r, bucketName, key)
	emu.SetOperation(r, op)

	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, s3Error{http.StatusBadRequest, "IncompleteBody", "read the request body: " + err.Error()})
		return
	}
	if e := awsmodel.CheckHTTP(emu.ServiceS3, op, r, body); e != nil {
		code := e.Code
		if code == "" {
			code = e.Type
		}
		writeError(w, s3Error{e.Status, code, e.Message})
		return
	}
	if sub != "" {
		s.config(w, r, bucketName, sub, body)
		return
	}
	if op == "DeleteBucket" {
		defer s.forgetIfGone(bucketName)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	s.fake.ServeHTTP(w, r)
}

// forgetIfGone drops the configuration of a deleted bucket, so a bucket
// created again under the name starts bare, as on AWS.
func (s *Service) forgetIfGone(name string) {
	if ok, err := s.backend.BucketExists(name); err == nil && !ok {
		s.mu.Lock()
		delete(s.configs, name)
		s.mu.Unlock()
	}
}

// config serves a configuration sub-resource of a bucket.
func (s *Service) config(w http.ResponseWriter, r *http.Request, name, sub string, body []byte) {
	if ok, err := s.backend.BucketExists(name); err != nil || !ok {
		writeError(w, s3Error{http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Method {
	case http.MethodPut:
		if sub != "policy" && len(body) > 0 {
			if err := xml.Unmarshal(body, new(struct{})); err != nil {
				writeError(w, s3Error{http.StatusBadRequest, "MalformedXML",
					"The XML you provided was not well-formed or did not validate against our published schema"})
				return
			}
		}
		if s.configs[name] == nil {
			s.configs[name] = map[string][]byte{}
		}
		s.configs[name][sub] = body
		w.WriteHeader(http.StatusOK)
	case http.MethodGet:
		b, ok := s.configs[name][sub]
		switch {
		case ok && sub == "policy":
			w.Header().Set("Content-Type", "application/json")
		case ok:
			w.Header().Set("Content-Type", "application/xml")
		case sub == "encryption":
			w.Header().Set("Content-Type", "application/xml")
			b = []byte(defaultEncryption)
		default:
			writeError(w, configResources[sub].missing)
			return
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b) // the client went away; nothing left to tell it
	case http.MethodDelete:
		delete(s.configs[name], sub)
		w.WriteHeader(http.StatusNoContent)
	default:
		writeError(w, s3Error{http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource"})
	}
}

// virtualHost turns a virtual-hosted request (Host <bucket>.localhost or
// <bucket>.s3.localhost) into the path-style one gofakes3 routes.
func virtualHost(r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(host)
	rest, ok := strings.CutSuffix(host, ".localhost")
	if !ok || rest == "" || rest == "s3" {
		return
	}
	name := strings.TrimSuffix(rest, ".s3")
	p := "/" + name
	if r.URL.Path != "/" && r.URL.Path != "" {
		p += r.URL.Path
	}
	r.URL.Path = p
	r.URL.RawPath = ""
}

// splitPath returns the bucket and key of a path-style request path.
func splitPath(p string) (bucketName, key string) {
	bucketName, key, _ = strings.Cut(strings.TrimPrefix(p, "/"), "/")
	return bucketName, key
}

// operation names the S3 operation of a request and, for the sub-resources
// this package keeps itself, the sub-resource (otherwise "").
func operation(r *http.Request, bucketName, key string) (op, sub string) {
	q := r.URL.Query()
	has := func(k string) bool { _, ok := q[k]; return ok }
	if bucketName == "" {
		return "ListBuckets", ""
	}
	if key == "" {
		for name, c := range configResources {
			if !has(name) {
				continue
			}
			switch r.Method {
			case http.MethodPut:
				return c.put, name
			case http.MethodGet:
				return c.get, name
			case http.MethodDelete:
				return c.del, name
			}
			return "", name
		}
		switch r.Method {
		case http.MethodPut:
			if has("versioning") {
				return "PutBucketVersioning", ""
			}
			return "CreateBucket", ""
		case http.MethodGet:
			switch {
			case has("versioning"):
				return "GetBucketVersioning", ""
			case has("location"):
				return "GetBucketLocation", ""
			case has("versions"):
				return "ListObjectVersions", ""
			case has("uploads"):
				return "ListMultipartUploads", ""
			case q.Get("list-type") == "2":
				return "ListObjectsV2", ""
			}
			return "ListObjects", ""
		case http.MethodHead:
			return "HeadBucket", ""
		case http.MethodDelete:
			return "DeleteBucket", ""
		case http.MethodPost:
			if has("delete") {
				return "DeleteObjects", ""
			}
		}
		return "", ""
	}
	switch r.Method {
	case http.MethodPut:
		switch {
		case has("uploadId"):
			return "UploadPart", ""
		case r.Header.Get("X-Amz-Copy-Source") != "":
			return "CopyObject", ""
		}
		return "PutObject", ""
	case http.MethodGet:
		if has("uploadId") {
			return "ListParts", ""
		}
		return "GetObject", ""
	case http.MethodHead:
		return "HeadObject", ""
	case http.MethodDelete:
		if has("uploadId") {
			return "AbortMultipartUpload", ""
		}
		return "DeleteObject", ""
	case http.MethodPost:
		if has("uploads") {
			return "CreateMultipartUpload", ""
		}
		if has("uploadId") {
			return "CompleteMultipartUpload", ""
		}
	}
	return "", ""
}

// s3Error is an S3 REST error
// (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
type s3Error struct {
	status        int
	code, message string
}

func writeError(w http.ResponseWriter, e s3Error) {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	_ = xml.NewEncoder(&buf).Encode(struct {
		XMLName xml.Name `xml:"Error"`
		Code    string   `xml:"Code"`
		Message string   `xml:"Message"`
	}{Code: e.code, Message: e.message}) // a struct of strings always encodes
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(e.status)
	_, _ = w.Write(buf.Bytes()) // the client went away; nothing left to tell it
}

// Each calls fn with every object under prefix in bucket name, in key
// order, for in-process readers (the demo); fn must not keep body.
func (s *Service) Each(name, prefix string, fn func(key string, body []byte) error) error {
	var p *gofakes3.Prefix
	if prefix != "" {
		p = &gofakes3.Prefix{Prefix: prefix, HasPrefix: true}
	}
	list, err := s.backend.ListBucket(name, p, gofakes3.ListBucketPage{})
	if err != nil {
		return fmt.Errorf("bucket: list %s: %w", name, err)
	}
	for _, c := range list.Contents {
		obj, err := s.backend.GetObject(name, c.Key, nil)
		if err != nil {
			return fmt.Errorf("bucket: get %s/%s: %w", name, c.Key, err)
		}
		body, err := io.ReadAll(obj.Contents)
		_ = obj.Contents.Close() // in memory: nothing to lose
		if err != nil {
			return fmt.Errorf("bucket: read %s/%s: %w", name, c.Key, err)
		}
		if err := fn(c.Key, body); err != nil {
			return err
		}
	}
	return nil
}
