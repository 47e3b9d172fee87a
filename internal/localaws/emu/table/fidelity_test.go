package table_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"
)

// TestNumberSortKeyOrder: a Number sort key orders by value, not as text
// ("Query results are always sorted by the sort key value. If the data
// type of the sort key is Number, the results are returned in numeric
// order", https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html),
// forwards, backwards and across pages.
func TestNumberSortKeyOrder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createIndexedTable(t, "tasks")
	for i, due := range []string{"10", "100", "2", "-5", "2.5", "1e2", "0.03"} {
		_, err := b.ddb.PutItem(b.ctx(), &dynamodb.PutItemInput{TableName: aws.String("tasks"), Item: map[string]ddbtypes.AttributeValue{
			"id": s("t" + strconv.Itoa(i)), "live": s("Pending"), "due": n(due),
		}})
		require.NoError(t, err)
	}
	query := func(forward bool, limit int32, filter bool) []string {
		in := &dynamodb.QueryInput{
			TableName: aws.String("tasks"), IndexName: aws.String("byLive"),
			KeyConditionExpression:    aws.String("live = :p"),
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":p": s("Pending")},
			ScanIndexForward:          aws.Bool(forward),
		}
		if limit > 0 {
			in.Limit = aws.Int32(limit)
		}
		if filter {
			in.FilterExpression = aws.String("due > :z")
			in.ExpressionAttributeValues[":z"] = n("0")
		}
		var got []string
		for {
			out, err := b.ddb.Query(b.ctx(), in)
			require.NoError(t, err)
			for _, it := range out.Items {
				got = append(got, it["due"].(*ddbtypes.AttributeValueMemberN).Value)
			}
			if out.LastEvaluatedKey == nil {
				return got
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	tests := []struct {
		name    string
		forward bool
		limit   int32
		filter  bool
		want    []string
	}{
		{"forward", true, 0, false, []string{"-5", "0.03", "2", "2.5", "10", "100", "1e2"}},
		{"backward", false, 0, false, []string{"1e2", "100", "10", "2.5", "2", "0.03", "-5"}},
		{"pages of two", true, 2, false, []string{"-5", "0.03", "2", "2.5", "10", "100", "1e2"}},
		{"filtered pages", true, 3, true, []string{"0.03", "2", "2.5", "10", "100", "1e2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := query(tt.forward, tt.limit, tt.filter)
			// 100 and 1e2 are the same number: their order between
			// themselves is the primary key's, so compare as a multiset there.
			require.Len(t, got, len(tt.want))
			require.ElementsMatch(t, tt.want, got)
			norm := func(v []string) []string {
				out := make([]string, len(v))
				for i, x := range v {
					out[i] = strings.Replace(x, "1e2", "100", 1)
				}
				return out
			}
			require.Equal(t, norm(tt.want), norm(got))
		})
	}
}

// TestConsistentReadOnGSI: AWS refuses strongly consistent reads of a
// global secondary index (API_Query.html, ConsistentRead: "Strongly
// consistent reads are not supported on global secondary indexes. If you
// query a global secondary index with ConsistentRead set to true, you will
// receive a ValidationException.").
func TestConsistentReadOnGSI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createIndexedTable(t, "tasks")
	_, err := b.ddb.Query(b.ctx(), &dynamodb.QueryInput{
		TableName: aws.String("tasks"), IndexName: aws.String("byLive"), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("live = :p"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":p": s("Pending")},
	})
	requireValidation(t, err, "Consistent reads are not supported on global secondary indexes")
	_, err = b.ddb.Scan(b.ctx(), &dynamodb.ScanInput{TableName: aws.String("tasks"), IndexName: aws.String("byLive"), ConsistentRead: aws.Bool(true)})
	requireValidation(t, err, "Consistent reads are not supported on global secondary indexes")
	// The table itself may be read consistently.
	_, err = b.ddb.Scan(b.ctx(), &dynamodb.ScanInput{TableName: aws.String("tasks"), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
}

// TestItemSizeLimit: an item over 400 KB is refused by every write that
// stores one whole, sized as DynamoDB documents it (attribute names plus
// values, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
func TestItemSizeLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createTable(t, "items", "")
	const limit = 400 * 1024
	// id "x" (2 + 1 bytes) + name "d" (1) + the string: exactly at the limit.
	at := map[string]ddbtypes.AttributeValue{"id": s("x"), "d": s(strings.Repeat("a", limit-2-1-1))}
	_, err := b.ddb.PutItem(b.ctx(), &dynamodb.PutItemInput{TableName: aws.String("items"), Item: at})
	require.NoError(t, err, "an item of exactly 400 KB fits")
	over := map[string]ddbtypes.AttributeValue{"id": s("y"), "d": s(strings.Repeat("a", limit-2-1))}
	_, err = b.ddb.PutItem(b.ctx(), &dynamodb.PutItemInput{TableName: aws.String("items"), Item: over})
	requireValidation(t, err, "Item size has exceeded the maximum allowed size")
	_, err = b.ddb.TransactWriteItems(b.ctx(), &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		{Put: &ddbtypes.Put{TableName: aws.String("items"), Item: over}},
	}})
	requireValidation(t, err, "Item size has exceeded the maximum allowed size")
	_, err = b.ddb.BatchWriteItem(b.ctx(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]ddbtypes.WriteRequest{
		"items": {{PutRequest: &ddbtypes.PutRequest{Item: over}}},
	}})
	requireValidation(t, err, "Item size has exceeded the maximum allowed size")
	// Nested values count their names and a few bytes of overhead.
	nested := map[string]ddbtypes.AttributeValue{"id": s("z"), "m": &ddbtypes.AttributeValueMemberM{Value: map[string]ddbtypes.AttributeValue{
		"a": s(strings.Repeat("b", limit/2)), "c": &ddbtypes.AttributeValueMemberL{Value: []ddbtypes.AttributeValue{s(strings.Repeat("d", limit/2))}},
	}}}
	_, err = b.ddb.PutItem(b.ctx(), &dynamodb.PutItemInput{TableName: aws.String("items"), Item: nested})
	requireValidation(t, err, "Item size has exceeded the maximum allowed size")
	got, err := b.ddb.GetItem(b.ctx(), &dynamodb.GetItemInput{TableName: aws.String("items"), Key: key("y")})
	require.NoError(t, err)
	require.Empty(t, got.Item, "nothing of a refused write is stored")
}

func (b *testBundle) ctx() context.Context { return context.Background() }

// requireValidation asserts a ValidationException whose message contains msg.
func requireValidation(t *testing.T, err error, msg string) {
	t.Helper()
	var api smithy.APIError
	require.ErrorAs(t, err, &api)
	require.Equal(t, "ValidationException", api.ErrorCode(), api.ErrorMessage())
	require.Contains(t, api.ErrorMessage(), msg)
}

// TestExpressionLimits: DynamoDB's expression parameter limits hold before
// the expression engine sees an expression (ServiceQuotas.html,
// "Expression parameters"). Before they did, a FilterExpression of
// 4,000,000 "(" overflowed minidyn's parser stack and killed the process.
func TestExpressionLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createTable(t, "items", "")
	conds := func(n int, join string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = "a = :v"
		}
		return strings.Join(parts, join)
	}
	in101 := ":v" + strings.Repeat(", :v", 100)
	tests := []struct {
		name, filter, msg string
	}{
		{"4,000,000 open parentheses", strings.Repeat("(", 4_000_000), "Invalid FilterExpression: Expression size has exceeded the maximum allowed size; expression size: 4000000"},
		{"4,097 bytes", "a = :v" + strings.Repeat(" ", 4091), "Invalid FilterExpression: Expression size has exceeded the maximum allowed size; expression size: 4097"},
		{"301 operators", conds(151, " AND "), "Invalid FilterExpression: The expression contains too many operators; operator count: 301"},
		{"IN with 101 operands", "a IN (" + in101 + ")", "Invalid FilterExpression: The IN operator is provided with too many operands; number of operands: 101"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := b.ddb.Scan(b.ctx(), &dynamodb.ScanInput{TableName: aws.String("items"), FilterExpression: aws.String(tt.filter),
				ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":v": s("x")}})
			requireValidation(t, err, tt.msg)
		})
	}
	// At the limits the expression runs: 4,096 bytes of nesting, 300
	// operators, 100 IN operands.
	for _, ok := range []string{
		strings.Repeat("(", 2045) + "a = :v" + strings.Repeat(")", 2045),
		conds(150, " AND "),
		"a IN (" + ":v" + strings.Repeat(", :v", 99) + ")",
	} {
		_, err := b.ddb.Scan(b.ctx(), &dynamodb.ScanInput{TableName: aws.String("items"), FilterExpression: aws.String(ok),
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":v": s("x")}})
		require.NoError(t, err, "%d bytes", len(ok))
	}
}

// TestNumberLimits: N values are validated as DynamoDB does: up to 38
// significant digits, magnitude 1E-130 … 9.99…E+125
// (HowItWorks.NamingRulesDataTypes.html, Number). Before, "1" followed by
// 100,000 zeros and "1e999999999" were stored and broke every later
// filtered Scan.
func TestNumberLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createTable(t, "items", "")
	const overflow = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	tests := []struct {
		name, n, msg string
	}{
		{"1 and 100,000 zeros", "1" + strings.Repeat("0", 100_000), overflow},
		{"1e999999999", "1e999999999", overflow},
		{"1E126", "1E126", overflow},
		{"-1E126", "-1E126", overflow},
		{"1E-131", "1E-131", "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
		{"39 digits", "1" + strings.Repeat("2", 38), "Attempting to store more than 38 significant digits in a Number"},
		{"not a number", "twelve", "The parameter cannot be converted to a numeric value: twelve"},
		{"two points", "1.2.3", "The parameter cannot be converted to a numeric value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := b.ddb.PutItem(b.ctx(), &dynamodb.PutItemInput{TableName: aws.String("items"),
				Item: map[string]ddbtypes.AttributeValue{"id": s(tt.name), "n": n(tt.n)}})
			requireValidation(t, err, tt.msg)
			_, err = b.ddb.PutItem(b.ctx(), &dynamodb.PutItemInput{TableName: aws.String("items"),
				Item: map[string]ddbtypes.AttributeValue{"id": s(tt.name), "ns": &ddbtypes.AttributeValueMemberNS{Value: []string{"1", tt.n}}}})
			requireValidation(t, err, tt.msg)
		})
	}
	for i, ok := range []string{"9.9999999999999999999999999999999999999E+125", "-9.9999999999999999999999999999999999999E+125",
		"1E-130", "-1E-130", "0", "-0.000", "1" + strings.Repeat("0", 125), "0.00000000000000000000000000000000000012345678901234567890123456789012345678"} {
		_, err := b.ddb.PutItem(b.ctx(), &dynamodb.PutItemInput{TableName: aws.String("items"),
			Item: map[string]ddbtypes.AttributeValue{"id": s("ok" + strconv.Itoa(i)), "n": n(ok)}})
		require.NoError(t, err, ok)
	}
	// What was refused left nothing behind: a filtered Scan still runs.
	out, err := b.ddb.Scan(b.ctx(), &dynamodb.ScanInput{TableName: aws.String("items"), FilterExpression: aws.String("n > :z"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":z": n("0")}})
	require.NoError(t, err)
	require.Equal(t, int32(4), out.Count)
}
