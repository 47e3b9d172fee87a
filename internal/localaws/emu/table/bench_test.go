package table_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// BenchmarkUpdateItem measures UpdateItem calls per second through the HTTP
// endpoint with the Go SDK, on a table whose NEW_AND_OLD_IMAGES stream
// captures every update (the pipeline's claim/finish writes).
func BenchmarkUpdateItem(b *testing.B) {
	for _, tc := range []struct {
		name   string
		stream string
	}{{"Streamed", table.ViewNewAndOldImage}, {"NoStream", ""}} {
		b.Run(tc.name, func(b *testing.B) {
			env := setup(b)
			env.createTable(b, "bench", tc.stream)
			ctx := context.Background()
			var next atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := next.Add(1)
					_, err := env.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
						TableName: aws.String("bench"), Key: key("task-" + strconv.FormatInt(i%1000, 10)),
						UpdateExpression:          aws.String("SET #s = :s, attempts = if_not_exists(attempts, :z) + :o"),
						ExpressionAttributeNames:  map[string]string{"#s": "status"},
						ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":s": s("Running"), ":z": n("0"), ":o": n("1")},
					})
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
			if tc.stream != "" {
				arn, err := env.svc.LatestStreamARN("bench")
				if err != nil {
					b.Fatal(err)
				}
				st, err := env.svc.Stream(arn)
				if err != nil {
					b.Fatal(err)
				}
				if got := int(st.Latest()); got != b.N {
					b.Fatalf("%d stream records for %d updates", got, b.N)
				}
			}
		})
	}
}

// BenchmarkCheckModel measures the check every DynamoDB request now pays
// before it runs (decode, model validation, expression and number
// limits), on the pipeline's claim update; compare with BenchmarkUpdateItem
// for its share of a request.
func BenchmarkCheckModel(b *testing.B) {
	body := []byte(`{"TableName":"tasks","Key":{"pk":{"S":"task#42"}},` +
		`"UpdateExpression":"SET #s = :s, attempts = if_not_exists(attempts, :z) + :o REMOVE lease",` +
		`"ConditionExpression":"attribute_exists(pk) AND #s = :old",` +
		`"ExpressionAttributeNames":{"#s":"status"},` +
		`"ExpressionAttributeValues":{":s":{"S":"Running"},":old":{"S":"Pending"},":z":{"N":"0"},":o":{"N":"1"}},` +
		`"ReturnValues":"ALL_NEW"}`)
	b.ReportAllocs()
	for b.Loop() {
		if e := table.CheckModel(emu.ServiceDynamoDB, "UpdateItem", body); e != nil {
			b.Fatal(e)
		}
	}
}
