package pipe

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// pipe is one pipe's control-plane state. Every field is guarded by
// Service.mu; def and cfg are replaced, never modified in place.
type pipe struct {
	name     string
	arn      string
	created  time.Time
	modified time.Time
	def      definition
	desired  string // RUNNING or STOPPED
	current  string // a PipeState
	reason   string
	tags     map[string]string

	// The runtime's view: cfg and desired, versioned by gen. Every change
	// bumps gen and closes changed, which wakes the runner; the runner
	// settles a transitional CurrentState once it has acted on gen.
	cfg     *config
	gen     uint64
	changed chan struct{}
	run     *runner
}

func (p *pipe) stateOutput() stateOutput {
	return stateOutput{Arn: p.arn, Name: p.name, CurrentState: p.current, DesiredState: p.desired,
		CreationTime: epoch(p.created), LastModifiedTime: epoch(p.modified)}
}

// bumpLocked publishes a new configuration or desired state to the runner.
func (p *pipe) bumpLocked() {
	p.gen++
	close(p.changed)
	p.changed = make(chan struct{})
}

func decodeRequest(body []byte) (*pipeRequest, *apiError) {
	in := &pipeRequest{}
	if len(bytes.TrimSpace(body)) == 0 {
		return in, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(in); err != nil {
		return nil, errSerialization("request body is not a valid pipe definition: %v", err)
	}
	return in, nil
}

// normalize turns the "remove" spellings the API documents (an empty
// InputTemplate, an empty Enrichment, an empty FilterCriteria) into absent
// members, so DescribePipe returns what a Terraform read expects.
func normalizeTarget(tp *targetParams) *targetParams {
	if tp == nil {
		return nil
	}
	c := *tp
	if c.InputTemplate != nil && *c.InputTemplate == "" {
		c.InputTemplate = nil
	}
	if q := c.SqsQueueParameters; q != nil && q.MessageGroupId == nil && q.MessageDeduplicationId == nil {
		c.SqsQueueParameters = nil
	}
	b, err := json.Marshal(c)
	if err == nil && string(b) == "{}" {
		return nil
	}
	return &c
}

func normalizeEnrichment(ep *enrichmentParams) *enrichmentParams {
	if ep == nil {
		return nil
	}
	c := *ep
	if c.InputTemplate != nil && *c.InputTemplate == "" {
		c.InputTemplate = nil
	}
	if c.InputTemplate == nil && len(c.HttpParameters) == 0 {
		return nil
	}
	return &c
}

func normalizeFilters(fc *filterCriteria) *filterCriteria {
	if fc == nil || len(fc.Filters) == 0 {
		return nil
	}
	return fc
}

func (s *Service) createPipe(name string, body []byte) (any, *apiError) {
	in, aerr := decodeRequest(body)
	if aerr != nil {
		return nil, aerr
	}
	d := definition{
		Description: in.Description, RoleArn: *in.RoleArn, Source: *in.Source, Target: *in.Target,
		TargetParams: normalizeTarget(in.TargetParameters), EnrichmentParams: normalizeEnrichment(in.EnrichmentParameters),
		LogConfiguration: in.LogConfiguration,
	}
	if in.Enrichment != nil {
		d.Enrichment = *in.Enrichment
	}
	if in.KmsKeyIdentifier != nil {
		d.KmsKeyIdentifier = *in.KmsKeyIdentifier
	}
	if in.SourceParameters != nil {
		d.SourceParams = *in.SourceParameters
		d.SourceParams.FilterCriteria = normalizeFilters(d.SourceParams.FilterCriteria)
		if dp := d.SourceParams.DynamoDBStreamParameters; dp != nil {
			fillDefaults(dp)
		}
	}
	desired := in.DesiredState
	if desired == "" {
		desired = stateRunning
	}

	s.mu.Lock()
	_, exists := s.pipes[name]
	s.mu.Unlock()
	if exists {
		return nil, errConflict(name)
	}
	cfg, aerr := s.compile(name, &d, nil)
	if aerr != nil {
		return nil, aerr
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if _, exists := s.pipes[name]; exists {
		return nil, errConflict(name)
	}
	// The starting position is fixed at creation (StartingPosition is
	// create-only; docs/aws-behaviour.md §1.1): LATEST means records written after
	// this call.
	start := cfg.stream.Latest()
	if d.SourceParams.DynamoDBStreamParameters.StartingPosition == posTrimHorizon {
		start = cfg.stream.TrimHorizon()
	}
	now := s.now()
	p := &pipe{
		name: name, arn: cfg.arn, created: now, modified: now, def: d,
		desired: desired, current: stateCreating, tags: maps.Clone(in.Tags),
		cfg: cfg, changed: make(chan struct{}),
	}
	if p.tags == nil {
		p.tags = map[string]string{}
	}
	s.pipes[name] = p
	if err := s.canRead(cfg); err != nil {
		// AWS creates the pipe and reports the failure in its state
		// (https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_DescribePipe.html:
		// CREATE_FAILED, StateReason); it never runs.
		p.current, p.reason = stateCreateFailed, err.Error()
		return p.stateOutput(), nil
	}
	p.run = s.startRunner(p, start)
	return p.stateOutput(), nil
}

func (s *Service) lookupLocked(name string) (*pipe, *apiError) {
	p := s.pipes[name]
	if p == nil {
		return nil, errNotFound("Pipe %s does not exist.", name)
	}
	return p, nil
}

func (s *Service) describePipe(name string) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, aerr := s.lookupLocked(name)
	if aerr != nil {
		return nil, aerr
	}
	d := p.def
	out := describeOutput{
		Arn: p.arn, Name: p.name, Description: d.Description, CurrentState: p.current, DesiredState: p.desired,
		StateReason: p.reason, Source: d.Source, Enrichment: d.Enrichment, EnrichmentParameters: d.EnrichmentParams,
		Target: d.Target, TargetParameters: d.TargetParams, RoleArn: d.RoleArn, KmsKeyIdentifier: d.KmsKeyIdentifier,
		LogConfiguration: d.LogConfiguration, Tags: maps.Clone(p.tags),
		CreationTime: epoch(p.created), LastModifiedTime: epoch(p.modified),
	}
	sp := d.SourceParams
	if sp.FilterCriteria != nil || sp.DynamoDBStreamParameters != nil {
		out.SourceParameters = &sourceParams{FilterCriteria: sp.FilterCriteria, DynamoDBStreamParameters: sp.DynamoDBStreamParameters}
	}
	return out, nil
}

// updatePipe applies UpdatePipe's documented semantics (botocore
// UpdatePipe): members left out keep their values, but a service-specific
// parameters object given (DynamoDBStreamParameters, TargetParameters,
// EnrichmentParameters, LogConfiguration) replaces the old one whole, with
// defaults for what it leaves out. StartingPosition and Source never change.
// The runtime keeps its stream position.
func (s *Service) updatePipe(name string, body []byte) (any, *apiError) {
	in, aerr := decodeRequest(body)
	if aerr != nil {
		return nil, aerr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, aerr := s.lookupLocked(name)
	if aerr != nil {
		return nil, aerr
	}
	d := p.def
	d.RoleArn = *in.RoleArn
	if in.Description != nil {
		d.Description = in.Description
	}
	if in.Target != nil {
		d.Target = *in.Target
	}
	if in.Enrichment != nil {
		d.Enrichment = *in.Enrichment
	}
	if in.EnrichmentParameters != nil {
		d.EnrichmentParams = normalizeEnrichment(in.EnrichmentParameters)
	}
	if in.TargetParameters != nil {
		d.TargetParams = normalizeTarget(in.TargetParameters)
	}
	if in.LogConfiguration != nil {
		d.LogConfiguration = in.LogConfiguration
	}
	if in.KmsKeyIdentifier != nil {
		d.KmsKeyIdentifier = *in.KmsKeyIdentifier
	}
	if sp := in.SourceParameters; sp != nil {
		next := sourceParams{FilterCriteria: d.SourceParams.FilterCriteria, DynamoDBStreamParameters: d.SourceParams.DynamoDBStreamParameters}
		next.ActiveMQBrokerParameters, next.KinesisStreamParameters = sp.ActiveMQBrokerParameters, sp.KinesisStreamParameters
		next.ManagedStreamingKafkaParameters, next.RabbitMQBrokerParameters = sp.ManagedStreamingKafkaParameters, sp.RabbitMQBrokerParameters
		next.SelfManagedKafkaParameters, next.SqsQueueParameters = sp.SelfManagedKafkaParameters, sp.SqsQueueParameters
		if sp.FilterCriteria != nil {
			next.FilterCriteria = normalizeFilters(sp.FilterCriteria)
		}
		if np := sp.DynamoDBStreamParameters; np != nil {
			np.StartingPosition = d.SourceParams.DynamoDBStreamParameters.StartingPosition
			fillDefaults(np)
			next.DynamoDBStreamParameters = np
		}
		d.SourceParams = next
	}
	cfg, aerr := s.compile(name, &d, p.cfg.stream)
	if aerr != nil {
		return nil, aerr
	}
	p.def = d
	p.cfg = cfg
	if in.DesiredState != "" {
		p.desired = in.DesiredState
	}
	p.current = stateUpdating
	p.reason = ""
	p.modified = s.now()
	p.bumpLocked()
	return p.stateOutput(), nil
}

func (s *Service) deletePipe(name string) (any, *apiError) {
	s.mu.Lock()
	p, aerr := s.lookupLocked(name)
	if aerr != nil {
		s.mu.Unlock()
		return nil, aerr
	}
	delete(s.pipes, name)
	p.current, p.desired = stateDeleting, stateDeleted
	p.modified = s.now()
	out := p.stateOutput()
	p.bumpLocked()
	s.mu.Unlock()
	// Deletion stops the runtime at once, in-flight work included; the
	// pipe is gone from the API already (DescribePipe: NotFoundException).
	if p.run != nil { // nil for a CREATE_FAILED pipe
		p.run.cancel()
	}
	return out, nil
}

// startPipe and stopPipe change the desired state. Calling them on a pipe
// already in (or moving to) that state returns its state unchanged; AWS's
// answer there is UNCONFIRMED.
func (s *Service) startPipe(name string) (any, *apiError) {
	return s.setDesired(name, stateRunning, stateStarting)
}

func (s *Service) stopPipe(name string) (any, *apiError) {
	return s.setDesired(name, stateStopped, stateStopping)
}

func (s *Service) setDesired(name, desired, transition string) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, aerr := s.lookupLocked(name)
	if aerr != nil {
		return nil, aerr
	}
	if p.desired == desired {
		return p.stateOutput(), nil
	}
	p.desired = desired
	p.current = transition
	p.reason = ""
	p.modified = s.now()
	p.bumpLocked()
	return p.stateOutput(), nil
}

// settle moves a transitional CurrentState to RUNNING or STOPPED once the
// runner has acted on generation gen.
func (s *Service) settle(p *pipe, gen uint64, running bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.gen != gen || s.pipes[p.name] != p {
		return
	}
	switch p.current {
	case stateCreating, stateUpdating, stateStarting, stateStopping:
		if running {
			p.current = stateRunning
		} else {
			p.current = stateStopped
		}
	}
}

func (s *Service) listPipes(q url.Values) (any, *apiError) {
	limit := maxListLimit
	if v := q.Get("Limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return nil, errSerialization("Limit %q is not an integer", v)
		}
		limit = int(n)
	}
	after := ""
	if tok := q.Get("NextToken"); tok != "" {
		b, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil || len(b) == 0 {
			return nil, errValidation("Invalid NextToken")
		}
		after = string(b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	names := sortedKeys(s.pipes)
	out := listOutput{Pipes: []summary{}}
	for _, n := range names {
		p := s.pipes[n]
		switch {
		case after != "" && n <= after,
			!strings.HasPrefix(n, q.Get("NamePrefix")),
			q.Get("DesiredState") != "" && p.desired != q.Get("DesiredState"),
			q.Get("CurrentState") != "" && p.current != q.Get("CurrentState"),
			!strings.HasPrefix(p.def.Source, q.Get("SourcePrefix")),
			!strings.HasPrefix(p.def.Target, q.Get("TargetPrefix")):
			continue
		}
		if len(out.Pipes) == limit {
			out.NextToken = base64.RawURLEncoding.EncodeToString([]byte(out.Pipes[len(out.Pipes)-1].Name))
			break
		}
		out.Pipes = append(out.Pipes, summary{
			Arn: p.arn, Name: p.name, CurrentState: p.current, DesiredState: p.desired, StateReason: p.reason,
			Source: p.def.Source, Target: p.def.Target, Enrichment: p.def.Enrichment,
			CreationTime: epoch(p.created), LastModifiedTime: epoch(p.modified),
		})
	}
	return out, nil
}

// pipeByARNLocked finds a pipe by ARN for the tag operations.
func (s *Service) pipeByARNLocked(arn string) (*pipe, *apiError) {
	if name, ok := strings.CutPrefix(arn, s.pipeARN("")); ok {
		if p := s.pipes[name]; p != nil {
			return p, nil
		}
	}
	return nil, errNotFound("Resource %s does not exist.", arn)
}

func (s *Service) listTags(arn string) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, aerr := s.pipeByARNLocked(arn)
	if aerr != nil {
		return nil, aerr
	}
	return tagsBody{Tags: maps.Clone(p.tags)}, nil
}

func (s *Service) tagResource(arn string, body []byte) (any, *apiError) {
	var in tagsBody
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, errSerialization("request body is not a valid tag map: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, aerr := s.pipeByARNLocked(arn)
	if aerr != nil {
		return nil, aerr
	}
	merged := maps.Clone(p.tags)
	maps.Copy(merged, in.Tags)
	if len(merged) > maxTags {
		return nil, errValidation("A pipe can have at most %d tags; this request would give it %d.", maxTags, len(merged))
	}
	p.tags = merged
	return struct{}{}, nil
}

func (s *Service) untagResource(arn string, keys []string) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, aerr := s.pipeByARNLocked(arn)
	if aerr != nil {
		return nil, aerr
	}
	for _, k := range keys {
		delete(p.tags, k)
	}
	return struct{}{}, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
