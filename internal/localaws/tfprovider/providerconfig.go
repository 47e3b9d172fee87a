package tfprovider

import (
	"fmt"
	"os"
	"sort"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"
)

// endpointNames are the arguments of the provider's `endpoints` block: one
// optional URL per service package, plus the aliases the provider accepts.
//
// Source: hashicorp/terraform-provider-aws
// internal/provider/sdkv2/provider_gen.go (endpointsSchema, generated from
// names/data/names_data.hcl), commit 00a35305dc1b297a6fcdecdfbba33f1e63c3da39
// (2026). There is no "dynamodbstreams" key: DynamoDB Streams share the
// dynamodb service package.
var endpointNames = []string{
	"accessanalyzer", "account", "acm", "acmpca", "amp", "prometheus", "prometheusservice",
	"amplify", "apigateway", "apigatewayv2", "appautoscaling", "applicationautoscaling",
	"appconfig", "appfabric", "appflow", "appintegrations", "appintegrationsservice",
	"applicationinsights", "applicationsignals", "appmesh", "apprunner", "appstream", "appsync",
	"arcregionswitch", "arczonalshift", "athena", "auditmanager", "autoscaling",
	"autoscalingplans", "backup", "batch", "bcmdataexports", "bedrock", "bedrockagent",
	"bedrockagentcore", "billing", "budgets", "ce", "costexplorer", "chatbot", "chime",
	"chimesdkmediapipelines", "chimesdkvoice", "cleanrooms", "cloud9", "cloudcontrol",
	"cloudcontrolapi", "cloudformation", "cloudfront", "cloudfrontkeyvaluestore", "cloudhsmv2",
	"cloudhsm", "cloudsearch", "cloudtrail", "cloudwatch", "codeartifact", "codebuild",
	"codecatalyst", "codecommit", "codeconnections", "codeguruprofiler", "codegurureviewer",
	"codepipeline", "codestarconnections", "codestarnotifications", "cognitoidentity",
	"cognitoidp", "cognitoidentityprovider", "comprehend", "computeoptimizer", "configservice",
	"config", "connect", "connectcases", "controltower", "costoptimizationhub", "cur",
	"costandusagereportservice", "customerprofiles", "databrew", "gluedatabrew",
	"dataexchange", "datapipeline", "datasync", "datazone", "dax", "deploy", "codedeploy",
	"detective", "devicefarm", "devopsguru", "directconnect", "dlm", "dms",
	"databasemigration", "databasemigrationservice", "docdb", "docdbelastic", "drs", "ds",
	"directoryservice", "dsql", "dynamodb", "ec2", "ecr", "ecrpublic", "ecs", "efs", "eks",
	"elasticache", "elasticbeanstalk", "beanstalk", "elasticsearch", "es",
	"elasticsearchservice", "elastictranscoder", "elb", "elasticloadbalancing", "elbv2",
	"elasticloadbalancingv2", "emr", "emrcontainers", "emrserverless", "events", "eventbridge",
	"cloudwatchevents", "evidently", "cloudwatchevidently", "evs", "finspace", "firehose",
	"fis", "fms", "fsx", "gamelift", "glacier", "globalaccelerator", "glue", "grafana",
	"managedgrafana", "amg", "greengrass", "groundstation", "guardduty", "healthlake", "iam",
	"identitystore", "imagebuilder", "inspector", "inspector2", "inspectorv2",
	"internetmonitor", "invoicing", "iot", "ivs", "ivschat", "kafka", "msk", "kafkaconnect",
	"kendra", "keyspaces", "kinesis", "kinesisanalytics", "kinesisanalyticsv2", "kinesisvideo",
	"kms", "lakeformation", "lambda", "launchwizard", "lexmodels", "lexmodelbuilding",
	"lexmodelbuildingservice", "lex", "lexv2models", "lexmodelsv2", "licensemanager",
	"lightsail", "location", "locationservice", "logs", "cloudwatchlog", "cloudwatchlogs", "m2",
	"macie2", "mediaconnect", "mediaconvert", "medialive", "mediapackage", "mediapackagev2",
	"mediapackagevod", "mediastore", "memorydb", "mgn", "mpa", "mq", "mwaa", "mwaaserverless",
	"neptune", "neptunegraph", "networkfirewall", "networkflowmonitor", "networkmanager",
	"networkmonitor", "notifications", "notificationscontacts", "oam",
	"cloudwatchobservabilityaccessmanager", "observabilityadmin", "odb", "opensearch",
	"opensearchservice", "opensearchserverless", "organizations", "osis",
	"opensearchingestion", "outposts", "paymentcryptography", "pcaconnectorad", "pcs",
	"pinpoint", "pinpointsmsvoicev2", "pipes", "polly", "pricing", "qbusiness", "qldb",
	"quicksight", "ram", "rbin", "recyclebin", "rds", "rdsdata", "rdsdataservice", "redshift",
	"redshiftdata", "redshiftdataapiservice", "redshiftserverless", "rekognition",
	"resiliencehub", "resourceexplorer2", "resourcegroups", "resourcegroupstaggingapi",
	"resourcegroupstagging", "rolesanywhere", "route53", "route53domains", "route53profiles",
	"route53recoverycontrolconfig", "route53recoveryreadiness", "route53resolver", "rum",
	"cloudwatchrum", "s3", "s3api", "s3control", "s3outposts", "s3tables", "s3vectors",
	"sagemaker", "savingsplans", "scheduler", "schemas", "secretsmanager", "securityhub",
	"securitylake", "serverlessrepo", "serverlessapprepo", "serverlessapplicationrepository",
	"servicecatalog", "servicecatalogappregistry", "appregistry", "servicediscovery",
	"servicequotas", "ses", "sesv2", "sfn", "stepfunctions", "shield", "signer", "sns", "sqs",
	"ssm", "ssmcontacts", "ssmincidents", "ssmquicksetup", "ssmsap", "sso", "ssoadmin",
	"storagegateway", "sts", "swf", "synthetics", "taxsettings", "timestreaminfluxdb",
	"timestreamquery", "timestreamwrite", "transcribe", "transcribeservice", "transfer",
	"verifiedpermissions", "vpclattice", "waf", "wafregional", "wafv2", "wellarchitected",
	"workmail", "workspaces", "workspacesweb", "xray",
}

// endpointAliases maps alias endpoint keys to the service package they set
// (same source as endpointNames, function expandEndpoints).
var endpointAliases = map[string]string{
	"prometheus": "amp", "prometheusservice": "amp",
	"applicationautoscaling": "appautoscaling", "appintegrationsservice": "appintegrations",
	"costexplorer": "ce", "cloudcontrolapi": "cloudcontrol", "cloudhsm": "cloudhsmv2",
	"cognitoidentityprovider": "cognitoidp", "config": "configservice",
	"costandusagereportservice": "cur", "gluedatabrew": "databrew", "codedeploy": "deploy",
	"databasemigration": "dms", "databasemigrationservice": "dms", "directoryservice": "ds",
	"beanstalk": "elasticbeanstalk", "es": "elasticsearch", "elasticsearchservice": "elasticsearch",
	"elasticloadbalancing": "elb", "elasticloadbalancingv2": "elbv2",
	"eventbridge": "events", "cloudwatchevents": "events", "cloudwatchevidently": "evidently",
	"managedgrafana": "grafana", "amg": "grafana", "inspectorv2": "inspector2", "msk": "kafka",
	"lexmodelbuilding": "lexmodels", "lexmodelbuildingservice": "lexmodels", "lex": "lexmodels",
	"lexmodelsv2": "lexv2models", "locationservice": "location",
	"cloudwatchlog": "logs", "cloudwatchlogs": "logs",
	"cloudwatchobservabilityaccessmanager": "oam", "opensearchservice": "opensearch",
	"opensearchingestion": "osis", "recyclebin": "rbin", "rdsdataservice": "rdsdata",
	"redshiftdataapiservice": "redshiftdata", "resourcegroupstagging": "resourcegroupstaggingapi",
	"cloudwatchrum": "rum", "s3api": "s3", "serverlessapprepo": "serverlessrepo",
	"serverlessapplicationrepository": "serverlessrepo", "appregistry": "servicecatalogappregistry",
	"stepfunctions": "sfn", "transcribeservice": "transcribe",
}

func optString(desc string) *tfjson.SchemaAttribute {
	return &tfjson.SchemaAttribute{AttributeType: cty.String, Optional: true, Description: desc, DescriptionKind: tfjson.SchemaDescriptionKindPlain}
}

// secretString is an optional string Terraform redacts in plans and output
// (issue 15 #13): credentials must not show up in a transcript.
func secretString(desc string) *tfjson.SchemaAttribute {
	a := optString(desc)
	a.Sensitive = true
	return a
}

func optBool(desc string) *tfjson.SchemaAttribute {
	return &tfjson.SchemaAttribute{AttributeType: cty.Bool, Optional: true, Description: desc, DescriptionKind: tfjson.SchemaDescriptionKindPlain}
}

func optType(ty cty.Type, desc string) *tfjson.SchemaAttribute {
	return &tfjson.SchemaAttribute{AttributeType: ty, Optional: true, Description: desc, DescriptionKind: tfjson.SchemaDescriptionKindPlain}
}

// providerSchema is the `provider "aws" {}` block schema. The JSON file has
// none, so it is written out here from the real provider's SDKv2 schema:
// hashicorp/terraform-provider-aws internal/provider/sdkv2/provider.go
// (NewProvider, assumeRoleSchema, assumeRoleWithWebIdentitySchema), commit
// 18fc80b64733d85f8a2797c09547815503f27fe7. SDKv2 renders TypeList/TypeSet
// of a Resource as list/set blocks, and skip_metadata_api_check (a
// "nullable bool") as a string.
func providerSchema() *tfjson.Schema {
	endpoints := &tfjson.SchemaBlock{Attributes: map[string]*tfjson.SchemaAttribute{}, DescriptionKind: tfjson.SchemaDescriptionKindPlain}
	for _, n := range endpointNames {
		endpoints.Attributes[n] = optString("Use this to override the default service endpoint URL")
	}
	strList := cty.List(cty.String)
	strSet := cty.Set(cty.String)
	assumeRole := &tfjson.SchemaBlock{
		DescriptionKind: tfjson.SchemaDescriptionKindPlain,
		Attributes: map[string]*tfjson.SchemaAttribute{
			"duration":            optString("The duration, between 15 minutes and 12 hours, of the role session."),
			"external_id":         optString("A unique identifier that might be required when you assume a role in another account."),
			"policy":              optString("IAM Policy JSON describing further restricting permissions for the IAM Role being assumed."),
			"policy_arns":         optType(strSet, "Amazon Resource Names (ARNs) of IAM Policies describing further restricting permissions for the IAM Role being assumed."),
			"role_arn":            optString("Amazon Resource Name (ARN) of an IAM Role to assume prior to making API calls."),
			"session_name":        optString("An identifier for the assumed role session."),
			"source_identity":     optString("Source identity specified by the principal assuming the role."),
			"tags":                optType(cty.Map(cty.String), "Assume role session tags."),
			"transitive_tag_keys": optType(strSet, "Assume role session tag keys to pass to any subsequent sessions."),
		},
	}
	webIdentity := &tfjson.SchemaBlock{
		DescriptionKind: tfjson.SchemaDescriptionKindPlain,
		Attributes: map[string]*tfjson.SchemaAttribute{
			"duration":                optString("The duration, between 15 minutes and 12 hours, of the role session."),
			"policy":                  optString("IAM Policy JSON describing further restricting permissions for the IAM Role being assumed."),
			"policy_arns":             optType(strSet, "Amazon Resource Names (ARNs) of IAM Policies describing further restricting permissions for the IAM Role being assumed."),
			"role_arn":                optString("Amazon Resource Name (ARN) of an IAM Role to assume prior to making API calls."),
			"session_name":            optString("An identifier for the assumed role session."),
			"web_identity_token":      optString(""),
			"web_identity_token_file": optString(""),
		},
	}
	return &tfjson.Schema{Block: &tfjson.SchemaBlock{
		DescriptionKind: tfjson.SchemaDescriptionKindPlain,
		Attributes: map[string]*tfjson.SchemaAttribute{
			"access_key":                         optString("The access key for API operations."),
			"allowed_account_ids":                optType(strSet, ""),
			"custom_ca_bundle":                   optString("File containing custom root and intermediate certificates."),
			"ec2_metadata_service_endpoint":      optString("Address of the EC2 metadata service endpoint to use."),
			"ec2_metadata_service_endpoint_mode": optString("Protocol to use with EC2 metadata service endpoint."),
			"forbidden_account_ids":              optType(strSet, ""),
			"http_proxy":                         optString("URL of a proxy to use for HTTP requests when accessing the AWS API."),
			"https_proxy":                        optString("URL of a proxy to use for HTTPS requests when accessing the AWS API."),
			"insecure":                           optBool("Explicitly allow the provider to perform \"insecure\" SSL requests."),
			"max_retries":                        optType(cty.Number, "The maximum number of times an AWS API request is being executed."),
			"no_proxy":                           optString("Comma-separated list of hosts that should not use HTTP or HTTPS proxies."),
			"profile":                            optString("The profile for API operations."),
			"region":                             optString("The region where AWS operations will take place."),
			"retry_mode":                         optString("Specifies how retries are attempted. Valid values are `standard` and `adaptive`."),
			"s3_use_path_style":                  optBool("Set this to true to enable the request to use path-style addressing."),
			"s3_us_east_1_regional_endpoint":     optString("Specifies whether S3 API calls in the `us-east-1` region use the legacy global endpoint or a regional endpoint."),
			"secret_key":                         secretString("The secret key for API operations."),
			"shared_config_files":                optType(strList, "List of paths to shared config files."),
			"shared_credentials_files":           optType(strList, "List of paths to shared credentials files."),
			"skip_credentials_validation":        optBool("Skip the credentials validation via STS API."),
			"skip_metadata_api_check":            optString("Skip the AWS Metadata API check."),
			"skip_region_validation":             optBool("Skip static validation of region name."),
			"skip_requesting_account_id":         optBool("Skip requesting the account ID."),
			"sts_region":                         optString("The region where AWS STS operations will take place."),
			"tag_policy_compliance":              optString("The severity with which to enforce organizational tagging policies."),
			"token":                              secretString("session token."),
			"token_bucket_rate_limiter_capacity": optType(cty.Number, "The capacity of the AWS SDK's token bucket rate limiter."),
			"use_dualstack_endpoint":             optBool("Resolve an endpoint with DualStack capability"),
			"use_fips_endpoint":                  optBool("Resolve an endpoint with FIPS capability"),
			"user_agent":                         optType(strList, "Product details to append to the User-Agent string sent in all AWS API calls."),
		},
		NestedBlocks: map[string]*tfjson.SchemaBlockType{
			"assume_role":                   {NestingMode: tfjson.SchemaNestingModeList, Block: assumeRole},
			"assume_role_with_web_identity": {NestingMode: tfjson.SchemaNestingModeList, MaxItems: 1, Block: webIdentity},
			"default_tags": {NestingMode: tfjson.SchemaNestingModeList, MaxItems: 1, Block: &tfjson.SchemaBlock{
				DescriptionKind: tfjson.SchemaDescriptionKindPlain,
				Attributes: map[string]*tfjson.SchemaAttribute{
					"tags": optType(cty.Map(cty.String), "Resource tags to default across all resources."),
				},
			}},
			"endpoints": {NestingMode: tfjson.SchemaNestingModeSet, Block: endpoints},
			"ignore_tags": {NestingMode: tfjson.SchemaNestingModeList, MaxItems: 1, Block: &tfjson.SchemaBlock{
				DescriptionKind: tfjson.SchemaDescriptionKindPlain,
				Attributes: map[string]*tfjson.SchemaAttribute{
					"keys":         optType(strSet, "Resource tag keys to ignore across all resources."),
					"key_prefixes": optType(strSet, "Resource tag key prefixes to ignore across all resources."),
				},
			}},
		},
	}}
}

// Config is the provider configuration the local provider acts on.
type Config struct {
	// Region is the configured region (provider block, else $AWS_REGION,
	// else $AWS_DEFAULT_REGION).
	Region string
	// Profile, AccessKey, SecretKey and Token are the credential settings.
	Profile, AccessKey, SecretKey, Token string
	// STSRegion overrides the region STS calls are signed for.
	STSRegion string
	// Endpoints maps service packages (aliases resolved) to endpoint URLs.
	Endpoints map[string]string
	// DefaultTags are merged into every taggable resource's tags_all.
	DefaultTags map[string]string
	// IgnoreTagKeys and IgnoreTagKeyPrefixes name tags the provider ignores.
	IgnoreTagKeys, IgnoreTagKeyPrefixes []string
	// SkipCredentialsValidation, SkipRequestingAccountID and SkipMetadataAPICheck
	// mirror the provider arguments of the same names.
	SkipCredentialsValidation, SkipRequestingAccountID, SkipMetadataAPICheck bool
	// Insecure disables TLS verification.
	Insecure bool
	// Unknown is true when part of the provider configuration was unknown
	// at plan time (it references values not yet created).
	Unknown bool
}

// defaultTagsEnvPrefix: variables TF_AWS_DEFAULT_TAGS_<key> add default
// tags (provider.go expandDefaultTags; tftags.DefaultTagsEnvVarPrefix).
const defaultTagsEnvPrefix = "TF_AWS_DEFAULT_TAGS_"

// parseConfig reads a provider block value into a Config. getenv is
// injected so tests do not depend on the process environment.
func parseConfig(v cty.Value, getenv func(string) string, environ []string) (*Config, error) {
	c := &Config{Endpoints: map[string]string{}, DefaultTags: map[string]string{}}
	if v.IsNull() {
		v = cty.NullVal(ImpliedType(providerSchema().Block))
	}
	if !v.IsWhollyKnown() {
		c.Unknown = true
	}
	str := func(name string) string {
		if v.IsNull() || !v.IsKnown() {
			return ""
		}
		a := v.GetAttr(name)
		if a.IsNull() || !a.IsKnown() {
			return ""
		}
		return a.AsString()
	}
	boolean := func(name string) bool {
		if v.IsNull() || !v.IsKnown() {
			return false
		}
		a := v.GetAttr(name)
		return !a.IsNull() && a.IsKnown() && a.True()
	}
	c.Region = firstNonEmpty(str("region"), getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION"))
	c.Profile = firstNonEmpty(str("profile"), getenv("AWS_PROFILE"))
	c.AccessKey = firstNonEmpty(str("access_key"), getenv("AWS_ACCESS_KEY_ID"))
	c.SecretKey = firstNonEmpty(str("secret_key"), getenv("AWS_SECRET_ACCESS_KEY"))
	c.Token = firstNonEmpty(str("token"), getenv("AWS_SESSION_TOKEN"))
	c.STSRegion = str("sts_region")
	c.SkipCredentialsValidation = boolean("skip_credentials_validation")
	c.SkipRequestingAccountID = boolean("skip_requesting_account_id")
	c.Insecure = boolean("insecure")
	if s := str("skip_metadata_api_check"); s != "" {
		b, err := parseNullableBool(s)
		if err != nil {
			return nil, fmt.Errorf("skip_metadata_api_check: %w", err)
		}
		c.SkipMetadataAPICheck = b
	}

	// Default tags: environment first, then the block (block wins), as in
	// provider.go expandDefaultTags.
	for _, kv := range environ {
		k, val, _ := strings.Cut(kv, "=")
		if tag, ok := strings.CutPrefix(k, defaultTagsEnvPrefix); ok && tag != "" {
			c.DefaultTags[tag] = val
		}
	}
	if !v.IsNull() && v.IsKnown() {
		if dt := v.GetAttr("default_tags"); dt.IsKnown() && !dt.IsNull() {
			for it := dt.ElementIterator(); it.Next(); {
				_, blk := it.Element()
				if !blk.IsKnown() {
					c.Unknown = true
					continue
				}
				if tags := blk.GetAttr("tags"); tags.IsKnown() && !tags.IsNull() {
					for k, tv := range tags.AsValueMap() {
						if tv.IsKnown() && !tv.IsNull() {
							c.DefaultTags[k] = tv.AsString()
						}
					}
				}
			}
		}
		if it := v.GetAttr("ignore_tags"); it.IsKnown() && !it.IsNull() {
			for iter := it.ElementIterator(); iter.Next(); {
				_, blk := iter.Element()
				c.IgnoreTagKeys = append(c.IgnoreTagKeys, knownStrings(blk.GetAttr("keys"))...)
				c.IgnoreTagKeyPrefixes = append(c.IgnoreTagKeyPrefixes, knownStrings(blk.GetAttr("key_prefixes"))...)
			}
		}
		if eps := v.GetAttr("endpoints"); eps.IsKnown() && !eps.IsNull() {
			for it := eps.ElementIterator(); it.Next(); {
				_, blk := it.Element()
				if !blk.IsKnown() {
					continue
				}
				for name, ev := range blk.AsValueMap() {
					if ev.IsNull() || !ev.IsKnown() || ev.AsString() == "" {
						continue
					}
					pkg := name
					if canon, ok := endpointAliases[name]; ok {
						pkg = canon
					}
					if _, seen := c.Endpoints[pkg]; !seen {
						c.Endpoints[pkg] = ev.AsString()
					}
				}
			}
		}
	}
	// TF_AWS_IGNORE_TAGS_KEYS / TF_AWS_IGNORE_TAGS_KEY_PREFIXES (provider.go
	// expandIgnoreTags; the variables are named in the provider docs).
	c.IgnoreTagKeys = append(c.IgnoreTagKeys, splitComma(getenv("TF_AWS_IGNORE_TAGS_KEYS"))...)
	c.IgnoreTagKeyPrefixes = append(c.IgnoreTagKeyPrefixes, splitComma(getenv("TF_AWS_IGNORE_TAGS_KEY_PREFIXES"))...)
	sort.Strings(c.IgnoreTagKeys)
	sort.Strings(c.IgnoreTagKeyPrefixes)
	return c, nil
}

// Endpoint returns the endpoint URL for a service package: the endpoints
// block, else $AWS_ENDPOINT_URL_<SERVICE>, else $AWS_ENDPOINT_URL (the SDK's
// service-specific and global endpoint variables).
func (c *Config) Endpoint(pkg string, getenv func(string) string) string {
	if e := c.Endpoints[pkg]; e != "" {
		return e
	}
	return firstNonEmpty(getenv("AWS_ENDPOINT_URL_"+strings.ToUpper(pkg)), getenv("AWS_ENDPOINT_URL"))
}

// ignoredTag reports whether the provider's ignore_tags covers key.
func (c *Config) ignoredTag(key string) bool {
	for _, k := range c.IgnoreTagKeys {
		if k == key {
			return true
		}
	}
	for _, p := range c.IgnoreTagKeyPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

func knownStrings(v cty.Value) []string {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsKnown() && !e.IsNull() {
			out = append(out, e.AsString())
		}
	}
	return out
}

func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// parseNullableBool mirrors the provider's nullable bool strings
// (internal/sdkv2/types/nullable: strconv.ParseBool accepted forms).
func parseNullableBool(s string) (bool, error) {
	switch s {
	case "1", "t", "T", "true", "TRUE", "True":
		return true, nil
	case "0", "f", "F", "false", "FALSE", "False":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean", s)
}

// defaultEnviron is the process environment, the provider's source of
// default tags and endpoint variables.
func defaultEnviron() []string { return os.Environ() }
