package s3store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/bucket"
	"github.com/taskpipe/taskpipe/internal/s3store"
)

// newBucket starts the local cloud's S3 with one bucket and returns a
// client of it.
func newBucket(t *testing.T, name string) (*s3.Client, *bucket.Service) {
	t.Helper()
	svc := bucket.New(bucket.Options{})
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	cl := s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
	})
	_, err := cl.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(name)})
	require.NoError(t, err)
	return cl, svc
}

func TestKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prefix, run, task, want string
	}{
		{"", "r1", "r1/0000001", "runs/r1/0000001.json.gz"},
		{"results/", "r1", "r1/0000001", "results/runs/r1/0000001.json.gz"},
		{"", "r1", "other", "runs/r1/other.json.gz"},
	} {
		require.Equal(t, tc.want, s3store.Key(tc.prefix, tc.run, tc.task), tc)
	}
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	cl := s3.New(s3.Options{Region: "us-east-1"})
	for _, tc := range []struct{ bucket, prefix string }{
		{"", ""}, {"b", "noslash"}, {"b", "/abs/"},
	} {
		_, err := s3store.New(cl, tc.bucket, tc.prefix)
		require.Error(t, err, tc)
	}
	_, err := s3store.New(nil, "b", "")
	require.Error(t, err)
}

// TestPutIsIdempotentUnderDuplicateDelivery writes the same task's
// document from several "workers" at once and again later, as a duplicate
// delivery and a retry would: one object, with the digest every write
// reported, holding the document.
func TestPutIsIdempotentUnderDuplicateDelivery(t *testing.T) {
	t.Parallel()
	cl, svc := newBucket(t, "results")
	st, err := s3store.New(cl, "results", "p/")
	require.NoError(t, err)
	doc := bytes.Repeat([]byte(`{"schemaVersion":1,"pages":[{"text":"Wir bauen Widgets."}]}`), 50)

	const writers = 4
	type out struct{ key, sum string }
	outs := make([]out, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			k, s, err := st.Put(context.Background(), "run1", "run1/0000007", doc)
			require.NoError(t, err)
			outs[i] = out{k, s}
		})
	}
	wg.Wait()
	k, s, err := st.Put(t.Context(), "run1", "run1/0000007", doc) // the retry
	require.NoError(t, err)
	for _, o := range outs {
		require.Equal(t, out{k, s}, o)
	}
	require.Equal(t, "p/runs/run1/0000007.json.gz", k)

	u, err := svc.Usage("results", "p/runs/run1/")
	require.NoError(t, err)
	require.Equal(t, 1, u.Objects)

	got, err := cl.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String("results"), Key: aws.String(k)})
	require.NoError(t, err)
	defer got.Body.Close()
	raw, err := io.ReadAll(got.Body)
	require.NoError(t, err)
	require.Equal(t, u.Bytes, int64(len(raw)))
	sum := sha256.Sum256(raw)
	require.Equal(t, s, hex.EncodeToString(sum[:]))
	require.Equal(t, s3store.ContentEncoding, aws.ToString(got.ContentEncoding))
	plain, err := s3store.Decompress(bytes.NewReader(raw))
	require.NoError(t, err)
	require.Equal(t, doc, plain)
	require.Less(t, len(raw), len(doc)/4, "a repetitive document compresses")
}

func TestPutMissingBucket(t *testing.T) {
	t.Parallel()
	cl, _ := newBucket(t, "results")
	st, err := s3store.New(cl, "absent", "")
	require.NoError(t, err)
	_, _, err = st.Put(t.Context(), "r", "r/1", []byte(`{}`))
	require.ErrorContains(t, err, "s3store: put s3://absent/runs/r/1.json.gz")
}

func TestCompressIsDeterministic(t *testing.T) {
	t.Parallel()
	a, err := s3store.Compress([]byte("same bytes"))
	require.NoError(t, err)
	b, err := s3store.Compress([]byte("same bytes"))
	require.NoError(t, err)
	require.Equal(t, a, b)
}
