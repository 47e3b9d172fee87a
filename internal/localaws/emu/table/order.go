package table

import (
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/truora/minidyn/server"
)

// minidyn keeps every key as a string and sorts sort keys as text, so a
// Number sort key comes back as [10, 100, 2]. DynamoDB orders them by
// value: "If the data type of the sort key is Number, the results are
// returned in numeric order"
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html,
// ScanIndexForward). For such a Query the emulator lets minidyn select the
// items of the key condition, orders them itself, cuts the page
// (ExclusiveStartKey, Limit: Limit counts items before the filter), and
// only then applies the filter and the projection, through a second
// minidyn Query whose answers it matches by primary key.

// numberSortKey returns the sort key attribute of the table or index a
// Query reads, when it is a Number.
func (t *table) numberSortKey(indexName string) (string, bool) {
	ks := t.keySchema
	if indexName != "" {
		ix := t.gsi(indexName)
		if ix == nil {
			for _, l := range t.lsis {
				if l.name == indexName {
					ix = l
				}
			}
		}
		if ix == nil {
			return "", false
		}
		ks = ix.keySchema
	}
	for _, k := range ks {
		if k.KeyType != ddbtypes.KeyTypeRange {
			continue
		}
		name := aws.ToString(k.AttributeName)
		for _, d := range t.attrDefs {
			if aws.ToString(d.AttributeName) == name {
				return name, d.AttributeType == ddbtypes.ScalarAttributeTypeN
			}
		}
	}
	return "", false
}

// queryNumeric answers a Query on a Number sort key; callers hold s.mu.
func (s *Service) queryNumeric(t *table, in *server.QueryInput, sortAttr string) (pageOutput, error) {
	keyCond := aws.ToString(in.KeyConditionExpression)
	sel := server.QueryInput{
		TableName: in.TableName, IndexName: in.IndexName, ConsistentRead: in.ConsistentRead,
		KeyConditionExpression:    in.KeyConditionExpression,
		ExpressionAttributeNames:  usedNames(in.ExpressionAttributeNames, keyCond),
		ExpressionAttributeValues: usedValues(in.ExpressionAttributeValues, keyCond),
	}
	all, err := s.db.Query(bg, &sel)
	if err != nil {
		return pageOutput{}, err
	}
	forward := in.ScanIndexForward == nil || *in.ScanIndexForward
	less := func(a, b item) bool {
		if c := compareNumber(a[sortAttr], b[sortAttr]); c != 0 {
			return (c < 0) == forward
		}
		return (keyString(t.keyOf(a)) < keyString(t.keyOf(b))) == forward
	}
	items := all.Items
	sort.SliceStable(items, func(i, j int) bool { return less(items[i], items[j]) })
	start := 0
	if esk := in.ExclusiveStartKey; len(esk) > 0 {
		start = sort.Search(len(items), func(i int) bool { return less(esk, items[i]) })
	}
	items = items[start:]
	var last item
	if in.Limit != nil && int(*in.Limit) <= len(items) {
		items = items[:*in.Limit]
		if len(items) > 0 {
			last = lastKey(t, items[len(items)-1], sortAttr, in.IndexName)
		}
	}
	scanned := int32(len(items))
	if in.FilterExpression != nil || in.ProjectionExpression != nil || len(in.AttributesToGet) > 0 || in.Select != "" {
		if items, err = s.refine(t, in, items); err != nil {
			return pageOutput{}, err
		}
	}
	out := page(items, last, in.Select)
	out.ScannedCount = scanned
	return out, nil
}

// refine applies the Query's filter and projection to the page, in order:
// a second minidyn Query evaluates them over the key condition's items;
// its answers are matched to the page by primary key (added to the
// projection and removed again when it was not asked for).
func (s *Service) refine(t *table, in *server.QueryInput, pageItems []item) ([]item, error) {
	q := *in
	q.Limit, q.ExclusiveStartKey = nil, nil
	var added []string
	if p := aws.ToString(in.ProjectionExpression); p != "" {
		names := make(map[string]string, len(in.ExpressionAttributeNames)+2)
		for k, v := range in.ExpressionAttributeNames {
			names[k] = v
		}
		asked := projected(p, names)
		for i, k := range []string{t.hashKey, t.rangeKey} {
			if k == "" || asked[k] {
				continue
			}
			ph := "#taskpipeKey" + strconv.Itoa(i)
			names[ph] = k
			p += ", " + ph
			added = append(added, k)
		}
		q.ProjectionExpression, q.ExpressionAttributeNames = aws.String(p), names
	}
	if in.Select == ddbtypes.SelectCount {
		q.Select = ""
	}
	res, err := s.db.Query(bg, &q)
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]item, len(res.Items))
	for _, it := range res.Items {
		byKey[keyString(t.keyOf(it))] = it
	}
	out := make([]item, 0, len(pageItems))
	for _, p := range pageItems {
		it, ok := byKey[keyString(t.keyOf(p))]
		if !ok {
			continue // filtered out
		}
		for _, k := range added {
			delete(it, k)
		}
		out = append(out, it)
	}
	return out, nil
}

// lastKey is the LastEvaluatedKey of a page ending at it: the table key
// and, for an index, the index key.
func lastKey(t *table, it item, sortAttr string, indexName *string) item {
	k := t.keyOf(it)
	k[sortAttr] = it[sortAttr]
	if ix := t.gsi(aws.ToString(indexName)); ix != nil {
		for _, e := range ix.keySchema {
			n := aws.ToString(e.AttributeName)
			k[n] = it[n]
		}
	}
	return k
}

// compareNumber orders two N values (absent or non-number last-resort as
// text, which only a corrupt item would have).
func compareNumber(a, b *server.AttributeValue) int {
	x, okx := numberOf(a)
	y, oky := numberOf(b)
	if !okx || !oky {
		return strings.Compare(numberText(a), numberText(b))
	}
	return x.Cmp(y)
}

func numberOf(v *server.AttributeValue) (*big.Float, bool) {
	if v == nil || v.N == nil {
		return nil, false
	}
	f, _, err := big.ParseFloat(*v.N, 10, 256, big.ToNearestEven)
	return f, err == nil
}

func numberText(v *server.AttributeValue) string {
	if v == nil || v.N == nil {
		return ""
	}
	return *v.N
}

var placeholder = regexp.MustCompile(`[#:][A-Za-z0-9_]+`)

// usedNames keeps the expression attribute names expr refers to:
// minidyn, as DynamoDB, refuses unused ones.
func usedNames(names map[string]string, expr string) map[string]string {
	used := map[string]string{}
	for _, p := range placeholder.FindAllString(expr, -1) {
		if v, ok := names[p]; ok {
			used[p] = v
		}
	}
	return used
}

func usedValues(values map[string]*server.AttributeValue, expr string) map[string]*server.AttributeValue {
	used := map[string]*server.AttributeValue{}
	for _, p := range placeholder.FindAllString(expr, -1) {
		if v, ok := values[p]; ok {
			used[p] = v
		}
	}
	return used
}

// projected returns the top-level attributes a projection expression names.
func projected(expr string, names map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, part := range strings.Split(expr, ",") {
		top := strings.TrimSpace(part)
		if i := strings.IndexAny(top, ".["); i >= 0 {
			top = top[:i]
		}
		if v, ok := names[top]; ok {
			top = v
		}
		out[top] = true
	}
	return out
}

// checkConsistentRead refuses a strongly consistent read of a global
// secondary index: "Strongly consistent reads are not supported on global
// secondary indexes. If you query a global secondary index with
// ConsistentRead set to true, you will receive a ValidationException"
// (API_Query.html and API_Scan.html, ConsistentRead).
func (t *table) checkConsistentRead(indexName *string, consistent *bool) error {
	if aws.ToBool(consistent) && t.gsi(aws.ToString(indexName)) != nil {
		return validation("Consistent reads are not supported on global secondary indexes")
	}
	return nil
}
