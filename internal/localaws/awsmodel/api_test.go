package awsmodel

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Hand-written requests as the SDKs, the CLI and Terraform send them.
const (
	updateItemJSON = `{"TableName":"tasks","Key":{"pk":{"S":"task#42"}},
		"UpdateExpression":"SET #s = :s, #a = #a + :one REMOVE #l",
		"ConditionExpression":"attribute_exists(pk) AND #s = :old",
		"ExpressionAttributeNames":{"#s":"status","#a":"attempts","#l":"lease"},
		"ExpressionAttributeValues":{":s":{"S":"done"},":old":{"S":"running"},":one":{"N":"1"}},
		"ReturnValues":"ALL_NEW","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}`
	sendMessageJSON = `{"QueueUrl":"http://localhost:4566/000000000000/work","MessageBody":"{\"task\":42}",
		"DelaySeconds":5,"MessageAttributes":{"kind":{"DataType":"String","StringValue":"scrape"},
		"n":{"DataType":"Number","StringValue":"3"}},"MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String","StringValue":"Root=1-5759e988-bd862e3fe1be46a994272793"}}}`
	createFunctionJSON = `{"FunctionName":"taskpipe-scraper","Role":"arn:aws:iam::000000000000:role/scraper",
		"Handler":"bootstrap","Runtime":"provided.al2023","Architectures":["arm64"],"MemorySize":128,"Timeout":30,
		"Code":{"ZipFile":"UEsDBAoAAAAAAA=="},"Environment":{"Variables":{"TABLE":"tasks","LOG_LEVEL":"debug"}},
		"PackageType":"Zip","Publish":false,"Tags":{"app":"taskpipe"},"TracingConfig":{"Mode":"PassThrough"},
		"LoggingConfig":{"LogFormat":"JSON","ApplicationLogLevel":"INFO","SystemLogLevel":"WARN"}}`
	createPipeJSON = `{"Name":"tasks-stream","RoleArn":"arn:aws:iam::000000000000:role/pipe",
		"Source":"arn:aws:dynamodb:us-east-1:000000000000:table/tasks/stream/2026-01-01T00:00:00.000",
		"SourceParameters":{"DynamoDBStreamParameters":{"StartingPosition":"LATEST","BatchSize":10,"MaximumRecordAgeInSeconds":-1,"MaximumRetryAttempts":3},
			"FilterCriteria":{"Filters":[{"Pattern":"{\"eventName\":[\"INSERT\"]}"}]}},
		"Target":"arn:aws:sqs:us-east-1:000000000000:work","TargetParameters":{"InputTemplate":"{\"id\": <$.dynamodb.Keys.pk.S>}"},
		"DesiredState":"RUNNING","LogConfiguration":{"Level":"ERROR","IncludeExecutionData":["ALL"],
			"CloudwatchLogsLogDestination":{"LogGroupArn":"arn:aws:logs:us-east-1:000000000000:log-group:/aws/vendedlogs/pipes/tasks"}},
		"Tags":{"app":"taskpipe"}}`
	createScheduleJSON = `{"Name":"reconcile","GroupName":"default","ScheduleExpression":"rate(5 minutes)","ScheduleExpressionTimezone":"UTC",
		"FlexibleTimeWindow":{"Mode":"OFF"},"State":"ENABLED","ActionAfterCompletion":"NONE",
		"Target":{"Arn":"arn:aws:lambda:us-east-1:000000000000:function:reconciler","RoleArn":"arn:aws:iam::000000000000:role/scheduler",
			"Input":"{}","RetryPolicy":{"MaximumRetryAttempts":2,"MaximumEventAgeInSeconds":3600}}}`
	putMetricAlarmJSON = `{"AlarmName":"tasks-dlq","Namespace":"AWS/SQS","MetricName":"ApproximateNumberOfMessagesVisible",
		"Dimensions":[{"Name":"QueueName","Value":"work-dlq"}],"Statistic":"Maximum","Period":60,"EvaluationPeriods":1,
		"Threshold":0,"ComparisonOperator":"GreaterThanThreshold","TreatMissingData":"notBreaching",
		"AlarmActions":["arn:aws:sns:us-east-1:000000000000:alerts"],"Tags":[{"Key":"app","Value":"taskpipe"}]}`
)

func TestHandWrittenValid(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ service, op, body string }{
		{"dynamodb", "UpdateItem", updateItemJSON},
		{"sqs", "SendMessage", sendMessageJSON},
		{"lambda", "CreateFunction", createFunctionJSON},
		{"pipes", "CreatePipe", createPipeJSON},
		{"scheduler", "CreateSchedule", createScheduleJSON},
		{"monitoring", "PutMetricAlarm", putMetricAlarmJSON},
		{"logs", "PutLogEvents", `{"logGroupName":"/aws/lambda/scraper","logStreamName":"2026/01/01/[$LATEST]abc","logEvents":[{"timestamp":1767225600000,"message":"hello"}]}`},
		{"events", "TestEventPattern", `{"EventPattern":"{\"source\":[\"taskpipe\"]}","Event":"{\"source\":\"taskpipe\"}"}`},
		{"streams.dynamodb", "GetShardIterator", `{"StreamArn":"arn:aws:dynamodb:us-east-1:000000000000:table/tasks/stream/2026-01-01T00:00:00.000","ShardId":"shardId-00000001767225600000-abcdef12","ShardIteratorType":"TRIM_HORIZON"}`},
		{"kms", "CreateKey", `{"Description":"taskpipe","KeyUsage":"ENCRYPT_DECRYPT","KeySpec":"SYMMETRIC_DEFAULT","Tags":[{"TagKey":"app","TagValue":"taskpipe"}]}`},
		{"ssm", "PutParameter", `{"Name":"/taskpipe/table","Value":"tasks","Type":"String","Overwrite":true}`},
	} {
		c := c
		t.Run(c.service+":"+c.op, func(t *testing.T) {
			t.Parallel()
			in, err := DecodeJSON([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(c.service, c.op, in); err != nil {
				t.Errorf("%v", err)
			}
		})
	}
}

func newRequest(method, target string, body string) *http.Request {
	return httptest.NewRequest(method, target, strings.NewReader(body))
}

func TestHTTPInput(t *testing.T) {
	t.Parallel()
	m := MustLoad()
	t.Run("s3 PutObject greedy key, headers, meta", func(t *testing.T) {
		t.Parallel()
		op := m.Operation("s3", "PutObject")
		r := newRequest("PUT", "/bucket/dir/sub%20dir/key.txt", "hello")
		r.Header.Set("Content-Type", "text/plain")
		r.Header.Set("Content-Length", "5")
		r.Header.Set("x-amz-storage-class", "STANDARD")
		r.Header.Set("x-amz-meta-Owner", "me")
		in, err := op.HTTPInput(r, []byte("hello"))
		if err != nil {
			t.Fatal(err)
		}
		if in["Bucket"] != "bucket" || in["Key"] != "dir/sub dir/key.txt" || in["ContentLength"] != json.Number("5") || in["StorageClass"] != "STANDARD" {
			t.Errorf("input %v", in)
		}
		if !reflect.DeepEqual(in["Metadata"], map[string]any{"owner": "me"}) {
			t.Errorf("metadata %v", in["Metadata"])
		}
		if e := op.Validate(in); e != nil {
			t.Errorf("valid PutObject: %v", e)
		}
		r.Header.Set("x-amz-storage-class", "FROZEN")
		in, _ = op.HTTPInput(r, []byte("hello"))
		if e := op.Validate(in); e == nil || e.Code != "InvalidStorageClass" {
			t.Errorf("bad storage class: %v", e)
		}
	})
	t.Run("s3 ListObjectsV2 query", func(t *testing.T) {
		t.Parallel()
		op := m.Operation("s3", "ListObjectsV2")
		r := newRequest("GET", "/bucket?list-type=2&prefix=a%2Fb&max-keys=100&encoding-type=url", "")
		in, err := op.HTTPInput(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if in["Prefix"] != "a/b" || in["MaxKeys"] != json.Number("100") || in["EncodingType"] != "url" {
			t.Errorf("input %v", in)
		}
		if e := op.Validate(in); e != nil {
			t.Errorf("valid ListObjectsV2: %v", e)
		}
		r = newRequest("GET", "/bucket?list-type=2&max-keys=lots", "")
		in, _ = op.HTTPInput(r, nil)
		e := op.Validate(in)
		if e == nil || e.Code != "InvalidArgument" || e.ArgumentName != "max-keys" || e.ArgumentValue != "lots" {
			t.Errorf("bad max-keys: %+v", e)
		}
	})
	t.Run("s3 PutBucketVersioning payload", func(t *testing.T) {
		t.Parallel()
		op := m.Operation("s3", "PutBucketVersioning")
		r := newRequest("PUT", "/bucket?versioning", "")
		in, err := op.HTTPInput(r, map[string]any{"Status": "Enabled"})
		if err != nil {
			t.Fatal(err)
		}
		if e := op.Validate(in); e != nil {
			t.Errorf("valid: %v", e)
		}
		in, _ = op.HTTPInput(r, map[string]any{"Status": "On"})
		if e := op.Validate(in); e == nil || e.Code != "MalformedXML" {
			t.Errorf("bad status: %v", e)
		}
		in, _ = op.HTTPInput(r, nil)
		if e := op.Validate(in); e == nil || e.Code != "MissingRequestBodyError" {
			t.Errorf("no body: %v", e)
		}
	})
	t.Run("lambda Invoke", func(t *testing.T) {
		t.Parallel()
		op := m.Operation("lambda", "Invoke")
		r := newRequest("POST", "/2015-03-31/functions/arn%3Aaws%3Alambda%3Aus-east-1%3A000000000000%3Afunction%3Ascraper/invocations?Qualifier=%24LATEST", "{}")
		r.Header.Set("X-Amz-Invocation-Type", "Event")
		r.Header.Set("X-Amz-Log-Type", "Tail")
		in, err := op.HTTPInput(r, []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		if in["FunctionName"] != "arn:aws:lambda:us-east-1:000000000000:function:scraper" || in["Qualifier"] != "$LATEST" || in["InvocationType"] != "Event" {
			t.Errorf("input %v", in)
		}
		if e := op.Validate(in); e != nil {
			t.Errorf("valid Invoke: %v", e)
		}
		r = newRequest("POST", "/2015-03-31/functions/my%20fn/invocations", "")
		r.Header.Set("X-Amz-Invocation-Type", "Later")
		in, _ = op.HTTPInput(r, nil)
		e := op.Validate(in)
		if e == nil || !strings.HasPrefix(e.Message, "2 validation errors detected: Value 'my fn' at 'functionName' failed to satisfy constraint: Member must satisfy regular expression pattern: ") ||
			!strings.Contains(e.Message, "Value 'Later' at 'invocationType' failed to satisfy constraint: Member must satisfy enum value set: [Event, RequestResponse, DryRun]") {
			t.Errorf("bad invoke: %v", e)
		}
	})
	t.Run("lambda UpdateFunctionConfiguration body by member name", func(t *testing.T) {
		t.Parallel()
		op := m.Operation("lambda", "UpdateFunctionConfiguration")
		r := newRequest("PUT", "/2015-03-31/functions/scraper/configuration", "")
		body, _ := DecodeJSON([]byte(`{"Timeout":0,"Unknown":1}`))
		in, err := op.HTTPInput(r, body)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := in["Unknown"]; ok {
			t.Error("unknown body member kept")
		}
		e := op.Validate(in)
		// The model bounds Timeout below only; the 900 s maximum is the service's own check.
		if e == nil || e.Message != "1 validation error detected: Value '0' at 'timeout' failed to satisfy constraint: Member must have value greater than or equal to 1" {
			t.Errorf("timeout: %v", e)
		}
	})
	t.Run("scheduler GetSchedule", func(t *testing.T) {
		t.Parallel()
		op := m.Operation("scheduler", "GetSchedule")
		in, err := op.HTTPInput(newRequest("GET", "/schedules/reconcile?groupName=default", ""), nil)
		if err != nil || in["Name"] != "reconcile" || in["GroupName"] != "default" {
			t.Fatalf("%v %v", in, err)
		}
		if e := op.Validate(in); e != nil {
			t.Error(e)
		}
	})
	t.Run("pipes ListPipes query", func(t *testing.T) {
		t.Parallel()
		op := m.Operation("pipes", "ListPipes")
		in, err := op.HTTPInput(newRequest("GET", "/v1/pipes?Limit=0&CurrentState=RUNNING", ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		e := op.Validate(in)
		if e == nil || e.Message != "[numeric instance is lower than the required minimum (minimum: 1, found: 0)]" {
			t.Errorf("limit 0: %v", e)
		}
	})
	t.Run("path mismatch", func(t *testing.T) {
		t.Parallel()
		if _, err := m.Operation("lambda", "GetFunction").HTTPInput(newRequest("GET", "/2015-03-31/layers/x", ""), nil); err == nil {
			t.Error("mismatched path accepted")
		}
	})
}

func TestMatchPath(t *testing.T) {
	t.Parallel()
	m := MustLoad()
	for _, c := range []struct {
		service, op, path string
		want              map[string]string
	}{
		{"s3", "GetObject", "/b/a/b/c.txt", map[string]string{"Bucket": "b", "Key": "a/b/c.txt"}},
		{"s3", "GetObject", "/b/%2Fleading", map[string]string{"Bucket": "b", "Key": "/leading"}},
		{"s3", "GetObject", "/b", nil},
		{"s3", "HeadBucket", "/b", map[string]string{"Bucket": "b"}},
		{"s3", "HeadBucket", "/b/", map[string]string{"Bucket": "b"}},
		{"lambda", "GetFunction", "/2015-03-31/functions/f", map[string]string{"FunctionName": "f"}},
		{"lambda", "GetFunction", "/2015-03-31/functions/f/extra", nil},
		{"lambda", "GetFunctionConcurrency", "/2019-09-30/functions/f/concurrency", map[string]string{"FunctionName": "f"}},
		{"scheduler", "ListSchedules", "/schedules", map[string]string{}},
	} {
		got, ok := m.Operation(c.service, c.op).MatchPath(c.path)
		if c.want == nil {
			if ok {
				t.Errorf("%s %s matched %v", c.op, c.path, got)
			}
			continue
		}
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s: %v %v, want %v", c.op, c.path, got, ok, c.want)
		}
	}
}

func TestQueryInput(t *testing.T) {
	t.Parallel()
	m := MustLoad()
	t.Run("iam CreateRole with tags", func(t *testing.T) {
		t.Parallel()
		form := url.Values{
			"Action": {"CreateRole"}, "Version": {"2010-05-08"}, "RoleName": {"scraper"}, "Path": {"/"},
			"AssumeRolePolicyDocument": {`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`},
			"MaxSessionDuration":       {"3600"},
			"Tags.member.1.Key":        {"app"}, "Tags.member.1.Value": {"taskpipe"},
			"Tags.member.2.Key": {"env"}, "Tags.member.2.Value": {"local"},
		}
		op := m.Operation("iam", "CreateRole")
		in := op.QueryInput(form)
		want := []any{map[string]any{"Key": "app", "Value": "taskpipe"}, map[string]any{"Key": "env", "Value": "local"}}
		if !reflect.DeepEqual(in["Tags"], want) || in["MaxSessionDuration"] != json.Number("3600") {
			t.Errorf("input %v", in)
		}
		if e := op.Validate(in); e != nil {
			t.Error(e)
		}
		form.Set("RoleName", "has space")
		form.Set("MaxSessionDuration", "60")
		e := op.Validate(op.QueryInput(form))
		want2 := "2 validation errors detected: Value 'has space' at 'roleName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+; " +
			"Value '60' at 'maxSessionDuration' failed to satisfy constraint: Member must have value greater than or equal to 3600"
		if e == nil || e.Code != "ValidationError" || e.Message != want2 {
			t.Errorf("got %v", e)
		}
	})
	t.Run("iam UntagRole lists", func(t *testing.T) {
		t.Parallel()
		op := m.Operation("iam", "UntagRole")
		in := op.QueryInput(url.Values{"RoleName": {"r"}, "TagKeys": {""}})
		if !reflect.DeepEqual(in["TagKeys"], []any{}) {
			t.Errorf("empty list: %v", in)
		}
		form := url.Values{"RoleName": {"r"}}
		for i := 1; i <= 51; i++ {
			form.Set("TagKeys.member."+strconv.Itoa(i), "k"+strconv.Itoa(i))
		}
		in = op.QueryInput(form)
		if l, _ := in["TagKeys"].([]any); len(l) != 51 || l[9] != "k10" {
			t.Errorf("51 keys in order: %v", in["TagKeys"])
		}
		e := op.Validate(in)
		if e == nil || !strings.HasSuffix(e.Message, "' at 'tagKeys' failed to satisfy constraint: Member must have length less than or equal to 50") {
			t.Errorf("got %v", e)
		}
	})
	t.Run("sts GetCallerIdentity", func(t *testing.T) {
		t.Parallel()
		if e := m.Operation("sts", "GetCallerIdentity").Validate(m.Operation("sts", "GetCallerIdentity").QueryInput(url.Values{"Action": {"GetCallerIdentity"}})); e != nil {
			t.Error(e)
		}
	})
	t.Run("sqs legacy query", func(t *testing.T) {
		t.Parallel()
		op := m.Operation("sqs", "SendMessage")
		form := url.Values{
			"QueueUrl": {"http://localhost/000000000000/q"}, "MessageBody": {"hi"}, "DelaySeconds": {"10"},
			"MessageAttribute.1.Name": {"kind"}, "MessageAttribute.1.Value.DataType": {"String"}, "MessageAttribute.1.Value.StringValue": {"a"},
			"MessageAttribute.3.Name": {"n"}, "MessageAttribute.3.Value.DataType": {"Number"}, "MessageAttribute.3.Value.StringValue": {"1"},
		}
		in := op.QueryInput(form)
		want := map[string]any{
			"kind": map[string]any{"DataType": "String", "StringValue": "a"},
			"n":    map[string]any{"DataType": "Number", "StringValue": "1"},
		}
		if !reflect.DeepEqual(in["MessageAttributes"], want) || in["DelaySeconds"] != json.Number("10") {
			t.Errorf("input %v", in)
		}
		if e := op.Validate(in); e != nil {
			t.Error(e)
		}
		batch := m.Operation("sqs", "SendMessageBatch")
		bin := batch.QueryInput(url.Values{"QueueUrl": {"u"},
			"SendMessageBatchRequestEntry.1.Id": {"a"}, "SendMessageBatchRequestEntry.1.MessageBody": {"x"},
			"SendMessageBatchRequestEntry.2.Id": {"b"}})
		e := batch.Validate(bin)
		if e == nil || e.Code != "MissingParameter" || e.Message != "The request must contain the parameter SendMessageBatchRequestEntry.2.MessageBody." {
			t.Errorf("batch: %v (%v)", e, bin)
		}
		attrs := m.Operation("sqs", "GetQueueAttributes")
		ain := attrs.QueryInput(url.Values{"QueueUrl": {"u"}, "AttributeName.1": {"All"}, "AttributeName.2": {"Policy"}})
		if !reflect.DeepEqual(ain["AttributeNames"], []any{"All", "Policy"}) {
			t.Errorf("attribute names %v", ain)
		}
		set := m.Operation("sqs", "SetQueueAttributes")
		sin := set.QueryInput(url.Values{"QueueUrl": {"u"}, "Attribute.1.Name": {"VisibilityTimeout"}, "Attribute.1.Value": {"30"}})
		if !reflect.DeepEqual(sin["Attributes"], map[string]any{"VisibilityTimeout": "30"}) {
			t.Errorf("attributes %v", sin)
		}
		tag := m.Operation("sqs", "TagQueue")
		tin := tag.QueryInput(url.Values{"QueueUrl": {"u"}, "Tag.1.Key": {"app"}, "Tag.1.Value": {"x"}})
		if !reflect.DeepEqual(tin["Tags"], map[string]any{"app": "x"}) {
			t.Errorf("tags %v", tin)
		}
	})
	t.Run("cloudwatch query PutMetricData", func(t *testing.T) {
		t.Parallel()
		op := m.Operation("monitoring", "PutMetricData")
		form := url.Values{"Namespace": {"taskpipe"},
			"MetricData.member.1.MetricName": {"Done"}, "MetricData.member.1.Value": {"1"}, "MetricData.member.1.Unit": {"Count"},
			"MetricData.member.1.Dimensions.member.1.Name": {"Queue"}, "MetricData.member.1.Dimensions.member.1.Value": {"work"},
		}
		in := op.QueryInput(form)
		if e := op.Validate(in); e != nil {
			t.Errorf("%v (%v)", e, in)
		}
		form.Del("MetricData.member.1.Dimensions.member.1.Value")
		form.Set("MetricData.member.1.Value", "NaNish")
		e := op.Validate(op.QueryInput(form))
		if e == nil || e.Code != "InvalidParameterValue" || e.Message != "The value NaNish for parameter MetricData.member.1.Value is invalid." {
			t.Errorf("got %v", e)
		}
	})
}

func TestXMLPayload(t *testing.T) {
	t.Parallel()
	m := MustLoad()
	lifecycle := m.Operation("s3", "PutBucketLifecycleConfiguration")
	body := `<?xml version="1.0" encoding="UTF-8"?>
<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Rule><ID>expire-logs</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status>
    <Expiration><Days>30</Days></Expiration>
    <Transition><Days>7</Days><StorageClass>STANDARD_IA</StorageClass></Transition></Rule>
  <Rule><ID>abort</ID><Filter><And><Prefix>tmp/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag><Tag><Key>k2</Key><Value>v2</Value></Tag></And></Filter><Status>Disabled</Status>
    <AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>
  <Unknown>ignored</Unknown>
</LifecycleConfiguration>`
	payload, err := lifecycle.XMLPayload([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	rules := payload.(map[string]any)["Rules"].([]any)
	if len(rules) != 2 {
		t.Fatalf("rules %v", payload)
	}
	r0 := rules[0].(map[string]any)
	if r0["Status"] != "Enabled" || r0["Expiration"].(map[string]any)["Days"] != json.Number("30") ||
		r0["Transitions"].([]any)[0].(map[string]any)["StorageClass"] != "STANDARD_IA" {
		t.Errorf("rule 0 %v", r0)
	}
	tags := rules[1].(map[string]any)["Filter"].(map[string]any)["And"].(map[string]any)["Tags"].([]any)
	if len(tags) != 2 || tags[1].(map[string]any)["Value"] != "v2" {
		t.Errorf("and tags %v", tags)
	}
	in, err := lifecycle.HTTPInput(newRequest("PUT", "/logs-bucket?lifecycle", body), payload)
	if err != nil {
		t.Fatal(err)
	}
	if e := lifecycle.Validate(in); e != nil {
		t.Errorf("valid lifecycle: %v", e)
	}
	bad, _ := lifecycle.XMLPayload([]byte(strings.Replace(body, "<Status>Disabled</Status>", "<Status>Off</Status>", 1)))
	in, _ = lifecycle.HTTPInput(newRequest("PUT", "/logs-bucket?lifecycle", ""), bad)
	if e := lifecycle.Validate(in); e == nil || e.Code != "MalformedXML" {
		t.Errorf("bad status: %v", e)
	}
	noStatus, _ := lifecycle.XMLPayload([]byte(`<LifecycleConfiguration><Rule><ID>x</ID></Rule></LifecycleConfiguration>`))
	in, _ = lifecycle.HTTPInput(newRequest("PUT", "/b?lifecycle", ""), noStatus)
	if e := lifecycle.Validate(in); e == nil || e.Code != "MalformedXML" {
		t.Errorf("rule without status: %v", e)
	}

	tagging := m.Operation("s3", "PutBucketTagging")
	tp, err := tagging.XMLPayload([]byte(`<Tagging><TagSet><Tag><Key>app</Key><Value>taskpipe</Value></Tag></TagSet></Tagging>`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tp, map[string]any{"TagSet": []any{map[string]any{"Key": "app", "Value": "taskpipe"}}}) {
		t.Errorf("tagging %v", tp)
	}
	create := m.Operation("s3", "CreateBucket")
	cp, _ := create.XMLPayload([]byte(`<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>`))
	cin, _ := create.HTTPInput(newRequest("PUT", "/new-bucket", ""), cp)
	if e := create.Validate(cin); e != nil || cin["CreateBucketConfiguration"].(map[string]any)["LocationConstraint"] != "eu-west-1" {
		t.Errorf("create bucket %v %v", cin, e)
	}
	policy := m.Operation("s3", "PutBucketPolicy")
	pp, _ := policy.XMLPayload([]byte(`{"Version":"2012-10-17"}`))
	if pp != `{"Version":"2012-10-17"}` {
		t.Errorf("policy payload %v", pp)
	}
	if _, err := tagging.XMLPayload([]byte(`<Tagging><TagSet>`)); err == nil {
		t.Error("truncated XML accepted")
	}
	if v, err := tagging.XMLPayload(nil); v != nil || err != nil {
		t.Errorf("empty body: %v %v", v, err)
	}
}
