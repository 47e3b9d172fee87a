package alarm

import (
	"sort"
	"strings"
)

// taggable resolves a CloudWatch ARN to the tag map of the alarm
// (arn:aws:cloudwatch:<region>:<account>:alarm:<name>) or dashboard
// (arn:aws:cloudwatch::<account>:dashboard/<name>) it names. Callers hold s.mu and the dashboard store's lock (lockDashboards).
func (s *Service) taggableLocked(arn string) (map[string]string, func(map[string]string), error) {
	if err := checkLen(arn, "resourceARN", 1, 1024); err != nil {
		return nil, nil, err
	}
	parts := strings.SplitN(arn, ":", 7)
	if len(parts) < 6 || parts[0] != "arn" || parts[2] != "cloudwatch" {
		return nil, nil, invalidValue("The value %s for parameter ResourceARN is not a CloudWatch ARN.", arn)
	}
	if parts[5] == "alarm" && len(parts) == 7 && parts[3] == s.opts.Region && parts[4] == s.opts.AccountID {
		a := s.alarms[parts[6]]
		if a == nil {
			return nil, nil, resourceNotFound("Alarm", parts[6])
		}
		return a.tags, func(m map[string]string) { a.tags = m }, nil
	}
	if name, ok := strings.CutPrefix(parts[5], "dashboard/"); ok && len(parts) == 6 && parts[4] == s.opts.AccountID {
		d := s.dash.m[name]
		if d == nil {
			return nil, nil, resourceNotFound("Dashboard", name)
		}
		return d.tags, func(m map[string]string) { d.tags = m }, nil
	}
	return nil, nil, resourceNotFound("Resource", arn)
}

func (s *Service) opTagResource(c *call) (any, error) {
	var in tagResourceInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.ResourceARN == nil {
		return nil, requiredErr("resourceARN")
	}
	if in.Tags == nil {
		return nil, requiredErr("tags")
	}
	add, err := checkTags(in.Tags, "tags", maxAlarmTags)
	if err != nil {
		return nil, err
	}
	defer s.lockDashboards()()
	cur, set, err := s.taggableLocked(*in.ResourceARN)
	if err != nil {
		return nil, err
	}
	next := make(map[string]string, len(cur)+len(add))
	for k, v := range cur {
		next[k] = v
	}
	for k, v := range add {
		next[k] = v
	}
	if len(next) > maxAlarmTags {
		return nil, invalidValue("A resource can have at most %d tags; this request would give it %d.", maxAlarmTags, len(next))
	}
	set(next)
	return empty{}, nil
}

func (s *Service) opUntagResource(c *call) (any, error) {
	var in untagResourceInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.ResourceARN == nil {
		return nil, requiredErr("resourceARN")
	}
	if in.TagKeys == nil {
		return nil, requiredErr("tagKeys")
	}
	defer s.lockDashboards()()
	cur, set, err := s.taggableLocked(*in.ResourceARN)
	if err != nil {
		return nil, err
	}
	next := make(map[string]string, len(cur))
	for k, v := range cur {
		next[k] = v
	}
	for _, k := range in.TagKeys {
		delete(next, k)
	}
	set(next)
	return empty{}, nil
}

func (s *Service) opListTagsForResource(c *call) (any, error) {
	var in listTagsForResourceInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.ResourceARN == nil {
		return nil, requiredErr("resourceARN")
	}
	defer s.lockDashboards()()
	cur, _, err := s.taggableLocked(*in.ResourceARN)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(cur))
	for k := range cur {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := listTagsForResourceOutput{Tags: []tag{}}
	for _, k := range keys {
		out.Tags = append(out.Tags, tag{Key: ptr(k), Value: ptr(cur[k])})
	}
	return out, nil
}
