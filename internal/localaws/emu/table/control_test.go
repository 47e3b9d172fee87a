package table_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

var (
	streamLabelRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$`)
	tableARNRE    = regexp.MustCompile(`^arn:aws:dynamodb:us-east-1:000000000000:table/[A-Za-z0-9_.-]+$`)
)

func TestCreateTableDescribesLikeAWS(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	out, err := b.ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("tasks"),
		BillingMode: ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("taskId"), AttributeType: ddbtypes.ScalarAttributeTypeS},
			{AttributeName: aws.String("status"), AttributeType: ddbtypes.ScalarAttributeTypeS},
			{AttributeName: aws.String("updatedAt"), AttributeType: ddbtypes.ScalarAttributeTypeN},
		},
		KeySchema: []ddbtypes.KeySchemaElement{{AttributeName: aws.String("taskId"), KeyType: ddbtypes.KeyTypeHash}},
		GlobalSecondaryIndexes: []ddbtypes.GlobalSecondaryIndex{{
			IndexName: aws.String("live"),
			KeySchema: []ddbtypes.KeySchemaElement{
				{AttributeName: aws.String("status"), KeyType: ddbtypes.KeyTypeHash},
				{AttributeName: aws.String("updatedAt"), KeyType: ddbtypes.KeyTypeRange},
			},
			Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeKeysOnly},
		}},
		StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages},
		SSESpecification:    &ddbtypes.SSESpecification{Enabled: aws.Bool(true)},
		Tags:                []ddbtypes.Tag{{Key: aws.String("team"), Value: aws.String("scrape")}},
	})
	require.NoError(t, err)
	created := out.TableDescription
	require.Equal(t, ddbtypes.TableStatusActive, created.TableStatus)

	// The SDK waiter Terraform and applications use must succeed at once.
	require.NoError(t, dynamodb.NewTableExistsWaiter(b.ddb).Wait(ctx,
		&dynamodb.DescribeTableInput{TableName: aws.String("tasks")}, time.Minute))

	_, err = b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tasks"), Item: map[string]ddbtypes.AttributeValue{
		"taskId": s("t1"), "status": s("Pending"), "updatedAt": n("1"),
	}})
	require.NoError(t, err)

	desc, err := b.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tasks")})
	require.NoError(t, err)
	d := desc.Table
	require.Equal(t, "tasks", aws.ToString(d.TableName))
	require.Equal(t, "arn:aws:dynamodb:us-east-1:000000000000:table/tasks", aws.ToString(d.TableArn))
	require.Regexp(t, tableARNRE, aws.ToString(d.TableArn))
	require.NotEmpty(t, aws.ToString(d.TableId))
	require.Equal(t, ddbtypes.TableStatusActive, d.TableStatus)
	require.Equal(t, b.clock.Now(), aws.ToTime(d.CreationDateTime).UTC())
	require.Equal(t, ddbtypes.BillingModePayPerRequest, d.BillingModeSummary.BillingMode)
	require.Equal(t, int64(1), aws.ToInt64(d.ItemCount))
	require.Len(t, d.AttributeDefinitions, 3)
	require.Equal(t, "taskId", aws.ToString(d.KeySchema[0].AttributeName))
	require.Len(t, d.GlobalSecondaryIndexes, 1)
	gsi := d.GlobalSecondaryIndexes[0]
	require.Equal(t, ddbtypes.IndexStatusActive, gsi.IndexStatus)
	require.Equal(t, "arn:aws:dynamodb:us-east-1:000000000000:table/tasks/index/live", aws.ToString(gsi.IndexArn))
	require.Equal(t, ddbtypes.ProjectionTypeKeysOnly, gsi.Projection.ProjectionType)
	require.Equal(t, int64(1), aws.ToInt64(gsi.ItemCount))
	require.True(t, aws.ToBool(d.StreamSpecification.StreamEnabled))
	require.Equal(t, ddbtypes.StreamViewTypeNewAndOldImages, d.StreamSpecification.StreamViewType)
	require.Regexp(t, streamLabelRE, aws.ToString(d.LatestStreamLabel))
	require.Equal(t, aws.ToString(d.TableArn)+"/stream/"+aws.ToString(d.LatestStreamLabel), aws.ToString(d.LatestStreamArn))
	require.Equal(t, aws.ToString(created.LatestStreamArn), aws.ToString(d.LatestStreamArn))
	require.Equal(t, ddbtypes.SSEStatusEnabled, d.SSEDescription.Status)
	require.Equal(t, ddbtypes.SSETypeKms, d.SSEDescription.SSEType)
	require.False(t, aws.ToBool(d.DeletionProtectionEnabled))

	arn, err := b.svc.LatestStreamARN("tasks")
	require.NoError(t, err)
	require.Equal(t, aws.ToString(d.LatestStreamArn), arn)
}

func TestControlPlaneErrorsHaveAWSShape(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.createTable(t, "present", "")

	tests := []struct {
		name    string
		call    func() error
		code    string
		message string
		typed   any
	}{
		{
			name: "DescribeMissing",
			call: func() error {
				_, err := b.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("absent")})
				return err
			},
			code:    "ResourceNotFoundException",
			message: "Requested resource not found: Table: absent not found",
			typed:   new(*ddbtypes.ResourceNotFoundException),
		},
		{
			name: "CreateExisting",
			call: func() error {
				_, err := b.ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
					TableName: aws.String("present"), BillingMode: ddbtypes.BillingModePayPerRequest,
					AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
					KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash}},
				})
				return err
			},
			code:    "ResourceInUseException",
			message: "Table already exists: present",
			typed:   new(*ddbtypes.ResourceInUseException),
		},
		{
			name: "DeleteMissing",
			call: func() error {
				_, err := b.ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("absent")})
				return err
			},
			code:    "ResourceNotFoundException",
			message: "Requested resource not found: Table: absent not found",
			typed:   new(*ddbtypes.ResourceNotFoundException),
		},
		{
			name: "UpdateMissing",
			call: func() error {
				_, err := b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("absent"), BillingMode: ddbtypes.BillingModePayPerRequest})
				return err
			},
			code:  "ResourceNotFoundException",
			typed: new(*ddbtypes.ResourceNotFoundException),
		},
		{
			name: "PutItemMissingTable",
			call: func() error {
				_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("absent"), Item: key("a")})
				return err
			},
			code:    "ResourceNotFoundException",
			message: "Requested resource not found",
			typed:   new(*ddbtypes.ResourceNotFoundException),
		},
		{
			name: "InvalidTableName",
			call: func() error {
				_, err := b.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("a")})
				return err
			},
			code: "ValidationException",
		},
		{
			name: "ProvisionedWithoutThroughput",
			call: func() error {
				_, err := b.ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
					TableName:            aws.String("prov"),
					AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
					KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash}},
				})
				return err
			},
			code:    "ValidationException",
			message: "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED",
		},
		{
			name: "StreamWithoutViewType",
			call: func() error {
				_, err := b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("present"),
					StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true)}})
				return err
			},
			code: "ValidationException",
		},
		{
			name: "DisableMissingStream",
			call: func() error {
				_, err := b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("present"),
					StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(false)}})
				return err
			},
			code: "ValidationException",
		},
		{
			name: "NothingToUpdate",
			call: func() error {
				_, err := b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("present")})
				return err
			},
			code: "ValidationException",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.Error(t, err)
			var api smithy.APIError
			require.ErrorAs(t, err, &api)
			require.Equal(t, tt.code, api.ErrorCode(), api.ErrorMessage())
			if tt.message != "" {
				require.Equal(t, tt.message, api.ErrorMessage())
			}
			if tt.typed != nil {
				require.ErrorAs(t, err, tt.typed)
			}
		})
	}
}

func TestRawProtocolErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)

	tests := []struct {
		name   string
		target string
		body   string
		typ    string
	}{
		{name: "UnknownOperation", target: "DynamoDB_20120810.ExecuteStatement", body: `{}`, typ: "com.amazon.coral.service#UnknownOperationException"},
		{name: "MalformedJSON", target: "DynamoDB_20120810.PutItem", body: `{"TableName":`, typ: "com.amazon.coral.service#SerializationException"},
		{name: "WrongType", target: "DynamoDB_20120810.PutItem", body: `{"TableName":5}`, typ: "com.amazon.coral.service#SerializationException"},
		{name: "NumberNotString", target: "DynamoDB_20120810.GetItem", body: `{"TableName":"abc","Key":{"id":{"N":5}}}`, typ: "com.amazon.coral.service#SerializationException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(http.MethodPost, b.url, strings.NewReader(tt.body))
			require.NoError(t, err)
			req.Header.Set("X-Amz-Target", tt.target)
			req.Header.Set("Content-Type", "application/x-amz-json-1.0")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusBadRequest, resp.StatusCode)
			require.Equal(t, "application/x-amz-json-1.0", resp.Header.Get("Content-Type"))
			require.NotEmpty(t, resp.Header.Get("X-Amz-Crc32"))
			require.Contains(t, string(body), fmt.Sprintf(`"__type":%q`, tt.typ))
		})
	}
}

func TestStreamLifecycleThroughUpdateTable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.createTable(t, "orders", "")

	_, err := b.svc.LatestStreamARN("orders")
	require.ErrorIs(t, err, table.ErrNoStream)
	_, err = b.svc.LatestStreamARN("nope")
	require.ErrorIs(t, err, table.ErrTableNotFound)

	enable := func() string {
		out, err := b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"),
			StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeKeysOnly}})
		require.NoError(t, err)
		require.Equal(t, ddbtypes.StreamViewTypeKeysOnly, out.TableDescription.StreamSpecification.StreamViewType)
		return aws.ToString(out.TableDescription.LatestStreamArn)
	}
	first := enable()

	_, err = b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"),
		StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewImage}})
	var api smithy.APIError
	require.ErrorAs(t, err, &api)
	require.Equal(t, "ValidationException", api.ErrorCode())
	require.Equal(t, "Table already has an enabled stream: TableName: orders", api.ErrorMessage())

	_, err = b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: key("o1")})
	require.NoError(t, err)

	out, err := b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"),
		StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	require.NoError(t, err)
	require.Nil(t, out.TableDescription.StreamSpecification)
	require.Equal(t, first, aws.ToString(out.TableDescription.LatestStreamArn), "LatestStreamArn survives disabling")

	old, err := b.svc.Stream(first)
	require.NoError(t, err)
	info := old.Info()
	require.Equal(t, table.StatusDisabled, info.Status)
	require.NotEmpty(t, info.EndingSequenceNumber)
	res, err := old.Read(old.TrimHorizon(), 0)
	require.NoError(t, err)
	require.Len(t, res.Records, 1, "a disabled stream stays readable")
	require.True(t, res.End)

	b.clock.Advance(time.Second)
	second := enable()
	require.NotEqual(t, first, second, "re-enabling creates a new stream ARN")
	require.Len(t, b.svc.Streams("orders"), 2)

	// 24 hours after it was disabled the old stream is gone.
	b.clock.Advance(24*time.Hour + time.Second)
	_, err = b.svc.Stream(first)
	require.ErrorIs(t, err, table.ErrStreamNotFound)
	_, err = b.svc.Stream(second)
	require.NoError(t, err)
}

func TestDeleteTableClosesItsStream(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	out := b.createTable(t, "gone", table.ViewNewImage)
	arn := aws.ToString(out.TableDescription.LatestStreamArn)
	st, err := b.svc.Stream(arn)
	require.NoError(t, err)

	waited := make(chan error, 1)
	go func() { waited <- st.Wait(context.Background(), st.Latest()) }()

	del, err := b.ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("gone")})
	require.NoError(t, err)
	require.Equal(t, ddbtypes.TableStatusDeleting, del.TableDescription.TableStatus)
	require.NoError(t, <-waited, "disabling wakes waiting readers")
	require.True(t, st.Disabled())

	require.NoError(t, dynamodb.NewTableNotExistsWaiter(b.ddb).Wait(ctx,
		&dynamodb.DescribeTableInput{TableName: aws.String("gone")}, time.Minute))

	// Recreating the table gives it a new stream.
	b.clock.Advance(time.Millisecond)
	again := b.createTable(t, "gone", table.ViewNewImage)
	require.NotEqual(t, arn, aws.ToString(again.TableDescription.LatestStreamArn))
}

func TestDeletionProtection(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.createTable(t, "kept", "")
	_, err := b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("kept"), DeletionProtectionEnabled: aws.Bool(true)})
	require.NoError(t, err)
	_, err = b.ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("kept")})
	var api smithy.APIError
	require.ErrorAs(t, err, &api)
	require.Equal(t, "ValidationException", api.ErrorCode())
	_, err = b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("kept"), DeletionProtectionEnabled: aws.Bool(false)})
	require.NoError(t, err)
	_, err = b.ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("kept")})
	require.NoError(t, err)
}

func TestUpdateTableIndexesAndBilling(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.createTable(t, "items", "")
	_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"),
		Item: map[string]ddbtypes.AttributeValue{"id": s("a"), "run": s("r1")}})
	require.NoError(t, err)

	out, err := b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:            aws.String("items"),
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("run"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{{Create: &ddbtypes.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("byRun"),
			KeySchema:  []ddbtypes.KeySchemaElement{{AttributeName: aws.String("run"), KeyType: ddbtypes.KeyTypeHash}},
			Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll},
		}}},
	})
	require.NoError(t, err)
	require.Len(t, out.TableDescription.GlobalSecondaryIndexes, 1)
	require.Equal(t, ddbtypes.IndexStatusActive, out.TableDescription.GlobalSecondaryIndexes[0].IndexStatus)
	require.Len(t, out.TableDescription.AttributeDefinitions, 2)

	q, err := b.ddb.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("items"), IndexName: aws.String("byRun"),
		KeyConditionExpression: aws.String("run = :r"), ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":r": s("r1")}})
	require.NoError(t, err)
	require.Equal(t, int32(1), q.Count)

	out, err = b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("items"), BillingMode: ddbtypes.BillingModeProvisioned,
		ProvisionedThroughput: &ddbtypes.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(7)},
		GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{{Delete: &ddbtypes.DeleteGlobalSecondaryIndexAction{
			IndexName: aws.String("byRun"),
		}}}})
	require.NoError(t, err)
	require.Empty(t, out.TableDescription.GlobalSecondaryIndexes)
	require.Equal(t, ddbtypes.BillingModeProvisioned, out.TableDescription.BillingModeSummary.BillingMode)
	require.Equal(t, int64(7), aws.ToInt64(out.TableDescription.ProvisionedThroughput.WriteCapacityUnits))
}

func TestListTablesPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	names := []string{"t-a", "t-b", "t-c", "t-d", "t-e"}
	for _, name := range names {
		b.createTable(t, name, "")
	}
	var got []string
	p := dynamodb.NewListTablesPaginator(b.ddb, &dynamodb.ListTablesInput{Limit: aws.Int32(2)})
	pages := 0
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		require.LessOrEqual(t, len(out.TableNames), 2)
		got = append(got, out.TableNames...)
		pages++
	}
	require.Equal(t, names, got)
	require.Equal(t, 3, pages)

	_, err := b.ddb.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(101)})
	var api smithy.APIError
	require.ErrorAs(t, err, &api)
	require.Equal(t, "ValidationException", api.ErrorCode())
}

func TestTimeToLiveRoundTrip(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.createTable(t, "ttl", "")

	d, err := b.ddb.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("ttl")})
	require.NoError(t, err)
	require.Equal(t, ddbtypes.TimeToLiveStatusDisabled, d.TimeToLiveDescription.TimeToLiveStatus)

	u, err := b.ddb.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("ttl"),
		TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)}})
	require.NoError(t, err)
	require.Equal(t, "expiresAt", aws.ToString(u.TimeToLiveSpecification.AttributeName))

	d, err = b.ddb.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("ttl")})
	require.NoError(t, err)
	require.Equal(t, ddbtypes.TimeToLiveStatusEnabled, d.TimeToLiveDescription.TimeToLiveStatus)
	require.Equal(t, "expiresAt", aws.ToString(d.TimeToLiveDescription.AttributeName))

	_, err = b.ddb.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("ttl"),
		TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)}})
	var api smithy.APIError
	require.ErrorAs(t, err, &api)
	require.Equal(t, "ValidationException", api.ErrorCode())
	require.Equal(t, "TimeToLive is already enabled", api.ErrorMessage())

	_, err = b.ddb.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("absent")})
	require.ErrorAs(t, err, new(*ddbtypes.ResourceNotFoundException))
}

func TestTagsRoundTrip(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	arn := aws.ToString(b.createTable(t, "tagged", "").TableDescription.TableArn)

	_, err := b.ddb.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []ddbtypes.Tag{
		{Key: aws.String("b"), Value: aws.String("2")}, {Key: aws.String("a"), Value: aws.String("1")},
	}})
	require.NoError(t, err)
	_, err = b.ddb.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []ddbtypes.Tag{
		{Key: aws.String("a"), Value: aws.String("one")},
	}})
	require.NoError(t, err)
	l, err := b.ddb.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	require.NoError(t, err)
	require.Equal(t, []ddbtypes.Tag{{Key: aws.String("a"), Value: aws.String("one")}, {Key: aws.String("b"), Value: aws.String("2")}}, l.Tags)

	_, err = b.ddb.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"a"}})
	require.NoError(t, err)
	l, err = b.ddb.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	require.NoError(t, err)
	require.Equal(t, []ddbtypes.Tag{{Key: aws.String("b"), Value: aws.String("2")}}, l.Tags)

	_, err = b.ddb.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn + "x")})
	require.ErrorAs(t, err, new(*ddbtypes.ResourceNotFoundException))
}

func TestPointInTimeRecoveryRoundTrip(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.createTable(t, "pitr", "")

	d, err := b.ddb.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("pitr")})
	require.NoError(t, err)
	require.Equal(t, ddbtypes.ContinuousBackupsStatusEnabled, d.ContinuousBackupsDescription.ContinuousBackupsStatus)
	require.Equal(t, ddbtypes.PointInTimeRecoveryStatusDisabled, d.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus)

	u, err := b.ddb.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("pitr"),
		PointInTimeRecoverySpecification: &ddbtypes.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(7)}})
	require.NoError(t, err)
	p := u.ContinuousBackupsDescription.PointInTimeRecoveryDescription
	require.Equal(t, ddbtypes.PointInTimeRecoveryStatusEnabled, p.PointInTimeRecoveryStatus)
	require.Equal(t, int32(7), aws.ToInt32(p.RecoveryPeriodInDays))

	d, err = b.ddb.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("pitr")})
	require.NoError(t, err)
	require.Equal(t, ddbtypes.PointInTimeRecoveryStatusEnabled, d.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus)

	_, err = b.ddb.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("absent")})
	require.ErrorAs(t, err, new(*ddbtypes.TableNotFoundException))
}

func TestUnknownOperationThroughSDK(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.ddb.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String("SELECT * FROM x")})
	var api smithy.APIError
	require.True(t, errors.As(err, &api))
	require.Equal(t, "UnknownOperationException", api.ErrorCode())
}
