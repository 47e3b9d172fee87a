package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"
)

// aws_dynamodb_table. Source: hashicorp/terraform-provider-aws
// internal/service/dynamodb/table.go (resourceTableCreate/Read/Update/
// Delete, flattenTableGlobalSecondaryIndex, flattenTTL, flattenPITR,
// flattenTableServerSideEncryption, clearSSEDefaultKey, updateDiffGSI,
// deleteTable) and wait.go (waitTableActive, waitGSIActive, waitTableDeleted,
// waitTTLUpdated, waitPITRUpdated). The id is the table name.

func (c *clients) dynamodb(ctx context.Context, pc *Config, region string) (*dynamodb.Client, error) {
	cfg, err := c.awsConfig(ctx, pc, region)
	if err != nil {
		return nil, err
	}
	ep := c.endpoint(pc, "dynamodb")
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = ep }), nil
}

// streams is the DynamoDB Streams client. The provider's endpoints block
// has no dynamodbstreams key: a custom dynamodb endpoint serves Streams
// calls too (the Streams API shares the dynamodb service package).
func (c *clients) streams(ctx context.Context, pc *Config, region string) (*dynamodbstreams.Client, error) {
	cfg, err := c.awsConfig(ctx, pc, region)
	if err != nil {
		return nil, err
	}
	ep := c.endpoint(pc, "dynamodb")
	return dynamodbstreams.NewFromConfig(cfg, func(o *dynamodbstreams.Options) { o.BaseEndpoint = ep }), nil
}

// Timeouts of table.go (createTableTimeout, updateTableTimeoutTotal,
// deleteTableTimeout).
const (
	tableCreateTimeout = 30 * time.Minute
	tableUpdateTimeout = 60 * time.Minute
	tableDeleteTimeout = 10 * time.Minute
)

func tableGone(err error) bool {
	var nf *ddbtypes.ResourceNotFoundException
	return errors.As(err, &nf) || isCode(err, "ResourceNotFoundException")
}

type tableHandler struct{ c *clients }

func (h *tableHandler) check(cfg cty.Value) error {
	return unsupportedSet("aws_dynamodb_table", cfg, map[string]string{
		"replica":                              "the local cloud has one region; global table replicas are not emulated",
		"global_table_witness":                 "the local cloud has one region; global tables are not emulated",
		"import_table":                         "the local cloud has no S3 to import from",
		"restore_source_name":                  "point-in-time restores are not emulated",
		"restore_source_table_arn":             "point-in-time restores are not emulated",
		"restore_date_time":                    "point-in-time restores are not emulated",
		"restore_to_latest_time":               "point-in-time restores are not emulated",
		"restore_backup_arn":                   "backups are not emulated",
		"server_side_encryption.*.kms_key_arn": "the local cloud has no KMS; leave kms_key_arn unset to use the AWS managed key",
	}, "replica", "global_table_witness", "import_table", "restore_source_name", "restore_source_table_arn",
		"restore_date_time", "restore_to_latest_time", "restore_backup_arn", "server_side_encryption.*.kms_key_arn")
}

func keySchema(hash, rng string) []ddbtypes.KeySchemaElement {
	ks := []ddbtypes.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: ddbtypes.KeyTypeHash}}
	if rng != "" {
		ks = append(ks, ddbtypes.KeySchemaElement{AttributeName: aws.String(rng), KeyType: ddbtypes.KeyTypeRange})
	}
	return ks
}

// indexKeySchema is an index's key schema: its key_schema blocks when
// given (6.x), else hash_key and range_key.
func indexKeySchema(idx cty.Value) []ddbtypes.KeySchemaElement {
	if ks := blocks(idx, "key_schema"); len(ks) > 0 {
		var out []ddbtypes.KeySchemaElement
		for _, k := range ks {
			out = append(out, ddbtypes.KeySchemaElement{AttributeName: strp(k, "attribute_name"), KeyType: ddbtypes.KeyType(str(k, "key_type"))})
		}
		return out
	}
	return keySchema(str(idx, "hash_key"), str(idx, "range_key"))
}

func projection(idx cty.Value) *ddbtypes.Projection {
	p := &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionType(str(idx, "projection_type"))}
	if nka := strs(idx, "non_key_attributes"); len(nka) > 0 {
		p.NonKeyAttributes = nka
	}
	return p
}

func provisioned(v cty.Value, mode ddbtypes.BillingMode) *ddbtypes.ProvisionedThroughput {
	if mode == ddbtypes.BillingModePayPerRequest {
		return nil
	}
	r, _ := intAttr(v, "read_capacity")
	w, _ := intAttr(v, "write_capacity")
	return &ddbtypes.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
}

func onDemandOf(v cty.Value) *ddbtypes.OnDemandThroughput {
	b := block(v, "on_demand_throughput")
	if !known(b) {
		return nil
	}
	o := &ddbtypes.OnDemandThroughput{}
	if i, ok := intAttr(b, "max_read_request_units"); ok {
		o.MaxReadRequestUnits = aws.Int64(i)
	}
	if i, ok := intAttr(b, "max_write_request_units"); ok {
		o.MaxWriteRequestUnits = aws.Int64(i)
	}
	return o
}

func warmOf(v cty.Value) *ddbtypes.WarmThroughput {
	b := block(v, "warm_throughput")
	if !known(b) {
		return nil
	}
	w := &ddbtypes.WarmThroughput{}
	if i, ok := intAttr(b, "read_units_per_second"); ok {
		w.ReadUnitsPerSecond = aws.Int64(i)
	}
	if i, ok := intAttr(b, "write_units_per_second"); ok {
		w.WriteUnitsPerSecond = aws.Int64(i)
	}
	return w
}

func gsiOf(idx cty.Value, mode ddbtypes.BillingMode) ddbtypes.GlobalSecondaryIndex {
	return ddbtypes.GlobalSecondaryIndex{
		IndexName: strp(idx, "name"), KeySchema: indexKeySchema(idx), Projection: projection(idx),
		ProvisionedThroughput: provisioned(idx, mode), OnDemandThroughput: onDemandOf(idx), WarmThroughput: warmOf(idx),
	}
}

func attributeDefs(v cty.Value) []ddbtypes.AttributeDefinition {
	var out []ddbtypes.AttributeDefinition
	for _, a := range blocks(v, "attribute") {
		out = append(out, ddbtypes.AttributeDefinition{AttributeName: strp(a, "name"), AttributeType: ddbtypes.ScalarAttributeType(str(a, "type"))})
	}
	return out
}

// sseSpec is expandEncryptAtRestOptions.
func sseSpec(v cty.Value) *ddbtypes.SSESpecification {
	b := block(v, "server_side_encryption")
	if !known(b) {
		return nil
	}
	enabled := boolAttr(b, "enabled")
	spec := &ddbtypes.SSESpecification{Enabled: aws.Bool(enabled)}
	if enabled {
		if k := str(b, "kms_key_arn"); k != "" {
			spec.SSEType = ddbtypes.SSETypeKms
			spec.KMSMasterKeyId = aws.String(k)
		}
	}
	return spec
}

// Create is resourceTableCreate: CreateTable, wait ACTIVE (and the indexes),
// then TTL and point-in-time recovery when enabled, then Read.
func (h *tableHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := h.check(req.Config); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.dynamodb(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := str(p, "name")
	mode := ddbtypes.BillingMode(str(p, "billing_mode"))
	in := &dynamodb.CreateTableInput{
		TableName:                 aws.String(name),
		BillingMode:               mode,
		KeySchema:                 keySchema(str(p, "hash_key"), str(p, "range_key")),
		AttributeDefinitions:      attributeDefs(p),
		ProvisionedThroughput:     provisioned(p, mode),
		OnDemandThroughput:        onDemandOf(p),
		WarmThroughput:            warmOf(p),
		SSESpecification:          sseSpec(p),
		TableClass:                ddbtypes.TableClass(str(p, "table_class")),
		DeletionProtectionEnabled: boolp(p, "deletion_protection_enabled"),
	}
	if boolAttr(p, "stream_enabled") {
		in.StreamSpecification = &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewType(strings.ToUpper(str(p, "stream_view_type")))}
	}
	for _, g := range blocks(p, "global_secondary_index") {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, gsiOf(g, mode))
	}
	for _, l := range blocks(p, "local_secondary_index") {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, ddbtypes.LocalSecondaryIndex{
			IndexName: strp(l, "name"), KeySchema: keySchema(str(p, "hash_key"), str(l, "range_key")), Projection: projection(l),
		})
	}
	for _, k := range sortedKeys(tagsIn(p, pc)) {
		in.Tags = append(in.Tags, ddbtypes.Tag{Key: aws.String(k), Value: aws.String(tagsIn(p, pc)[k])})
	}
	// "Only 10 tables can be created, updated, or deleted simultaneously".
	if _, err := retryWhen(ctx, tableCreateTimeout, func(ctx context.Context) (*dynamodb.CreateTableOutput, error) {
		return cl.CreateTable(ctx, in)
	}, func(err error) bool {
		return isCode(err, "LimitExceededException") && strings.Contains(err.Error(), "simultaneously")
	}); err != nil {
		return cty.NilVal, fmt.Errorf("creating DynamoDB Table (%s): %w", name, err)
	}
	if err := h.waitActive(ctx, cl, name, tableCreateTimeout); err != nil {
		return created(req, name, err)
	}
	if in.StreamSpecification != nil {
		if err := h.waitStream(ctx, pc, regionOf(p, pc), cl, name); err != nil {
			return created(req, name, err)
		}
	}
	if ttl := block(p, "ttl"); boolAttr(ttl, "enabled") {
		if err := h.updateTTL(ctx, cl, name, ttl); err != nil {
			return created(req, name, err)
		}
	}
	if pitr := block(p, "point_in_time_recovery"); boolAttr(pitr, "enabled") {
		if err := h.updatePITR(ctx, cl, name, pitr); err != nil {
			return created(req, name, err)
		}
	}
	return h.readBack(ctx, cl, req, name)
}

func (h *tableHandler) readBack(ctx context.Context, cl *dynamodb.Client, req *ApplyRequest, name string) (cty.Value, error) {
	st, err := h.read(ctx, cl, req.Schema.Block, with(req.Planned, map[string]cty.Value{"id": sv(name)}), req.Provider)
	if err != nil {
		return created(req, name, err)
	}
	if st.IsNull() {
		return created(req, name, fmt.Errorf("reading DynamoDB Table (%s): not found after apply", name))
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// waitActive is waitTableActive plus waitGSIActive for every index.
func (h *tableHandler) waitActive(ctx context.Context, cl *dynamodb.Client, name string, timeout time.Duration) error {
	return waitUntil(ctx, timeout, "DynamoDB Table ("+name+") to be ACTIVE", func(ctx context.Context) (bool, error) {
		out, err := cl.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if tableGone(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if out.Table.TableStatus != ddbtypes.TableStatusActive {
			return false, nil
		}
		for _, g := range out.Table.GlobalSecondaryIndexes {
			if g.IndexStatus != ddbtypes.IndexStatusActive {
				return false, nil
			}
		}
		return true, nil
	})
}

// waitStream waits until the table's new stream is ENABLED in the
// DynamoDB Streams API, so a pipe or mapping created next can read it.
// The provider does not wait for this; AWS enables a stream with its table.
func (h *tableHandler) waitStream(ctx context.Context, pc *Config, region string, cl *dynamodb.Client, name string) error {
	out, err := cl.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("reading DynamoDB Table (%s): %w", name, err)
	}
	arn := aws.ToString(out.Table.LatestStreamArn)
	if arn == "" {
		return fmt.Errorf("DynamoDB Table (%s) reports no stream although one was enabled", name)
	}
	sc, err := h.c.streams(ctx, pc, region)
	if err != nil {
		return err
	}
	return waitUntil(ctx, 5*time.Minute, "DynamoDB Stream ("+arn+") to be ENABLED", func(ctx context.Context) (bool, error) {
		d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		if err != nil {
			return false, err
		}
		return d.StreamDescription.StreamStatus == streamtypes.StreamStatusEnabled, nil
	})
}

// updateTTL is updateTimeToLive plus waitTTLUpdated.
func (h *tableHandler) updateTTL(ctx context.Context, cl *dynamodb.Client, name string, ttl cty.Value) error {
	enabled := boolAttr(ttl, "enabled")
	attrName := str(ttl, "attribute_name")
	if !enabled && attrName == "" {
		// Disabling needs the current attribute name, which AWS reports.
		out, err := cl.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
		if err != nil {
			return fmt.Errorf("reading DynamoDB Table (%s) TTL: %w", name, err)
		}
		if out.TimeToLiveDescription == nil || out.TimeToLiveDescription.TimeToLiveStatus != ddbtypes.TimeToLiveStatusEnabled {
			return nil
		}
		attrName = aws.ToString(out.TimeToLiveDescription.AttributeName)
	}
	if _, err := cl.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(name),
		TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String(attrName), Enabled: aws.Bool(enabled)},
	}); err != nil {
		return fmt.Errorf("updating DynamoDB Table (%s) Time To Live: %w", name, err)
	}
	want := ddbtypes.TimeToLiveStatusDisabled
	if enabled {
		want = ddbtypes.TimeToLiveStatusEnabled
	}
	return waitUntil(ctx, tableUpdateTimeout, "DynamoDB Table ("+name+") Time To Live", func(ctx context.Context) (bool, error) {
		out, err := cl.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
		if err != nil {
			return false, err
		}
		return out.TimeToLiveDescription != nil && out.TimeToLiveDescription.TimeToLiveStatus == want, nil
	})
}

// updatePITR is updatePITR plus waitPITRUpdated; recovery_period_in_days is
// sent when known (the local cloud stores it).
func (h *tableHandler) updatePITR(ctx context.Context, cl *dynamodb.Client, name string, pitr cty.Value) error {
	enabled := boolAttr(pitr, "enabled")
	spec := &ddbtypes.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(enabled)}
	if enabled {
		spec.RecoveryPeriodInDays = int32p(pitr, "recovery_period_in_days")
	}
	if _, err := cl.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name), PointInTimeRecoverySpecification: spec}); err != nil {
		return fmt.Errorf("updating DynamoDB Table (%s) point in time recovery: %w", name, err)
	}
	want := ddbtypes.PointInTimeRecoveryStatusDisabled
	if enabled {
		want = ddbtypes.PointInTimeRecoveryStatusEnabled
	}
	return waitUntil(ctx, tableUpdateTimeout, "DynamoDB Table ("+name+") point in time recovery", func(ctx context.Context) (bool, error) {
		out, err := cl.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
		if err != nil {
			return false, err
		}
		d := out.ContinuousBackupsDescription
		return d != nil && d.PointInTimeRecoveryDescription != nil && d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus == want, nil
	})
}

// Read is resourceTableRead.
func (h *tableHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.dynamodb(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Schema.Block, req.Current, req.Provider)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func (h *tableHandler) read(ctx context.Context, cl *dynamodb.Client, sch *tfjson.SchemaBlock, cur cty.Value, pc *Config) (cty.Value, error) {
	name := str(cur, "id")
	out, err := cl.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if tableGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading DynamoDB Table (%s): %w", name, err)
	}
	t := out.Table
	vals := map[string]cty.Value{
		"id":                          sv(aws.ToString(t.TableName)),
		"arn":                         sv(aws.ToString(t.TableArn)),
		"name":                        sv(aws.ToString(t.TableName)),
		"billing_mode":                sv(string(ddbtypes.BillingModeProvisioned)),
		"deletion_protection_enabled": bv(aws.ToBool(t.DeletionProtectionEnabled)),
		"stream_arn":                  sv(aws.ToString(t.LatestStreamArn)),
		"stream_label":                sv(aws.ToString(t.LatestStreamLabel)),
		"table_class":                 sv(string(ddbtypes.TableClassStandard)),
		"range_key":                   cty.NullVal(cty.String),
	}
	if t.BillingModeSummary != nil {
		vals["billing_mode"] = sv(string(t.BillingModeSummary.BillingMode))
	}
	if t.ProvisionedThroughput != nil {
		vals["read_capacity"] = ivp64(t.ProvisionedThroughput.ReadCapacityUnits)
		vals["write_capacity"] = ivp64(t.ProvisionedThroughput.WriteCapacityUnits)
	}
	if t.TableClassSummary != nil {
		vals["table_class"] = sv(string(t.TableClassSummary.TableClass))
	}
	for _, k := range t.KeySchema {
		switch k.KeyType {
		case ddbtypes.KeyTypeHash:
			vals["hash_key"] = sv(aws.ToString(k.AttributeName))
		case ddbtypes.KeyTypeRange:
			vals["range_key"] = sv(aws.ToString(k.AttributeName))
		}
	}
	var defs []map[string]cty.Value
	for _, d := range t.AttributeDefinitions {
		defs = append(defs, map[string]cty.Value{"name": sv(aws.ToString(d.AttributeName)), "type": sv(string(d.AttributeType))})
	}
	vals["attribute"] = blockOf(nestedType(sch, "attribute"), defs...)
	if s := t.StreamSpecification; s != nil {
		vals["stream_enabled"] = bv(aws.ToBool(s.StreamEnabled))
		vals["stream_view_type"] = sv(string(s.StreamViewType))
	} else {
		vals["stream_enabled"] = cty.False
	}

	gsiType := nestedType(sch, "global_secondary_index")
	var gsis []map[string]cty.Value
	for _, g := range t.GlobalSecondaryIndexes {
		m := map[string]cty.Value{"name": sv(aws.ToString(g.IndexName)), "range_key": cty.NullVal(cty.String)}
		if g.ProvisionedThroughput != nil {
			m["read_capacity"] = ivp64(g.ProvisionedThroughput.ReadCapacityUnits)
			m["write_capacity"] = ivp64(g.ProvisionedThroughput.WriteCapacityUnits)
		}
		for _, k := range g.KeySchema {
			switch k.KeyType {
			case ddbtypes.KeyTypeHash:
				m["hash_key"] = sv(aws.ToString(k.AttributeName))
			case ddbtypes.KeyTypeRange:
				m["range_key"] = sv(aws.ToString(k.AttributeName))
			}
		}
		if p := g.Projection; p != nil {
			m["projection_type"] = sv(string(p.ProjectionType))
			if len(p.NonKeyAttributes) > 0 {
				m["non_key_attributes"] = setOf(p.NonKeyAttributes)
			}
		}
		if o := g.OnDemandThroughput; o != nil {
			m["on_demand_throughput"] = blockOf(nestedType(sch, "global_secondary_index", "on_demand_throughput"),
				map[string]cty.Value{"max_read_request_units": ivp64(o.MaxReadRequestUnits), "max_write_request_units": ivp64(o.MaxWriteRequestUnits)})
		}
		if w := g.WarmThroughput; w != nil {
			m["warm_throughput"] = blockOf(nestedType(sch, "global_secondary_index", "warm_throughput"),
				map[string]cty.Value{"read_units_per_second": ivp64(w.ReadUnitsPerSecond), "write_units_per_second": ivp64(w.WriteUnitsPerSecond)})
		}
		// key_schema is recorded only where the configuration uses it,
		// as 6.x does for indexes declared with hash_key/range_key.
		for _, ref := range blocks(cur, "global_secondary_index") {
			if str(ref, "name") == aws.ToString(g.IndexName) && len(blocks(ref, "key_schema")) > 0 {
				var ks []map[string]cty.Value
				for _, k := range g.KeySchema {
					ks = append(ks, map[string]cty.Value{"attribute_name": sv(aws.ToString(k.AttributeName)), "key_type": sv(string(k.KeyType))})
				}
				m["key_schema"] = blockOf(nestedType(sch, "global_secondary_index", "key_schema"), ks...)
				// range_key is Optional, not Computed, in 6.x: with
				// key_schema it stays null in the plan, so in the state
				// too, or the set element would not match its plan.
				m["range_key"] = cty.NullVal(cty.String)
			}
		}
		gsis = append(gsis, m)
	}
	vals["global_secondary_index"] = blockOf(gsiType, gsis...)
	var lsis []map[string]cty.Value
	for _, l := range t.LocalSecondaryIndexes {
		m := map[string]cty.Value{"name": sv(aws.ToString(l.IndexName))}
		if p := l.Projection; p != nil {
			m["projection_type"] = sv(string(p.ProjectionType))
			if len(p.NonKeyAttributes) > 0 {
				m["non_key_attributes"] = listOf(p.NonKeyAttributes)
			}
		}
		for _, k := range l.KeySchema {
			if k.KeyType == ddbtypes.KeyTypeRange {
				m["range_key"] = sv(aws.ToString(k.AttributeName))
			}
		}
		lsis = append(lsis, m)
	}
	vals["local_secondary_index"] = blockOf(nestedType(sch, "local_secondary_index"), lsis...)
	if o := t.OnDemandThroughput; o != nil && (o.MaxReadRequestUnits != nil || o.MaxWriteRequestUnits != nil) {
		vals["on_demand_throughput"] = blockOf(nestedType(sch, "on_demand_throughput"),
			map[string]cty.Value{"max_read_request_units": ivp64(o.MaxReadRequestUnits), "max_write_request_units": ivp64(o.MaxWriteRequestUnits)})
	} else {
		vals["on_demand_throughput"] = blockOf(nestedType(sch, "on_demand_throughput"))
	}
	if w := t.WarmThroughput; w != nil {
		vals["warm_throughput"] = blockOf(nestedType(sch, "warm_throughput"),
			map[string]cty.Value{"read_units_per_second": ivp64(w.ReadUnitsPerSecond), "write_units_per_second": ivp64(w.WriteUnitsPerSecond)})
	} else {
		vals["warm_throughput"] = blockOf(nestedType(sch, "warm_throughput"))
	}

	// server_side_encryption, point_in_time_recovery and ttl are Optional +
	// Computed blocks the provider always records. Deviation: where the
	// state has no such block and AWS reports the default (disabled), none
	// is recorded, so a configuration without the block plans no change
	// (the provider relies on SDKv2's Computed handling for that).
	sseType := nestedType(sch, "server_side_encryption")
	switch sse := t.SSEDescription; {
	case sse != nil && sse.Status == ddbtypes.SSEStatusEnabled:
		kms := sv(aws.ToString(sse.KMSMasterKeyArn))
		if ref := block(cur, "server_side_encryption"); !known(getAttr(ref, "kms_key_arn")) || str(ref, "kms_key_arn") == "" {
			// clearSSEDefaultKey: the AWS managed key (alias/aws/dynamodb)
			// is recorded as "". The local cloud has no KMS to ask which
			// key that is; a configuration can only have chosen it.
			kms = sv("")
		}
		vals["server_side_encryption"] = blockOf(sseType, map[string]cty.Value{"enabled": cty.True, "kms_key_arn": kms})
	case len(blocks(cur, "server_side_encryption")) > 0:
		vals["server_side_encryption"] = blockOf(sseType, map[string]cty.Value{"enabled": cty.False})
	default:
		vals["server_side_encryption"] = blockOf(sseType)
	}

	pitrOut, err := cl.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	if err != nil && !isCode(err, "TableNotFoundException", "UnknownOperationException") {
		return cty.NilVal, fmt.Errorf("reading DynamoDB Table (%s) continuous backups: %w", name, err)
	}
	pitr := map[string]cty.Value{"enabled": cty.False}
	if pitrOut != nil && pitrOut.ContinuousBackupsDescription != nil {
		if d := pitrOut.ContinuousBackupsDescription.PointInTimeRecoveryDescription; d != nil && d.PointInTimeRecoveryStatus == ddbtypes.PointInTimeRecoveryStatusEnabled {
			pitr["enabled"] = cty.True
			pitr["recovery_period_in_days"] = ivp32(d.RecoveryPeriodInDays)
		}
	}
	if pitr["enabled"].True() || len(blocks(cur, "point_in_time_recovery")) > 0 {
		vals["point_in_time_recovery"] = blockOf(nestedType(sch, "point_in_time_recovery"), pitr)
	} else {
		vals["point_in_time_recovery"] = blockOf(nestedType(sch, "point_in_time_recovery"))
	}

	ttlOut, err := cl.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading DynamoDB Table (%s) TTL: %w", name, err)
	}
	ttl := map[string]cty.Value{"enabled": cty.False}
	if d := ttlOut.TimeToLiveDescription; d != nil {
		ttl["enabled"] = bv(d.TimeToLiveStatus == ddbtypes.TimeToLiveStatusEnabled)
		ttl["attribute_name"] = sv(aws.ToString(d.AttributeName))
	}
	if ttl["enabled"].True() || len(blocks(cur, "ttl")) > 0 {
		vals["ttl"] = blockOf(nestedType(sch, "ttl"), ttl)
	} else {
		vals["ttl"] = blockOf(nestedType(sch, "ttl"))
	}
	vals["replica"] = blockOf(nestedType(sch, "replica"))

	tags, err := listTableTags(ctx, cl, aws.ToString(t.TableArn))
	if err != nil {
		return cty.NilVal, err
	}
	vals["tags"], vals["tags_all"] = tagsOut(pc, tags)
	return with(cur, vals), nil
}

func listTableTags(ctx context.Context, cl *dynamodb.Client, arn string) (map[string]string, error) {
	tags := map[string]string{}
	var token *string
	for {
		out, err := cl.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn), NextToken: token})
		if err != nil {
			return nil, fmt.Errorf("listing tags for DynamoDB Table (%s): %w", arn, err)
		}
		for _, t := range out.Tags {
			tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
		if token = out.NextToken; token == nil {
			return tags, nil
		}
	}
}

// Update is resourceTableUpdate: index deletions, table class, one
// UpdateTable for billing, capacity, deletion protection, on-demand
// throughput and streams (a view type change cycles the stream), index
// creations, SSE, TTL, point-in-time recovery, tags.
func (h *tableHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := h.check(req.Config); err != nil {
		return cty.NilVal, err
	}
	pc, prior, p := req.Provider, req.Prior, req.Planned
	cl, err := h.c.dynamodb(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := str(prior, "id")
	mode := ddbtypes.BillingMode(str(p, "billing_mode"))
	update := func(in *dynamodb.UpdateTableInput, what string) error {
		in.TableName = aws.String(name)
		if _, err := cl.UpdateTable(ctx, in); err != nil {
			return fmt.Errorf("updating DynamoDB Table (%s) %s: %w", name, what, err)
		}
		return h.waitActive(ctx, cl, name, tableUpdateTimeout)
	}

	creates, deletes := gsiDiff(blocks(prior, "global_secondary_index"), blocks(p, "global_secondary_index"))
	for _, n := range deletes {
		if err := update(&dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{
			{Delete: &ddbtypes.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(n)}},
		}}, "GSI ("+n+") delete"); err != nil {
			return cty.NilVal, err
		}
	}
	if changed(prior, p, "table_class") {
		if err := update(&dynamodb.UpdateTableInput{TableClass: ddbtypes.TableClass(str(p, "table_class"))}, "table class"); err != nil {
			return cty.NilVal, err
		}
	}
	in := &dynamodb.UpdateTableInput{}
	has := false
	if changed(prior, p, "billing_mode", "read_capacity", "write_capacity") {
		in.BillingMode, in.ProvisionedThroughput, has = mode, provisioned(p, mode), true
	}
	if changed(prior, p, "deletion_protection_enabled") {
		in.DeletionProtectionEnabled, has = aws.Bool(boolAttr(p, "deletion_protection_enabled")), true
	}
	if changed(prior, p, "on_demand_throughput") {
		in.OnDemandThroughput, has = onDemandOf(p), true
	}
	viewType := ddbtypes.StreamViewType(strings.ToUpper(str(p, "stream_view_type")))
	if !changed(prior, p, "stream_enabled") && changed(prior, p, "stream_view_type") && boolAttr(p, "stream_enabled") {
		// cycleStreamEnabled: a view type cannot change on an enabled
		// stream; disable it, then enable it with the new type.
		if err := update(&dynamodb.UpdateTableInput{StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(false)}}, "stream disable"); err != nil {
			return cty.NilVal, err
		}
		if err := update(&dynamodb.UpdateTableInput{StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: viewType}}, "stream enable"); err != nil {
			return cty.NilVal, err
		}
	}
	if changed(prior, p, "stream_enabled") {
		spec := &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(boolAttr(p, "stream_enabled"))}
		if boolAttr(p, "stream_enabled") {
			spec.StreamViewType = viewType
		}
		in.StreamSpecification, has = spec, true
	}
	if has {
		if err := update(in, "table"); err != nil {
			return cty.NilVal, err
		}
	}
	for _, g := range creates {
		if err := update(&dynamodb.UpdateTableInput{
			AttributeDefinitions: attributeDefs(p),
			GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{{Create: &ddbtypes.CreateGlobalSecondaryIndexAction{
				IndexName: strp(g, "name"), KeySchema: indexKeySchema(g), Projection: projection(g),
				ProvisionedThroughput: provisioned(g, mode), OnDemandThroughput: onDemandOf(g), WarmThroughput: warmOf(g),
			}}},
		}, "GSI ("+str(g, "name")+") create"); err != nil {
			return cty.NilVal, err
		}
	}
	if changed(prior, p, "server_side_encryption") {
		if spec := sseSpec(p); spec != nil {
			if err := update(&dynamodb.UpdateTableInput{SSESpecification: spec}, "SSE"); err != nil {
				return cty.NilVal, err
			}
		}
	}
	if changed(prior, p, "stream_enabled", "stream_view_type") && boolAttr(p, "stream_enabled") {
		if err := h.waitStream(ctx, pc, regionOf(p, pc), cl, name); err != nil {
			return cty.NilVal, err
		}
	}
	if changed(prior, p, "ttl") {
		if ttl := block(p, "ttl"); known(ttl) {
			if err := h.updateTTL(ctx, cl, name, ttl); err != nil {
				return cty.NilVal, err
			}
		}
	}
	if changed(prior, p, "point_in_time_recovery") {
		pitr := block(p, "point_in_time_recovery")
		if !known(pitr) {
			pitr = cty.ObjectVal(map[string]cty.Value{"enabled": cty.False, "recovery_period_in_days": cty.NullVal(cty.Number)})
		}
		if err := h.updatePITR(ctx, cl, name, pitr); err != nil {
			return cty.NilVal, err
		}
	}
	set, remove := tagDiff(tagsIn(prior, pc), tagsIn(p, pc))
	arn := str(prior, "arn")
	if len(remove) > 0 {
		if _, err := cl.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: remove}); err != nil {
			return cty.NilVal, fmt.Errorf("untagging DynamoDB Table (%s): %w", name, err)
		}
	}
	if len(set) > 0 {
		tin := &dynamodb.TagResourceInput{ResourceArn: aws.String(arn)}
		for _, k := range sortedKeys(set) {
			tin.Tags = append(tin.Tags, ddbtypes.Tag{Key: aws.String(k), Value: aws.String(set[k])})
		}
		if _, err := cl.TagResource(ctx, tin); err != nil {
			return cty.NilVal, fmt.Errorf("tagging DynamoDB Table (%s): %w", name, err)
		}
	}
	return h.readBack(ctx, cl, req, name)
}

// gsiDiff is updateDiffGSI for what the local cloud can do: indexes to
// create, and indexes to delete (a changed key schema or projection is a
// delete plus a create, as in the provider).
func gsiDiff(oldIdx, newIdx []cty.Value) (creates []cty.Value, deletes []string) {
	sig := func(g cty.Value) string {
		nka := strs(g, "non_key_attributes")
		sort.Strings(nka)
		var ks []string
		for _, k := range indexKeySchema(g) {
			ks = append(ks, aws.ToString(k.AttributeName)+"/"+string(k.KeyType))
		}
		return strings.Join(ks, ",") + "|" + str(g, "projection_type") + "|" + strings.Join(nka, ",")
	}
	oldBy := map[string]cty.Value{}
	for _, g := range oldIdx {
		oldBy[str(g, "name")] = g
	}
	newBy := map[string]cty.Value{}
	for _, g := range newIdx {
		newBy[str(g, "name")] = g
	}
	for _, n := range sortedKeys(oldBy) {
		if ng, ok := newBy[n]; !ok || sig(ng) != sig(oldBy[n]) {
			deletes = append(deletes, n)
		}
	}
	for _, n := range sortedKeys(newBy) {
		if og, ok := oldBy[n]; !ok || sig(og) != sig(newBy[n]) {
			creates = append(creates, newBy[n])
		}
	}
	return creates, deletes
}

// Delete is resourceTableDelete: DeleteTable (retried while the table is
// in use), then a wait until DescribeTable no longer finds it.
func (h *tableHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.dynamodb(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	name := str(req.Prior, "id")
	_, err = retryWhen(ctx, tableDeleteTimeout, func(ctx context.Context) (*dynamodb.DeleteTableOutput, error) {
		return cl.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	}, func(err error) bool {
		return isCode(err, "ResourceInUseException") || (isCode(err, "LimitExceededException") && strings.Contains(err.Error(), "simultaneously"))
	})
	if tableGone(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting DynamoDB Table (%s): %w", name, err)
	}
	return waitUntil(ctx, tableDeleteTimeout, "DynamoDB Table ("+name+") delete", func(ctx context.Context) (bool, error) {
		_, err := cl.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if tableGone(err) {
			return true, nil
		}
		return false, err
	})
}

// Import takes the table name (ImportStatePassthroughContext).
func (h *tableHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID), "name": sv(req.ID)}), nil
}
