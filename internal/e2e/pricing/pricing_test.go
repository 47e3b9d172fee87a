package pricing_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/e2e/pricing"
)

func TestDefaultTableIsValidAndSourced(t *testing.T) {
	t.Parallel()
	tab := pricing.Default()
	require.Equal(t, "us-east-1", tab.Region)
	require.NotEmpty(t, tab.Prices)
	for _, p := range tab.Prices {
		require.Truef(t, strings.HasPrefix(p.Source, "https://"), "%s: source %q", p.Key, p.Source)
		require.NotEmptyf(t, p.AsOf, "%s: as of", p.Key)
		require.Positivef(t, p.UnitUSD(), "%s", p.Key)
	}
	// Spot checks against the sources named in prices.json.
	for key, perUnit := range map[string]float64{
		pricing.KeyLambdaRequests:    0.20 / 1e6,
		pricing.KeyLambdaGBSecondX86: 0.0000166667,
		pricing.KeyLambdaGBSecondARM: 0.0000133334,
		pricing.KeySQSRequests:       0.40 / 1e6,
		pricing.KeyDynamoWriteUnits:  0.625 / 1e6,
		pricing.KeyDynamoReadUnits:   0.125 / 1e6,
		pricing.KeyPipesRequests:     0.40 / 1e6,
		pricing.KeyLogsIngestion:     0.50 / (1 << 30),
		pricing.KeyS3PutRequests:     0.005 / 1e3,
		pricing.KeyS3GetRequests:     0.0004 / 1e3,
		pricing.KeyS3Storage:         0.023 / (1 << 30),
	} {
		p, ok := tab.Price(key)
		require.Truef(t, ok, "%s", key)
		require.InDeltaf(t, perUnit, p.UnitUSD(), perUnit*1e-9, "%s", key)
	}
}

func TestParseRejectsBadTables(t *testing.T) {
	t.Parallel()
	good := `{"key":"%s","service":"s","what":"w","usd":1,"per":1,"unit":"u","asOf":"2026","source":"https://example.com/p"}`
	all := []string{}
	for _, k := range []string{pricing.KeyLambdaRequests, pricing.KeyLambdaGBSecondX86, pricing.KeyLambdaGBSecondARM,
		pricing.KeySQSRequests, pricing.KeyDynamoWriteUnits, pricing.KeyDynamoReadUnits, pricing.KeyPipesRequests, pricing.KeyLogsIngestion,
		pricing.KeyS3PutRequests, pricing.KeyS3GetRequests, pricing.KeyS3Storage} {
		all = append(all, strings.Replace(good, "%s", k, 1))
	}
	table := func(prices ...string) []byte {
		return []byte(`{"region":"us-east-1","currency":"USD","prices":[` + strings.Join(prices, ",") + `]}`)
	}
	_, err := pricing.Parse(table(all...))
	require.NoError(t, err)

	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"not json", []byte("{"), "parse"},
		{"unknown field", []byte(`{"region":"us-east-1","currency":"USD","prices":[],"extra":1}`), "unknown field"},
		{"missing price", table(all[1:]...), pricing.KeyLambdaRequests + " is missing"},
		{"duplicate", table(append(all, all[0])...), "given twice"},
		{"zero price", table(append(all[1:], strings.Replace(all[0], `"usd":1`, `"usd":0`, 1))...), "want both positive"},
		{"http source", table(append(all[1:], strings.Replace(all[0], "https://", "http://", 1))...), "not an https URL"},
		{"no date", table(append(all[1:], strings.Replace(all[0], `"asOf":"2026"`, `"asOf":""`, 1))...), "asOf"},
		{"other currency", []byte(`{"region":"us-east-1","currency":"EUR","prices":[]}`), "currency USD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := pricing.Parse(tc.data)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	tab := pricing.Default()
	usage := pricing.Usage{
		Tasks: 500,
		Functions: []pricing.FunctionUsage{
			// 600 invocations of 512 MB for 300,000 ms billed: 150 GB-s.
			{Name: "scraper", Arch: "arm64", MemoryMB: 512, Invocations: 600, BilledMS: 300_000},
			// 100 invocations of 1,024 MB for 10,000 ms: 10 GB-s.
			{Name: "enrich", Arch: "x86_64", MemoryMB: 1024, Invocations: 100, BilledMS: 10_000},
		},
		SQSRequests:      2_000,
		DynamoWriteUnits: 4_000,
		DynamoReadUnits:  100,
		PipeRequests:     500,
		LogBytes:         1 << 29, // half a GB
		S3PutRequests:    500,
		S3GetRequests:    50,
		S3StoredBytes:    1 << 28, // a quarter GB
	}
	e, err := tab.Estimate(usage, 1000)
	require.NoError(t, err)
	require.Equal(t, 1000, e.Tasks)
	got := map[string]float64{}
	for _, l := range e.Lines {
		got[l.Item] = l.Quantity
	}
	// Every quantity doubles: 1,000 tasks from a run of 500.
	require.InDelta(t, 1400.0, got["Lambda requests"], 1e-9)
	require.InDelta(t, 300.0, got["Lambda compute scraper (arm64, 512 MB)"], 1e-9)
	require.InDelta(t, 20.0, got["Lambda compute enrich (x86_64, 1024 MB)"], 1e-9)
	require.InDelta(t, 4000.0, got["SQS requests"], 1e-9)
	require.InDelta(t, 8000.0, got["DynamoDB write request units"], 1e-9)
	require.InDelta(t, 200.0, got["DynamoDB read request units"], 1e-9)
	require.InDelta(t, 1000.0, got["EventBridge Pipes requests"], 1e-9)
	require.InDelta(t, float64(1<<30), got["CloudWatch Logs ingestion"], 1e-3)
	require.InDelta(t, 1000.0, got["S3 PUT/COPY/POST/LIST requests"], 1e-9)
	require.InDelta(t, 100.0, got["S3 GET and other requests"], 1e-9)
	require.InDelta(t, float64(1<<29), got["S3 Standard storage, one month"], 1e-3)

	want := 1400*0.20/1e6 + 300*0.0000133334 + 20*0.0000166667 + 4000*0.40/1e6 +
		8000*0.625/1e6 + 200*0.125/1e6 + 1000*0.40/1e6 + 0.50 +
		1000*0.005/1e3 + 100*0.0004/1e3 + 0.023/2
	require.InDelta(t, want, e.Total, 1e-12)
	var sum float64
	for _, l := range e.Lines {
		sum += l.USD
	}
	require.InDelta(t, e.Total, sum, 1e-12)
}

func TestEstimateRejectsBadUsage(t *testing.T) {
	t.Parallel()
	tab := pricing.Default()
	tests := []struct {
		name  string
		usage pricing.Usage
		tasks int
		want  string
	}{
		{"no tasks measured", pricing.Usage{}, 1000, "positive task counts"},
		{"no tasks asked", pricing.Usage{Tasks: 1}, 0, "positive task counts"},
		{"unknown arch", pricing.Usage{Tasks: 1, Functions: []pricing.FunctionUsage{{Name: "f", Arch: "s390x", MemoryMB: 128}}}, 1, "unknown architecture"},
		{"no memory", pricing.Usage{Tasks: 1, Functions: []pricing.FunctionUsage{{Name: "f", Arch: "arm64"}}}, 1, "memory 0 MB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tab.Estimate(tc.usage, tc.tasks)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
