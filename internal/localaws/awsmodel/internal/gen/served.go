package main

// served lists, per local-cloud service key (the SigV4 signing name the
// emulator's router uses, emu.Service*), the botocore model directory, its
// API version and the operations the local cloud serves. The operation
// lists were read off internal/localaws/emu/* (each service's
// dispatch table or route switch); s3, kms and ssm are the operations the
// upcoming emulators will need (Terraform provider reads and the CLI).
var served = []servedService{
	{Key: "dynamodb", SDK: "dynamodb", Model: "dynamodb", APIVersion: "2012-08-10", Ops: []string{
		// emu/table/service.go s.ops
		"CreateTable", "DescribeTable", "UpdateTable", "DeleteTable", "ListTables",
		"DescribeTimeToLive", "UpdateTimeToLive", "TagResource", "UntagResource",
		"ListTagsOfResource", "DescribeContinuousBackups", "UpdateContinuousBackups",
		"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
		"BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems",
	}},
	{Key: "streams.dynamodb", SDK: "dynamodbstreams", Model: "dynamodbstreams", APIVersion: "2012-08-10", Ops: []string{
		// emu/stream/stream.go s.ops
		"DescribeStream", "GetRecords", "GetShardIterator", "ListStreams",
	}},
	{Key: "sqs", SDK: "sqs", Model: "sqs", APIVersion: "2012-11-05", LegacyQuery: true, Ops: []string{
		// emu/queue/http.go operations (all 23 of the API)
		"AddPermission", "CancelMessageMoveTask", "ChangeMessageVisibility",
		"ChangeMessageVisibilityBatch", "CreateQueue", "DeleteMessage", "DeleteMessageBatch",
		"DeleteQueue", "GetQueueAttributes", "GetQueueUrl", "ListDeadLetterSourceQueues",
		"ListMessageMoveTasks", "ListQueueTags", "ListQueues", "PurgeQueue", "ReceiveMessage",
		"RemovePermission", "SendMessage", "SendMessageBatch", "SetQueueAttributes",
		"StartMessageMoveTask", "TagQueue", "UntagQueue",
	}},
	{Key: "lambda", SDK: "lambda", Model: "lambda", APIVersion: "2015-03-31", Ops: []string{
		// emu/function/http.go route()
		"CreateFunction", "ListFunctions", "GetFunction", "DeleteFunction",
		"GetFunctionConfiguration", "UpdateFunctionConfiguration", "UpdateFunctionCode",
		"Invoke", "ListVersionsByFunction", "GetPolicy", "PutFunctionConcurrency",
		"DeleteFunctionConcurrency", "GetFunctionConcurrency", "GetFunctionCodeSigningConfig",
		"TagResource", "UntagResource", "ListTags", "PutFunctionEventInvokeConfig",
		"UpdateFunctionEventInvokeConfig", "GetFunctionEventInvokeConfig",
		"DeleteFunctionEventInvokeConfig", "ListFunctionEventInvokeConfigs", "GetAccountSettings",
		// emu/mapping/http.go
		"CreateEventSourceMapping", "ListEventSourceMappings", "GetEventSourceMapping",
		"UpdateEventSourceMapping", "DeleteEventSourceMapping",
	}},
	{Key: "pipes", SDK: "pipes", Model: "pipes", APIVersion: "2015-10-07", Ops: []string{
		// emu/pipe/service.go ServeHTTP switch
		"CreatePipe", "DescribePipe", "UpdatePipe", "DeletePipe", "StartPipe", "StopPipe",
		"ListPipes", "ListTagsForResource", "TagResource", "UntagResource",
	}},
	{Key: "scheduler", SDK: "scheduler", Model: "scheduler", APIVersion: "2021-06-30", Ops: []string{
		// emu/schedule/http.go
		"CreateSchedule", "GetSchedule", "UpdateSchedule", "DeleteSchedule", "ListSchedules",
		"CreateScheduleGroup", "GetScheduleGroup", "DeleteScheduleGroup", "ListScheduleGroups",
		"ListTagsForResource", "TagResource", "UntagResource",
	}},
	{Key: "logs", SDK: "cloudwatchlogs", Model: "logs", APIVersion: "2014-03-28", Ops: []string{
		// emu/loggroup/http.go operations
		"CreateLogGroup", "DeleteLogGroup", "DescribeLogGroups", "PutRetentionPolicy",
		"DeleteRetentionPolicy", "TagResource", "UntagResource", "ListTagsForResource",
		"TagLogGroup", "UntagLogGroup", "ListTagsLogGroup", "CreateLogStream", "DeleteLogStream",
		"DescribeLogStreams", "PutLogEvents", "GetLogEvents", "FilterLogEvents",
	}},
	{Key: "monitoring", SDK: "cloudwatch", Model: "cloudwatch", APIVersion: "2010-08-01", Ops: []string{
		// emu/alarm/http.go operations
		"DeleteAlarms", "DeleteDashboards", "DescribeAlarmHistory", "DescribeAlarms",
		"DescribeAlarmsForMetric", "DisableAlarmActions", "EnableAlarmActions", "GetDashboard",
		"GetMetricStatistics", "ListDashboards", "ListMetrics", "ListTagsForResource",
		"PutDashboard", "PutMetricAlarm", "PutMetricData", "SetAlarmState", "TagResource",
		"UntagResource",
	}},
	{Key: "iam", SDK: "iam", Model: "iam", APIVersion: "2010-05-08", Ops: []string{
		// emu/identity/iam.go
		"CreateRole", "GetRole", "UpdateRole", "UpdateAssumeRolePolicy", "DeleteRole",
		"PutRolePolicy", "GetRolePolicy", "DeleteRolePolicy", "ListRolePolicies",
		"AttachRolePolicy", "DetachRolePolicy", "ListAttachedRolePolicies",
		"ListInstanceProfilesForRole", "TagRole", "UntagRole", "ListRoleTags",
	}},
	{Key: "sts", SDK: "sts", Model: "sts", APIVersion: "2011-06-15", Ops: []string{
		// emu/identity/sts.go
		"GetCallerIdentity",
	}},
	{Key: "events", SDK: "eventbridge", Model: "events", APIVersion: "2015-10-07", Ops: []string{
		// emu/eventbus/service.go
		"TestEventPattern",
	}},
	{Key: "s3", SDK: "s3", Model: "s3", APIVersion: "2006-03-01", Ops: []string{
		// buckets
		"CreateBucket", "DeleteBucket", "HeadBucket", "ListBuckets", "GetBucketLocation",
		"GetBucketAcl", "PutBucketAcl",
		"PutBucketPolicy", "GetBucketPolicy", "DeleteBucketPolicy", "GetBucketPolicyStatus",
		"PutPublicAccessBlock", "GetPublicAccessBlock", "DeletePublicAccessBlock",
		"PutBucketEncryption", "GetBucketEncryption", "DeleteBucketEncryption",
		"PutBucketLifecycleConfiguration", "GetBucketLifecycleConfiguration", "DeleteBucketLifecycle",
		"PutBucketVersioning", "GetBucketVersioning",
		"PutBucketTagging", "GetBucketTagging", "DeleteBucketTagging",
		"PutBucketOwnershipControls", "GetBucketOwnershipControls", "DeleteBucketOwnershipControls",
		// what the Terraform provider's aws_s3_bucket Read also calls
		"GetBucketCors", "GetBucketWebsite", "GetBucketLogging", "GetBucketReplication",
		"GetBucketRequestPayment", "GetBucketAccelerateConfiguration",
		"GetObjectLockConfiguration", "GetBucketNotificationConfiguration",
		// objects
		"ListObjectsV2", "ListObjects", "ListObjectVersions", "PutObject", "GetObject",
		"HeadObject", "DeleteObject", "DeleteObjects", "CopyObject",
		"GetObjectTagging", "PutObjectTagging", "DeleteObjectTagging", "GetObjectAcl",
		"CreateMultipartUpload", "UploadPart", "CompleteMultipartUpload",
		"AbortMultipartUpload", "ListMultipartUploads", "ListParts",
	}},
	{Key: "kms", SDK: "kms", Model: "kms", APIVersion: "2014-11-01", Ops: []string{
		"CreateKey", "DescribeKey", "ListKeys", "ListAliases", "CreateAlias", "DeleteAlias",
		"UpdateAlias", "ScheduleKeyDeletion", "GetKeyPolicy", "PutKeyPolicy",
		"GetKeyRotationStatus", "EnableKeyRotation", "DisableKeyRotation", "TagResource",
		"UntagResource", "ListResourceTags", "Encrypt", "Decrypt", "GenerateDataKey",
	}},
	{Key: "ssm", SDK: "ssm", Model: "ssm", APIVersion: "2014-11-06", Ops: []string{
		"GetParameter", "GetParameters", "GetParametersByPath", "PutParameter",
		"DeleteParameter", "DeleteParameters", "DescribeParameters", "AddTagsToResource",
		"RemoveTagsFromResource", "ListTagsForResource",
	}},
}

type servedService struct {
	Key string
	// SDK is the aws-sdk-go-v2 service module (github.com/aws/aws-sdk-go-v2/service/SDK)
	// whose enum values the -gosdk refresh compares with the model.
	SDK        string
	Model      string
	APIVersion string
	Ops        []string
	// LegacyQuery: the current model is JSON but the service still answers
	// its old query protocol (awsQueryCompatible); the query wire names
	// (locationName on members, map keys/values, list members) are taken
	// from the last query-protocol botocore model, given by -legacy-query.
	LegacyQuery bool
}
