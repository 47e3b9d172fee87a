package pipe

import (
	"fmt"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// Model constraints of the Pipes API, from botocore pipes/2015-10-07
// service-2.json (PipeName, RoleArn, Arn, OptionalArn, PipeDescription,
// KmsKeyIdentifier, LimitMax10/100/10000, MaximumBatchingWindowInSeconds,
// MaximumRecordAgeInSeconds, MaximumRetryAttemptsESM, FilterList,
// EventPattern, InputTemplate, TagMap, TagKey, TagValue). Smithy patterns
// are matched against the whole value.
var (
	namePattern = `[\.\-_A-Za-z0-9]+`
	nameRE      = regexp.MustCompile(`^(?:` + namePattern + `)$`)
	rolePattern = `arn:(aws[a-zA-Z-]*)?:iam::\d{12}:role/?[a-zA-Z0-9+=,.@\-_/]+`
	roleRE      = regexp.MustCompile(`^(?:` + rolePattern + `)$`)
	arnPattern  = `arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\-]+):([a-z]{2}((-gov)|(-iso(b?)))?-[a-z]+-\d{1})?:(\d{12})?:(.+)`
	arnRE       = regexp.MustCompile(`^(?:` + arnPattern + `)$`)
	kmsPattern  = `[a-zA-Z0-9_\-/:]*`
	kmsRE       = regexp.MustCompile(`^(?:` + kmsPattern + `)$`)
)

// Limits from the same model.
const (
	maxNameLen       = 64
	maxArnLen        = 1600
	maxDescLen       = 512
	maxKMSLen        = 2048
	maxFilters       = 5
	maxPatternLen    = 4096
	maxTemplateLen   = 8192
	maxTags          = 50
	maxTagKeyLen     = 128
	maxTagValueLen   = 256
	maxBatchSize     = 10000
	maxWindowSeconds = 300
	maxAgeSeconds    = 604800
	maxRetryAttempts = 10000
	maxParallel      = 10
	maxListLimit     = 100
)

// Enumerations.
const (
	stateRunning  = "RUNNING"
	stateStopped  = "STOPPED"
	stateCreating = "CREATING"
	stateUpdating = "UPDATING"
	stateStarting = "STARTING"
	stateStopping = "STOPPING"
	stateDeleting = "DELETING"
	stateDeleted  = "DELETED"

	posTrimHorizon = "TRIM_HORIZON"
	posLatest      = "LATEST"
	bisectValue    = "AUTOMATIC_BISECT"
)

var (
	pipeStates = []string{stateRunning, stateStopped, stateCreating, stateUpdating, stateDeleting,
		stateStarting, stateStopping, "CREATE_FAILED", "UPDATE_FAILED", "START_FAILED", "STOP_FAILED",
		"DELETE_FAILED", "CREATE_ROLLBACK_FAILED", "DELETE_ROLLBACK_FAILED", "UPDATE_ROLLBACK_FAILED"}
	logLevels = []string{"OFF", "ERROR", "INFO", "TRACE"}
)

// checker collects model constraint violations.
type checker struct{ cs []constraint }

func quoteValue(v string) string { return "'" + v + "'" }

func (c *checker) add(path, value, rule string) {
	c.cs = append(c.cs, constraint{path: path, value: value, rule: rule})
}

func (c *checker) err() *apiError {
	if len(c.cs) == 0 {
		return nil
	}
	return constraintError(c.cs)
}

// notNull reports a required member that is absent.
func (c *checker) notNull(path string, present bool) bool {
	if !present {
		c.add(path, "null", "Member must not be null")
	}
	return present
}

// str checks a string's length (in characters) and, with re, its pattern.
// Sensitive members are not echoed in the message.
func (c *checker) str(path, v string, minLen, maxLen int, display string, re *regexp.Regexp, sensitive bool) {
	shown := quoteValue(v)
	if sensitive {
		shown = ""
	}
	n := utf8.RuneCountInString(v)
	switch {
	case n < minLen:
		c.add(path, shown, fmt.Sprintf("Member must have length greater than or equal to %d", minLen))
	case n > maxLen:
		c.add(path, shown, fmt.Sprintf("Member must have length less than or equal to %d", maxLen))
	case re != nil && !re.MatchString(v):
		c.add(path, shown, "Member must satisfy regular expression pattern: "+display)
	}
}

// num checks an optional integer's range.
func (c *checker) num(path string, v *int64, minV, maxV int64) {
	if v == nil {
		return
	}
	switch {
	case *v < minV:
		c.add(path, quoteValue(strconv.FormatInt(*v, 10)), fmt.Sprintf("Member must have value greater than or equal to %d", minV))
	case *v > maxV:
		c.add(path, quoteValue(strconv.FormatInt(*v, 10)), fmt.Sprintf("Member must have value less than or equal to %d", maxV))
	}
}

// enum checks an optional enumeration member ("" means absent).
func (c *checker) enum(path, v string, allowed ...string) {
	if v == "" {
		return
	}
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	c.add(path, quoteValue(v), fmt.Sprintf("Member must satisfy enum value set: %v", allowed))
}

// checkName validates the Name path member.
func checkName(c *checker, name string) {
	c.str("name", name, 1, maxNameLen, namePattern, nameRE, false)
}

// checkRequest applies the model constraints to a CreatePipe (create true)
// or UpdatePipe body.
func checkRequest(c *checker, in *pipeRequest, create bool) {
	if c.notNull("roleArn", in.RoleArn != nil) {
		c.str("roleArn", *in.RoleArn, 1, maxArnLen, rolePattern, roleRE, false)
	}
	if create {
		if c.notNull("source", in.Source != nil) {
			c.str("source", *in.Source, 1, maxArnLen, "", nil, false)
		}
		if c.notNull("target", in.Target != nil) {
			c.str("target", *in.Target, 1, maxArnLen, arnPattern, arnRE, false)
		}
	} else if in.Target != nil {
		c.str("target", *in.Target, 1, maxArnLen, arnPattern, arnRE, false)
	}
	if in.Description != nil {
		c.str("description", *in.Description, 0, maxDescLen, "", nil, true)
	}
	c.enum("desiredState", in.DesiredState, stateRunning, stateStopped)
	if in.Enrichment != nil && *in.Enrichment != "" { // OptionalArn: "" removes it
		c.str("enrichment", *in.Enrichment, 0, maxArnLen, "$|"+arnPattern, arnRE, false)
	}
	if in.KmsKeyIdentifier != nil {
		c.str("kmsKeyIdentifier", *in.KmsKeyIdentifier, 0, maxKMSLen, kmsPattern, kmsRE, false)
	}
	if sp := in.SourceParameters; sp != nil {
		if fc := sp.FilterCriteria; fc != nil {
			if len(fc.Filters) > maxFilters {
				c.add("sourceParameters.filterCriteria.filters", "",
					fmt.Sprintf("Member must have length less than or equal to %d", maxFilters))
			}
			for i, f := range fc.Filters {
				if f.Pattern != nil {
					c.str(fmt.Sprintf("sourceParameters.filterCriteria.filters.%d.member.pattern", i+1),
						*f.Pattern, 0, maxPatternLen, "", nil, true)
				}
			}
		}
		if dp := sp.DynamoDBStreamParameters; dp != nil {
			const p = "sourceParameters.dynamoDBStreamParameters."
			c.num(p+"batchSize", dp.BatchSize, 1, maxBatchSize)
			c.num(p+"maximumBatchingWindowInSeconds", dp.MaximumBatchingWindowInSeconds, 0, maxWindowSeconds)
			c.num(p+"maximumRecordAgeInSeconds", dp.MaximumRecordAgeInSeconds, -1, maxAgeSeconds)
			c.num(p+"maximumRetryAttempts", dp.MaximumRetryAttempts, -1, maxRetryAttempts)
			c.num(p+"parallelizationFactor", dp.ParallelizationFactor, 1, maxParallel)
			c.enum(p+"onPartialBatchItemFailure", dp.OnPartialBatchItemFailure, bisectValue)
			if create {
				if c.notNull(p+"startingPosition", dp.StartingPosition != "") {
					c.enum(p+"startingPosition", dp.StartingPosition, posTrimHorizon, posLatest)
				}
			}
			if dl := dp.DeadLetterConfig; dl != nil && dl.Arn != nil && *dl.Arn != "" {
				c.str(p+"deadLetterConfig.arn", *dl.Arn, 1, maxArnLen, arnPattern, arnRE, false)
			}
		}
	}
	if tp := in.TargetParameters; tp != nil && tp.InputTemplate != nil {
		c.str("targetParameters.inputTemplate", *tp.InputTemplate, 0, maxTemplateLen, "", nil, true)
	}
	if ep := in.EnrichmentParameters; ep != nil && ep.InputTemplate != nil {
		c.str("enrichmentParameters.inputTemplate", *ep.InputTemplate, 0, maxTemplateLen, "", nil, true)
	}
	if lc := in.LogConfiguration; lc != nil {
		if c.notNull("logConfiguration.level", lc.Level != "") {
			c.enum("logConfiguration.level", lc.Level, logLevels...)
		}
		for i, v := range lc.IncludeExecutionData {
			c.enum(fmt.Sprintf("logConfiguration.includeExecutionData.%d.member", i+1), v, "ALL")
		}
	}
	if create {
		checkTags(c, "tags", in.Tags, len(in.Tags) == 0 && in.Tags != nil)
	}
}

// checkTags validates a TagMap (1–50 entries, keys 1–128, values 0–256).
func checkTags(c *checker, path string, tags map[string]string, empty bool) {
	if empty {
		c.add(path, "", "Member must have length greater than or equal to 1")
	}
	if len(tags) > maxTags {
		c.add(path, "", fmt.Sprintf("Member must have length less than or equal to %d", maxTags))
	}
	for k, v := range tags {
		c.str(path+".member.key", k, 1, maxTagKeyLen, "", nil, false)
		c.str(path+".member.value", v, 0, maxTagValueLen, "", nil, true)
	}
}
