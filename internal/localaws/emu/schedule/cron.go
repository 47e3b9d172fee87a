package schedule

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cron field ranges (eb-cron-expressions.html, the syntax Scheduler uses).
const (
	minYear = 1970
	maxYear = 2199
)

// bits is a set of small non-negative integers (0–255).
type bits [4]uint64

func (b *bits) set(i int)      { b[i>>6] |= 1 << (i & 63) }
func (b *bits) has(i int) bool { return i >= 0 && i < 256 && b[i>>6]&(1<<(i&63)) != 0 }

// domKind and dowKind say how a day field matches.
type domKind int

const (
	domSet         domKind = iota // days in a set (or * )
	domAny                        // ?
	domLast                       // L: the last day of the month
	domLastWeekday                // LW: the last weekday of the month
	domNearWeekday                // nW: the weekday nearest day n, within the month
)

type dowKind int

const (
	dowSet  dowKind = iota // weekdays in a set (or *)
	dowAny                 // ?
	dowLast                // nL: the last weekday n of the month
	dowNth                 // n#k: the k-th weekday n of the month
)

// cronSpec is a parsed cron(minutes hours day-of-month month day-of-week year).
type cronSpec struct {
	minutes, hours, months, years bits // years hold year-minYear
	dom                           domKind
	domDays                       bits
	domN                          int
	dow                           dowKind
	dowDays                       bits // 1 = Sunday … 7 = Saturday
	dowN, dowK                    int
}

var monthNames = map[string]int{
	"JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6,
	"JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12,
}

var dayNames = map[string]int{"SUN": 1, "MON": 2, "TUE": 3, "WED": 4, "THU": 5, "FRI": 6, "SAT": 7}

// parseCron parses the six fields. Supported: values, names (JAN–DEC,
// SUN–SAT, any case), "*", "?", ranges a-b, lists, steps a/b, */b and
// a-b/c, L, LW and nW in day-of-month, L, nL and n#k in day-of-week.
// Exactly one of the day fields must be "?" ("You can't specify the
// Day-of-month and Day-of-week fields in the same cron expression";
// AWS-recorded: cron(0 1 * * * *) is invalid). Not supported, as the AWS
// documentation does not list them: L-n offsets, reversed (wrapping)
// ranges, W or L inside lists, and more than one # expression.
func parseCron(body string) (*cronSpec, error) {
	f := strings.Fields(body)
	if len(f) != 6 {
		return nil, fmt.Errorf("a cron expression has 6 fields, not %d", len(f))
	}
	c := &cronSpec{}
	var err error
	if c.minutes, err = parseField(f[0], 0, 59, nil); err != nil {
		return nil, fmt.Errorf("minutes: %w", err)
	}
	if c.hours, err = parseField(f[1], 0, 23, nil); err != nil {
		return nil, fmt.Errorf("hours: %w", err)
	}
	if err := c.parseDOM(f[2]); err != nil {
		return nil, fmt.Errorf("day-of-month: %w", err)
	}
	if c.months, err = parseField(f[3], 1, 12, monthNames); err != nil {
		return nil, fmt.Errorf("month: %w", err)
	}
	if err := c.parseDOW(f[4]); err != nil {
		return nil, fmt.Errorf("day-of-week: %w", err)
	}
	if c.years, err = parseField(f[5], minYear, maxYear, nil); err != nil {
		return nil, fmt.Errorf("year: %w", err)
	}
	if (c.dom == domAny) == (c.dow == dowAny) {
		return nil, errors.New("exactly one of day-of-month and day-of-week must be ?")
	}
	return c, nil
}

func (c *cronSpec) parseDOM(s string) error {
	up := strings.ToUpper(s)
	switch {
	case up == "?":
		c.dom = domAny
		return nil
	case up == "L":
		c.dom = domLast
		return nil
	case up == "LW":
		c.dom = domLastWeekday
		return nil
	case strings.HasSuffix(up, "W"):
		n, err := number(strings.TrimSuffix(up, "W"), 1, 31, nil)
		if err != nil {
			return fmt.Errorf("%q: %w", s, err)
		}
		c.dom, c.domN = domNearWeekday, n
		return nil
	}
	days, err := parseField(s, 1, 31, nil)
	if err != nil {
		return err
	}
	c.dom, c.domDays = domSet, days
	return nil
}

func (c *cronSpec) parseDOW(s string) error {
	up := strings.ToUpper(s)
	switch {
	case up == "?":
		c.dow = dowAny
		return nil
	case up == "L":
		// "L" alone is the last day of the week, Saturday (Quartz: "by
		// itself, it simply means 7 or SAT").
		c.dow = dowSet
		c.dowDays.set(7)
		return nil
	case strings.Contains(up, "#"):
		day, nth, _ := strings.Cut(up, "#")
		d, err := number(day, 1, 7, dayNames)
		if err != nil {
			return fmt.Errorf("%q: %w", s, err)
		}
		k, err := number(nth, 1, 5, nil)
		if err != nil {
			return fmt.Errorf("%q: %w", s, err)
		}
		c.dow, c.dowN, c.dowK = dowNth, d, k
		return nil
	case strings.HasSuffix(up, "L"):
		d, err := number(strings.TrimSuffix(up, "L"), 1, 7, dayNames)
		if err != nil {
			return fmt.Errorf("%q: %w", s, err)
		}
		c.dow, c.dowN = dowLast, d
		return nil
	}
	days, err := parseField(s, 1, 7, dayNames)
	if err != nil {
		return err
	}
	c.dow, c.dowDays = dowSet, days
	return nil
}

// parseField parses a list of *, values, ranges and steps into a set of
// values in [lo, hi]. Years are stored as year-1970 to fit the set.
func parseField(s string, lo, hi int, names map[string]int) (bits, error) {
	var out bits
	shift := 0
	if lo >= minYear {
		shift = minYear
	}
	for _, item := range strings.Split(s, ",") {
		from, to, step := lo, hi, 1
		rng, stepStr, hasStep := strings.Cut(item, "/")
		if hasStep {
			n, err := strconv.Atoi(stepStr)
			if err != nil || n < 1 || n > hi-lo+1 {
				return out, fmt.Errorf("%q: the increment must be 1 to %d", item, hi-lo+1)
			}
			step = n
		}
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			a, b, _ := strings.Cut(rng, "-")
			var err error
			if from, err = number(a, lo, hi, names); err != nil {
				return out, fmt.Errorf("%q: %w", item, err)
			}
			if to, err = number(b, lo, hi, names); err != nil {
				return out, fmt.Errorf("%q: %w", item, err)
			}
			if from > to {
				return out, fmt.Errorf("%q: the range is reversed", item)
			}
		default:
			v, err := number(rng, lo, hi, names)
			if err != nil {
				return out, fmt.Errorf("%q: %w", item, err)
			}
			from = v
			if !hasStep {
				to = v
			}
		}
		for v := from; v <= to; v += step {
			out.set(v - shift)
		}
	}
	return out, nil
}

// number parses a value or a name within [lo, hi].
func number(s string, lo, hi int, names map[string]int) (int, error) {
	if v, ok := names[strings.ToUpper(s)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || s == "" || s[0] == '+' || s[0] == '-' {
		return 0, fmt.Errorf("%q is not a value", s)
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("%d is out of range %d-%d", v, lo, hi)
	}
	return v, nil
}

// daysIn returns the number of days of a month.
func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// weekday returns 1 (Sunday) … 7 (Saturday), cron's numbering.
func weekday(year, month, day int) int {
	return int(time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).Weekday()) + 1
}

// dayMatches applies the day-of-month or day-of-week rule.
func (c *cronSpec) dayMatches(year, month, day int) bool {
	last := daysIn(year, month)
	switch c.dom {
	case domSet:
		return c.domDays.has(day)
	case domLast:
		return day == last
	case domLastWeekday:
		return day == nearestWeekday(year, month, last)
	case domNearWeekday:
		return c.domN <= last && day == nearestWeekday(year, month, c.domN)
	}
	wd := weekday(year, month, day)
	switch c.dow {
	case dowSet:
		return c.dowDays.has(wd)
	case dowLast:
		return wd == c.dowN && day+7 > last
	case dowNth:
		return wd == c.dowN && (day-1)/7+1 == c.dowK
	}
	return false
}

// nearestWeekday is the Monday–Friday day closest to day n without
// leaving the month (Quartz's W, which AWS's cron follows: "3W specifies
// the weekday closest to the third day of the month").
func nearestWeekday(year, month, n int) int {
	switch weekday(year, month, n) {
	case 7: // Saturday: Friday before, or Monday after the 1st
		if n == 1 {
			return n + 2
		}
		return n - 1
	case 1: // Sunday: Monday after, or Friday before the last day
		if n == daysIn(year, month) {
			return n - 2
		}
		return n + 1
	}
	return n
}

// next returns the first matching minute at or after t, read as wall
// clock time in loc. Wall times that do not exist (the hour skipped when
// daylight saving time starts) are skipped; a wall time that occurs twice
// (when it ends) matches once (Scheduler user guide, "Daylight saving
// time": skipped in spring, "runs only once" in the fall).
func (c *cronSpec) next(t time.Time, loc *time.Location) (time.Time, bool) {
	lt := t.In(loc)
	if lt.Second() != 0 || lt.Nanosecond() != 0 {
		lt = lt.Truncate(time.Minute).Add(time.Minute)
	}
	y, mo, d, h, mi := lt.Year(), int(lt.Month()), lt.Day(), lt.Hour(), lt.Minute()
	if y < minYear {
		y, mo, d, h, mi = minYear, 1, 1, 0, 0
	}
	for year := y; year <= maxYear; year++ {
		if !c.years.has(year - minYear) {
			continue
		}
		for month := 1; month <= 12; month++ {
			if year == y && month < mo || !c.months.has(month) {
				continue
			}
			sameMonth := year == y && month == mo
			for day := 1; day <= daysIn(year, month); day++ {
				if sameMonth && day < d || !c.dayMatches(year, month, day) {
					continue
				}
				sameDay := sameMonth && day == d
				for hour := 0; hour < 24; hour++ {
					if sameDay && hour < h || !c.hours.has(hour) {
						continue
					}
					sameHour := sameDay && hour == h
					for minute := 0; minute < 60; minute++ {
						if sameHour && minute < mi || !c.minutes.has(minute) {
							continue
						}
						cand := time.Date(year, time.Month(month), day, hour, minute, 0, 0, loc)
						if cand.Day() != day || cand.Hour() != hour || cand.Minute() != minute {
							continue // this wall time does not exist in loc
						}
						if cand.Before(t) {
							continue
						}
						return cand, true
					}
				}
			}
		}
	}
	return time.Time{}, false
}
