// Package s3store keeps a task's site document in Amazon S3: the scraper's
// handler.ResultWriter. Each document is stored gzip-compressed JSON under
// <prefix>runs/<runId>/<task>.json.gz (docs/site-document.md), where <task>
// is the task id without its "<runId>/" prefix (submit names tasks
// <runId>/<line>), so a run's objects share one prefix that a lifecycle
// rule, an IAM policy or `taskpipe results --download` can name.
//
// The write is idempotent: the key depends on the run and task only, and
// the compression is deterministic (no gzip header time or name), so a
// retry or a duplicate delivery of the same task overwrites the object with
// the same bytes. Nothing here decides the task's outcome; the fenced
// Finish that follows does.
package s3store

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// API is the part of *s3.Client the store uses.
type API interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
}

// Content type and encoding of a stored document: JSON, gzip-compressed.
const (
	ContentType     = "application/json"
	ContentEncoding = "gzip"
	// Suffix ends every document key.
	Suffix = ".json.gz"
)

// Store writes documents to one bucket under one key prefix.
type Store struct {
	client API
	bucket string
	prefix string
}

// New returns a store for bucket; prefix ("" or ending in "/", e.g.
// "results/") starts every key.
func New(client API, bucket, prefix string) (*Store, error) {
	switch {
	case client == nil:
		return nil, errors.New("s3store: nil client")
	case bucket == "":
		return nil, errors.New("s3store: empty bucket name")
	case prefix != "" && !strings.HasSuffix(prefix, "/"):
		return nil, fmt.Errorf("s3store: prefix %q must end with /", prefix)
	case strings.HasPrefix(prefix, "/"):
		return nil, fmt.Errorf("s3store: prefix %q must not start with /", prefix)
	}
	return &Store{client: client, bucket: bucket, prefix: prefix}, nil
}

// Bucket returns the bucket name.
func (s *Store) Bucket() string { return s.bucket }

// Key is the object key of a task's document.
func Key(prefix, runID, taskID string) string {
	return prefix + RunPrefix(runID) + strings.TrimPrefix(taskID, runID+"/") + Suffix
}

// RunPrefix is the key prefix of a run's documents, after the store's own
// prefix.
func RunPrefix(runID string) string { return "runs/" + runID + "/" }

// Compress returns doc gzip-compressed, the same bytes for the same doc:
// the header carries no time or name.
func Compress(doc []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("s3store: gzip: %w", err)
	}
	if _, err := zw.Write(doc); err != nil {
		return nil, fmt.Errorf("s3store: gzip: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("s3store: gzip: %w", err)
	}
	return buf.Bytes(), nil
}

// Decompress reverses Compress.
func Decompress(r io.Reader) ([]byte, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("s3store: gunzip: %w", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("s3store: gunzip: %w", err)
	}
	return b, nil
}

// Put stores doc (site document JSON) for the task and returns its key and
// the hex SHA-256 of the stored (compressed) bytes. S3 checks the same
// digest on arrival (x-amz-checksum-sha256), so a body damaged on the way
// is refused rather than stored.
func (s *Store) Put(ctx context.Context, runID, taskID string, doc []byte) (key, sum string, err error) {
	if runID == "" || taskID == "" {
		return "", "", fmt.Errorf("s3store: put: empty run or task id (%q, %q)", runID, taskID)
	}
	body, err := Compress(doc)
	if err != nil {
		return "", "", err
	}
	digest := sha256.Sum256(body)
	key = Key(s.prefix, runID, taskID)
	_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:            aws.String(s.bucket),
		Key:               aws.String(key),
		Body:              bytes.NewReader(body),
		ContentLength:     aws.Int64(int64(len(body))),
		ContentType:       aws.String(ContentType),
		ContentEncoding:   aws.String(ContentEncoding),
		ChecksumAlgorithm: s3types.ChecksumAlgorithmSha256,
		ChecksumSHA256:    aws.String(base64.StdEncoding.EncodeToString(digest[:])),
	})
	if err != nil {
		return "", "", fmt.Errorf("s3store: put s3://%s/%s: %w", s.bucket, key, err)
	}
	return key, hex.EncodeToString(digest[:]), nil
}
