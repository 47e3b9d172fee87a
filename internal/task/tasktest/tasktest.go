// Package tasktest is the conformance suite for task.Store implementations.
// Every store runs the same Run against its own backend, so the scraper and
// the reconciler can rely on one behaviour whatever the store.
//
//	func TestConformance(t *testing.T) {
//		tasktest.Run(t, func(t *testing.T) tasktest.Harness {
//			l := dynamostoretest.NewLocal(t)
//			return tasktest.Harness{Store: l.Store, Seed: l.Seed, Get: l.Store.Get}
//		})
//	}
//
// The suite uses a fixed clock (T0) passed through the params; it never
// reads the wall clock.
package tasktest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/task"
)

// Harness gives the suite a fresh, empty store and the two operations that
// task.Store lacks.
type Harness struct {
	Store task.Store
	// Seed writes a task exactly as given, in any state, replacing a row
	// with the same id. A seeded Pending task is due (for ListLive) at its
	// UpdatedAt, a Running one at its LeaseExpiresAt.
	Seed func(ctx context.Context, t task.Task) error
	// Get returns the stored task, or an error wrapping task.ErrNotFound.
	// Times must come back in UTC at millisecond precision.
	Get func(ctx context.Context, id string) (task.Task, error)
}

// T0 is the suite's fixed "now". Every time it uses is a whole number of
// milliseconds, the precision stores must keep.
var T0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Lease is the lease the suite claims with.
const Lease = 5 * time.Minute

// RaceClaimers is how many goroutines race to claim one task.
const RaceClaimers = 64

// Run runs every conformance test. newHarness is called once per subtest
// and must return an isolated, empty store.
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	for _, tc := range []struct {
		name string
		test func(t *testing.T, h Harness)
	}{
		{"SeedRoundTrip", testSeedRoundTrip},
		{"ClaimPending", testClaimPending},
		{"ClaimHeld", testClaimHeld},
		{"ClaimTakeover", testClaimTakeover},
		{"ClaimTerminal", testClaimTerminal},
		{"ClaimNotFound", testClaimNotFound},
		{"ClaimExhausted", testClaimExhausted},
		{"ClaimExhaustedAfterReleases", testClaimExhaustedAfterReleases},
		{"ClaimInvalidParams", testClaimInvalidParams},
		{"Finish", testFinish},
		{"FinishResultLimit", testFinishResultLimit},
		{"Fail", testFail},
		{"FailUnknownKind", testFailUnknownKind},
		{"Release", testRelease},
		{"ReleaseThenStuck", testReleaseThenStuck},
		{"Fenced", testFenced},
		{"LateHolderAfterTakeover", testLateHolderAfterTakeover},
		{"ListLiveDue", testListLiveDue},
		{"ListLiveState", testListLiveState},
		{"ListLiveFollowsTransitions", testListLiveFollowsTransitions},
		{"ListLivePagination", testListLivePagination},
		{"ListLiveInvalid", testListLiveInvalid},
		{"ClaimRace", testClaimRace},
		{"ExhaustRace", testExhaustRace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.test(t, newHarness(t))
		})
	}
}

// Pending returns a valid Pending task that became Pending an hour before T0.
func Pending(id string) task.Task {
	at := T0.Add(-time.Hour)
	return task.Task{
		ID:          id,
		RunID:       "run-1",
		URL:         "https://example.com/" + id,
		State:       task.StatePending,
		MaxAttempts: task.DefaultMaxAttempts,
		CreatedAt:   at,
		UpdatedAt:   at,
	}
}

func seed(t *testing.T, h Harness, tasks ...task.Task) {
	t.Helper()
	for _, tk := range tasks {
		require.NoError(t, h.Seed(t.Context(), tk), "seed %s", tk.ID)
	}
}

func get(t *testing.T, h Harness, id string) task.Task {
	t.Helper()
	tk, err := h.Get(t.Context(), id)
	require.NoError(t, err, "get %s", id)
	return tk
}

func claim(t *testing.T, h Harness, id, token string, now time.Time) task.Task {
	t.Helper()
	tk, err := h.Store.Claim(t.Context(), task.ClaimParams{TaskID: id, Token: token, Now: now, Lease: Lease})
	require.NoError(t, err, "claim %s as %s", id, token)
	return tk
}

// unchanged runs op, which must fail, and checks that the row is as before.
func unchanged(t *testing.T, h Harness, id string, op func() error) error {
	t.Helper()
	before := get(t, h, id)
	err := op()
	require.Error(t, err)
	require.Equal(t, before, get(t, h, id), "a refused operation changed the row")
	return err
}

func testSeedRoundTrip(t *testing.T, h Harness) {
	full := task.Task{
		ID: "t1", RunID: "run-9", URL: "https://example.com/a?b=c", State: task.StateFailed,
		Attempts: 2, MaxAttempts: 5, ClaimToken: "tok-1",
		LeaseExpiresAt: T0.Add(-time.Minute), CreatedAt: T0.Add(-time.Hour), UpdatedAt: T0,
		FinishedAt: T0, LastError: "boom", ErrorKind: task.KindFatal,
		Result: json.RawMessage(`{"title":"x"}`),
	}
	for _, tk := range []task.Task{Pending("p1"), full} {
		seed(t, h, tk)
		require.Equal(t, tk, get(t, h, tk.ID))
	}
	_, err := h.Get(t.Context(), "missing")
	require.ErrorIs(t, err, task.ErrNotFound)
}

func testClaimPending(t *testing.T, h Harness) {
	p := Pending("t1")
	seed(t, h, p)
	got := claim(t, h, "t1", "tok-a", T0)

	want := p
	want.State = task.StateRunning
	want.ClaimToken = "tok-a"
	want.LeaseExpiresAt = T0.Add(Lease)
	want.Attempts = 1
	want.UpdatedAt = T0
	require.Equal(t, want, got, "claim must return the new row")
	require.Equal(t, want, get(t, h, "t1"))
}

func testClaimHeld(t *testing.T, h Harness) {
	seed(t, h, Pending("t1"))
	claim(t, h, "t1", "tok-a", T0)
	for _, now := range []time.Time{T0, T0.Add(Lease - time.Millisecond)} {
		err := unchanged(t, h, "t1", func() error {
			_, err := h.Store.Claim(t.Context(), task.ClaimParams{TaskID: "t1", Token: "tok-b", Now: now, Lease: Lease})
			return err
		})
		require.ErrorIs(t, err, task.ErrClaimed, "now %s", now)
	}
}

func testClaimTakeover(t *testing.T, h Harness) {
	for _, tc := range []struct {
		name  string
		after time.Duration
	}{
		{"AtExpiry", Lease},
		{"LongAfter", 3 * Lease},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			id := "t-" + tc.name
			seed(t, h, Pending(id))
			first := claim(t, h, id, "tok-a", T0)
			now := T0.Add(tc.after)
			got := claim(t, h, id, "tok-b", now)
			require.Equal(t, task.StateRunning, got.State)
			require.Equal(t, "tok-b", got.ClaimToken)
			require.Equal(t, first.Attempts+1, got.Attempts)
			require.Equal(t, now.Add(Lease), got.LeaseExpiresAt)
			require.Equal(t, now, got.UpdatedAt)
			require.Equal(t, got, get(t, h, id))
		})
	}
}

func testClaimTerminal(t *testing.T, h Harness) {
	for _, st := range []task.State{task.StateFinished, task.StateFailed} {
		t.Run(string(st), func(t *testing.T) {
			t.Parallel()
			tk := Pending("t-" + string(st))
			tk.State, tk.Attempts, tk.ClaimToken = st, 1, "tok-old"
			tk.LeaseExpiresAt = T0.Add(-time.Minute)
			tk.FinishedAt = T0.Add(-time.Minute)
			if st == task.StateFailed {
				tk.ErrorKind, tk.LastError = task.KindFatal, "404"
			}
			seed(t, h, tk)
			err := unchanged(t, h, tk.ID, func() error {
				_, err := h.Store.Claim(t.Context(), task.ClaimParams{TaskID: tk.ID, Token: "tok-b", Now: T0, Lease: Lease})
				return err
			})
			require.ErrorIs(t, err, task.ErrTerminal)
		})
	}
}

func testClaimNotFound(t *testing.T, h Harness) {
	_, err := h.Store.Claim(t.Context(), task.ClaimParams{TaskID: "nope", Token: "tok", Now: T0, Lease: Lease})
	require.ErrorIs(t, err, task.ErrNotFound)
	_, err = h.Get(t.Context(), "nope")
	require.ErrorIs(t, err, task.ErrNotFound, "a refused claim must not create a row")
}

func testClaimExhausted(t *testing.T, h Harness) {
	running := Pending("running")
	running.State, running.Attempts, running.ClaimToken = task.StateRunning, 3, "tok-old"
	running.LeaseExpiresAt = T0.Add(-time.Second)
	pending := Pending("pending")
	pending.Attempts = 3
	for _, tk := range []task.Task{running, pending} {
		t.Run(tk.ID, func(t *testing.T) {
			t.Parallel()
			seed(t, h, tk)
			got, err := h.Store.Claim(t.Context(), task.ClaimParams{TaskID: tk.ID, Token: "tok-new", Now: T0, Lease: Lease})
			require.ErrorIs(t, err, task.ErrExhausted)
			require.Equal(t, task.StateFailed, got.State)
			require.Equal(t, task.KindExhausted, got.ErrorKind)
			require.Equal(t, tk.Attempts, got.Attempts, "an exhausted claim is not an attempt")
			require.Equal(t, T0, got.FinishedAt)
			require.NotEmpty(t, got.LastError)
			require.NotEqual(t, "tok-new", got.ClaimToken)
			require.Equal(t, got, get(t, h, tk.ID), "the returned row must be the stored one")
		})
	}
}

func testClaimExhaustedAfterReleases(t *testing.T, h Harness) {
	tk := Pending("t1")
	tk.MaxAttempts = 2
	seed(t, h, tk)
	now := T0
	for i, token := range []string{"tok-1", "tok-2"} {
		c := claim(t, h, "t1", token, now)
		require.Equal(t, i+1, c.Attempts)
		require.NoError(t, h.Store.Release(t.Context(), task.ReleaseParams{TaskID: "t1", Token: token, Now: now, Reason: "timeout"}))
		now = now.Add(time.Second)
	}
	got, err := h.Store.Claim(t.Context(), task.ClaimParams{TaskID: "t1", Token: "tok-3", Now: now, Lease: Lease})
	require.ErrorIs(t, err, task.ErrExhausted)
	require.Equal(t, task.StateFailed, got.State)
	require.Equal(t, 2, got.Attempts)
	_, err = h.Store.Claim(t.Context(), task.ClaimParams{TaskID: "t1", Token: "tok-4", Now: now, Lease: Lease})
	require.ErrorIs(t, err, task.ErrTerminal, "an exhausted task is terminal")
}

func testClaimInvalidParams(t *testing.T, h Harness) {
	seed(t, h, Pending("t1"))
	for name, p := range map[string]task.ClaimParams{
		"EmptyToken": {TaskID: "t1", Now: T0, Lease: Lease},
		"ZeroLease":  {TaskID: "t1", Token: "tok", Now: T0},
		"NegLease":   {TaskID: "t1", Token: "tok", Now: T0, Lease: -time.Second},
		"ZeroNow":    {TaskID: "t1", Token: "tok", Lease: Lease},
	} {
		err := unchanged(t, h, "t1", func() error {
			_, err := h.Store.Claim(t.Context(), p)
			return err
		})
		requireNoSentinel(t, err, name)
	}
	_, err := h.Store.Claim(t.Context(), task.ClaimParams{Token: "tok", Now: T0, Lease: Lease})
	requireNoSentinel(t, err, "EmptyID")
}

// requireNoSentinel checks that err is an input error, not a state answer
// that a caller would act on.
func requireNoSentinel(t *testing.T, err error, msg string) {
	t.Helper()
	require.Error(t, err, msg)
	for _, s := range []error{task.ErrNotFound, task.ErrTerminal, task.ErrClaimed, task.ErrExhausted, task.ErrStaleClaim} {
		require.NotErrorIs(t, err, s, msg)
	}
}

func testFinish(t *testing.T, h Harness) {
	seed(t, h, Pending("t1"))
	c := claim(t, h, "t1", "tok-a", T0)
	now := T0.Add(time.Minute)
	result := json.RawMessage(`{"title":"Example","links":3}`)
	require.NoError(t, h.Store.Finish(t.Context(), task.FinishParams{TaskID: "t1", Token: "tok-a", Now: now, Result: result}))

	got := get(t, h, "t1")
	require.Equal(t, task.StateFinished, got.State)
	require.JSONEq(t, string(result), string(got.Result))
	require.Equal(t, now, got.FinishedAt)
	require.Equal(t, now, got.UpdatedAt)
	require.Equal(t, c.Attempts, got.Attempts)
	require.Equal(t, c.ID, got.ID)
	require.Equal(t, c.URL, got.URL)
	require.Equal(t, c.RunID, got.RunID)

	// A second Finish by the same holder is refused: the result is written once.
	err := unchanged(t, h, "t1", func() error {
		return h.Store.Finish(t.Context(), task.FinishParams{TaskID: "t1", Token: "tok-a", Now: now, Result: json.RawMessage(`{}`)})
	})
	require.ErrorIs(t, err, task.ErrStaleClaim)
}

func testFinishResultLimit(t *testing.T, h Harness) {
	seed(t, h, Pending("big"), Pending("max"))
	claim(t, h, "big", "tok", T0)
	claim(t, h, "max", "tok", T0)
	jsonString := func(n int) json.RawMessage { // a JSON string of exactly n bytes
		return json.RawMessage(`"` + strings.Repeat("a", n-2) + `"`)
	}
	err := unchanged(t, h, "big", func() error {
		return h.Store.Finish(t.Context(), task.FinishParams{TaskID: "big", Token: "tok", Now: T0, Result: jsonString(task.MaxResultBytes + 1)})
	})
	requireNoSentinel(t, err, "oversized result")

	maxed := jsonString(task.MaxResultBytes)
	require.NoError(t, h.Store.Finish(t.Context(), task.FinishParams{TaskID: "max", Token: "tok", Now: T0, Result: maxed}))
	require.Equal(t, string(maxed), string(get(t, h, "max").Result))
}

func testFail(t *testing.T, h Harness) {
	seed(t, h, Pending("t1"))
	claim(t, h, "t1", "tok-a", T0)
	reason := strings.Repeat("é", task.MaxErrorBytes) // 2 bytes per rune: must be cut
	now := T0.Add(time.Minute)
	require.NoError(t, h.Store.Fail(t.Context(), task.FailParams{TaskID: "t1", Token: "tok-a", Now: now, Kind: task.KindFatal, Reason: reason}))

	got := get(t, h, "t1")
	require.Equal(t, task.StateFailed, got.State)
	require.Equal(t, task.KindFatal, got.ErrorKind)
	require.Equal(t, task.Truncate(reason, task.MaxErrorBytes), got.LastError)
	require.LessOrEqual(t, len(got.LastError), task.MaxErrorBytes)
	require.Equal(t, now, got.FinishedAt)
	require.Equal(t, now, got.UpdatedAt)
}

func testFailUnknownKind(t *testing.T, h Harness) {
	seed(t, h, Pending("t1"))
	claim(t, h, "t1", "tok-a", T0)
	for _, kind := range []task.ErrorKind{"", "weird"} {
		err := unchanged(t, h, "t1", func() error {
			return h.Store.Fail(t.Context(), task.FailParams{TaskID: "t1", Token: "tok-a", Now: T0, Kind: kind, Reason: "x"})
		})
		requireNoSentinel(t, err, "kind "+string(kind))
	}
}

func testRelease(t *testing.T, h Harness) {
	seed(t, h, Pending("t1"))
	c := claim(t, h, "t1", "tok-a", T0)
	now := T0.Add(time.Minute)
	require.NoError(t, h.Store.Release(t.Context(), task.ReleaseParams{TaskID: "t1", Token: "tok-a", Now: now, Reason: "HTTP 503"}))

	got := get(t, h, "t1")
	require.Equal(t, task.StateRunning, got.State, "release keeps the task Running, so the stream does not re-dispatch it")
	require.Equal(t, now, got.LeaseExpiresAt)
	require.Equal(t, task.KindRetryable, got.ErrorKind)
	require.Equal(t, "HTTP 503", got.LastError)
	require.Equal(t, c.Attempts, got.Attempts)
	require.False(t, got.LeaseLive(now))

	// The next delivery claims it at once, as a new attempt.
	again := claim(t, h, "t1", "tok-b", now)
	require.Equal(t, 2, again.Attempts)
	require.Equal(t, "tok-b", again.ClaimToken)

	// A task that finishes on a later attempt carries no error: the earlier
	// attempt's failure is history, not its outcome.
	require.NoError(t, h.Store.Finish(t.Context(), task.FinishParams{TaskID: "t1", Token: "tok-b", Now: now, Result: json.RawMessage(`{}`)}))
	done := get(t, h, "t1")
	require.Equal(t, task.StateFinished, done.State)
	require.Empty(t, done.ErrorKind)
	require.Empty(t, done.LastError)
	require.Equal(t, 2, done.Attempts)
}

func testReleaseThenStuck(t *testing.T, h Harness) {
	// The reconciler fails a released task that nobody reclaimed, fenced by
	// the token it read from the listing.
	seed(t, h, Pending("t1"))
	claim(t, h, "t1", "tok-a", T0)
	require.NoError(t, h.Store.Release(t.Context(), task.ReleaseParams{TaskID: "t1", Token: "tok-a", Now: T0, Reason: "timeout"}))
	page, err := h.Store.ListLive(t.Context(), task.ListLiveParams{State: task.StateRunning, DueBefore: T0.Add(time.Hour)})
	require.NoError(t, err)
	require.Len(t, page.Tasks, 1)
	listed := page.Tasks[0]
	require.NoError(t, h.Store.Fail(t.Context(), task.FailParams{
		TaskID: listed.ID, Token: listed.ClaimToken, Now: T0.Add(time.Hour), Kind: task.KindStuck, Reason: "lease expired long ago",
	}))
	require.Equal(t, task.StateFailed, get(t, h, "t1").State)
}

// holderOps are the three fenced writes, by a holder of token at now.
func holderOps(ctx context.Context, h Harness, id, token string, now time.Time) map[string]func() error {
	return map[string]func() error{
		"Finish": func() error {
			return h.Store.Finish(ctx, task.FinishParams{TaskID: id, Token: token, Now: now, Result: json.RawMessage(`{"late":true}`)})
		},
		"Fail": func() error {
			return h.Store.Fail(ctx, task.FailParams{TaskID: id, Token: token, Now: now, Kind: task.KindFatal, Reason: "late"})
		},
		"Release": func() error {
			return h.Store.Release(ctx, task.ReleaseParams{TaskID: id, Token: token, Now: now, Reason: "late"})
		},
	}
}

func testFenced(t *testing.T, h Harness) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, id string)
	}{
		{"WrongToken", func(t *testing.T, id string) {
			seed(t, h, Pending(id))
			claim(t, h, id, "tok-owner", T0)
		}},
		{"NeverClaimed", func(t *testing.T, id string) { seed(t, h, Pending(id)) }},
		{"Finished", func(t *testing.T, id string) {
			seed(t, h, Pending(id))
			claim(t, h, id, "tok-x", T0)
			require.NoError(t, h.Store.Finish(t.Context(), task.FinishParams{TaskID: id, Token: "tok-x", Now: T0}))
		}},
		{"Failed", func(t *testing.T, id string) {
			seed(t, h, Pending(id))
			claim(t, h, id, "tok-x", T0)
			require.NoError(t, h.Store.Fail(t.Context(), task.FailParams{TaskID: id, Token: "tok-x", Now: T0, Kind: task.KindFatal, Reason: "x"}))
		}},
	} {
		for op := range holderOps(t.Context(), h, "", "", T0) {
			t.Run(tc.name+"/"+op, func(t *testing.T) {
				t.Parallel()
				id := tc.name + "-" + op
				tc.setup(t, id)
				// tok-x finished or failed the task itself: even the last
				// holder cannot write twice.
				token := map[bool]string{true: "tok-x", false: "tok-mine"}[tc.name == "Finished" || tc.name == "Failed"]
				err := unchanged(t, h, id, holderOps(t.Context(), h, id, token, T0.Add(time.Second))[op])
				require.ErrorIs(t, err, task.ErrStaleClaim)
			})
		}
	}
	t.Run("UnknownTask", func(t *testing.T) {
		t.Parallel()
		for op, run := range holderOps(t.Context(), h, "nope", "tok", T0) {
			require.ErrorIs(t, run(), task.ErrStaleClaim, op)
			_, err := h.Get(t.Context(), "nope")
			require.ErrorIs(t, err, task.ErrNotFound, "%s must not create a row", op)
		}
	})
}

func testLateHolderAfterTakeover(t *testing.T, h Harness) {
	for op := range holderOps(t.Context(), h, "", "", T0) {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			id := "t-" + op
			seed(t, h, Pending(id))
			claim(t, h, id, "tok-a", T0)                   // worker A stalls...
			b := claim(t, h, id, "tok-b", T0.Add(2*Lease)) // ...B takes over the expired lease
			require.Equal(t, 2, b.Attempts)

			err := unchanged(t, h, id, holderOps(t.Context(), h, id, "tok-a", T0.Add(2*Lease+time.Second))[op])
			require.ErrorIs(t, err, task.ErrStaleClaim)
			require.Equal(t, b, get(t, h, id), "the late holder must leave B's row exactly as B's claim wrote it")

			// B still owns it and finishes normally.
			require.NoError(t, h.Store.Finish(t.Context(), task.FinishParams{TaskID: id, Token: "tok-b", Now: T0.Add(2*Lease + time.Minute), Result: json.RawMessage(`{"by":"b"}`)}))
			require.JSONEq(t, `{"by":"b"}`, string(get(t, h, id).Result))
		})
	}
}

// listAll pages through ListLive with limit and returns the ids in order.
func listAll(t *testing.T, h Harness, st task.State, before time.Time, limit int) []string {
	t.Helper()
	var ids []string
	p := task.ListLiveParams{State: st, DueBefore: before, Limit: limit}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10_000, "ListLive does not terminate")
		page, err := h.Store.ListLive(t.Context(), p)
		require.NoError(t, err)
		if limit > 0 {
			require.LessOrEqual(t, len(page.Tasks), limit)
		}
		for _, tk := range page.Tasks {
			require.Equal(t, st, tk.State)
			ids = append(ids, tk.ID)
		}
		if page.NextCursor == "" {
			return ids
		}
		p.Cursor = page.NextCursor
	}
}

func testListLiveDue(t *testing.T, h Harness) {
	at := func(id string, d time.Duration) task.Task {
		tk := Pending(id)
		tk.CreatedAt, tk.UpdatedAt = T0.Add(d), T0.Add(d)
		return tk
	}
	seed(t, h, at("old", -10*time.Minute), at("older", -20*time.Minute), at("boundary", 0), at("future", time.Minute))
	require.ElementsMatch(t, []string{"old", "older"}, listAll(t, h, task.StatePending, T0, 0))
	require.ElementsMatch(t, []string{"old", "older", "boundary"}, listAll(t, h, task.StatePending, T0.Add(time.Millisecond), 0))
	require.Empty(t, listAll(t, h, task.StatePending, T0.Add(-time.Hour), 0))
}

func testListLiveState(t *testing.T, h Harness) {
	running := func(id string, lease time.Time) task.Task {
		tk := Pending(id)
		tk.State, tk.Attempts, tk.ClaimToken, tk.LeaseExpiresAt = task.StateRunning, 1, "tok-"+id, lease
		return tk
	}
	terminal := func(id string, st task.State) task.Task {
		tk := Pending(id)
		tk.State, tk.Attempts, tk.FinishedAt = st, 1, T0.Add(-2*time.Hour)
		tk.UpdatedAt = tk.FinishedAt
		return tk
	}
	seed(t, h,
		Pending("p1"), Pending("p2"),
		running("r-expired", T0.Add(-time.Minute)), running("r-live", T0.Add(time.Minute)),
		terminal("f1", task.StateFinished), terminal("x1", task.StateFailed),
	)
	far := T0.Add(24 * time.Hour)
	require.ElementsMatch(t, []string{"p1", "p2"}, listAll(t, h, task.StatePending, far, 0))
	require.ElementsMatch(t, []string{"r-expired", "r-live"}, listAll(t, h, task.StateRunning, far, 0))
	require.ElementsMatch(t, []string{"r-expired"}, listAll(t, h, task.StateRunning, T0, 0),
		"a Running task is due when its lease expires")
}

func testListLiveFollowsTransitions(t *testing.T, h Harness) {
	seed(t, h, Pending("a"), Pending("b"), Pending("c"), Pending("d"))
	far := T0.Add(24 * time.Hour)
	claim(t, h, "a", "tok-a", T0)
	claim(t, h, "b", "tok-b", T0)
	claim(t, h, "c", "tok-c", T0)
	require.NoError(t, h.Store.Finish(t.Context(), task.FinishParams{TaskID: "a", Token: "tok-a", Now: T0}))
	require.NoError(t, h.Store.Fail(t.Context(), task.FailParams{TaskID: "b", Token: "tok-b", Now: T0, Kind: task.KindFatal, Reason: "x"}))
	require.NoError(t, h.Store.Release(t.Context(), task.ReleaseParams{TaskID: "c", Token: "tok-c", Now: T0.Add(time.Second), Reason: "x"}))

	require.ElementsMatch(t, []string{"d"}, listAll(t, h, task.StatePending, far, 0))
	require.ElementsMatch(t, []string{"c"}, listAll(t, h, task.StateRunning, far, 0), "terminal tasks leave the live listing")
	require.ElementsMatch(t, []string{"c"}, listAll(t, h, task.StateRunning, T0.Add(2*time.Second), 0),
		"a released task is due at once")
	require.Empty(t, listAll(t, h, task.StateRunning, T0.Add(time.Second), 0))
}

func testListLivePagination(t *testing.T, h Harness) {
	const n = 37
	var want []string
	for i := range n {
		tk := Pending(fmt.Sprintf("task-%02d", i))
		tk.UpdatedAt = T0.Add(-time.Duration(i+1) * time.Second) // all due before T0
		seed(t, h, tk)
		want = append(want, tk.ID)
	}
	for _, limit := range []int{1, 4, n, n + 5} {
		ids := listAll(t, h, task.StatePending, T0, limit)
		require.ElementsMatch(t, want, ids, "limit %d: every task exactly once", limit)
	}
}

func testListLiveInvalid(t *testing.T, h Harness) {
	seed(t, h, Pending("t1"))
	for name, p := range map[string]task.ListLiveParams{
		"Terminal":      {State: task.StateFinished, DueBefore: T0},
		"UnknownState":  {State: "Nope", DueBefore: T0},
		"NegativeLimit": {State: task.StatePending, DueBefore: T0, Limit: -1},
		"BadCursor":     {State: task.StatePending, DueBefore: T0, Cursor: "!!not a cursor!!"},
	} {
		_, err := h.Store.ListLive(t.Context(), p)
		require.Error(t, err, name)
	}
}

func testClaimRace(t *testing.T, h Harness) {
	seed(t, h, Pending("hot"))
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results = make([]error, RaceClaimers)
		rows    = make([]task.Task, RaceClaimers)
	)
	for i := range RaceClaimers {
		wg.Go(func() {
			<-start
			rows[i], results[i] = h.Store.Claim(context.Background(), task.ClaimParams{
				TaskID: "hot", Token: fmt.Sprintf("tok-%02d", i), Now: T0, Lease: Lease,
			})
		})
	}
	close(start)
	wg.Wait()

	winner := -1
	for i, err := range results {
		if err == nil {
			require.Equal(t, -1, winner, "two claims won: %d and %d", winner, i)
			winner = i
			continue
		}
		require.True(t, errors.Is(err, task.ErrClaimed), "claimer %d: want ErrClaimed, got %v", i, err)
	}
	require.NotEqual(t, -1, winner, "no claim won")
	got := get(t, h, "hot")
	require.Equal(t, rows[winner], got)
	require.Equal(t, fmt.Sprintf("tok-%02d", winner), got.ClaimToken)
	require.Equal(t, 1, got.Attempts, "exactly one attempt was counted")
}

func testExhaustRace(t *testing.T, h Harness) {
	// Many deliveries of a task with no attempts left: exactly one caller
	// learns that it was exhausted (and gets the Failed row); the others
	// see a terminal task.
	tk := Pending("spent")
	tk.State, tk.Attempts, tk.ClaimToken = task.StateRunning, 3, "tok-old"
	tk.LeaseExpiresAt = T0.Add(-time.Minute)
	seed(t, h, tk)
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results = make([]error, RaceClaimers)
	)
	for i := range RaceClaimers {
		wg.Go(func() {
			<-start
			_, results[i] = h.Store.Claim(context.Background(), task.ClaimParams{
				TaskID: "spent", Token: fmt.Sprintf("tok-%02d", i), Now: T0, Lease: Lease,
			})
		})
	}
	close(start)
	wg.Wait()
	exhausted := 0
	for i, err := range results {
		switch {
		case errors.Is(err, task.ErrExhausted):
			exhausted++
		case errors.Is(err, task.ErrTerminal):
		default:
			t.Fatalf("claimer %d: want ErrExhausted or ErrTerminal, got %v", i, err)
		}
	}
	require.Equal(t, 1, exhausted, "exactly one claim marks the task exhausted")
	got := get(t, h, "spent")
	require.Equal(t, task.StateFailed, got.State)
	require.Equal(t, task.KindExhausted, got.ErrorKind)
	require.Equal(t, 3, got.Attempts)
}
