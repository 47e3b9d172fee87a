package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"
)

// Lambda handlers. Source: hashicorp/terraform-provider-aws
// internal/service/lambda/function.go (resourceFunctionCreate/Read/Update/
// Delete, waitFunctionCreated, waitFunctionUpdated, findLatestFunctionVersion
// ByName, invokeARN), event_source_mapping.go (resourceEventSourceMapping
// Create/Read/Update/Delete, id = UUID, waitEventSourceMappingCreate/Update/
// Delete) and function_event_invoke_config.go (id = function name, or
// "name:qualifier").

func (c *clients) lambda(ctx context.Context, pc *Config, region string) (*lambda.Client, error) {
	cfg, err := c.awsConfig(ctx, pc, region)
	if err != nil {
		return nil, err
	}
	ep := c.endpoint(pc, "lambda")
	return lambda.NewFromConfig(cfg, func(o *lambda.Options) { o.BaseEndpoint = ep }), nil
}

// Timeouts and retry windows of function.go.
const (
	functionCreateTimeout = 10 * time.Minute
	functionUpdateTimeout = 10 * time.Minute
	lambdaPropagation     = 5 * time.Minute
)

func lambdaGone(err error) bool {
	var nf *lambdatypes.ResourceNotFoundException
	return errors.As(err, &nf) || isCode(err, "ResourceNotFoundException")
}

// iamNotReady matches the errors Lambda returns while a new execution role
// has not propagated yet (function.go retries them for propagationTimeout).
func iamNotReady(err error) bool {
	if !isCode(err, "InvalidParameterValueException") {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "The role defined for the function cannot be assumed by Lambda") ||
		strings.Contains(msg, "The provided execution role does not have permissions") ||
		strings.Contains(msg, "Lambda was unable to configure access to your environment variables because the KMS key is invalid")
}

// updateInProgress matches the conflict Lambda returns while a previous
// update of the function is still being applied.
func updateInProgress(err error) bool {
	return isCode(err, "ResourceConflictException")
}

type functionHandler struct{ c *clients }

var functionUnsupported = map[string]string{
	"image_uri":                          "container images are not emulated; the local cloud runs zip packages",
	"image_config":                       "container images are not emulated",
	"s3_bucket":                          "the local cloud has no S3; use filename",
	"s3_key":                             "the local cloud has no S3; use filename",
	"s3_object_version":                  "the local cloud has no S3; use filename",
	"vpc_config":                         "the local cloud has no VPCs",
	"dead_letter_config":                 "asynchronous dead-letter queues are not emulated",
	"file_system_config":                 "the local cloud has no EFS",
	"kms_key_arn":                        "the local cloud has no KMS",
	"layers":                             "layers are not emulated",
	"code_signing_config_arn":            "code signing is not emulated",
	"snap_start":                         "SnapStart is not emulated",
	"capacity_provider_config":           "capacity providers are not emulated",
	"durable_config":                     "durable functions are not emulated",
	"tenancy_config":                     "tenant isolation is not emulated",
	"source_kms_key_arn":                 "the local cloud has no KMS",
	"replacement_security_group_ids":     "the local cloud has no VPCs",
	"replace_security_groups_on_destroy": "the local cloud has no VPCs",
	"publish_to":                         "publishing to LATEST_PUBLISHED is not emulated",
}

func (h *functionHandler) check(cfg cty.Value) error {
	if pt := str(cfg, "package_type"); pt != "" && pt != string(lambdatypes.PackageTypeZip) {
		return notSupported("aws_lambda_function", "package_type = "+pt, "the local cloud runs zip packages")
	}
	if tc := block(cfg, "tracing_config"); known(tc) && str(tc, "mode") == string(lambdatypes.TracingModeActive) {
		return notSupported("aws_lambda_function", `tracing_config.mode = "Active"`, "the local cloud has no X-Ray")
	}
	pats := sortedKeys(functionUnsupported)
	return unsupportedSet("aws_lambda_function", cfg, functionUnsupported, pats...)
}

// zipFile reads the deployment package named by filename, as the provider
// does (readFileContents).
func zipFile(p cty.Value) ([]byte, error) {
	name := str(p, "filename")
	if name == "" {
		return nil, errors.New("aws_lambda_function: filename is required by the taskpipe local provider (S3 and image packages are not emulated)")
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("reading Lambda deployment package %s: %w", name, err)
	}
	return b, nil
}

func environmentOf(p cty.Value) *lambdatypes.Environment {
	env := block(p, "environment")
	if !known(env) {
		return nil
	}
	vars := strMap(env, "variables")
	if vars == nil {
		vars = map[string]string{}
	}
	return &lambdatypes.Environment{Variables: vars}
}

func loggingOf(p cty.Value) *lambdatypes.LoggingConfig {
	lc := block(p, "logging_config")
	if !known(lc) {
		return nil
	}
	out := &lambdatypes.LoggingConfig{LogFormat: lambdatypes.LogFormat(str(lc, "log_format")), LogGroup: strp(lc, "log_group")}
	if s := str(lc, "application_log_level"); s != "" {
		out.ApplicationLogLevel = lambdatypes.ApplicationLogLevel(s)
	}
	if s := str(lc, "system_log_level"); s != "" {
		out.SystemLogLevel = lambdatypes.SystemLogLevel(s)
	}
	return out
}

func ephemeralOf(p cty.Value) *lambdatypes.EphemeralStorage {
	es := block(p, "ephemeral_storage")
	if !known(es) {
		return nil
	}
	return &lambdatypes.EphemeralStorage{Size: int32p(es, "size")}
}

func tracingOf(p cty.Value) *lambdatypes.TracingConfig {
	tc := block(p, "tracing_config")
	if !known(tc) {
		return nil
	}
	return &lambdatypes.TracingConfig{Mode: lambdatypes.TracingMode(str(tc, "mode"))}
}

// Create is resourceFunctionCreate: CreateFunction with the zip (retried
// while the role propagates), a wait until the function is Active, the
// reserved concurrency, then Read.
func (h *functionHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := h.check(req.Config); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.lambda(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	code, err := zipFile(p)
	if err != nil {
		return cty.NilVal, err
	}
	name := str(p, "function_name")
	in := &lambda.CreateFunctionInput{
		FunctionName:     aws.String(name),
		Role:             strp(p, "role"),
		Handler:          strp(p, "handler"),
		Runtime:          lambdatypes.Runtime(str(p, "runtime")),
		Code:             &lambdatypes.FunctionCode{ZipFile: code},
		Description:      strp(p, "description"),
		MemorySize:       int32p(p, "memory_size"),
		Timeout:          int32p(p, "timeout"),
		Publish:          boolAttr(p, "publish"),
		PackageType:      lambdatypes.PackageType(str(p, "package_type")),
		Environment:      environmentOf(p),
		LoggingConfig:    loggingOf(p),
		EphemeralStorage: ephemeralOf(p),
		TracingConfig:    tracingOf(p),
	}
	for _, a := range strs(p, "architectures") {
		in.Architectures = append(in.Architectures, lambdatypes.Architecture(a))
	}
	if tags := tagsIn(p, pc); len(tags) > 0 {
		in.Tags = tags
	}
	if _, err := retryWhen(ctx, lambdaPropagation, func(ctx context.Context) (*lambda.CreateFunctionOutput, error) {
		return cl.CreateFunction(ctx, in)
	}, iamNotReady); err != nil {
		return cty.NilVal, fmt.Errorf("creating Lambda Function (%s): %w", name, err)
	}
	if err := waitFunction(ctx, cl, name, functionCreateTimeout, true); err != nil {
		return created(req, name, err)
	}
	if rc, ok := intAttr(p, "reserved_concurrent_executions"); ok && rc >= 0 {
		if _, err := cl.PutFunctionConcurrency(ctx, &lambda.PutFunctionConcurrencyInput{FunctionName: aws.String(name), ReservedConcurrentExecutions: aws.Int32(int32(rc))}); err != nil { //nolint:gosec // validated ≥ -1
			return created(req, name, fmt.Errorf("setting Lambda Function (%s) concurrency: %w", name, err))
		}
	}
	return h.readBack(ctx, cl, req, name)
}

func (h *functionHandler) readBack(ctx context.Context, cl *lambda.Client, req *ApplyRequest, name string) (cty.Value, error) {
	st, err := h.read(ctx, cl, req.Schema.Block, with(req.Planned, map[string]cty.Value{"id": sv(name)}), req.Provider)
	if err != nil {
		return created(req, name, err)
	}
	if st.IsNull() {
		return created(req, name, fmt.Errorf("reading Lambda Function (%s): not found after apply", name))
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// waitFunction is waitFunctionCreated (State Active) and, with created
// false, waitFunctionUpdated (LastUpdateStatus Successful).
func waitFunction(ctx context.Context, cl *lambda.Client, name string, timeout time.Duration, created bool) error {
	what := "Lambda Function (" + name + ") update"
	if created {
		what = "Lambda Function (" + name + ") to be Active"
	}
	return waitUntil(ctx, timeout, what, func(ctx context.Context) (bool, error) {
		out, err := cl.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(name)})
		if err != nil {
			return false, err
		}
		if created {
			switch out.State {
			case lambdatypes.StateActive:
				return true, nil
			case lambdatypes.StateFailed:
				return false, fmt.Errorf("function is Failed: %s", aws.ToString(out.StateReason))
			}
			return false, nil
		}
		switch out.LastUpdateStatus {
		case lambdatypes.LastUpdateStatusSuccessful, "":
			return true, nil
		case lambdatypes.LastUpdateStatusFailed:
			return false, fmt.Errorf("update Failed: %s", aws.ToString(out.LastUpdateStatusReason))
		}
		return false, nil
	})
}

// Read is resourceFunctionRead.
func (h *functionHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.lambda(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Schema.Block, req.Current, req.Provider)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

// invokeARN is the API Gateway integration ARN of a function (invokeARN
// in function.go; AWS Lambda Developer Guide, "Using Lambda with API
// Gateway").
func invokeARN(functionARN, apiVersion, suffix string) string {
	a, err := arn.Parse(functionARN)
	if err != nil {
		return ""
	}
	return arn.ARN{Partition: a.Partition, Service: "apigateway", Region: a.Region, AccountID: "lambda",
		Resource: "path/" + apiVersion + "/functions/" + functionARN + "/" + suffix}.String()
}

func (h *functionHandler) read(ctx context.Context, cl *lambda.Client, sch *tfjson.SchemaBlock, cur cty.Value, pc *Config) (cty.Value, error) {
	name := str(cur, "id")
	out, err := cl.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(name)})
	if lambdaGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading Lambda Function (%s): %w", name, err)
	}
	f := out.Configuration
	fnARN := aws.ToString(f.FunctionArn)
	vals := map[string]cty.Value{
		"id":                             sv(aws.ToString(f.FunctionName)),
		"arn":                            sv(fnARN),
		"invoke_arn":                     sv(invokeARN(fnARN, "2015-03-31", "invocations")),
		"response_streaming_invoke_arn":  sv(invokeARN(fnARN, "2021-11-15", "response-streaming-invocations")),
		"code_sha256":                    sv(aws.ToString(f.CodeSha256)),
		"source_code_size":               iv(f.CodeSize),
		"last_modified":                  sv(aws.ToString(f.LastModified)),
		"handler":                        svp(f.Handler),
		"runtime":                        sv(string(f.Runtime)),
		"role":                           sv(aws.ToString(f.Role)),
		"memory_size":                    ivp32(f.MemorySize),
		"timeout":                        ivp32(f.Timeout),
		"description":                    svp(f.Description),
		"package_type":                   sv(string(f.PackageType)),
		"signing_job_arn":                sv(aws.ToString(f.SigningJobArn)),
		"signing_profile_version_arn":    sv(aws.ToString(f.SigningProfileVersionArn)),
		"kms_key_arn":                    svp(f.KMSKeyArn),
		"reserved_concurrent_executions": iv(-1),
	}
	if !known(getAttr(cur, "function_name")) {
		vals["function_name"] = sv(aws.ToString(f.FunctionName))
	}
	if out.Concurrency != nil && out.Concurrency.ReservedConcurrentExecutions != nil {
		vals["reserved_concurrent_executions"] = ivp32(out.Concurrency.ReservedConcurrentExecutions)
	}
	var archs []string
	for _, a := range f.Architectures {
		archs = append(archs, string(a))
	}
	vals["architectures"] = listOf(archs)
	var layers []string
	for _, l := range f.Layers {
		layers = append(layers, aws.ToString(l.Arn))
	}
	vals["layers"] = listOf(layers)
	// source_code_hash records what the configuration gave; when it gave
	// none, the package's hash (the same base64 SHA-256 as
	// filebase64sha256).
	if !known(getAttr(cur, "source_code_hash")) {
		vals["source_code_hash"] = sv(aws.ToString(f.CodeSha256))
	}
	envType := nestedType(sch, "environment")
	if f.Environment != nil && len(f.Environment.Variables) > 0 {
		vals["environment"] = blockOf(envType, map[string]cty.Value{"variables": stringMap(f.Environment.Variables)})
	} else {
		vals["environment"] = blockOf(envType)
	}
	if f.DeadLetterConfig != nil && aws.ToString(f.DeadLetterConfig.TargetArn) != "" {
		vals["dead_letter_config"] = blockOf(nestedType(sch, "dead_letter_config"), map[string]cty.Value{"target_arn": svp(f.DeadLetterConfig.TargetArn)})
	} else {
		vals["dead_letter_config"] = blockOf(nestedType(sch, "dead_letter_config"))
	}
	// logging_config, ephemeral_storage and tracing_config are Optional +
	// Computed blocks AWS always reports. As for the table's blocks, the
	// defaults are not recorded where the state has no such block, so a
	// configuration without them plans no change.
	lcType := nestedType(sch, "logging_config")
	if lc := f.LoggingConfig; lc != nil {
		isDefault := lc.LogFormat == lambdatypes.LogFormatText && aws.ToString(lc.LogGroup) == "/aws/lambda/"+aws.ToString(f.FunctionName) &&
			lc.ApplicationLogLevel == "" && lc.SystemLogLevel == ""
		if !isDefault || len(blocks(cur, "logging_config")) > 0 {
			vals["logging_config"] = blockOf(lcType, map[string]cty.Value{
				"log_format": sv(string(lc.LogFormat)), "log_group": sv(aws.ToString(lc.LogGroup)),
				"application_log_level": sv(string(lc.ApplicationLogLevel)), "system_log_level": sv(string(lc.SystemLogLevel)),
			})
		} else {
			vals["logging_config"] = blockOf(lcType)
		}
	}
	if es := f.EphemeralStorage; es != nil && (aws.ToInt32(es.Size) != 512 || len(blocks(cur, "ephemeral_storage")) > 0) {
		vals["ephemeral_storage"] = blockOf(nestedType(sch, "ephemeral_storage"), map[string]cty.Value{"size": ivp32(es.Size)})
	} else {
		vals["ephemeral_storage"] = blockOf(nestedType(sch, "ephemeral_storage"))
	}
	if tc := f.TracingConfig; tc != nil && tc.Mode != "" && (tc.Mode != lambdatypes.TracingModePassThrough || len(blocks(cur, "tracing_config")) > 0) {
		vals["tracing_config"] = blockOf(nestedType(sch, "tracing_config"), map[string]cty.Value{"mode": sv(string(tc.Mode))})
	} else {
		vals["tracing_config"] = blockOf(nestedType(sch, "tracing_config"))
	}
	vals["vpc_config"] = blockOf(nestedType(sch, "vpc_config"))
	vals["snap_start"] = blockOf(nestedType(sch, "snap_start"))

	// version and qualified_arn: the latest published version, or $LATEST
	// (findLatestFunctionVersionByName lists the versions).
	version, qualified := "$LATEST", fnARN+":$LATEST"
	pager := lambda.NewListVersionsByFunctionPaginator(cl, &lambda.ListVersionsByFunctionInput{FunctionName: aws.String(name)})
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return cty.NilVal, fmt.Errorf("reading Lambda Function (%s) versions: %w", name, err)
		}
		for _, v := range page.Versions {
			version, qualified = aws.ToString(v.Version), aws.ToString(v.FunctionArn)
		}
	}
	if version == "$LATEST" && !strings.HasSuffix(qualified, ":$LATEST") {
		// Lambda lists $LATEST with its qualified ARN (…:name:$LATEST);
		// the local cloud lists the unqualified one.
		qualified = fnARN + ":$LATEST"
	}
	vals["version"] = sv(version)
	vals["qualified_arn"] = sv(qualified)
	vals["qualified_invoke_arn"] = sv(invokeARN(qualified, "2015-03-31", "invocations"))

	tags, err := cl.ListTags(ctx, &lambda.ListTagsInput{Resource: aws.String(fnARN)})
	if err != nil {
		return cty.NilVal, fmt.Errorf("listing tags for Lambda Function (%s): %w", name, err)
	}
	vals["tags"], vals["tags_all"] = tagsOut(pc, tags.Tags)
	return with(cur, vals), nil
}

// Update is resourceFunctionUpdate: UpdateFunctionConfiguration for
// configuration changes, UpdateFunctionCode for code changes (each waited
// for), the reserved concurrency, tags.
func (h *functionHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := h.check(req.Config); err != nil {
		return cty.NilVal, err
	}
	pc, prior, p := req.Provider, req.Prior, req.Planned
	cl, err := h.c.lambda(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := str(prior, "id")
	configAttrs := []string{"description", "handler", "memory_size", "role", "timeout", "runtime", "environment",
		"ephemeral_storage", "logging_config", "tracing_config"}
	if changed(prior, p, configAttrs...) {
		in := &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String(name)}
		if changed(prior, p, "description") {
			in.Description = aws.String(str(p, "description"))
		}
		if changed(prior, p, "handler") {
			in.Handler = strp(p, "handler")
		}
		if changed(prior, p, "memory_size") {
			in.MemorySize = int32p(p, "memory_size")
		}
		if changed(prior, p, "role") {
			in.Role = strp(p, "role")
		}
		if changed(prior, p, "timeout") {
			in.Timeout = int32p(p, "timeout")
		}
		if changed(prior, p, "runtime") {
			in.Runtime = lambdatypes.Runtime(str(p, "runtime"))
		}
		if changed(prior, p, "environment") {
			in.Environment = environmentOf(p)
			if in.Environment == nil {
				in.Environment = &lambdatypes.Environment{Variables: map[string]string{}}
			}
		}
		if changed(prior, p, "ephemeral_storage") {
			in.EphemeralStorage = ephemeralOf(p)
		}
		if changed(prior, p, "logging_config") {
			in.LoggingConfig = loggingOf(p)
		}
		if changed(prior, p, "tracing_config") {
			in.TracingConfig = tracingOf(p)
		}
		if _, err := retryWhen(ctx, lambdaPropagation, func(ctx context.Context) (*lambda.UpdateFunctionConfigurationOutput, error) {
			return cl.UpdateFunctionConfiguration(ctx, in)
		}, func(err error) bool { return iamNotReady(err) || updateInProgress(err) }); err != nil {
			return cty.NilVal, fmt.Errorf("updating Lambda Function (%s) configuration: %w", name, err)
		}
		if err := waitFunction(ctx, cl, name, functionUpdateTimeout, false); err != nil {
			return cty.NilVal, err
		}
	}
	if changed(prior, p, "filename", "source_code_hash", "architectures") {
		code, err := zipFile(p)
		if err != nil {
			return cty.NilVal, err
		}
		in := &lambda.UpdateFunctionCodeInput{FunctionName: aws.String(name), ZipFile: code, Publish: boolAttr(p, "publish")}
		for _, a := range strs(p, "architectures") {
			in.Architectures = append(in.Architectures, lambdatypes.Architecture(a))
		}
		if _, err := retryWhen(ctx, functionUpdateTimeout, func(ctx context.Context) (*lambda.UpdateFunctionCodeOutput, error) {
			return cl.UpdateFunctionCode(ctx, in)
		}, updateInProgress); err != nil {
			return cty.NilVal, fmt.Errorf("updating Lambda Function (%s) code: %w", name, err)
		}
		if err := waitFunction(ctx, cl, name, functionUpdateTimeout, false); err != nil {
			return cty.NilVal, err
		}
	}
	if changed(prior, p, "reserved_concurrent_executions") {
		rc, _ := intAttr(p, "reserved_concurrent_executions")
		if rc >= 0 {
			_, err = cl.PutFunctionConcurrency(ctx, &lambda.PutFunctionConcurrencyInput{FunctionName: aws.String(name), ReservedConcurrentExecutions: aws.Int32(int32(rc))}) //nolint:gosec // validated
		} else {
			_, err = cl.DeleteFunctionConcurrency(ctx, &lambda.DeleteFunctionConcurrencyInput{FunctionName: aws.String(name)})
		}
		if err != nil {
			return cty.NilVal, fmt.Errorf("updating Lambda Function (%s) concurrency: %w", name, err)
		}
	}
	if err := lambdaTags(ctx, cl, str(prior, "arn"), prior, p, pc); err != nil {
		return cty.NilVal, err
	}
	return h.readBack(ctx, cl, req, name)
}

func lambdaTags(ctx context.Context, cl *lambda.Client, resource string, prior, planned cty.Value, pc *Config) error {
	set, remove := tagDiff(tagsIn(prior, pc), tagsIn(planned, pc))
	if len(remove) > 0 {
		if _, err := cl.UntagResource(ctx, &lambda.UntagResourceInput{Resource: aws.String(resource), TagKeys: remove}); err != nil {
			return fmt.Errorf("untagging Lambda resource (%s): %w", resource, err)
		}
	}
	if len(set) > 0 {
		if _, err := cl.TagResource(ctx, &lambda.TagResourceInput{Resource: aws.String(resource), Tags: set}); err != nil {
			return fmt.Errorf("tagging Lambda resource (%s): %w", resource, err)
		}
	}
	return nil
}

// Delete is resourceFunctionDelete: nothing with skip_destroy, else
// DeleteFunction.
func (h *functionHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	if boolAttr(req.Prior, "skip_destroy") {
		return nil
	}
	cl, err := h.c.lambda(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	name := str(req.Prior, "id")
	_, err = cl.DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String(name)})
	if err != nil && !lambdaGone(err) {
		return fmt.Errorf("deleting Lambda Function (%s): %w", name, err)
	}
	return nil
}

// Import takes the function name.
func (h *functionHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID), "function_name": sv(req.ID), "skip_destroy": cty.False, "publish": cty.False}), nil
}

// ---- event source mappings ----

type mappingHandler struct{ c *clients }

var mappingUnsupported = map[string]string{
	"starting_position":                        "the local cloud's event source mappings poll SQS queues only",
	"starting_position_timestamp":              "the local cloud's event source mappings poll SQS queues only",
	"topics":                                   "Kafka sources are not emulated",
	"queues":                                   "Amazon MQ sources are not emulated",
	"self_managed_event_source":                "Kafka sources are not emulated",
	"source_access_configuration":              "Kafka and MQ sources are not emulated",
	"amazon_managed_kafka_event_source_config": "Kafka sources are not emulated",
	"self_managed_kafka_event_source_config":   "Kafka sources are not emulated",
	"document_db_event_source_config":          "DocumentDB sources are not emulated",
	"destination_config":                       "on-failure destinations apply to stream sources, which are not emulated",
	"bisect_batch_on_function_error":           "batch bisection applies to stream sources, which are not emulated",
	"maximum_record_age_in_seconds":            "applies to stream sources, which are not emulated",
	"maximum_retry_attempts":                   "applies to stream sources, which are not emulated",
	"parallelization_factor":                   "applies to stream sources, which are not emulated",
	"tumbling_window_in_seconds":               "applies to stream sources, which are not emulated",
	"provisioned_poller_config":                "provisioned pollers are not emulated",
	"kms_key_arn":                              "the local cloud has no KMS",
}

func (h *mappingHandler) check(cfg cty.Value) error {
	if src := str(cfg, "event_source_arn"); src != "" && !strings.Contains(src, ":sqs:") {
		return notSupported("aws_lambda_event_source_mapping", "event_source_arn "+src, "the local cloud's event source mappings poll SQS queues only")
	}
	return unsupportedSet("aws_lambda_event_source_mapping", cfg, mappingUnsupported, sortedKeys(mappingUnsupported)...)
}

func filterCriteriaOf(p cty.Value) *lambdatypes.FilterCriteria {
	fc := block(p, "filter_criteria")
	if !known(fc) {
		return nil
	}
	out := &lambdatypes.FilterCriteria{Filters: []lambdatypes.Filter{}}
	for _, f := range blocks(fc, "filter") {
		out.Filters = append(out.Filters, lambdatypes.Filter{Pattern: strp(f, "pattern")})
	}
	return out
}

func scalingOf(p cty.Value) *lambdatypes.ScalingConfig {
	sc := block(p, "scaling_config")
	if !known(sc) {
		return nil
	}
	return &lambdatypes.ScalingConfig{MaximumConcurrency: int32p(sc, "maximum_concurrency")}
}

func metricsOf(p cty.Value) *lambdatypes.EventSourceMappingMetricsConfig {
	mc := block(p, "metrics_config")
	if !known(mc) {
		return nil
	}
	out := &lambdatypes.EventSourceMappingMetricsConfig{}
	for _, m := range strs(mc, "metrics") {
		out.Metrics = append(out.Metrics, lambdatypes.EventSourceMappingMetric(m))
	}
	return out
}

func responseTypesOf(p cty.Value) []lambdatypes.FunctionResponseType {
	var out []lambdatypes.FunctionResponseType
	for _, t := range strs(p, "function_response_types") {
		out = append(out, lambdatypes.FunctionResponseType(t))
	}
	return out
}

// Create is resourceEventSourceMappingCreate: CreateEventSourceMapping
// (retried while the function's role propagates), id = UUID, a wait until
// it leaves Creating, then Read.
func (h *mappingHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := h.check(req.Config); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.lambda(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	in := &lambda.CreateEventSourceMappingInput{
		FunctionName:                   strp(p, "function_name"),
		EventSourceArn:                 strp(p, "event_source_arn"),
		Enabled:                        boolp(p, "enabled"),
		BatchSize:                      int32p(p, "batch_size"),
		MaximumBatchingWindowInSeconds: int32p(p, "maximum_batching_window_in_seconds"),
		FunctionResponseTypes:          responseTypesOf(p),
		FilterCriteria:                 filterCriteriaOf(p),
		ScalingConfig:                  scalingOf(p),
		MetricsConfig:                  metricsOf(p),
	}
	if tags := tagsIn(p, pc); len(tags) > 0 {
		in.Tags = tags
	}
	out, err := retryWhen(ctx, lambdaPropagation, func(ctx context.Context) (*lambda.CreateEventSourceMappingOutput, error) {
		return cl.CreateEventSourceMapping(ctx, in)
	}, func(err error) bool {
		return iamNotReady(err) || updateInProgress(err) && strings.Contains(err.Error(), "in progress")
	})
	if err != nil {
		return cty.NilVal, fmt.Errorf("creating Lambda Event Source Mapping (%s): %w", str(p, "event_source_arn"), err)
	}
	id := aws.ToString(out.UUID)
	if err := waitMapping(ctx, cl, id, "Creating"); err != nil {
		return created(req, id, err)
	}
	return h.readBack(ctx, cl, req, id)
}

func (h *mappingHandler) readBack(ctx context.Context, cl *lambda.Client, req *ApplyRequest, id string) (cty.Value, error) {
	st, err := h.read(ctx, cl, req.Schema.Block, with(req.Planned, map[string]cty.Value{"id": sv(id)}), req.Provider)
	if err != nil {
		return created(req, id, err)
	}
	if st.IsNull() {
		return created(req, id, fmt.Errorf("reading Lambda Event Source Mapping (%s): not found after apply", id))
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// waitMapping waits until the mapping leaves the transitional state
// (waitEventSourceMappingCreate/Update); a "Deleting" wait ends when the
// mapping is gone (waitEventSourceMappingDelete).
func waitMapping(ctx context.Context, cl *lambda.Client, id, transitional string) error {
	return waitUntil(ctx, 10*time.Minute, "Lambda Event Source Mapping ("+id+") to leave "+transitional, func(ctx context.Context) (bool, error) {
		out, err := cl.GetEventSourceMapping(ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(id)})
		if lambdaGone(err) {
			return transitional == "Deleting", nil
		}
		if err != nil {
			return false, err
		}
		switch aws.ToString(out.State) {
		case "Creating", "Enabling", "Disabling", "Updating", "Deleting":
			return false, nil
		}
		return transitional != "Deleting", nil
	})
}

// Read is resourceEventSourceMappingRead.
func (h *mappingHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.lambda(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Schema.Block, req.Current, req.Provider)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

// sameFunction reports whether a function_name value (name, partial ARN or
// ARN, optionally qualified) names the function with ARN fnARN.
func sameFunction(ref, fnARN string) bool {
	if ref == fnARN {
		return true
	}
	a, err := arn.Parse(fnARN)
	if err != nil {
		return false
	}
	name := strings.TrimPrefix(a.Resource, "function:")
	if i := strings.Index(name, ":"); i >= 0 {
		name = name[:i]
	}
	return ref == name || strings.HasSuffix(ref, ":function:"+name)
}

func (h *mappingHandler) read(ctx context.Context, cl *lambda.Client, sch *tfjson.SchemaBlock, cur cty.Value, pc *Config) (cty.Value, error) {
	id := str(cur, "id")
	m, err := cl.GetEventSourceMapping(ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(id)})
	if lambdaGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading Lambda Event Source Mapping (%s): %w", id, err)
	}
	fnARN := aws.ToString(m.FunctionArn)
	vals := map[string]cty.Value{
		"id":                                 sv(aws.ToString(m.UUID)),
		"uuid":                               sv(aws.ToString(m.UUID)),
		"arn":                                sv(aws.ToString(m.EventSourceMappingArn)),
		"batch_size":                         ivp32(m.BatchSize),
		"event_source_arn":                   svp(m.EventSourceArn),
		"function_arn":                       sv(fnARN),
		"last_modified":                      sv(aws.ToTime(m.LastModified).UTC().Format(time.RFC3339)),
		"last_processing_result":             sv(aws.ToString(m.LastProcessingResult)),
		"maximum_batching_window_in_seconds": ivp32(m.MaximumBatchingWindowInSeconds),
		"maximum_record_age_in_seconds":      ivp32(m.MaximumRecordAgeInSeconds),
		"maximum_retry_attempts":             ivp32(m.MaximumRetryAttempts),
		"parallelization_factor":             ivp32(m.ParallelizationFactor),
		"bisect_batch_on_function_error":     bvp(m.BisectBatchOnFunctionError),
		"tumbling_window_in_seconds":         ivp32(m.TumblingWindowInSeconds),
		"state":                              sv(aws.ToString(m.State)),
		"state_transition_reason":            sv(aws.ToString(m.StateTransitionReason)),
		"kms_key_arn":                        svp(m.KMSKeyArn),
		"starting_position":                  cty.NullVal(cty.String),
	}
	if m.StartingPosition != "" {
		vals["starting_position"] = sv(string(m.StartingPosition))
	}
	// function_name keeps the configuration's spelling (name or ARN) while
	// it names the same function.
	if ref := str(cur, "function_name"); ref == "" || !sameFunction(ref, fnARN) {
		vals["function_name"] = sv(fnARN)
	}
	switch aws.ToString(m.State) {
	case "Enabled", "Enabling":
		vals["enabled"] = cty.True
	case "Disabled", "Disabling":
		vals["enabled"] = cty.False
	}
	var rts []string
	for _, t := range m.FunctionResponseTypes {
		rts = append(rts, string(t))
	}
	vals["function_response_types"] = setOf(rts)
	fcType := nestedType(sch, "filter_criteria")
	if fc := m.FilterCriteria; fc != nil && len(fc.Filters) > 0 {
		var filters []map[string]cty.Value
		for _, f := range fc.Filters {
			var ref cty.Value = cty.NilVal
			for _, cf := range blocks(block(cur, "filter_criteria"), "filter") {
				if jsonEqual(str(cf, "pattern"), aws.ToString(f.Pattern)) {
					ref = getAttr(cf, "pattern")
				}
			}
			filters = append(filters, map[string]cty.Value{"pattern": jsonState(aws.ToString(f.Pattern), ref)})
		}
		vals["filter_criteria"] = blockOf(fcType, map[string]cty.Value{"filter": blockOf(nestedType(sch, "filter_criteria", "filter"), filters...)})
	} else {
		vals["filter_criteria"] = blockOf(fcType)
	}
	if sc := m.ScalingConfig; sc != nil && sc.MaximumConcurrency != nil {
		vals["scaling_config"] = blockOf(nestedType(sch, "scaling_config"), map[string]cty.Value{"maximum_concurrency": ivp32(sc.MaximumConcurrency)})
	} else {
		vals["scaling_config"] = blockOf(nestedType(sch, "scaling_config"))
	}
	if mc := m.MetricsConfig; mc != nil && len(mc.Metrics) > 0 {
		var ms []string
		for _, x := range mc.Metrics {
			ms = append(ms, string(x))
		}
		vals["metrics_config"] = blockOf(nestedType(sch, "metrics_config"), map[string]cty.Value{"metrics": setOf(ms)})
	} else {
		vals["metrics_config"] = blockOf(nestedType(sch, "metrics_config"))
	}
	for _, b := range []string{"destination_config", "document_db_event_source_config", "amazon_managed_kafka_event_source_config",
		"self_managed_event_source", "self_managed_kafka_event_source_config", "source_access_configuration", "provisioned_poller_config"} {
		vals[b] = blockOf(nestedType(sch, b))
	}
	if arnStr := aws.ToString(m.EventSourceMappingArn); arnStr != "" {
		tags, err := cl.ListTags(ctx, &lambda.ListTagsInput{Resource: aws.String(arnStr)})
		if err != nil {
			return cty.NilVal, fmt.Errorf("listing tags for Lambda Event Source Mapping (%s): %w", id, err)
		}
		vals["tags"], vals["tags_all"] = tagsOut(pc, tags.Tags)
	}
	return with(cur, vals), nil
}

// Update is resourceEventSourceMappingUpdate: UpdateEventSourceMapping with
// the changed arguments (retried while the mapping is in use), a wait,
// then tags.
func (h *mappingHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := h.check(req.Config); err != nil {
		return cty.NilVal, err
	}
	pc, prior, p := req.Provider, req.Prior, req.Planned
	cl, err := h.c.lambda(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	id := str(prior, "id")
	in := &lambda.UpdateEventSourceMappingInput{UUID: aws.String(id)}
	has := false
	if changed(prior, p, "batch_size") {
		in.BatchSize, has = int32p(p, "batch_size"), true
	}
	if changed(prior, p, "maximum_batching_window_in_seconds") {
		in.MaximumBatchingWindowInSeconds, has = aws.Int32(0), true
		if v := int32p(p, "maximum_batching_window_in_seconds"); v != nil {
			in.MaximumBatchingWindowInSeconds = v
		}
	}
	if changed(prior, p, "enabled") {
		in.Enabled, has = aws.Bool(boolAttr(p, "enabled")), true
	}
	if changed(prior, p, "function_name") {
		in.FunctionName, has = strp(p, "function_name"), true
	}
	if changed(prior, p, "function_response_types") {
		in.FunctionResponseTypes, has = responseTypesOf(p), true
		if in.FunctionResponseTypes == nil {
			in.FunctionResponseTypes = []lambdatypes.FunctionResponseType{}
		}
	}
	if changed(prior, p, "filter_criteria") {
		in.FilterCriteria, has = filterCriteriaOf(p), true
		if in.FilterCriteria == nil {
			in.FilterCriteria = &lambdatypes.FilterCriteria{}
		}
	}
	if changed(prior, p, "scaling_config") {
		in.ScalingConfig, has = scalingOf(p), true
		if in.ScalingConfig == nil {
			in.ScalingConfig = &lambdatypes.ScalingConfig{}
		}
	}
	if changed(prior, p, "metrics_config") {
		in.MetricsConfig, has = metricsOf(p), true
		if in.MetricsConfig == nil {
			in.MetricsConfig = &lambdatypes.EventSourceMappingMetricsConfig{}
		}
	}
	if has {
		if _, err := retryWhen(ctx, lambdaPropagation, func(ctx context.Context) (*lambda.UpdateEventSourceMappingOutput, error) {
			return cl.UpdateEventSourceMapping(ctx, in)
		}, func(err error) bool { return iamNotReady(err) || isCode(err, "ResourceInUseException") }); err != nil {
			return cty.NilVal, fmt.Errorf("updating Lambda Event Source Mapping (%s): %w", id, err)
		}
		if err := waitMapping(ctx, cl, id, "Updating"); err != nil {
			return cty.NilVal, err
		}
	}
	if err := lambdaTags(ctx, cl, str(prior, "arn"), prior, p, pc); err != nil {
		return cty.NilVal, err
	}
	return h.readBack(ctx, cl, req, id)
}

// Delete is resourceEventSourceMappingDelete: DeleteEventSourceMapping
// (retried while in use), then a wait until it is gone.
func (h *mappingHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.lambda(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	id := str(req.Prior, "id")
	_, err = retryOn(ctx, 5*time.Minute, func(ctx context.Context) (*lambda.DeleteEventSourceMappingOutput, error) {
		return cl.DeleteEventSourceMapping(ctx, &lambda.DeleteEventSourceMappingInput{UUID: aws.String(id)})
	}, "ResourceInUseException")
	if lambdaGone(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting Lambda Event Source Mapping (%s): %w", id, err)
	}
	return waitMapping(ctx, cl, id, "Deleting")
}

// Import takes the mapping's UUID.
func (h *mappingHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID)}), nil
}

// ---- asynchronous invocation configuration ----

type invokeConfigHandler struct{ c *clients }

// invokeConfigID is functionEventInvokeConfigCreateResourceID.
func invokeConfigID(function, qualifier string) string {
	if qualifier == "" {
		return function
	}
	return function + ":" + qualifier
}

// parseInvokeConfigID splits an id into function and qualifier; a
// function ARN keeps its colons (functionEventInvokeConfigParseResourceID).
func parseInvokeConfigID(id string) (function, qualifier string) {
	if a, err := arn.Parse(id); err == nil {
		parts := strings.Split(a.Resource, ":")
		if len(parts) == 3 {
			return strings.TrimSuffix(id, ":"+parts[2]), parts[2]
		}
		return id, ""
	}
	if f, q, ok := strings.Cut(id, ":"); ok {
		return f, q
	}
	return id, ""
}

func (h *invokeConfigHandler) put(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet("aws_lambda_function_event_invoke_config", req.Config, map[string]string{
		"destination_config": "asynchronous invocation destinations are not emulated",
	}, "destination_config"); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.lambda(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	fn, q := str(p, "function_name"), str(p, "qualifier")
	in := &lambda.PutFunctionEventInvokeConfigInput{
		FunctionName:             aws.String(fn),
		Qualifier:                strp(p, "qualifier"),
		MaximumEventAgeInSeconds: int32p(p, "maximum_event_age_in_seconds"),
		MaximumRetryAttempts:     int32p(p, "maximum_retry_attempts"),
	}
	// A function created moments ago may not be found yet (the provider
	// retries ResourceNotFoundException for propagationTimeout).
	if _, err := retryWhen(ctx, lambdaPropagation, func(ctx context.Context) (*lambda.PutFunctionEventInvokeConfigOutput, error) {
		return cl.PutFunctionEventInvokeConfig(ctx, in)
	}, func(err error) bool { return lambdaGone(err) && req.Prior.IsNull() || updateInProgress(err) }); err != nil {
		return cty.NilVal, fmt.Errorf("putting Lambda Function Event Invoke Config (%s): %w", invokeConfigID(fn, q), err)
	}
	id := invokeConfigID(fn, q)
	st, err := h.read(ctx, cl, req.Schema.Block, with(p, map[string]cty.Value{"id": sv(id)}))
	if err != nil {
		return created(req, id, err)
	}
	if st.IsNull() {
		return created(req, id, fmt.Errorf("reading Lambda Function Event Invoke Config (%s): not found after put", id))
	}
	return settle(req.Schema.Block, st, p), nil
}

// Create is resourceFunctionEventInvokeConfigCreate:
// PutFunctionEventInvokeConfig.
func (h *invokeConfigHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	return h.put(ctx, req)
}

// Update puts the whole configuration again (the provider's update).
func (h *invokeConfigHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	return h.put(ctx, req)
}

// Read is resourceFunctionEventInvokeConfigRead.
func (h *invokeConfigHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.lambda(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Schema.Block, req.Current)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func (h *invokeConfigHandler) read(ctx context.Context, cl *lambda.Client, sch *tfjson.SchemaBlock, cur cty.Value) (cty.Value, error) {
	id := str(cur, "id")
	fn, q := parseInvokeConfigID(id)
	in := &lambda.GetFunctionEventInvokeConfigInput{FunctionName: aws.String(fn)}
	if q != "" {
		in.Qualifier = aws.String(q)
	}
	out, err := cl.GetFunctionEventInvokeConfig(ctx, in)
	if lambdaGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading Lambda Function Event Invoke Config (%s): %w", id, err)
	}
	vals := map[string]cty.Value{
		"id":                           sv(id),
		"function_name":                sv(fn),
		"qualifier":                    sv(q),
		"maximum_event_age_in_seconds": ivp32(out.MaximumEventAgeInSeconds),
		"maximum_retry_attempts":       ivp32(out.MaximumRetryAttempts),
		"destination_config":           blockOf(nestedType(sch, "destination_config")),
	}
	return with(cur, vals), nil
}

// Delete is resourceFunctionEventInvokeConfigDelete.
func (h *invokeConfigHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.lambda(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	id := str(req.Prior, "id")
	fn, q := parseInvokeConfigID(id)
	in := &lambda.DeleteFunctionEventInvokeConfigInput{FunctionName: aws.String(fn)}
	if q != "" {
		in.Qualifier = aws.String(q)
	}
	if _, err := cl.DeleteFunctionEventInvokeConfig(ctx, in); err != nil && !lambdaGone(err) {
		return fmt.Errorf("deleting Lambda Function Event Invoke Config (%s): %w", id, err)
	}
	return nil
}

// Import takes "function" or "function:qualifier".
func (h *invokeConfigHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID)}), nil
}
