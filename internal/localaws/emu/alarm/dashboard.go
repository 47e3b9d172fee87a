package alarm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

type dashboard struct {
	name, body string
	modified   time.Time
	tags       map[string]string
}

// Widget types a dashboard body may hold ("Dashboard body structure and
// syntax", CloudWatch API reference CloudWatch-Dashboard-Body-Structure).
var widgetTypes = []string{"metric", "text", "log", "alarm", "explorer", "custom"}

func (s *Service) dashboardARN(name string) string {
	// Dashboards are global, so their ARNs have no region (PutDashboard).
	return fmt.Sprintf("arn:aws:cloudwatch::%s:dashboard/%s", s.opts.AccountID, name)
}

// checkDashboardName: "The maximum length is 255, and valid characters are
// A-Z, a-z, 0-9, "-", and "_"" (PutDashboard DashboardName).
func checkDashboardName(name string) error {
	if name == "" || len(name) > 255 {
		return invalidValue("The value %q for parameter DashboardName is invalid: it must have 1 to 255 characters.", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return invalidValue("The value %q for parameter DashboardName is invalid: valid characters are A-Z, a-z, 0-9, - and _.", name)
		}
	}
	return nil
}

// checkDashboardBody checks the structure CloudWatch requires: a JSON
// object whose "widgets" is an array of objects, each with a known "type"
// and a "properties" object. Problems are reported the way PutDashboard
// does, as DashboardValidationMessages with a JSON path.
func checkDashboardBody(body string) []dashboardValidationMessage {
	msg := func(path, text string) []dashboardValidationMessage {
		return []dashboardValidationMessage{{DataPath: ptr(path), Message: ptr(text)}}
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		return msg("", "The dashboard body is not a JSON object: "+err.Error())
	}
	raw, ok := doc["widgets"]
	if !ok {
		return msg("", "Should have required property 'widgets'")
	}
	var widgets []json.RawMessage
	if err := json.Unmarshal(raw, &widgets); err != nil {
		return msg("/widgets", "Should be array")
	}
	var out []dashboardValidationMessage
	for i, w := range widgets {
		path := fmt.Sprintf("/widgets/%d", i)
		var wd map[string]json.RawMessage
		if err := json.Unmarshal(w, &wd); err != nil {
			out = append(out, msg(path, "Should be object")...)
			continue
		}
		var typ string
		if t, ok := wd["type"]; !ok || json.Unmarshal(t, &typ) != nil {
			out = append(out, msg(path, "Should have required property 'type'")...)
		} else if !oneOf(typ, widgetTypes) {
			out = append(out, msg(path+"/type", "Should be equal to one of the allowed values: "+strings.Join(widgetTypes, ", "))...)
		}
		var props map[string]json.RawMessage
		if p, ok := wd["properties"]; !ok {
			out = append(out, msg(path, "Should have required property 'properties'")...)
		} else if json.Unmarshal(p, &props) != nil {
			out = append(out, msg(path+"/properties", "Should be object")...)
		}
	}
	return out
}

func (s *Service) opPutDashboard(c *call) (any, error) {
	var in putDashboardInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.DashboardName == nil {
		return nil, requiredErr("dashboardName")
	}
	if in.DashboardBody == nil {
		return nil, requiredErr("dashboardBody")
	}
	if err := checkDashboardName(*in.DashboardName); err != nil {
		return nil, err
	}
	if problems := checkDashboardBody(*in.DashboardBody); len(problems) > 0 {
		return nil, &apiError{shape: "DashboardInvalidInputError", query: "InvalidParameterInput", status: http.StatusBadRequest,
			msg:   "The field DashboardBody must be a valid JSON object: " + *problems[0].Message,
			extra: map[string]any{"dashboardValidationMessages": problems}}
	}
	tags, err := checkTags(in.Tags, "tags", maxAlarmTags)
	if err != nil {
		return nil, err
	}
	now := epochMillis(s.opts.Now())
	defer s.lockDashboards()()
	d := s.dash.m[*in.DashboardName]
	if d == nil {
		d = &dashboard{name: *in.DashboardName, tags: tags}
		s.dash.m[d.name] = d
	}
	d.body, d.modified = *in.DashboardBody, now
	return putDashboardOutput{DashboardValidationMessages: []dashboardValidationMessage{}}, nil
}

func dashboardNotFound(name string) error {
	return &apiError{shape: "DashboardNotFoundError", query: "ResourceNotFound", status: http.StatusNotFound,
		msg: fmt.Sprintf("Dashboard %s does not exist", name)}
}

func (s *Service) opGetDashboard(c *call) (any, error) {
	var in getDashboardInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.DashboardName == nil {
		return nil, requiredErr("dashboardName")
	}
	defer s.lockDashboards()()
	d := s.dash.m[*in.DashboardName]
	if d == nil {
		return nil, dashboardNotFound(*in.DashboardName)
	}
	return getDashboardOutput{DashboardArn: ptr(s.dashboardARN(d.name)), DashboardBody: ptr(d.body), DashboardName: ptr(d.name)}, nil
}

// opDeleteDashboards deletes what exists of the named dashboards and
// reports the first missing one: "If there is an error during this call,
// the operation attempts to delete as many dashboards as possible"
// (DeleteDashboards API reference).
func (s *Service) opDeleteDashboards(c *call) (any, error) {
	var in deleteDashboardsInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.DashboardNames == nil {
		return nil, requiredErr("dashboardNames")
	}
	if len(in.DashboardNames) > maxBatchNames {
		return nil, invalidValue("At most %d DashboardNames can be given.", maxBatchNames)
	}
	defer s.lockDashboards()()
	var missing []string
	for _, n := range in.DashboardNames {
		if _, ok := s.dash.m[n]; !ok {
			missing = append(missing, n)
			continue
		}
		delete(s.dash.m, n)
	}
	if len(missing) > 0 {
		return nil, dashboardNotFound(strings.Join(missing, ", "))
	}
	return empty{}, nil
}

func (s *Service) opListDashboards(c *call) (any, error) {
	var in listDashboardsInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	offset, err := decodeOffset(in.NextToken)
	if err != nil {
		return nil, err
	}
	defer s.lockDashboards()()
	var names []string
	for n := range s.dash.m {
		if in.DashboardNamePrefix == nil || strings.HasPrefix(n, *in.DashboardNamePrefix) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if offset > len(names) {
		return nil, invalidNextToken()
	}
	out := listDashboardsOutput{DashboardEntries: []dashboardEntry{}}
	page := names[offset:]
	const pageSize = 1000 // "The ListDashboards API can return up to 1000 results on one page"
	if len(page) > pageSize {
		page = page[:pageSize]
		out.NextToken = encodeOffset(offset + pageSize)
	}
	for _, n := range page {
		d := s.dash.m[n]
		out.DashboardEntries = append(out.DashboardEntries, dashboardEntry{DashboardName: ptr(n),
			DashboardArn: ptr(s.dashboardARN(n)), LastModified: ts(d.modified), Size: ptr(int64(len(d.body)))})
	}
	return out, nil
}
