package emu

import (
	"errors"
	"mime"
	"net/http"
	"strings"
)

// Request body caps, applied by the router before anything reads a body
// (a 100 MB form body used to be read whole to find its Action). Each is
// the largest request the service's AWS limits allow, with room for the
// encoding; the services apply their exact per-operation limits on top.
var bodyLimits = map[string]int64{
	// "The total request size exceeds 16 MB"
	// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html).
	ServiceDynamoDB: 16 << 20,
	ServiceStreams:  1 << 20, // small JSON requests only
	// Messages and batches up to 1 MiB
	// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html),
	// base64 and JSON escaping on top.
	ServiceSQS: 4 << 20,
	// A 50 MB (zipped) deployment package uploaded directly, base64 in the
	// CreateFunction body (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html).
	ServiceLambda: 70167211 + 4096,
	// "The maximum batch size is 1,048,576 bytes"
	// (https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutLogEvents.html), JSON on top.
	ServiceLogs: 4 << 20,
	// "Each PutMetricData request is limited to 1 MB"
	// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricData.html).
	ServiceMonitoring: 2 << 20,
	// Policy documents are at most 10,240 characters
	// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html).
	ServiceIAM: 1 << 20,
	ServiceSTS: 1 << 20,
	// One PUT holds up to 5 GB on AWS
	// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/upload-objects.html);
	// the local bucket keeps objects in memory, so it takes far less.
	ServiceS3:        64 << 20,
	ServicePipes:     1 << 20, // patterns 4 KB each, templates 8 KB (the Pipes model)
	ServiceScheduler: 1 << 20, // target input 8 KB (the Scheduler model)
	// Events up to 256 KB (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html).
	ServiceEvents: 1 << 20,
	ServiceAdmin:  1 << 20,
}

// defaultBodyLimit is the cap of a request the router cannot attribute.
const defaultBodyLimit = 1 << 20

// BodyLimit is the largest request body the router lets a service read.
func BodyLimit(service string) int64 {
	if n, ok := bodyLimits[service]; ok {
		return n
	}
	return defaultBodyLimit
}

// serviceHint names the service of a request from its headers and path
// alone, without reading the body (Identify may read a query body).
func serviceHint(r *http.Request) string {
	if strings.HasPrefix(r.URL.Path, AdminPrefix) {
		return ServiceAdmin
	}
	if prefix, _, ok := strings.Cut(r.Header.Get("X-Amz-Target"), "."); ok {
		return targetPrefixes[prefix]
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/service/"); ok {
		svc, _, _ := strings.Cut(rest, "/")
		return cborServices[svc]
	}
	return CredentialScopeService(r)
}

// checkRPCv2 requires the Content-Type of the Smithy RPC v2 CBOR protocol
// on a request with a body ("application/cbor",
// https://smithy.io/2.0/additional-specs/protocols/smithy-rpc-v2.html).
// Without it a cross-site form or fetch with text/plain — a "simple"
// request browsers send without a preflight — would reach the API.
func checkRPCv2(r *http.Request) error {
	if !strings.HasPrefix(r.URL.Path, "/service/") || r.ContentLength == 0 {
		return nil
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/cbor" {
		return errors.New("Smithy RPC v2 CBOR requests must have Content-Type application/cbor, not " +
			strings.TrimSpace(r.Header.Get("Content-Type")))
	}
	return nil
}
