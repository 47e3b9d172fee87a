package queue

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"unicode/utf8"
)

// Tag rules from the SQS developer guide (sqs-queue-tags): at most 50 tags,
// keys 1–128 characters, values up to 256 characters (an empty value is
// fine: AWS-validated LocalStack test test_tag_untag_queue).
func validTags(tags map[string]string) error {
	if len(tags) > maxTagsPerQueue {
		return errorf(ErrInvalidParameterValue, "Too many tags added for queue: at most %d tags are allowed.", maxTagsPerQueue)
	}
	for k, v := range tags {
		if k == "" || utf8.RuneCountInString(k) > 128 {
			return errorf(ErrInvalidParameterValue, "Tag keys must be between 1 and 128 characters long.")
		}
		if utf8.RuneCountInString(v) > 256 {
			return errorf(ErrInvalidParameterValue, "Tag values can be at most 256 characters long.")
		}
	}
	return nil
}

func copyTags(tags map[string]string) map[string]string {
	if tags == nil {
		return map[string]string{}
	}
	return maps.Clone(tags)
}

// Tag adds or overwrites queue tags (TagQueue).
func (s *Service) Tag(ref string, tags map[string]string) error {
	if err := validTags(tags); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return err
	}
	merged := maps.Clone(q.tags)
	maps.Copy(merged, tags)
	if err := validTags(merged); err != nil {
		return err
	}
	q.tags = merged
	return nil
}

// Untag removes queue tags; unknown keys are ignored (UntagQueue).
func (s *Service) Untag(ref string, keys []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return err
	}
	for _, k := range keys {
		delete(q.tags, k)
	}
	return nil
}

// Tags returns a copy of the queue's tags (ListQueueTags).
func (s *Service) Tags(ref string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return nil, err
	}
	return maps.Clone(q.tags), nil
}

// Queue policies written by AddPermission have the shape AWS is recorded
// to produce (LocalStack test_sqs_permission_lifecycle snapshot).
type policyDoc struct {
	Version   string            `json:"Version"`
	ID        string            `json:"Id"`
	Statement []json.RawMessage `json:"Statement"`
}

type permissionStatement struct {
	Sid       string         `json:"Sid"`
	Effect    string         `json:"Effect"`
	Principal map[string]any `json:"Principal"`
	Action    any            `json:"Action"`
	Resource  string         `json:"Resource"`
}

var labelRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

var permissionActions = []string{
	"*", "SendMessage", "ReceiveMessage", "DeleteMessage", "ChangeMessageVisibility",
	"GetQueueAttributes", "GetQueueUrl", "ListDeadLetterSourceQueues", "PurgeQueue", "ListQueueTags",
}

// AddPermission adds a labelled statement to the queue policy.
func (s *Service) AddPermission(ref, label string, accounts, actions []string) error {
	if !labelRE.MatchString(label) {
		return errInvalidParam(label, "Label", "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length.")
	}
	if len(accounts) == 0 {
		return errMissing("AWSAccountIds")
	}
	if len(actions) == 0 {
		return errMissing("Actions")
	}
	for _, a := range actions {
		if !slices.Contains(permissionActions, a) {
			return errInvalidParam(a, "Actions", "Unknown action.")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return err
	}
	doc := policyDoc{Version: "2008-10-17", ID: q.arn + "/SQSDefaultPolicy"}
	if q.attrs.policy != "" {
		if err := json.Unmarshal([]byte(q.attrs.policy), &doc); err != nil {
			return errInvalidParam(label, "Label", "The queue policy is not a policy document AddPermission can extend.")
		}
	}
	for _, raw := range doc.Statement {
		var st struct{ Sid string }
		if json.Unmarshal(raw, &st) == nil && st.Sid == label {
			return errInvalidParam(label, "Label", "Already exists.")
		}
	}
	principals := make([]string, len(accounts))
	for i, a := range accounts {
		principals[i] = fmt.Sprintf("arn:aws:iam::%s:root", a)
	}
	acts := make([]string, len(actions))
	for i, a := range actions {
		acts[i] = "SQS:" + a
	}
	st := permissionStatement{Sid: label, Effect: "Allow", Principal: map[string]any{"AWS": oneOrMany(principals)}, Action: oneOrMany(acts), Resource: q.arn}
	doc.Statement = append(doc.Statement, json.RawMessage(canonicalJSON(st)))
	q.attrs.policy = canonicalJSON(doc)
	q.modified = s.now()
	return nil
}

// RemovePermission removes a labelled statement; the policy disappears
// with its last statement.
func (s *Service) RemovePermission(ref, label string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return err
	}
	var doc policyDoc
	if q.attrs.policy == "" || json.Unmarshal([]byte(q.attrs.policy), &doc) != nil {
		return errInvalidParam(label, "Label", "can't find label.")
	}
	kept := doc.Statement[:0]
	found := false
	for _, raw := range doc.Statement {
		var st struct{ Sid string }
		if json.Unmarshal(raw, &st) == nil && st.Sid == label {
			found = true
			continue
		}
		kept = append(kept, raw)
	}
	if !found {
		return errInvalidParam(label, "Label", "can't find label.")
	}
	doc.Statement = kept
	if len(kept) == 0 {
		q.attrs.policy = ""
	} else {
		q.attrs.policy = canonicalJSON(doc)
	}
	q.modified = s.now()
	return nil
}

func oneOrMany(v []string) any {
	if len(v) == 1 {
		return v[0]
	}
	return v
}
