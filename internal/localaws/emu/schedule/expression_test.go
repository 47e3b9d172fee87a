package schedule_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/schedule"
)

func TestParseExpressionInvalid(t *testing.T) {
	t.Parallel()
	// The first group is AWS-recorded as invalid (LocalStack
	// tests_create_schedule_with_invalid_schedule_expression).
	invalid := []string{
		"cron(0 1 * * * *)", "cron(7 20 * * NOT *)", "cron(INVALID)", "cron(0 dummy ? * MON-FRI *)",
		"cron(71 8 1 * ? *)", "cron()", "rate(10 seconds)", "rate(10 years)", "rate()", "rate(10)",
		"rate(10 minutess)", "rate(foo minutes)", "rate(-10 minutes)", "rate( 10 minutes )",
		" rate(10 minutes)", "at(2021-12-31T23:59:59Z)", "at(2021-12-31)",
		// Documented rules.
		"rate(0 minutes)", "rate(1 week)", "rate(1  minute)", "RATE(1 minute)", "rate(1 minute) ",
		"cron(0 12 ? * ? *)", "cron(0 12 1 * MON *)", "cron(0 24 * * ? *)", "cron(60 0 * * ? *)",
		"cron(0 0 32 * ? *)", "cron(0 0 0 * ? *)", "cron(0 0 * 13 ? *)", "cron(0 0 ? * 8 *)",
		"cron(0 0 ? * 0 *)", "cron(0 0 * * ? 1969)", "cron(0 0 * * ? 2200)", "cron(0 0 1 1 ?)",
		"cron(0 0 1 1 ? * *)", "cron(10-5 * * * ? *)", "cron(*/0 * * * ? *)", "cron(0/61 * * * ? *)",
		"cron(0 0 L-2 * ? *)", "cron(0 0 1,LW * ? *)", "cron(0 0 ? * 3#6 *)", "cron(0 0 ? * 3#1,6#3 *)",
		"cron(0 0 32W * ? *)", "cron(0 0 ? * 9L *)", "cron(0 0 1-W * ? *)", "cron(+5 0 * * ? *)",
		"at(2026-02-29T00:00:00)", "at(2026-13-01T00:00:00)", "at(2026-01-01T24:00:00)", "at(2026-1-01T00:00:00)",
		"every(5 minutes)", "",
	}
	for _, expr := range invalid {
		_, err := schedule.ParseExpression(expr)
		require.Error(t, err, "%q must be invalid", expr)
		require.True(t, errors.Is(err, schedule.ErrInvalidExpression), "%q: %v", expr, err)
	}
}

func TestParseExpressionValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr string
		kind schedule.Kind
	}{
		{"rate(1 minute)", schedule.KindRate},
		{"rate(5 minutes)", schedule.KindRate},
		{"rate(2 minute)", schedule.KindRate}, // AWS-recorded as accepted by Scheduler
		{"rate(1 hours)", schedule.KindRate},
		{"rate(7 days)", schedule.KindRate},
		{"cron(0/5 * * * ? *)", schedule.KindCron}, // docs/aws-behaviour.md §6.1
		{"cron(0 12 * * ? *)", schedule.KindCron},
		{"cron(15 10 ? * MON-FRI *)", schedule.KindCron},
		{"cron(0 8 1 * ? *)", schedule.KindCron},
		{"cron(0 0 L * ? *)", schedule.KindCron},
		{"cron(0 0 LW * ? *)", schedule.KindCron},
		{"cron(0 0 15W * ? *)", schedule.KindCron},
		{"cron(0 0 ? * 6L *)", schedule.KindCron},
		{"cron(0 0 ? * L *)", schedule.KindCron},
		{"cron(0 0 ? * 3#2 *)", schedule.KindCron},
		{"cron(0 0 ? * tue#2 *)", schedule.KindCron},
		{"cron(0,30 9-17/2 ? jan,jul sun,sat 2026-2030)", schedule.KindCron},
		{"cron(* * * * ? *)", schedule.KindCron},
		{"cron(0 0 1 1 ? 2199)", schedule.KindCron},
		{"at(2022-12-31T23:59:59)", schedule.KindAt}, // AWS-recorded as accepted
		{"at(2028-02-29T12:00:00)", schedule.KindAt},
	}
	for _, tt := range tests {
		e, err := schedule.ParseExpression(tt.expr)
		require.NoError(t, err, tt.expr)
		require.Equal(t, tt.kind, e.Kind(), tt.expr)
		require.Equal(t, tt.expr, e.String())
		require.Equal(t, tt.kind == schedule.KindAt, e.OneTime())
	}
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// nextN returns the first n occurrences from t.
func nextN(t *testing.T, expr string, from time.Time, loc *time.Location, n int) []string {
	t.Helper()
	e, err := schedule.ParseExpression(expr)
	require.NoError(t, err)
	var out []string
	at := from
	for range n {
		next, ok := e.Next(at, loc)
		if !ok {
			break
		}
		require.False(t, next.Before(at), "%s: %v before %v", expr, next, at)
		out = append(out, next.In(loc).Format("2006-01-02T15:04:05Z07:00 Mon"))
		at = next.Add(time.Second)
	}
	return out
}

func TestNextOccurrences(t *testing.T) {
	t.Parallel()
	newYork, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	tests := []struct {
		name string
		expr string
		from string
		loc  *time.Location
		want []string
	}{
		{
			name: "EveryFiveMinutes", expr: "cron(0/5 * * * ? *)", from: "2026-03-01T12:03:10Z",
			want: []string{"2026-03-01T12:05:00Z Sun", "2026-03-01T12:10:00Z Sun", "2026-03-01T12:15:00Z Sun"},
		},
		{
			name: "OnTheMinuteIsDue", expr: "cron(0/5 * * * ? *)", from: "2026-03-01T12:05:00Z",
			want: []string{"2026-03-01T12:05:00Z Sun", "2026-03-01T12:10:00Z Sun"},
		},
		{
			name: "ThirtyFirstSkipsShortMonths", expr: "cron(0 9 31 * ? *)", from: "2026-01-31T10:00:00Z",
			want: []string{"2026-03-31T09:00:00Z Tue", "2026-05-31T09:00:00Z Sun", "2026-07-31T09:00:00Z Fri"},
		},
		{
			name: "LastDayOfMonth", expr: "cron(0 0 L * ? *)", from: "2026-01-15T00:00:00Z",
			want: []string{"2026-01-31T00:00:00Z Sat", "2026-02-28T00:00:00Z Sat", "2026-03-31T00:00:00Z Tue", "2026-04-30T00:00:00Z Thu"},
		},
		{
			name: "LeapFebruary", expr: "cron(0 0 L 2 ? *)", from: "2027-03-01T00:00:00Z",
			want: []string{"2028-02-29T00:00:00Z Tue", "2029-02-28T00:00:00Z Wed"},
		},
		{
			name: "February29OnlyInLeapYears", expr: "cron(30 6 29 2 ? *)", from: "2026-01-01T00:00:00Z",
			want: []string{"2028-02-29T06:30:00Z Tue", "2032-02-29T06:30:00Z Sun"},
		},
		{
			name: "LastWeekday", expr: "cron(0 18 LW * ? *)", from: "2026-01-01T00:00:00Z",
			// Jan 31 2026 is a Saturday, Feb 28 a Saturday, May 31 a Sunday.
			want: []string{"2026-01-30T18:00:00Z Fri", "2026-02-27T18:00:00Z Fri", "2026-03-31T18:00:00Z Tue", "2026-04-30T18:00:00Z Thu", "2026-05-29T18:00:00Z Fri"},
		},
		{
			name: "NearestWeekday", expr: "cron(0 8 1W * ? *)", from: "2026-02-01T00:00:00Z",
			// Feb 1 2026 is a Sunday → Monday 2nd; Mar 1 a Sunday → 2nd; Aug 1 a Saturday → Monday 3rd (never July 31).
			want: []string{"2026-02-02T08:00:00Z Mon", "2026-03-02T08:00:00Z Mon", "2026-04-01T08:00:00Z Wed"},
		},
		{
			name: "NearestWeekdayStaysInMonth", expr: "cron(0 8 1W 8 ? *)", from: "2026-07-01T00:00:00Z",
			want: []string{"2026-08-03T08:00:00Z Mon"},
		},
		{
			name: "WeekdaysOnly", expr: "cron(15 10 ? * MON-FRI *)", from: "2026-03-06T11:00:00Z",
			want: []string{"2026-03-09T10:15:00Z Mon", "2026-03-10T10:15:00Z Tue"},
		},
		{
			name: "SundayIsOne", expr: "cron(0 0 ? * 1 *)", from: "2026-03-02T00:00:00Z",
			want: []string{"2026-03-08T00:00:00Z Sun", "2026-03-15T00:00:00Z Sun"},
		},
		{
			name: "SecondTuesday", expr: "cron(0 12 ? * 3#2 *)", from: "2026-03-01T00:00:00Z",
			want: []string{"2026-03-10T12:00:00Z Tue", "2026-04-14T12:00:00Z Tue", "2026-05-12T12:00:00Z Tue"},
		},
		{
			name: "FifthFridayOnlyWhenItExists", expr: "cron(0 12 ? * FRI#5 *)", from: "2026-03-01T00:00:00Z",
			want: []string{"2026-05-29T12:00:00Z Fri", "2026-07-31T12:00:00Z Fri"},
		},
		{
			name: "LastFriday", expr: "cron(0 17 ? * 6L *)", from: "2026-03-01T00:00:00Z",
			want: []string{"2026-03-27T17:00:00Z Fri", "2026-04-24T17:00:00Z Fri"},
		},
		{
			name: "LastDayOfWeekIsSaturday", expr: "cron(0 0 ? * L *)", from: "2026-03-01T00:00:00Z",
			want: []string{"2026-03-07T00:00:00Z Sat", "2026-03-14T00:00:00Z Sat"},
		},
		{
			name: "YearRangeEnds", expr: "cron(0 0 1 1 ? 2027-2028)", from: "2026-06-01T00:00:00Z",
			want: []string{"2027-01-01T00:00:00Z Fri", "2028-01-01T00:00:00Z Sat"},
		},
		{
			name: "MonthStepsAndLists", expr: "cron(0,30 9 1 1/6 ? *)", from: "2026-01-01T09:10:00Z",
			want: []string{"2026-01-01T09:30:00Z Thu", "2026-07-01T09:00:00Z Wed", "2026-07-01T09:30:00Z Wed", "2027-01-01T09:00:00Z Fri"},
		},
		{
			name: "SpringForwardSkipsTheMissingHour", expr: "cron(30 2 * * ? *)", from: "2026-03-07T00:00:00Z", loc: newYork,
			// 2:30 does not exist on 8 March 2026 in New York.
			want: []string{"2026-03-07T02:30:00-05:00 Sat", "2026-03-09T02:30:00-04:00 Mon"},
		},
		{
			name: "FallBackRunsOnce", expr: "cron(30 1 * * ? *)", from: "2026-10-31T12:00:00Z", loc: newYork,
			// 1:30 happens twice on 1 November 2026; it fires once.
			want: []string{"2026-11-01T01:30:00-04:00 Sun", "2026-11-02T01:30:00-05:00 Mon"},
		},
		{
			name: "TimeZoneWallClock", expr: "cron(0 9 * * ? *)", from: "2026-03-07T00:00:00Z", loc: newYork,
			want: []string{"2026-03-07T09:00:00-05:00 Sat", "2026-03-08T09:00:00-04:00 Sun"},
		},
		{
			name: "RateCountsFromStart", expr: "rate(15 minutes)", from: "2026-03-01T12:07:00Z",
			want: []string{"2026-03-01T12:07:00Z Sun"},
		},
		{
			name: "AtInTimeZone", expr: "at(2026-07-04T12:00:00)", from: "2026-07-01T00:00:00Z", loc: newYork,
			want: []string{"2026-07-04T12:00:00-04:00 Sat"},
		},
		{
			name: "AtPassed", expr: "at(2026-07-04T12:00:00)", from: "2026-07-05T00:00:00Z",
			want: nil,
		},
		{
			name: "NoMoreYears", expr: "cron(0 0 1 1 ? 2026)", from: "2026-01-01T00:01:00Z",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			loc := tt.loc
			if loc == nil {
				loc = time.UTC
			}
			n := max(len(tt.want), 1)
			if tt.want == nil {
				n = 1
			}
			got := nextN(t, tt.expr, utc(tt.from), loc, n)
			require.Equal(t, tt.want, got)
		})
	}
}
