package chaos

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
	"github.com/taskpipe/taskpipe/internal/task"
)

// loadFixture reads a recorded history from testdata.
func loadFixture(t testing.TB, name string) *History {
	t.Helper()
	h, err := LoadHistoryFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return h
}

// clone deep-copies a history, so each case mutates its own.
func clone(t *testing.T, h *History) *History {
	t.Helper()
	b, err := json.Marshal(h)
	require.NoError(t, err)
	var c History
	require.NoError(t, json.Unmarshal(b, &c))
	return &c
}

// records returns the stream indices of a task's records, in order.
func records(h *History, id string) []int {
	var out []int
	for i, c := range h.Stream {
		if c.TaskID == id {
			out = append(out, i)
		}
	}
	return out
}

func rowIndex(h *History, id string) int {
	return slices.IndexFunc(h.Rows, func(r Row) bool { return r.TaskID == id })
}

// pick returns the first submitted task whose row and records satisfy ok.
func pick(t *testing.T, h *History, ok func(r Row, recs []Change) bool) string {
	t.Helper()
	for _, id := range h.Submitted {
		i := rowIndex(h, id)
		if i < 0 {
			continue
		}
		var recs []Change
		for _, j := range records(h, id) {
			recs = append(recs, h.Stream[j])
		}
		if ok(h.Rows[i], recs) {
			return id
		}
	}
	t.Fatal("no task in the fixture fits")
	return ""
}

func finished(r Row, _ []Change) bool { return r.Status == string(task.StateFinished) }
func failed(r Row, _ []Change) bool   { return r.Status == string(task.StateFailed) }

// exhausted picks a Failed task that is not the fixture's only fatal one,
// whose change would also stop the "fatal sites" fault from counting.
func exhausted(r Row, c []Change) bool {
	return failed(r, c) && r.ErrorKind == string(task.KindExhausted)
}

// takeover reports whether c is a takeover: Running → Running under a
// new token.
func takeover(c Change) bool {
	return c.Old != nil && c.New != nil && c.Old.Status == "Running" && c.New.Status == "Running" && c.Old.ClaimToken != c.New.ClaimToken
}

// takenOver picks a task with a takeover record.
func takenOver(_ Row, recs []Change) bool {
	return slices.ContainsFunc(recs, takeover)
}

// setLast changes a task's final row and its last stream image alike, so
// the stream stays continuous.
func setLast(h *History, id string, f func(*Image)) {
	f(&h.Rows[rowIndex(h, id)].Image)
	recs := records(h, id)
	f(h.Stream[recs[len(recs)-1]].New)
}

// truncate keeps a task's first n stream records and makes its row the
// last one's new image.
func truncate(h *History, id string, n int) {
	recs := records(h, id)
	drop := map[int]bool{}
	for _, j := range recs[n:] {
		drop[j] = true
	}
	keep := h.Stream[:0]
	for j, c := range h.Stream {
		if !drop[j] {
			keep = append(keep, c)
		}
	}
	h.Stream = keep
	h.Rows[rowIndex(h, id)].Image = *h.Stream[recs[n-1]].New
}

// appendRecord adds a MODIFY after the task's last record, from its last
// image to next(last), and makes the row follow.
func appendRecord(h *History, id string, next func(Image) Image) {
	recs := records(h, id)
	last := *h.Stream[recs[len(recs)-1]].New
	nw := next(last)
	old := last
	h.Stream = append(h.Stream, Change{Seq: "9" + h.Stream[recs[len(recs)-1]].Seq, Event: EventModify, TaskID: id, Old: &old, New: &nw})
	h.Rows[rowIndex(h, id)].Image = nw
}

// reopen appends an operator's retry of a finished task and a second pass
// that finishes it again with another result.
func reopen(h *History, id string) {
	appendRecord(h, id, func(im Image) Image {
		return Image{Status: "Pending", MaxAttempts: im.MaxAttempts, UpdatedAt: im.UpdatedAt + 1000}
	})
	appendRecord(h, id, func(im Image) Image {
		im.Status, im.ClaimToken, im.Attempts, im.LeaseExpiresAt, im.UpdatedAt = "Running", "second-pass", 1, im.UpdatedAt+41000, im.UpdatedAt+1000
		return im
	})
	appendRecord(h, id, func(im Image) Image {
		im.Status, im.Result, im.UpdatedAt = "Finished", ResultDigest(`{"title":"second pass"}`), im.UpdatedAt+500
		return im
	})
}

// failures maps each failed invariant to its violation count.
func failures(r Result) map[string]int {
	out := map[string]int{}
	for _, i := range r.Invariants {
		if !i.OK() {
			out[i.Name] = i.Violations
		}
	}
	return out
}

func TestCheckCleanHistoryPasses(t *testing.T) {
	t.Parallel()
	h := loadFixture(t, "clean.json")
	r := Check(h)
	require.Empty(t, failures(r))
	require.True(t, r.OK())
	// The fixture is a real run with every fault on: the table is not
	// vacuous.
	names := map[string]bool{}
	for _, i := range r.Invariants {
		names[i.Name] = true
		if !strings.HasPrefix(i.Name, InvFaultPrefix) {
			require.Positivef(t, i.Checked, "%s checked nothing", i.Name)
		}
	}
	for _, want := range []string{InvNoTaskLost, InvResultOnce, InvTransitions, InvAttempts, InvPoisonInDLQ, InvKillsRecovered,
		InvFaultPrefix + "DynamoDB throttling", InvFaultPrefix + "SQS duplicate deliveries", InvFaultPrefix + "SQS lost acknowledgements",
		InvFaultPrefix + "worker killed (rule 0)", InvFaultPrefix + "poison messages", InvFaultPrefix + "flaky sites"} {
		require.Truef(t, names[want], "no row %q", want)
	}
	require.Positive(t, r.Summary.Abandoned, "the fixture has killed workers' claims")
}

// TestCheckBadHistory judges a recorded history edited to hold three
// defects (testdata/README.md): a result written twice, a task that
// vanished and an illegal transition. The checker must report exactly
// those.
func TestCheckBadHistory(t *testing.T) {
	t.Parallel()
	h := loadFixture(t, "bad.json")
	r := Check(h)
	const (
		doubled  = "demo-20261130T032342Z/0000003"
		vanished = "demo-20261130T032342Z/0000005"
		illegal  = "demo-20261130T032342Z/0000006"
	)
	require.Equal(t, map[string]int{
		InvNoTaskLost:  1,
		InvAccounted:   1,
		InvResultOnce:  1,
		InvTransitions: 2, // the overwrite of the Finished row, and the claim of a Failed task
	}, failures(r))
	want := map[string][]string{
		InvNoTaskLost:  {vanished},
		InvAccounted:   {vanished},
		InvResultOnce:  {doubled},
		InvTransitions: {doubled, illegal},
	}
	for name, ids := range want {
		inv, ok := r.Get(name)
		require.True(t, ok)
		var got []string
		for _, e := range inv.Examples {
			id, _, _ := strings.Cut(e, " ")
			got = append(got, strings.TrimSuffix(id, ":"))
		}
		require.ElementsMatch(t, ids, got, "%s: %v", name, inv.Examples)
	}
	inv, _ := r.Get(InvResultOnce)
	require.Contains(t, inv.Examples[0], "result written twice")
	inv, _ = r.Get(InvTransitions)
	require.Contains(t, strings.Join(inv.Examples, "\n"), "illegal transition Failed → Running")
	require.Contains(t, strings.Join(inv.Examples, "\n"), "illegal transition Finished → Finished")

	var out bytes.Buffer
	require.NoError(t, r.Print(&out))
	for _, s := range []string{"FAIL " + InvNoTaskLost, "FAIL " + InvResultOnce, vanished + ": no row at the end"} {
		require.Contains(t, out.String(), s)
	}
}

// TestCheckEachInvariantFails breaks the clean history one way at a time
// and names the invariants that must fail, with their violation counts.
func TestCheckEachInvariantFails(t *testing.T) {
	t.Parallel()
	base := loadFixture(t, "clean.json")
	tests := []struct {
		name   string
		mutate func(t *testing.T, h *History)
		want   map[string]int
	}{
		{"row deleted", func(t *testing.T, h *History) {
			i := rowIndex(h, pick(t, h, finished))
			h.Rows = slices.Delete(h.Rows, i, i+1)
		}, map[string]int{InvNoTaskLost: 1, InvAccounted: 1}},
		{"row deleted with a REMOVE record", func(t *testing.T, h *History) {
			id := pick(t, h, exhausted)
			recs := records(h, id)
			last := *h.Stream[recs[len(recs)-1]].New
			h.Stream = append(h.Stream, Change{Seq: "99", Event: EventRemove, TaskID: id, Old: &last})
			i := rowIndex(h, id)
			h.Rows = slices.Delete(h.Rows, i, i+1)
		}, map[string]int{InvNoTaskLost: 1, InvAccounted: 1, InvTransitions: 1}},
		{"row nobody submitted", func(t *testing.T, h *History) {
			r := h.Rows[0]
			r.TaskID = "someone-else/0000001"
			h.Rows = append(h.Rows, r)
		}, map[string]int{InvOnlySubmitted: 1}},
		{"task left Running after its claim", func(t *testing.T, h *History) {
			truncate(h, pick(t, h, finished), 2) // keep INSERT and the claim
		}, map[string]int{InvAccounted: 1}},
		{"Failed without lastError", func(t *testing.T, h *History) {
			setLast(h, pick(t, h, failed), func(im *Image) { im.LastError = "" })
		}, map[string]int{InvFailedReason: 1}},
		{"failed as exhausted with attempts left", func(t *testing.T, h *History) {
			setLast(h, pick(t, h, exhausted), func(im *Image) { im.MaxAttempts++ })
		}, map[string]int{InvTransitions: 1}},
		{"re-opened and finished again", func(t *testing.T, h *History) {
			id := pick(t, h, finished)
			reopen(h, id)
		}, map[string]int{InvNoReopen: 1}},
		{"a killed worker's claim left open", func(t *testing.T, h *History) {
			id := pick(t, h, func(r Row, recs []Change) bool { return finished(r, recs) && len(recs) == 3 })
			truncate(h, id, 2)
			h.DLQ = append(h.DLQ, DLQMessage{Queue: QueueWork, MessageID: "m-3", TaskID: id,
				Reason: "moved by SQS after maxReceiveCount receives", Body: `{"taskId":"` + id + `"}`})
			h.Faults.Stats.KillsByRule = []int64{int64(Check(h).Summary.Abandoned) + 1}
		}, map[string]int{InvKillsRecovered: 1}},
		{"a frozen worker's invocation that never timed out", func(t *testing.T, h *History) {
			h.Faults.Config.Kill = append(h.Faults.Config.Kill, fault.KillRule{Function: "scraper", Rate: 0.01,
				Action: fault.KillAtTimeout, Delay: fault.Duration(10 * time.Millisecond)})
			h.Faults.Stats.KillsByRule = append(h.Faults.Stats.KillsByRule, 2)
			h.Faults.Stats.Frozen, h.Faults.ScraperTimeouts = 2, 1
		}, map[string]int{InvFrozenTimedOut: 1}},
		{"Failed with a retryable errorKind", func(t *testing.T, h *History) {
			setLast(h, pick(t, h, exhausted), func(im *Image) { im.ErrorKind = string(task.KindRetryable) })
		}, map[string]int{InvFailedReason: 1}},
		{"Finished without a result", func(t *testing.T, h *History) {
			setLast(h, pick(t, h, finished), func(im *Image) { im.Result = "" })
		}, map[string]int{InvResultOnce: 1}},
		{"Failed with a result", func(t *testing.T, h *History) {
			setLast(h, pick(t, h, failed), func(im *Image) { im.Result = "0123456789ab" })
		}, map[string]int{InvResultOnce: 1}},
		{"result written twice by an unfenced second finish", func(t *testing.T, h *History) {
			appendRecord(h, pick(t, h, finished), func(im Image) Image {
				im.ClaimToken, im.Result = "another-worker", "ba9876543210"
				return im
			})
		}, map[string]int{InvResultOnce: 1, InvTransitions: 1}},
		{"claim of a Failed task", func(t *testing.T, h *History) {
			id := pick(t, h, func(r Row, recs []Change) bool { return failed(r, recs) && r.Attempts < r.MaxAttempts })
			appendRecord(h, id, func(im Image) Image {
				im.Status, im.ClaimToken, im.Attempts = "Running", "zombie", im.Attempts+1
				return im
			})
		}, map[string]int{InvTransitions: 1, InvAccounted: 1, InvFaultPrefix + "fatal sites": 1}}, // the fixture's one fatal task
		{"stream record missing", func(t *testing.T, h *History) {
			recs := records(h, pick(t, h, finished))
			h.Stream = slices.Delete(h.Stream, recs[1], recs[1]+1) // the claim
		}, map[string]int{InvTransitions: 1}},
		{"INSERT missing", func(t *testing.T, h *History) {
			recs := records(h, pick(t, h, finished))
			h.Stream = slices.Delete(h.Stream, recs[0], recs[0]+1)
		}, map[string]int{InvTransitions: 1}},
		{"no stream record at all", func(t *testing.T, h *History) {
			id := pick(t, h, finished)
			h.Stream = slices.DeleteFunc(h.Stream, func(c Change) bool { return c.TaskID == id })
		}, map[string]int{InvTransitions: 1, InvResultOnce: 1}},
		{"row changed without a stream record", func(t *testing.T, h *History) {
			h.Rows[rowIndex(h, pick(t, h, finished))].Attempts++
		}, map[string]int{InvTransitions: 1}},
		{"takeover of a live lease", func(t *testing.T, h *History) {
			id := pick(t, h, takenOver)
			recs := records(h, id)
			for k, j := range recs {
				c := h.Stream[j]
				if takeover(c) {
					// The previous holder's lease now ends after the takeover.
					c.Old.LeaseExpiresAt = c.New.UpdatedAt + 10_000
					h.Stream[recs[k-1]].New.LeaseExpiresAt = c.Old.LeaseExpiresAt
					return
				}
			}
		}, map[string]int{InvTransitions: 1}},
		{"outcome written under another token", func(t *testing.T, h *History) {
			setLast(h, pick(t, h, finished), func(im *Image) { im.ClaimToken = "not-the-holder" })
		}, map[string]int{InvTransitions: 1}},
		{"attempts above maxAttempts", func(t *testing.T, h *History) {
			setLast(h, pick(t, h, finished), func(im *Image) { im.Attempts, im.MaxAttempts = 4, 3 })
		}, map[string]int{InvAttempts: 2, InvTransitions: 1}}, // the finish changed attempts too
		{"maxAttempts missing", func(t *testing.T, h *History) {
			setLast(h, pick(t, h, failed), func(im *Image) { im.MaxAttempts = 0 })
		}, map[string]int{InvAttempts: 2}},
		{"poison message not in the DLQ", func(t *testing.T, h *History) {
			body := h.Poison[0].Body
			h.DLQ = slices.DeleteFunc(h.DLQ, func(m DLQMessage) bool { return m.Body == body })
		}, map[string]int{InvPoisonInDLQ: 1}},
		{"poison message in the DLQ without a reason", func(t *testing.T, h *History) {
			for i := range h.DLQ {
				if h.DLQ[i].Body == h.Poison[0].Body {
					h.DLQ[i].Reason = " "
				}
			}
		}, map[string]int{InvPoisonInDLQ: 1, InvDLQExplained: -1}},
		{"DLQ message from nowhere", func(t *testing.T, h *History) {
			h.DLQ = append(h.DLQ, DLQMessage{Queue: QueueWork, MessageID: "m-1", Reason: "who knows", Body: "{}"})
		}, map[string]int{InvDLQExplained: 1}},
		{"fault configured but never fired", func(t *testing.T, h *History) {
			h.Faults.Stats.DynamoDBThrottles = 0
		}, map[string]int{InvFaultPrefix + "DynamoDB throttling": 1}},
		{"kill rule never fired", func(t *testing.T, h *History) {
			h.Faults.Stats.KillsByRule = []int64{0}
		}, map[string]int{InvFaultPrefix + "worker killed (rule 0)": 1}},
		{"poison planned but not sent", func(t *testing.T, h *History) {
			h.Poison, h.DLQ = nil, nil
		}, map[string]int{InvFaultPrefix + "poison messages": 1}},
		{"no fault configured at all", func(t *testing.T, h *History) {
			h.Faults = Faults{}
		}, map[string]int{InvFaultsConfigure: 1}},
		{"more kills than abandoned claims", func(t *testing.T, h *History) {
			h.Faults.Stats.KillsByRule = []int64{int64(Check(h).Summary.Abandoned) + 3}
		}, map[string]int{InvKillsRecovered: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := clone(t, base)
			tc.mutate(t, h)
			got := failures(Check(h))
			for name, n := range tc.want {
				if n < 0 { // fails, count not asserted
					require.Contains(t, got, name)
					got[name] = n
				}
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// TestCheckOperatorRetry: a re-opened task's second pass is judged on its
// own, and the re-open is allowed when the history records the retry.
func TestCheckOperatorRetry(t *testing.T) {
	t.Parallel()
	h := clone(t, loadFixture(t, "clean.json"))
	reopen(h, pick(t, h, finished))
	require.Equal(t, map[string]int{InvNoReopen: 1}, failures(Check(h)))
	h.Retried = 1
	r := Check(h)
	require.Empty(t, failures(r))
	require.Equal(t, 1, r.Summary.Reopens)
}

func TestCheckLiveTaskInDLQIsAccounted(t *testing.T) {
	t.Parallel()
	h := clone(t, loadFixture(t, "clean.json"))
	id := pick(t, h, finished)
	truncate(h, id, 2)
	require.Equal(t, map[string]int{InvAccounted: 1}, failures(Check(h)))

	h.DLQ = append(h.DLQ, DLQMessage{Queue: QueueWork, MessageID: "m-2", TaskID: id,
		Reason: "moved by SQS after maxReceiveCount receives", Body: `{"taskId":"` + id + `"}`})
	r := Check(h)
	require.Empty(t, failures(r))
	inv, _ := r.Get(InvAccounted)
	require.Contains(t, inv.Detail, "1 live but in a DLQ")
}

func TestHistoryRoundTrip(t *testing.T) {
	t.Parallel()
	h := loadFixture(t, "clean.json")
	var b bytes.Buffer
	require.NoError(t, h.Write(&b))
	back, err := LoadHistory(&b)
	require.NoError(t, err)
	require.Equal(t, h, back)
}

func TestLoadHistoryRefusesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, err string }{
		{"not JSON", "nope", "parse history"},
		{"unknown field", `{"runId": "r", "sumbitted": []}`, "unknown field"},
		{"two objects", `{} {}`, "data after"},
		{"wrong type", `{"submitted": "a"}`, "parse history"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadHistory(strings.NewReader(tc.in))
			require.ErrorContains(t, err, tc.err)
		})
	}
}
