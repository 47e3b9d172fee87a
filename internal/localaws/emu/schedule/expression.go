package schedule

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Kind says which of the three expression forms a schedule uses.
type Kind int

// Expression kinds.
const (
	KindRate Kind = iota + 1
	KindCron
	KindAt
)

// ErrInvalidExpression wraps every expression parse failure.
var ErrInvalidExpression = errors.New("schedule: invalid schedule expression")

// Expression is a parsed schedule expression: rate(value unit),
// cron(min hour dom month dow year) or at(yyyy-mm-ddThh:mm:ss). It is
// immutable.
type Expression struct {
	src  string
	kind Kind
	// every is the period of a rate expression.
	every time.Duration
	// cron is the parsed cron expression.
	cron *cronSpec
	// at is the wall-clock time of an at expression, in no time zone yet.
	at wallTime
}

// wallTime is a civil date and time, read in a schedule's time zone.
type wallTime struct {
	year, month, day, hour, minute, second int
}

func (w wallTime) in(loc *time.Location) time.Time {
	return time.Date(w.year, time.Month(w.month), w.day, w.hour, w.minute, w.second, 0, loc)
}

// String returns the expression as written.
func (e *Expression) String() string { return e.src }

// Kind returns the expression's form.
func (e *Expression) Kind() Kind { return e.kind }

// OneTime reports whether the expression is an at() expression.
func (e *Expression) OneTime() bool { return e.kind == KindAt }

// The exact forms AWS accepts. Whitespace inside the parentheses is
// refused (AWS-recorded: "rate( 10 minutes )" and " rate(10 minutes)" are
// invalid; LocalStack tests/aws/services/scheduler test_scheduler
// snapshot), as are time zone suffixes on at() ("at(2021-12-31T23:59:59Z)").
var (
	rateRe = regexp.MustCompile(`^rate\(([0-9]+) (minute|minutes|hour|hours|day|days)\)$`)
	atRe   = regexp.MustCompile(`^at\(([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\)$`)
	cronRe = regexp.MustCompile(`^cron\((\S.*\S)\)$`)
)

// ParseExpression parses a ScheduleExpression with EventBridge Scheduler's
// rules (Scheduler user guide, schedule-types.html; cron syntax of
// eb-cron-expressions.html). The error wraps ErrInvalidExpression.
//
// Rate units may be singular or plural whatever the value: AWS accepted
// and stored "rate(2 minute)" (AWS-recorded, LocalStack test_update_schedule),
// unlike EventBridge rules, which insist on "rate(1 minute)" and
// "rate(2 minutes)". Seconds, weeks and years are refused.
func ParseExpression(s string) (*Expression, error) {
	if m := rateRe.FindStringSubmatch(s); m != nil {
		return parseRate(s, m[1], m[2])
	}
	if m := atRe.FindStringSubmatch(s); m != nil {
		return parseAt(s, m[1:])
	}
	if m := cronRe.FindStringSubmatch(s); m != nil {
		spec, err := parseCron(m[1])
		if err != nil {
			return nil, fmt.Errorf("%w %q: %w", ErrInvalidExpression, s, err)
		}
		return &Expression{src: s, kind: KindCron, cron: spec}, nil
	}
	return nil, fmt.Errorf("%w %q: not rate(value unit), cron(fields) or at(yyyy-mm-ddThh:mm:ss)", ErrInvalidExpression, s)
}

func parseRate(src, value, unit string) (*Expression, error) {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("%w %q: the value must be a positive integer", ErrInvalidExpression, src)
	}
	per := time.Minute
	switch strings.TrimSuffix(unit, "s") {
	case "hour":
		per = time.Hour
	case "day":
		// A day is 24 hours, also across daylight saving changes
		// (Scheduler user guide, "Daylight saving time").
		per = 24 * time.Hour
	}
	if n > math.MaxInt64/int64(per) {
		return nil, fmt.Errorf("%w %q: the period is too long", ErrInvalidExpression, src)
	}
	return &Expression{src: src, kind: KindRate, every: time.Duration(n) * per}, nil
}

func parseAt(src string, parts []string) (*Expression, error) {
	var v [6]int
	for i, p := range parts {
		v[i], _ = strconv.Atoi(p) // the regexp admits digits only
	}
	w := wallTime{year: v[0], month: v[1], day: v[2], hour: v[3], minute: v[4], second: v[5]}
	t := w.in(time.UTC)
	if t.Year() != w.year || int(t.Month()) != w.month || t.Day() != w.day ||
		t.Hour() != w.hour || t.Minute() != w.minute || t.Second() != w.second {
		return nil, fmt.Errorf("%w %q: no such date and time", ErrInvalidExpression, src)
	}
	return &Expression{src: src, kind: KindAt, at: w}, nil
}

// Occurrences computes when a schedule's expression comes due, with its
// time zone and StartDate/EndDate window.
type occurrences struct {
	expr *Expression
	loc  *time.Location
	// start and end bound recurring schedules: occurrences are ≥ start and
	// < end (zero: unbounded). One-time schedules ignore both (API
	// reference CreateSchedule, StartDate and EndDate).
	start, end time.Time
	// anchor is a rate schedule's first occurrence: StartDate, or when the
	// schedule was created or last updated ("If you do not provide a
	// StartDate for a rate-based schedule, your schedule starts invoking
	// the target immediately": schedule-types.html).
	anchor time.Time
}

// atOrAfter returns the first occurrence at or after t; false when there
// is none.
func (o occurrences) atOrAfter(t time.Time) (time.Time, bool) {
	switch o.expr.kind {
	case KindAt:
		at := o.expr.at.in(o.loc)
		if at.Before(t) {
			return time.Time{}, false
		}
		return at, true
	case KindRate:
		if !o.start.IsZero() && t.Before(o.start) {
			t = o.start
		}
		first := o.anchor
		if !t.After(first) {
			return o.bounded(first)
		}
		since := t.Sub(first)
		if since > math.MaxInt64-o.expr.every {
			return time.Time{}, false // beyond what time.Duration counts
		}
		k := (since + o.expr.every - 1) / o.expr.every
		return o.bounded(first.Add(k * o.expr.every))
	default:
		if !o.start.IsZero() && t.Before(o.start) {
			t = o.start
		}
		next, ok := o.expr.cron.next(t, o.loc)
		if !ok {
			return time.Time{}, false
		}
		return o.bounded(next)
	}
}

// after returns the first occurrence strictly after t.
func (o occurrences) after(t time.Time) (time.Time, bool) {
	return o.atOrAfter(t.Add(time.Nanosecond))
}

func (o occurrences) bounded(t time.Time) (time.Time, bool) {
	if !o.end.IsZero() && !t.Before(o.end) {
		return time.Time{}, false
	}
	return t, true
}

// Next returns the expression's first occurrence at or after t in loc,
// ignoring StartDate and EndDate; a rate expression counts from t itself.
// It is for tools and tests that want to preview a schedule.
func (e *Expression) Next(t time.Time, loc *time.Location) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	return occurrences{expr: e, loc: loc, anchor: t}.atOrAfter(t)
}
