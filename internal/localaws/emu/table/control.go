package table

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/truora/minidyn/server"
)

// table is the control-plane state the emulator keeps next to minidyn's
// storage: everything DescribeTable reports that minidyn does not know.
type table struct {
	name      string
	arn       string
	id        string
	created   time.Time
	attrDefs  []ddbtypes.AttributeDefinition
	keySchema []ddbtypes.KeySchemaElement
	hashKey   string
	rangeKey  string

	billingMode     ddbtypes.BillingMode
	billingSwitched time.Time // last switch to PAY_PER_REQUEST
	provisioned     *ddbtypes.ProvisionedThroughput
	onDemand        *ddbtypes.OnDemandThroughput
	warm            *ddbtypes.WarmThroughput
	tableClass      ddbtypes.TableClass
	deletionProtect bool
	sseEnabled      bool
	sseKMSKey       string

	gsis []*index
	lsis []*index

	stream *Stream // enabled stream, nil when none
	latest *Stream // most recent stream, kept after disabling

	ttlEnabled bool
	ttlAttr    string
	tags       map[string]string
	pitr       bool
	pitrDays   int32

	// scratchReady: the scratch table of update.go exists.
	scratchReady bool

	// writeMu serializes writes to the table (see Service.mu).
	writeMu sync.Mutex
	// view is held shared by reads of the table's items and exclusively
	// by writes while they change them, so that a read sees a write whole
	// or not at all: never a failed write before it is undone, nor the
	// steps that take an item out of an index (index.go).
	view sync.RWMutex
}

type index struct {
	name        string
	keySchema   []ddbtypes.KeySchemaElement
	projection  *ddbtypes.Projection
	provisioned *ddbtypes.ProvisionedThroughput
	onDemand    *ddbtypes.OnDemandThroughput
	warm        *ddbtypes.WarmThroughput
}

// keyOf returns the key attributes of an item (whatever of them it has).
func (t *table) keyOf(it item) item {
	k := make(item, 2)
	if v, ok := it[t.hashKey]; ok {
		k[t.hashKey] = v
	}
	if t.rangeKey != "" {
		if v, ok := it[t.rangeKey]; ok {
			k[t.rangeKey] = v
		}
	}
	return k
}

// table looks a table up; callers hold s.mu.
func (s *Service) table(name string) *table { return s.tables[name] }

func (s *Service) tableARN(name string) string {
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", s.opts.Region, s.opts.AccountID, name)
}

var tableNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)

// validateTableName applies the model constraints of TableName (3–255
// characters of [a-zA-Z0-9_.-]) with AWS's validation message format.
func validateTableName(name string) error {
	switch {
	case name == "":
		return validation("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null")
	case len(name) < 3:
		return validation("1 validation error detected: Value '%s' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3", name)
	case len(name) > 255:
		return validation("1 validation error detected: Value '%s' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255", name)
	case !tableNameRE.MatchString(name):
		return validation("1 validation error detected: Value '%s' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", name)
	}
	return nil
}

func validateKeySchema(ks []ddbtypes.KeySchemaElement, defs map[string]ddbtypes.ScalarAttributeType, what string) error {
	if len(ks) == 0 || len(ks) > 2 {
		return validation("1 validation error detected: Value '%d elements' at '%s' failed to satisfy constraint: Member must have length less than or equal to 2 and greater than or equal to 1", len(ks), what)
	}
	if ks[0].KeyType != ddbtypes.KeyTypeHash || (len(ks) == 2 && ks[1].KeyType != ddbtypes.KeyTypeRange) {
		return validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	for _, k := range ks {
		name := aws.ToString(k.AttributeName)
		if _, ok := defs[name]; !ok {
			return validation("One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]",
				keyNames(ks), strings.Join(sortedKeys(defs), ", "))
		}
	}
	return nil
}

func keyNames(ks []ddbtypes.KeySchemaElement) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = aws.ToString(k.AttributeName)
	}
	return strings.Join(names, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func attrDefMap(defs []ddbtypes.AttributeDefinition) (map[string]ddbtypes.ScalarAttributeType, error) {
	m := make(map[string]ddbtypes.ScalarAttributeType, len(defs))
	for _, d := range defs {
		switch d.AttributeType {
		case ddbtypes.ScalarAttributeTypeS, ddbtypes.ScalarAttributeTypeN, ddbtypes.ScalarAttributeTypeB:
		default:
			return nil, validation("1 validation error detected: Value '%s' at 'attributeDefinitions.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]", d.AttributeType)
		}
		m[aws.ToString(d.AttributeName)] = d.AttributeType
	}
	return m, nil
}

// validateStreamSpec checks a StreamSpecification: enabling needs one of
// the four view types (docs/aws-behaviour.md §2.5).
func validateStreamSpec(spec *ddbtypes.StreamSpecification) error {
	if spec == nil || !aws.ToBool(spec.StreamEnabled) {
		return nil
	}
	switch spec.StreamViewType {
	case ViewKeysOnly, ViewNewImage, ViewOldImage, ViewNewAndOldImage:
		return nil
	case "":
		return validation("One or more parameter values were invalid: You must specify a StreamViewType when enabling a stream")
	default:
		return validation("1 validation error detected: Value '%s' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]", spec.StreamViewType)
	}
}

// validateBilling applies CreateTable's billing rules (DynamoDB API
// reference, CreateTable: BillingMode and ProvisionedThroughput).
func validateBilling(mode ddbtypes.BillingMode, pt *ddbtypes.ProvisionedThroughput, what string) error {
	switch mode {
	case ddbtypes.BillingModePayPerRequest:
		if pt != nil {
			return validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
	case ddbtypes.BillingModeProvisioned, "":
		if pt == nil || pt.ReadCapacityUnits == nil || pt.WriteCapacityUnits == nil {
			return validation("One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
		}
		if *pt.ReadCapacityUnits < 1 || *pt.WriteCapacityUnits < 1 {
			return validation("1 validation error detected: Value '%d' at '%s.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1", *pt.ReadCapacityUnits, what)
		}
	default:
		return validation("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", mode)
	}
	return nil
}

func (s *Service) createTable(body []byte) (any, error) {
	var in server.CreateTableInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	name := aws.ToString(in.TableName)
	if err := validateTableName(name); err != nil {
		return nil, err
	}
	defs, err := attrDefMap(in.AttributeDefinitions)
	if err != nil {
		return nil, err
	}
	if err := validateKeySchema(in.KeySchema, defs, "keySchema"); err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, k := range in.KeySchema {
		used[aws.ToString(k.AttributeName)] = true
	}
	for _, g := range in.GlobalSecondaryIndexes {
		if err := validateKeySchema(g.KeySchema, defs, "globalSecondaryIndexes.member.keySchema"); err != nil {
			return nil, err
		}
		if err := validateIndexBilling(in.BillingMode, g.ProvisionedThroughput, aws.ToString(g.IndexName)); err != nil {
			return nil, err
		}
		for _, k := range g.KeySchema {
			used[aws.ToString(k.AttributeName)] = true
		}
	}
	for _, l := range in.LocalSecondaryIndexes {
		if err := validateKeySchema(l.KeySchema, defs, "localSecondaryIndexes.member.keySchema"); err != nil {
			return nil, err
		}
		for _, k := range l.KeySchema {
			used[aws.ToString(k.AttributeName)] = true
		}
	}
	if len(used) != len(defs) {
		return nil, validation("One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
	}
	if err := validateBilling(in.BillingMode, in.ProvisionedThroughput, "provisionedThroughput"); err != nil {
		return nil, err
	}
	if err := validateStreamSpec(in.StreamSpecification); err != nil {
		return nil, err
	}
	if err := validateTags(in.Tags); err != nil {
		return nil, err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tables[name] != nil {
		return nil, apiErr("ResourceInUseException", "Table already exists: %s", name)
	}
	if _, err := s.db.CreateTable(context.Background(), &in); err != nil {
		return nil, fromMinidyn(err)
	}
	now := s.now()
	t := &table{
		name: name, arn: s.tableARN(name), id: uuid.NewString(), created: now,
		attrDefs: slices.Clone(in.AttributeDefinitions), keySchema: slices.Clone(in.KeySchema),
		billingMode: in.BillingMode, provisioned: in.ProvisionedThroughput,
		onDemand: in.OnDemandThroughput, warm: in.WarmThroughput, tableClass: in.TableClass,
		deletionProtect: aws.ToBool(in.DeletionProtectionEnabled), tags: map[string]string{},
	}
	if t.billingMode == "" {
		t.billingMode = ddbtypes.BillingModeProvisioned
	}
	if t.billingMode == ddbtypes.BillingModePayPerRequest {
		t.billingSwitched = now
	}
	t.hashKey = aws.ToString(in.KeySchema[0].AttributeName)
	if len(in.KeySchema) == 2 {
		t.rangeKey = aws.ToString(in.KeySchema[1].AttributeName)
	}
	for _, g := range in.GlobalSecondaryIndexes {
		t.gsis = append(t.gsis, &index{name: aws.ToString(g.IndexName), keySchema: g.KeySchema,
			projection: g.Projection, provisioned: g.ProvisionedThroughput, onDemand: g.OnDemandThroughput, warm: g.WarmThroughput})
	}
	for _, l := range in.LocalSecondaryIndexes {
		t.lsis = append(t.lsis, &index{name: aws.ToString(l.IndexName), keySchema: l.KeySchema, projection: l.Projection})
	}
	if sse := in.SSESpecification; sse != nil && aws.ToBool(sse.Enabled) {
		t.sseEnabled, t.sseKMSKey = true, s.kmsKey(aws.ToString(sse.KMSMasterKeyId))
	}
	for _, tag := range in.Tags {
		t.tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	if spec := in.StreamSpecification; spec != nil && aws.ToBool(spec.StreamEnabled) {
		s.enableStream(t, string(spec.StreamViewType))
	}
	s.tables[name] = t
	return map[string]any{"TableDescription": s.describe(t, "ACTIVE")}, nil
}

func validateIndexBilling(mode ddbtypes.BillingMode, pt *ddbtypes.ProvisionedThroughput, name string) error {
	if mode == ddbtypes.BillingModePayPerRequest {
		if pt != nil {
			return validation("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", name)
		}
		return nil
	}
	if pt == nil {
		return validation("One or more parameter values were invalid: ProvisionedThroughput must be specified for index: %s", name)
	}
	return nil
}

// kmsKey returns the key ARN of server-side encryption: the one given, or
// a stand-in for the AWS managed key alias/aws/dynamodb.
func (s *Service) kmsKey(given string) string {
	if strings.HasPrefix(given, "arn:") {
		return given
	}
	if given != "" {
		return fmt.Sprintf("arn:aws:kms:%s:%s:key/%s", s.opts.Region, s.opts.AccountID, given)
	}
	return fmt.Sprintf("arn:aws:kms:%s:%s:key/%s", s.opts.Region, s.opts.AccountID, uuid.NewString())
}

// enableStream starts a new stream for t; callers hold s.mu exclusively.
// Each enabling creates a new stream with a new label and ARN
// (docs/aws-behaviour.md §2.3).
func (s *Service) enableStream(t *table, viewType string) {
	created := s.now().UTC().Truncate(time.Millisecond)
	label := created.Format("2006-01-02T15:04:05.000")
	// Labels are millisecond timestamps; two enablings within the same
	// millisecond (a frozen test clock) must still get distinct ARNs.
	for s.streams[t.arn+"/stream/"+label] != nil {
		created = created.Add(time.Millisecond)
		label = created.Format("2006-01-02T15:04:05.000")
	}
	ks := make([]KeyElement, len(t.keySchema))
	for i, k := range t.keySchema {
		ks[i] = KeyElement{AttributeName: aws.ToString(k.AttributeName), KeyType: string(k.KeyType)}
	}
	start := s.seq.Add(1)
	st := &Stream{
		arn: t.arn + "/stream/" + label, label: label, tableName: t.name, viewType: viewType,
		// Shard ids follow AWS's "shardId-<20 digits>-<8 hex>" shape
		// (docs/aws-behaviour.md §2.3: 28–65 characters).
		shardID:   fmt.Sprintf("shardId-%020d-%s", created.UnixMilli(), eventID()[:8]),
		keySchema: ks, created: created, startSeq: start,
		now: s.opts.Now, retention: s.opts.StreamRetention, changed: make(chan struct{}),
	}
	t.stream, t.latest = st, st
	s.streams[st.arn] = st
}

func (s *Service) disableStream(t *table) {
	if t.stream != nil {
		t.stream.disable(s.now())
		t.stream = nil
	}
}

// purgeStreams forgets streams disabled longer ago than the retention;
// callers hold s.mu exclusively.
func (s *Service) purgeStreams() {
	now := s.now()
	for arn, st := range s.streams {
		if st.expired(now) {
			delete(s.streams, arn)
		}
	}
}

func (s *Service) describeTable(body []byte) (any, error) {
	var in server.DescribeTableInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	name := aws.ToString(in.TableName)
	if err := validateTableName(name); err != nil {
		return nil, err
	}
	// Exclusive: minidyn's DescribeTable reads its tables without a lock.
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.table(name)
	if t == nil {
		return nil, notFoundTable(name)
	}
	return map[string]any{"Table": s.describe(t, "ACTIVE")}, nil
}

func (s *Service) deleteTable(body []byte) (any, error) {
	var in server.DeleteTableInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	name := aws.ToString(in.TableName)
	if err := validateTableName(name); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.table(name)
	if t == nil {
		return nil, notFoundTable(name)
	}
	if t.deletionProtect {
		return nil, validation("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	desc := s.describe(t, "DELETING")
	if _, err := s.db.DeleteTable(context.Background(), &in); err != nil {
		return nil, fromMinidyn(err)
	}
	// Deleting a table closes its stream; the records stay readable for
	// 24 hours (docs/aws-behaviour.md §2.5).
	s.disableStream(t)
	t.writeMu.Lock()
	s.dropScratch(t)
	t.writeMu.Unlock()
	delete(s.tables, name)
	s.purgeStreams()
	return map[string]any{"TableDescription": desc}, nil
}

func (s *Service) listTables(body []byte) (any, error) {
	var in struct {
		ExclusiveStartTableName *string
		Limit                   *int32
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return nil, validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and 100", *in.Limit)
		}
		limit = int(*in.Limit)
	}
	s.mu.RLock()
	names := sortedKeys(s.tables)
	s.mu.RUnlock()
	if start := aws.ToString(in.ExclusiveStartTableName); start != "" {
		i := sort.SearchStrings(names, start)
		if i < len(names) && names[i] == start {
			i++
		}
		names = names[i:]
	}
	out := map[string]any{}
	if len(names) > limit {
		names = names[:limit]
		out["LastEvaluatedTableName"] = names[limit-1]
	}
	out["TableNames"] = append([]string{}, names...)
	return out, nil
}

func (s *Service) updateTable(body []byte) (any, error) {
	var in server.UpdateTableInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	name := aws.ToString(in.TableName)
	if err := validateTableName(name); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.table(name)
	if t == nil {
		return nil, notFoundTable(name)
	}
	if len(in.ReplicaUpdates) > 0 || in.MultiRegionConsistency != "" {
		return nil, validation("global table replicas are not emulated by the taskpipe local cloud")
	}
	if in.BillingMode == "" && in.ProvisionedThroughput == nil && in.StreamSpecification == nil &&
		len(in.GlobalSecondaryIndexUpdates) == 0 && in.SSESpecification == nil && in.TableClass == "" &&
		in.DeletionProtectionEnabled == nil && in.OnDemandThroughput == nil && in.WarmThroughput == nil {
		return nil, validation("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
	}
	mode := t.billingMode
	if in.BillingMode != "" {
		mode = in.BillingMode
	}
	pt := t.provisioned
	if in.ProvisionedThroughput != nil {
		pt = in.ProvisionedThroughput
	} else if mode == ddbtypes.BillingModePayPerRequest {
		pt = nil
	}
	if err := validateBilling(mode, pt, "provisionedThroughput"); err != nil {
		return nil, err
	}
	if spec := in.StreamSpecification; spec != nil {
		if err := validateStreamSpec(spec); err != nil {
			return nil, err
		}
		// AWS refuses to enable a stream twice or to change the view type
		// of an enabled stream, and to disable a stream that does not
		// exist (issues: terraform-provider-aws#18402, scylladb#6939).
		if aws.ToBool(spec.StreamEnabled) && t.stream != nil {
			return nil, validation("Table already has an enabled stream: TableName: %s", name)
		}
		if !aws.ToBool(spec.StreamEnabled) && t.stream == nil {
			return nil, validation("Table has no stream to disable: TableName: %s", name)
		}
	}
	defs := slices.Clone(t.attrDefs)
	for _, d := range in.AttributeDefinitions {
		if !slices.ContainsFunc(defs, func(e ddbtypes.AttributeDefinition) bool {
			return aws.ToString(e.AttributeName) == aws.ToString(d.AttributeName)
		}) {
			defs = append(defs, d)
		}
	}
	defMap, err := attrDefMap(defs)
	if err != nil {
		return nil, err
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if err := t.checkIndexUpdate(u, defMap, mode); err != nil {
			return nil, err
		}
	}
	if len(in.GlobalSecondaryIndexUpdates) > 0 {
		if _, err := s.db.UpdateTable(context.Background(), &server.UpdateTableInput{
			TableName: in.TableName, AttributeDefinitions: defs, GlobalSecondaryIndexUpdates: in.GlobalSecondaryIndexUpdates,
		}); err != nil {
			return nil, fromMinidyn(err)
		}
		t.attrDefs = defs
		t.applyIndexUpdates(in.GlobalSecondaryIndexUpdates)
		if err := s.backfill(t, in.GlobalSecondaryIndexUpdates); err != nil {
			return nil, err
		}
	}
	if mode != t.billingMode && mode == ddbtypes.BillingModePayPerRequest {
		t.billingSwitched = s.now()
	}
	t.billingMode, t.provisioned = mode, pt
	if in.OnDemandThroughput != nil {
		t.onDemand = in.OnDemandThroughput
	}
	if in.WarmThroughput != nil {
		t.warm = in.WarmThroughput
	}
	if in.TableClass != "" {
		t.tableClass = in.TableClass
	}
	if in.DeletionProtectionEnabled != nil {
		t.deletionProtect = *in.DeletionProtectionEnabled
	}
	if sse := in.SSESpecification; sse != nil {
		t.sseEnabled = aws.ToBool(sse.Enabled)
		t.sseKMSKey = ""
		if t.sseEnabled {
			t.sseKMSKey = s.kmsKey(aws.ToString(sse.KMSMasterKeyId))
		}
	}
	if spec := in.StreamSpecification; spec != nil {
		if aws.ToBool(spec.StreamEnabled) {
			s.enableStream(t, string(spec.StreamViewType))
		} else {
			s.disableStream(t)
		}
	}
	s.purgeStreams()
	return map[string]any{"TableDescription": s.describe(t, "ACTIVE")}, nil
}

// backfill puts every existing item into indexes created by UpdateTable.
// AWS backfills a new index before it turns ACTIVE; minidyn only indexes
// later writes, so the emulator rewrites each item unchanged (no stream
// record: the item does not change). Callers hold s.mu exclusively.
func (s *Service) backfill(t *table, updates []ddbtypes.GlobalSecondaryIndexUpdate) error {
	if !slices.ContainsFunc(updates, func(u ddbtypes.GlobalSecondaryIndexUpdate) bool { return u.Create != nil }) {
		return nil
	}
	out, err := s.db.Scan(context.Background(), &server.ScanInput{TableName: aws.String(t.name)})
	if err != nil {
		return fromMinidyn(err)
	}
	for _, it := range out.Items {
		if _, err := s.db.PutItem(context.Background(), &server.PutItemInput{TableName: aws.String(t.name), Item: it}); err != nil {
			return fromMinidyn(err)
		}
	}
	return nil
}

func (t *table) gsi(name string) *index {
	for _, g := range t.gsis {
		if g.name == name {
			return g
		}
	}
	return nil
}

func (t *table) checkIndexUpdate(u ddbtypes.GlobalSecondaryIndexUpdate, defs map[string]ddbtypes.ScalarAttributeType, mode ddbtypes.BillingMode) error {
	switch {
	case u.Create != nil:
		name := aws.ToString(u.Create.IndexName)
		if t.gsi(name) != nil {
			return validation("One or more parameter values were invalid: Index with name: %s already exists", name)
		}
		if err := validateKeySchema(u.Create.KeySchema, defs, "globalSecondaryIndexUpdates.member.create.keySchema"); err != nil {
			return err
		}
		return validateIndexBilling(mode, u.Create.ProvisionedThroughput, name)
	case u.Delete != nil:
		if name := aws.ToString(u.Delete.IndexName); t.gsi(name) == nil {
			return apiErr("ResourceNotFoundException", "Requested resource not found: Index: %s not found", name)
		}
	case u.Update != nil:
		if name := aws.ToString(u.Update.IndexName); t.gsi(name) == nil {
			return apiErr("ResourceNotFoundException", "Requested resource not found: Index: %s not found", name)
		}
	default:
		return validation("One or more parameter values were invalid: a GlobalSecondaryIndexUpdate needs one of Create, Update or Delete")
	}
	return nil
}

func (t *table) applyIndexUpdates(updates []ddbtypes.GlobalSecondaryIndexUpdate) {
	for _, u := range updates {
		switch {
		case u.Create != nil:
			c := u.Create
			t.gsis = append(t.gsis, &index{name: aws.ToString(c.IndexName), keySchema: c.KeySchema, projection: c.Projection,
				provisioned: c.ProvisionedThroughput, onDemand: c.OnDemandThroughput, warm: c.WarmThroughput})
		case u.Delete != nil:
			name := aws.ToString(u.Delete.IndexName)
			t.gsis = slices.DeleteFunc(t.gsis, func(g *index) bool { return g.name == name })
		case u.Update != nil:
			g := t.gsi(aws.ToString(u.Update.IndexName))
			if u.Update.ProvisionedThroughput != nil {
				g.provisioned = u.Update.ProvisionedThroughput
			}
			if u.Update.OnDemandThroughput != nil {
				g.onDemand = u.Update.OnDemandThroughput
			}
			if u.Update.WarmThroughput != nil {
				g.warm = u.Update.WarmThroughput
			}
		}
	}
}

// Wire shapes of DescribeTable (DynamoDB API reference, TableDescription).
type (
	tableDescription struct {
		AttributeDefinitions      []attrDef            `json:"AttributeDefinitions"`
		BillingModeSummary        *billingModeSummary  `json:"BillingModeSummary,omitempty"`
		CreationDateTime          float64              `json:"CreationDateTime"`
		DeletionProtectionEnabled bool                 `json:"DeletionProtectionEnabled"`
		GlobalSecondaryIndexes    []indexDescription   `json:"GlobalSecondaryIndexes,omitempty"`
		ItemCount                 int64                `json:"ItemCount"`
		KeySchema                 []keyElement         `json:"KeySchema"`
		LatestStreamArn           string               `json:"LatestStreamArn,omitempty"`
		LatestStreamLabel         string               `json:"LatestStreamLabel,omitempty"`
		LocalSecondaryIndexes     []indexDescription   `json:"LocalSecondaryIndexes,omitempty"`
		OnDemandThroughput        *onDemandThroughput  `json:"OnDemandThroughput,omitempty"`
		ProvisionedThroughput     *throughputDesc      `json:"ProvisionedThroughput,omitempty"`
		SSEDescription            *sseDescription      `json:"SSEDescription,omitempty"`
		StreamSpecification       *streamSpecification `json:"StreamSpecification,omitempty"`
		TableArn                  string               `json:"TableArn"`
		TableClassSummary         *tableClassSummary   `json:"TableClassSummary,omitempty"`
		TableID                   string               `json:"TableId"`
		TableName                 string               `json:"TableName"`
		TableSizeBytes            int64                `json:"TableSizeBytes"`
		TableStatus               string               `json:"TableStatus"`
		WarmThroughput            *warmThroughputDesc  `json:"WarmThroughput,omitempty"`
	}
	attrDef struct {
		AttributeName string `json:"AttributeName"`
		AttributeType string `json:"AttributeType"`
	}
	keyElement struct {
		AttributeName string `json:"AttributeName"`
		KeyType       string `json:"KeyType"`
	}
	billingModeSummary struct {
		BillingMode                       string   `json:"BillingMode"`
		LastUpdateToPayPerRequestDateTime *float64 `json:"LastUpdateToPayPerRequestDateTime,omitempty"`
	}
	throughputDesc struct {
		NumberOfDecreasesToday int64 `json:"NumberOfDecreasesToday"`
		ReadCapacityUnits      int64 `json:"ReadCapacityUnits"`
		WriteCapacityUnits     int64 `json:"WriteCapacityUnits"`
	}
	onDemandThroughput struct {
		MaxReadRequestUnits  *int64 `json:"MaxReadRequestUnits,omitempty"`
		MaxWriteRequestUnits *int64 `json:"MaxWriteRequestUnits,omitempty"`
	}
	warmThroughputDesc struct {
		ReadUnitsPerSecond  *int64 `json:"ReadUnitsPerSecond,omitempty"`
		WriteUnitsPerSecond *int64 `json:"WriteUnitsPerSecond,omitempty"`
		Status              string `json:"Status"`
	}
	sseDescription struct {
		KMSMasterKeyArn string `json:"KMSMasterKeyArn,omitempty"`
		SSEType         string `json:"SSEType"`
		Status          string `json:"Status"`
	}
	streamSpecification struct {
		StreamEnabled  bool   `json:"StreamEnabled"`
		StreamViewType string `json:"StreamViewType,omitempty"`
	}
	tableClassSummary struct {
		TableClass string `json:"TableClass"`
	}
	projection struct {
		NonKeyAttributes []string `json:"NonKeyAttributes,omitempty"`
		ProjectionType   string   `json:"ProjectionType,omitempty"`
	}
	indexDescription struct {
		IndexArn              string              `json:"IndexArn"`
		IndexName             string              `json:"IndexName"`
		IndexSizeBytes        int64               `json:"IndexSizeBytes"`
		IndexStatus           string              `json:"IndexStatus,omitempty"`
		ItemCount             int64               `json:"ItemCount"`
		KeySchema             []keyElement        `json:"KeySchema"`
		OnDemandThroughput    *onDemandThroughput `json:"OnDemandThroughput,omitempty"`
		Projection            projection          `json:"Projection"`
		ProvisionedThroughput *throughputDesc     `json:"ProvisionedThroughput,omitempty"`
		WarmThroughput        *warmThroughputDesc `json:"WarmThroughput,omitempty"`
	}
)

func keyElements(ks []ddbtypes.KeySchemaElement) []keyElement {
	out := make([]keyElement, len(ks))
	for i, k := range ks {
		out[i] = keyElement{AttributeName: aws.ToString(k.AttributeName), KeyType: string(k.KeyType)}
	}
	return out
}

func throughput(pt *ddbtypes.ProvisionedThroughput) *throughputDesc {
	// On-demand tables report zero capacity (DescribeTable on AWS).
	d := &throughputDesc{}
	if pt != nil {
		d.ReadCapacityUnits = aws.ToInt64(pt.ReadCapacityUnits)
		d.WriteCapacityUnits = aws.ToInt64(pt.WriteCapacityUnits)
	}
	return d
}

func onDemand(o *ddbtypes.OnDemandThroughput) *onDemandThroughput {
	if o == nil {
		return nil
	}
	return &onDemandThroughput{MaxReadRequestUnits: o.MaxReadRequestUnits, MaxWriteRequestUnits: o.MaxWriteRequestUnits}
}

func warm(w *ddbtypes.WarmThroughput) *warmThroughputDesc {
	if w == nil {
		return nil
	}
	return &warmThroughputDesc{ReadUnitsPerSecond: w.ReadUnitsPerSecond, WriteUnitsPerSecond: w.WriteUnitsPerSecond, Status: "ACTIVE"}
}

func projectionOf(p *ddbtypes.Projection) projection {
	if p == nil {
		return projection{}
	}
	return projection{NonKeyAttributes: p.NonKeyAttributes, ProjectionType: string(p.ProjectionType)}
}

// describe builds t's TableDescription; callers hold s.mu exclusively
// (item counts come from minidyn's unlocked DescribeTable). Tables and
// indexes are ACTIVE at once: the emulator has no provisioning delay.
func (s *Service) describe(t *table, status string) tableDescription {
	d := tableDescription{
		CreationDateTime: epoch(t.created), DeletionProtectionEnabled: t.deletionProtect,
		KeySchema: keyElements(t.keySchema), TableArn: t.arn, TableID: t.id, TableName: t.name, TableStatus: status,
		BillingModeSummary:    &billingModeSummary{BillingMode: string(t.billingMode)},
		ProvisionedThroughput: throughput(t.provisioned), OnDemandThroughput: onDemand(t.onDemand), WarmThroughput: warm(t.warm),
	}
	if !t.billingSwitched.IsZero() {
		ts := epoch(t.billingSwitched)
		d.BillingModeSummary.LastUpdateToPayPerRequestDateTime = &ts
	}
	for _, a := range t.attrDefs {
		d.AttributeDefinitions = append(d.AttributeDefinitions, attrDef{AttributeName: aws.ToString(a.AttributeName), AttributeType: string(a.AttributeType)})
	}
	counts := map[string]int64{}
	if out, err := s.db.DescribeTable(context.Background(), &server.DescribeTableInput{TableName: aws.String(t.name)}); err == nil {
		if td, ok := out.Table.(*ddbtypes.TableDescription); ok && td != nil {
			d.ItemCount = aws.ToInt64(td.ItemCount)
			for _, g := range td.GlobalSecondaryIndexes {
				counts[aws.ToString(g.IndexName)] = aws.ToInt64(g.ItemCount)
			}
			for _, l := range td.LocalSecondaryIndexes {
				counts[aws.ToString(l.IndexName)] = aws.ToInt64(l.ItemCount)
			}
		}
	}
	for _, g := range t.gsis {
		gd := indexDescription{
			IndexArn: t.arn + "/index/" + g.name, IndexName: g.name, IndexStatus: "ACTIVE", ItemCount: counts[g.name],
			KeySchema: keyElements(g.keySchema), Projection: projectionOf(g.projection),
			ProvisionedThroughput: throughput(g.provisioned), OnDemandThroughput: onDemand(g.onDemand), WarmThroughput: warm(g.warm),
		}
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, gd)
	}
	for _, l := range t.lsis {
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, indexDescription{
			IndexArn: t.arn + "/index/" + l.name, IndexName: l.name, ItemCount: counts[l.name],
			KeySchema: keyElements(l.keySchema), Projection: projectionOf(l.projection),
		})
	}
	if t.sseEnabled {
		d.SSEDescription = &sseDescription{KMSMasterKeyArn: t.sseKMSKey, SSEType: "KMS", Status: "ENABLED"}
	}
	if t.tableClass != "" {
		d.TableClassSummary = &tableClassSummary{TableClass: string(t.tableClass)}
	}
	if t.latest != nil {
		// LatestStreamArn/Label stay after the stream is disabled; the
		// StreamSpecification is reported only while a stream is enabled.
		d.LatestStreamArn, d.LatestStreamLabel = t.latest.arn, t.latest.label
	}
	if t.stream != nil {
		d.StreamSpecification = &streamSpecification{StreamEnabled: true, StreamViewType: t.stream.viewType}
	}
	return d
}
