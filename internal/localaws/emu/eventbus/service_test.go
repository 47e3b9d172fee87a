package eventbus_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/eventpattern"
	"github.com/taskpipe/taskpipe/internal/eventpattern/eventpatterntest"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/eventbus"
)

type testBundle struct {
	router *emu.Router
	srv    *httptest.Server
	client *eventbridge.Client
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	router := emu.NewRouter()
	router.Handle(emu.ServiceEvents, eventbus.New())
	srv := httptest.NewServer(router)
	t.Cleanup(srv.Close)
	client := eventbridge.New(eventbridge.Options{
		Region:           emu.DefaultRegion,
		BaseEndpoint:     aws.String(srv.URL),
		Credentials:      credentials.NewStaticCredentialsProvider("test", "test", ""),
		RetryMaxAttempts: 1,
	})
	return &testBundle{router: router, srv: srv, client: client}
}

// TestTestEventPatternAWSCases sends every AWS-validated case through the
// real SDK client and requires the same answer as AWS gave and as the
// matcher gives directly.
func TestTestEventPatternAWSCases(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	cases := eventpatterntest.Load(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			out, err := b.client.TestEventPattern(ctx, &eventbridge.TestEventPatternInput{
				EventPattern: aws.String(string(c.Pattern)),
				Event:        aws.String(string(c.Event)),
			})
			p, cerr := eventpattern.Compile(c.Pattern)
			if c.Expect == eventpatterntest.ExpectInvalid {
				var iep *types.InvalidEventPatternException
				require.True(t, errors.As(err, &iep), "want InvalidEventPatternException, got %v", err)
				require.Contains(t, iep.ErrorMessage(), "Event pattern is not valid. Reason: ")
				require.Error(t, cerr, "the matcher must agree")
				return
			}
			require.NoError(t, err)
			require.NoError(t, cerr)
			direct, err := p.Match(c.Event)
			require.NoError(t, err)
			require.Equal(t, c.Expect == eventpatterntest.ExpectMatch, out.Result)
			require.Equal(t, direct, out.Result, "HTTP and matcher disagree")
		})
	}
	t.Cleanup(func() {
		var n int64
		for _, c := range b.router.Counts() {
			if c.Service == emu.ServiceEvents && c.Operation == "TestEventPattern" {
				n = c.Count
			}
		}
		require.Equal(t, int64(len(cases)), n, "router counted every request")
	})
}

// TestTestEventPatternValidation covers request errors.
func TestTestEventPatternValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	const okEvent = `{"id":"1","account":"000000000000","source":"s","time":"2026-01-01T00:00:00Z","region":"us-east-1","detail-type":"d"}`
	tests := []struct {
		name    string
		pattern string
		event   string
		code    string
	}{
		{"EventNotJSON", `{"source":["s"]}`, `{"id":`, "ValidationException"},
		{"EventNotObject", `{"source":["s"]}`, `[1]`, "ValidationException"},
		{"EventMissingField", `{"source":["s"]}`, `{"id":"1","account":"0","source":"s","time":"t","region":"r"}`, "ValidationException"},
		{"PatternNotJSON", `{"source":`, okEvent, "InvalidEventPatternException"},
		{"PatternTooLong", `{"source":["` + strings.Repeat("x", 4100) + `"]}`, okEvent, "ValidationException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := b.client.TestEventPattern(ctx, &eventbridge.TestEventPatternInput{
				EventPattern: aws.String(tt.pattern),
				Event:        aws.String(tt.event),
			})
			var apiErr smithy.APIError
			require.True(t, errors.As(err, &apiErr), "got %v", err)
			require.Equal(t, tt.code, apiErr.ErrorCode())
		})
	}

	t.Run("ResourcesOptional", func(t *testing.T) {
		t.Parallel()
		out, err := b.client.TestEventPattern(ctx, &eventbridge.TestEventPatternInput{
			EventPattern: aws.String(`{"source":["s"]}`),
			Event:        aws.String(okEvent),
		})
		require.NoError(t, err)
		require.True(t, out.Result)
	})
}

// TestUnknownOperation: an operation the emulator lacks fails fast with an
// AWS-style error.
func TestUnknownOperation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.client.ListRules(context.Background(), &eventbridge.ListRulesInput{})
	var apiErr smithy.APIError
	require.True(t, errors.As(err, &apiErr), "got %v", err)
	require.Equal(t, "UnknownOperationException", apiErr.ErrorCode())
	require.Contains(t, apiErr.ErrorMessage(), "ListRules")

	// Raw HTTP: no X-Amz-Target reaching the service directly.
	rec := httptest.NewRecorder()
	eventbus.New().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(nil)))
	require.Equal(t, http.StatusBadRequest, rec.Code)
	var body map[string]string
	require.NoError(t, json.NewDecoder(io.Reader(rec.Body)).Decode(&body))
	require.Equal(t, "UnknownOperationException", body["__type"])
}
