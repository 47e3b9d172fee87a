package fixtureweb

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
)

func TestNewDefaults(t *testing.T) {
	t.Parallel()
	w, err := New(Config{})
	require.NoError(t, err)
	c := w.Config()
	require.Equal(t, DefaultSites, c.Sites)
	require.Equal(t, DemoMix(), c.Mix)
	require.Equal(t, DefaultSlowDelay, c.SlowDelay)
	require.Equal(t, DefaultDripDuration, c.DripDuration)
	require.Equal(t, DefaultRetryAfter, c.RetryAfter)
	require.Equal(t, int64(DefaultHugeBytes), c.HugeBytes)
	require.Greater(t, c.HugeBytes, int64(scrape.DefaultMaxBodyBytes), "the default huge page is cut")
	require.Equal(t, DefaultInvalidRate, c.InvalidRate)
	require.Equal(t, Limits{
		FetchAttempts: scrape.DefaultMaxAttempts,
		Claims:        task.DefaultMaxAttempts,
		FetchTimeout:  scrape.DefaultFetchTimeout,
		MaxRetryAfter: scrape.DefaultMaxRetryAfter,
		MaxBodyBytes:  scrape.DefaultMaxBodyBytes,
		MaxRedirects:  scrape.DefaultMaxRedirects,
		MaxPages:      site.DefaultMaxPages,
	}, c.Limits)
	require.Equal(t, c.Limits, LimitsOf(scrape.Options{}, 0).withDefaults())
	require.Len(t, w.Sites(), DefaultSites)

	// The defaults keep the demo fast: every slow or dripping site is well
	// inside the scraper's timeout, and the flaky and rate-limited sites
	// heal inside one claim.
	require.True(t, within(c.DripDuration.Max, c.Limits.FetchTimeout))
	require.Less(t, c.FlakyFailures, c.Limits.FetchAttempts)
	require.Less(t, c.RateLimitHits, c.Limits.FetchAttempts)
	require.LessOrEqual(t, c.RetryAfter, c.Limits.MaxRetryAfter)

	none, err := New(Config{InvalidRate: -1, BaseURL: "http://127.0.0.1:8099/"})
	require.NoError(t, err)
	require.Zero(t, none.Config().InvalidRate)
	require.Equal(t, "http://127.0.0.1:8099", none.BaseURL())
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"negative sites", Config{Sites: -1}, "Sites -1"},
		{"too many sites", Config{Sites: MaxSites + 1}, "Sites"},
		{"negative flaky", Config{FlakyFailures: -1}, "FlakyFailures"},
		{"negative rate limit", Config{RateLimitHits: -2}, "RateLimitHits"},
		{"negative retry-after", Config{RetryAfter: -time.Second}, "RetryAfter"},
		{"huge too big", Config{HugeBytes: 2 << 30}, "HugeBytes"},
		{"invalid rate 1", Config{InvalidRate: 1}, "InvalidRate"},
		{"invalid rate NaN", Config{InvalidRate: math.NaN()}, "InvalidRate"},
		{"inverted span", Config{SlowDelay: Span{Min: time.Second, Max: time.Millisecond}}, "SlowDelay"},
		{"negative span", Config{DripDuration: Span{Min: -time.Second, Max: time.Second}}, "DripDuration"},
		{"negative limit", Config{Limits: Limits{Claims: -1}}, "Limits"},
		{"base with path", Config{BaseURL: "http://127.0.0.1:8099/x"}, "BaseURL"},
		{"base not http", Config{BaseURL: "ftp://127.0.0.1"}, "BaseURL"},
		{"base unparsable", Config{BaseURL: "http://[::1"}, "BaseURL"},
		{"mix unknown", Config{Mix: Mix{"weird": 1}}, "unknown behaviour"},
		{"mix negative", Config{Mix: Mix{Healthy: -1, Slow: 2}}, "weight of healthy"},
		{"mix empty", Config{Mix: Mix{}}, "positive"},
		{"mix zero", Config{Mix: Mix{Healthy: 0}}, "positive"},
		{"mix infinite", Config{Mix: Mix{Healthy: math.Inf(1)}}, "weight of healthy"},
		{
			"drip straddles the timeout",
			Config{DripDuration: Span{Min: time.Second, Max: 2 * time.Second}, Limits: Limits{FetchTimeout: 2 * time.Second}},
			"DripDuration 1s–2s is too close to the fetch timeout 2s",
		},
		{
			"slow just below the timeout",
			Config{SlowDelay: Span{Min: 900 * time.Millisecond, Max: 900 * time.Millisecond}, Limits: Limits{FetchTimeout: time.Second}},
			"SlowDelay",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, err := New(tt.cfg)
			require.Nil(t, w)
			require.ErrorContains(t, err, "fixtureweb: config: ")
			require.ErrorContains(t, err, tt.want)
		})
	}

	// Timings that are clearly on one side are fine, and a behaviour that
	// is not in the mix is not checked at all.
	for _, cfg := range []Config{
		{DripDuration: Span{Min: 3 * time.Second, Max: 4 * time.Second}, Limits: Limits{FetchTimeout: 2 * time.Second}},
		{DripDuration: Span{Min: time.Second, Max: 1500 * time.Millisecond}, Limits: Limits{FetchTimeout: 2 * time.Second}},
		{DripDuration: Span{Min: time.Second, Max: 2 * time.Second}, Limits: Limits{FetchTimeout: 2 * time.Second}, Mix: Mix{Healthy: 1}},
	} {
		_, err := New(cfg)
		require.NoError(t, err, "%+v", cfg)
	}
}

func TestParseMix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Mix
		err  string
	}{
		{"demo", DemoMix(), ""},
		{"", DemoMix(), ""},
		{" chaos ", ChaosMix(), ""},
		{"healthy=90,flaky=10", Mix{Healthy: 90, Flaky: 10}, ""},
		{" healthy = 1 , slow-drip = 0.5 ", Mix{Healthy: 1, SlowDrip: 0.5}, ""},
		{"healthy", nil, "not behaviour=weight"},
		{"healthy=1,bogus=2", nil, `unknown behaviour "bogus"`},
		{"healthy=1,healthy=2", nil, "given twice"},
		{"healthy=x", nil, "weight of healthy"},
		{"healthy=-1", nil, "weight of healthy"},
		{"healthy=NaN", nil, "weight of healthy"},
		{"healthy=0", nil, "positive"},
		{"healthy=1e308,slow=1e308", nil, "positive finite"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			m, err := ParseMix(tt.in)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				require.ErrorContains(t, err, "fixtureweb: parse mix: ")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, m)
			again, err := ParseMix(m.String())
			require.NoError(t, err)
			require.Equal(t, m, again, "String is what ParseMix reads")
		})
	}
}
