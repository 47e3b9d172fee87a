package chaos

import (
	"fmt"

	"github.com/taskpipe/taskpipe/internal/task"
)

// epoch is one pass of a task from Pending to a terminal state; an
// operator's retry (terminal → Pending) starts the next.
type epoch struct {
	finishes     int // Running → Finished transitions
	resultWrites int // records that wrote a result
	end          string
}

// claim is the lease a claim record handed out, followed until its holder
// writes under it or somebody else moves the task on.
type claim struct {
	token string
	lease int64 // epoch ms
	wrote bool
}

// trace is one task's stream records, walked in order.
type trace struct {
	id      string
	changes []Change
	// illegal explains each record that breaks the state machine, the
	// stream's continuity or the fencing.
	illegal []string
	epochs  []epoch
	// claims counts claim records; releases the holders' releases;
	// abandoned the claims whose holder never wrote while it held the
	// lease (a killed worker, or a worker whose write failed); exhausted
	// and stuck the failures written by a later claimer and by the
	// reconciler.
	claims, releases, abandoned int
	exhausted, stuck            int
	// reopens counts terminal → Pending records (an operator's retry, or
	// a row overwritten by a second create); open is 1 when the last
	// claim was still unresolved at the end of the stream.
	reopens, open int
	// images counts the images seen; overAttempts those with attempts
	// above maxAttempts (or a maxAttempts below 1).
	images       int
	overAttempts []string
	// last is the row as the last record left it (nil: deleted).
	last *Image
}

// walk evaluates a task's records.
func walk(id string, changes []Change) *trace {
	t := &trace{id: id, changes: changes, epochs: []epoch{{}}}
	var prev *Image // the row as the previous record left it; nil: absent
	var open *claim
	settle := func() {
		if open != nil && !open.wrote {
			t.abandoned++
		}
		open = nil
	}
	for i, c := range changes {
		bad := func(format string, args ...any) {
			t.illegal = append(t.illegal, fmt.Sprintf("%s record %d (seq %s): %s", id, i+1, c.Seq, fmt.Sprintf(format, args...)))
		}
		t.countAttempts(c)
		switch c.Event {
		case EventInsert:
			switch {
			case prev != nil:
				bad("INSERT of a task that exists")
			case c.New == nil:
				bad("INSERT without a new image")
			case c.Old != nil:
				bad("INSERT with an old image")
			case c.New.Status != string(task.StatePending):
				bad("created %s, not Pending", c.New.Status)
			}
			prev = c.New
			continue
		case EventRemove:
			bad("the row was deleted")
			settle()
			prev = nil
			continue
		case EventModify:
		default:
			bad("unknown event %q", c.Event)
			continue
		}
		if c.Old == nil || c.New == nil {
			bad("MODIFY without both images")
			if c.New != nil {
				prev = c.New
			}
			continue
		}
		if prev == nil {
			bad("MODIFY of a task the stream never created (its INSERT is missing)")
		} else if !sameImage(*prev, *c.Old) {
			bad("old image %s is not the previous record's new image %s (a record is missing)", c.Old.brief(), prev.brief())
		}
		prev = c.New
		from, to := task.State(c.Old.Status), task.State(c.New.Status)
		ep := &t.epochs[len(t.epochs)-1]
		// Counted before the legality check: an illegal overwrite of a
		// Finished row is a second effect too. Finish always sets the
		// result, so every record that lands in Finished with one writes it.
		if c.New.Result != "" && (c.Old.Result != c.New.Result || to == task.StateFinished) {
			ep.resultWrites++
		}
		if !task.CanTransition(from, to) {
			bad("illegal transition %s → %s", from, to)
			continue
		}
		switch {
		case from == task.StatePending && to == task.StateRunning,
			from == task.StateRunning && to == task.StateRunning && c.New.ClaimToken != c.Old.ClaimToken:
			// A claim: of a Pending task, or a takeover of an expired lease.
			switch {
			case c.New.ClaimToken == "":
				bad("claim without a claim token")
			case c.New.Attempts != c.Old.Attempts+1:
				bad("claim moved attempts from %d to %d, not by one", c.Old.Attempts, c.New.Attempts)
			case from == task.StateRunning && c.Old.LeaseExpiresAt > c.New.UpdatedAt:
				bad("took over a live lease (held until %d, taken at %d)", c.Old.LeaseExpiresAt, c.New.UpdatedAt)
			}
			settle()
			t.claims++
			open = &claim{token: c.New.ClaimToken, lease: c.New.LeaseExpiresAt}
		case from == task.StateRunning && to == task.StateRunning:
			// The holder's release: same token and attempts, the lease set
			// to the moment of the release (dynamostore Release), which may
			// be after the lease ran out if nobody took the task over.
			if c.New.Attempts != c.Old.Attempts || c.New.LeaseExpiresAt != c.New.UpdatedAt {
				bad("Running → Running under the same token is neither a claim nor a release (attempts %d → %d, lease %d → %d at %d)",
					c.Old.Attempts, c.New.Attempts, c.Old.LeaseExpiresAt, c.New.LeaseExpiresAt, c.New.UpdatedAt)
			}
			t.releases++
			if open != nil && open.token == c.Old.ClaimToken && c.New.UpdatedAt < open.lease {
				open.wrote = true
			}
			settle()
		case from == task.StateRunning && to.Terminal():
			// Fenced on the holder's token: the outcome keeps it.
			if c.New.ClaimToken != c.Old.ClaimToken {
				bad("%s written under token %q, the holder's is %q", to, c.New.ClaimToken, c.Old.ClaimToken)
			}
			if c.New.Attempts != c.Old.Attempts {
				bad("%s changed attempts from %d to %d", to, c.Old.Attempts, c.New.Attempts)
			}
			if to == task.StateFinished {
				ep.finishes++
			}
			t.attemptsLeft(c, bad)
			if open != nil && open.token == c.Old.ClaimToken && c.New.UpdatedAt < open.lease {
				open.wrote = true
			} else if to == task.StateFailed {
				// Not the holder: a later claim found the attempts used up,
				// or the reconciler found the lease long expired.
				if c.New.ErrorKind == string(task.KindStuck) {
					t.stuck++
				} else {
					t.exhausted++
				}
			}
			settle()
		case from == task.StatePending && to == task.StateFailed:
			t.exhausted++
			t.attemptsLeft(c, bad)
		case from.Terminal() && to == task.StatePending:
			// An operator's retry starts a new pass.
			ep.end = string(from)
			t.epochs = append(t.epochs, epoch{})
			t.reopens++
		}
		if to.Terminal() {
			t.epochs[len(t.epochs)-1].end = string(to)
		}
	}
	if open != nil && !open.wrote {
		t.open = 1
	}
	t.last = prev
	return t
}

// attemptsLeft flags a failure as exhausted or stuck that left attempts
// unused: both kinds mean the task ran out of them (a claim past
// maxAttempts, the scraper's last attempt, the reconciler's stuck rule).
func (t *trace) attemptsLeft(c Change, bad func(string, ...any)) {
	k := task.ErrorKind(c.New.ErrorKind)
	if c.New.Status == string(task.StateFailed) && (k == task.KindExhausted || k == task.KindStuck) && c.New.Attempts < c.New.MaxAttempts {
		bad("failed as %s with attempts left (%d of %d)", k, c.New.Attempts, c.New.MaxAttempts)
	}
}

// countAttempts checks the attempts of a record's images.
func (t *trace) countAttempts(c Change) {
	for _, im := range []*Image{c.Old, c.New} {
		if im == nil {
			continue
		}
		t.images++
		if bad := attemptsProblem(*im); bad != "" {
			t.overAttempts = append(t.overAttempts, fmt.Sprintf("%s seq %s: %s", t.id, c.Seq, bad))
		}
	}
}

// attemptsProblem explains an image whose attempts break the limit.
func attemptsProblem(im Image) string {
	switch {
	case im.MaxAttempts < 1:
		return fmt.Sprintf("maxAttempts %d", im.MaxAttempts)
	case im.Attempts < 0 || im.Attempts > im.MaxAttempts:
		return fmt.Sprintf("attempts %d of %d", im.Attempts, im.MaxAttempts)
	}
	return ""
}

// sameImage compares two images field by field: a record's old image and
// the previous record's new image, or the last new image and the final row.
func sameImage(a, b Image) bool { return a == b }

// brief is an image in a few words, for explanations.
func (im Image) brief() string {
	s := fmt.Sprintf("%s attempts %d", im.Status, im.Attempts)
	if im.ClaimToken != "" {
		s += " token " + short(im.ClaimToken)
	}
	if im.Result != "" {
		s += " result " + im.Result
	}
	return "(" + s + ")"
}

func short(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}
