package table

import (
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// This file holds the table settings minidyn lacks: time to live, tags and
// point-in-time recovery (the Terraform provider reads all three for
// aws_dynamodb_table), and the in-process stream API.

func (s *Service) describeTimeToLive(body []byte) (any, error) {
	var in struct{ TableName *string }
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.table(aws.ToString(in.TableName))
	if t == nil {
		return nil, notFoundTable(aws.ToString(in.TableName))
	}
	desc := map[string]any{"TimeToLiveStatus": "DISABLED"}
	if t.ttlEnabled {
		desc = map[string]any{"TimeToLiveStatus": "ENABLED", "AttributeName": t.ttlAttr}
	}
	return map[string]any{"TimeToLiveDescription": desc}, nil
}

// updateTimeToLive stores the TTL setting. Items are never expired: TTL
// deletions (and their service-identity stream records) are not emulated.
func (s *Service) updateTimeToLive(body []byte) (any, error) {
	var in struct {
		TableName               *string
		TimeToLiveSpecification *struct {
			AttributeName *string
			Enabled       *bool
		}
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	if spec == nil || spec.Enabled == nil || aws.ToString(spec.AttributeName) == "" {
		return nil, validation("1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.table(aws.ToString(in.TableName))
	if t == nil {
		return nil, notFoundTable(aws.ToString(in.TableName))
	}
	switch {
	case *spec.Enabled && t.ttlEnabled:
		return nil, validation("TimeToLive is already enabled")
	case !*spec.Enabled && !t.ttlEnabled:
		return nil, validation("TimeToLive is already disabled")
	}
	t.ttlEnabled, t.ttlAttr = *spec.Enabled, aws.ToString(spec.AttributeName)
	return map[string]any{"TimeToLiveSpecification": map[string]any{
		"AttributeName": t.ttlAttr, "Enabled": t.ttlEnabled,
	}}, nil
}

// tableByARN finds a table by its ARN; callers hold s.mu.
func (s *Service) tableByARN(arn string) *table {
	for _, t := range s.tables {
		if t.arn == arn {
			return t
		}
	}
	return nil
}

func notFoundARN(arn string) error {
	return apiErr("ResourceNotFoundException", "Requested resource not found: ResourceArn: %s not found", arn)
}

// validateTags applies the tag limits (DynamoDB developer guide, "Tagging
// restrictions"): keys 1–128 characters, values up to 256, 50 per resource.
func validateTags(tags []ddbtypes.Tag) error {
	if len(tags) > 50 {
		return validation("One or more parameter values were invalid: The number of tags exceeds the limit of 50")
	}
	for _, tag := range tags {
		k := aws.ToString(tag.Key)
		if k == "" || len(k) > 128 || tag.Value == nil || len(*tag.Value) > 256 {
			return validation("One or more parameter values were invalid: invalid tag %q (keys 1-128 characters, values 0-256)", k)
		}
	}
	return nil
}

func (s *Service) tagResource(body []byte) (any, error) {
	var in struct {
		ResourceArn *string
		Tags        []ddbtypes.Tag
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := validateTags(in.Tags); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tableByARN(aws.ToString(in.ResourceArn))
	if t == nil {
		return nil, notFoundARN(aws.ToString(in.ResourceArn))
	}
	merged := len(t.tags)
	for _, tag := range in.Tags {
		if _, ok := t.tags[aws.ToString(tag.Key)]; !ok {
			merged++
		}
	}
	if merged > 50 {
		return nil, validation("One or more parameter values were invalid: The number of tags exceeds the limit of 50")
	}
	for _, tag := range in.Tags {
		t.tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	return map[string]any{}, nil
}

func (s *Service) untagResource(body []byte) (any, error) {
	var in struct {
		ResourceArn *string
		TagKeys     []string
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tableByARN(aws.ToString(in.ResourceArn))
	if t == nil {
		return nil, notFoundARN(aws.ToString(in.ResourceArn))
	}
	for _, k := range in.TagKeys {
		delete(t.tags, k)
	}
	return map[string]any{}, nil
}

func (s *Service) listTagsOfResource(body []byte) (any, error) {
	var in struct {
		ResourceArn *string
		NextToken   *string
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tableByARN(aws.ToString(in.ResourceArn))
	if t == nil {
		return nil, notFoundARN(aws.ToString(in.ResourceArn))
	}
	keys := sortedKeys(t.tags)
	tags := make([]map[string]string, len(keys))
	for i, k := range keys {
		tags[i] = map[string]string{"Key": k, "Value": t.tags[k]}
	}
	// At most 50 tags fit in one page, so there is never a NextToken.
	return map[string]any{"Tags": tags}, nil
}

func (s *Service) continuousBackups(t *table) map[string]any {
	pitr := map[string]any{"PointInTimeRecoveryStatus": "DISABLED"}
	if t.pitr {
		now := s.now()
		earliest := now.AddDate(0, 0, -int(t.pitrDays))
		if earliest.Before(t.created) {
			earliest = t.created
		}
		pitr = map[string]any{
			"PointInTimeRecoveryStatus":  "ENABLED",
			"RecoveryPeriodInDays":       t.pitrDays,
			"EarliestRestorableDateTime": epoch(earliest),
			"LatestRestorableDateTime":   epoch(now.Add(-5 * time.Minute)),
		}
	}
	return map[string]any{"ContinuousBackupsDescription": map[string]any{
		"ContinuousBackupsStatus":        "ENABLED",
		"PointInTimeRecoveryDescription": pitr,
	}}
}

// errBackupTable is the continuous-backups wording for a missing table
// (TableNotFoundException, DynamoDB API reference, DescribeContinuousBackups).
func errBackupTable(name string) error {
	return apiErr("TableNotFoundException", "Table not found: %s", name)
}

func (s *Service) describeContinuousBackups(body []byte) (any, error) {
	var in struct{ TableName *string }
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.table(aws.ToString(in.TableName))
	if t == nil {
		return nil, errBackupTable(aws.ToString(in.TableName))
	}
	return s.continuousBackups(t), nil
}

// updateContinuousBackups stores the point-in-time-recovery flag; nothing
// is ever restored.
func (s *Service) updateContinuousBackups(body []byte) (any, error) {
	var in struct {
		TableName                        *string
		PointInTimeRecoverySpecification *struct {
			PointInTimeRecoveryEnabled *bool
			RecoveryPeriodInDays       *int32
		}
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	spec := in.PointInTimeRecoverySpecification
	if spec == nil || spec.PointInTimeRecoveryEnabled == nil {
		return nil, validation("1 validation error detected: Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy constraint: Member must not be null")
	}
	days := int32(35)
	if spec.RecoveryPeriodInDays != nil {
		days = *spec.RecoveryPeriodInDays
		if days < 1 || days > 35 {
			return nil, validation("1 validation error detected: Value '%d' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value between 1 and 35", days)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.table(aws.ToString(in.TableName))
	if t == nil {
		return nil, errBackupTable(aws.ToString(in.TableName))
	}
	t.pitr = *spec.PointInTimeRecoveryEnabled
	t.pitrDays = 0
	if t.pitr {
		t.pitrDays = days
	}
	return s.continuousBackups(t), nil
}

// LatestStreamARN returns the ARN of the table's enabled stream. It fails
// with ErrTableNotFound or ErrNoStream.
func (s *Service) LatestStreamARN(tableName string) (string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.table(tableName)
	if t == nil {
		return "", fmt.Errorf("latest stream of %s: %w", tableName, ErrTableNotFound)
	}
	if t.stream == nil {
		return "", fmt.Errorf("latest stream of %s: %w", tableName, ErrNoStream)
	}
	return t.stream.arn, nil
}

// Stream returns the stream with that ARN, enabled or disabled within the
// retention period, or ErrStreamNotFound.
func (s *Service) Stream(arn string) (*Stream, error) {
	s.mu.RLock()
	st := s.streams[arn]
	s.mu.RUnlock()
	if st == nil || st.expired(s.now()) {
		return nil, fmt.Errorf("stream %s: %w", arn, ErrStreamNotFound)
	}
	return st, nil
}

// Streams returns the retained streams, of one table or (tableName "") of
// all tables, sorted by ARN.
func (s *Service) Streams(tableName string) []*Stream {
	s.mu.RLock()
	now := s.now()
	var out []*Stream
	for _, st := range s.streams {
		if (tableName == "" || st.tableName == tableName) && !st.expired(now) {
			out = append(out, st)
		}
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].arn < out[j].arn })
	return out
}

// HasTable reports whether a table of that name exists.
func (s *Service) HasTable(name string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tables[name] != nil
}
