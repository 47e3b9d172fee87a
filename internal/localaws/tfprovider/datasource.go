package tfprovider

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/zclconf/go-cty/cty"
)

// readDataSource implements the data sources a root module needs to be
// region- and account-agnostic. Each fills every attribute of its schema;
// attributes the local provider cannot know stay null.
func (s *Server) readDataSource(ctx context.Context, typeName string, sch *tfjson.Schema, cfg cty.Value) (cty.Value, []*tfprotov5.Diagnostic) {
	pc := s.config()
	var vals map[string]cty.Value
	var diags []*tfprotov5.Diagnostic
	switch typeName {
	case "aws_region":
		vals, diags = readRegion(pc, cfg)
	case "aws_partition":
		vals = readPartition(pc)
	case "aws_default_tags":
		vals = readDefaultTags(pc)
	case "aws_caller_identity":
		vals, diags = s.readCallerIdentity(ctx, pc)
	default:
		return cty.NilVal, []*tfprotov5.Diagnostic{errorDiag("Data source not supported",
			fmt.Sprintf("the taskpipe local provider does not support the %s data source: it implements "+
				"aws_caller_identity, aws_default_tags, aws_partition and aws_region. Use a resource "+
				"attribute or a variable instead.", typeName), nil)}
	}
	if hasError(diags) {
		return cty.NilVal, diags
	}
	return objectFor(sch.Block, cfg, vals), diags
}

// objectFor builds a value of the block's type: configured values first,
// then the data source's, null for the rest.
func objectFor(b *tfjson.SchemaBlock, cfg cty.Value, vals map[string]cty.Value) cty.Value {
	ty := ImpliedType(b)
	out := map[string]cty.Value{}
	for name, at := range ty.AttributeTypes() {
		v := cty.NullVal(at)
		if c := cfg.GetAttr(name); !c.IsNull() {
			v = c
		} else if dv, ok := vals[name]; ok {
			v = dv
		}
		out[name] = v
	}
	return cty.ObjectVal(out)
}

// partitionOf maps a region to its partition, DNS suffix and reverse-DNS
// prefix (AWS General Reference, "AWS partitions"; the values the provider's
// aws_partition data source reports).
func partitionOf(region string) (partition, dnsSuffix, reverseDNS string) {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn", "amazonaws.com.cn", "cn.com.amazonaws"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov", "amazonaws.com", "com.amazonaws"
	case strings.HasPrefix(region, "us-iso-"):
		return "aws-iso", "c2s.ic.gov", "gov.ic.c2s"
	case strings.HasPrefix(region, "us-isob-"):
		return "aws-iso-b", "sc2s.sgov.gov", "gov.sgov.sc2s"
	case strings.HasPrefix(region, "eu-isoe-"):
		return "aws-iso-e", "cloud.adc-e.uk", "uk.adc-e.cloud"
	case strings.HasPrefix(region, "us-isof-"):
		return "aws-iso-f", "csp.hci.ic.gov", "gov.ic.hci.csp"
	}
	return "aws", "amazonaws.com", "com.amazonaws"
}

// regionDescriptions are the commercial regions' names (AWS General
// Reference, "Regions and Zones"); aws_region reports them as description.
var regionDescriptions = map[string]string{
	"af-south-1": "Africa (Cape Town)", "ap-east-1": "Asia Pacific (Hong Kong)",
	"ap-northeast-1": "Asia Pacific (Tokyo)", "ap-northeast-2": "Asia Pacific (Seoul)",
	"ap-northeast-3": "Asia Pacific (Osaka)", "ap-south-1": "Asia Pacific (Mumbai)",
	"ap-south-2": "Asia Pacific (Hyderabad)", "ap-southeast-1": "Asia Pacific (Singapore)",
	"ap-southeast-2": "Asia Pacific (Sydney)", "ap-southeast-3": "Asia Pacific (Jakarta)",
	"ap-southeast-4": "Asia Pacific (Melbourne)", "ca-central-1": "Canada (Central)",
	"ca-west-1": "Canada West (Calgary)", "eu-central-1": "Europe (Frankfurt)",
	"eu-central-2": "Europe (Zurich)", "eu-north-1": "Europe (Stockholm)",
	"eu-south-1": "Europe (Milan)", "eu-south-2": "Europe (Spain)",
	"eu-west-1": "Europe (Ireland)", "eu-west-2": "Europe (London)",
	"eu-west-3": "Europe (Paris)", "il-central-1": "Israel (Tel Aviv)",
	"me-central-1": "Middle East (UAE)", "me-south-1": "Middle East (Bahrain)",
	"sa-east-1": "South America (Sao Paulo)", "us-east-1": "US East (N. Virginia)",
	"us-east-2": "US East (Ohio)", "us-west-1": "US West (N. California)",
	"us-west-2": "US West (Oregon)",
}

// readRegion: the region argument (or the deprecated name), else the
// provider's region; id and name repeat it, endpoint is its EC2 endpoint.
func readRegion(pc *Config, cfg cty.Value) (map[string]cty.Value, []*tfprotov5.Diagnostic) {
	region := pc.Region
	for _, attr := range []string{"region", "name"} {
		if v := cfg.GetAttr(attr); !v.IsNull() && v.IsKnown() && v.AsString() != "" {
			region = v.AsString()
			break
		}
	}
	if region == "" {
		return nil, []*tfprotov5.Diagnostic{errorDiag("No region", "aws_region: the provider has no region configured and the data source names none.", nil)}
	}
	_, dns, _ := partitionOf(region)
	vals := map[string]cty.Value{
		"region":   cty.StringVal(region),
		"name":     cty.StringVal(region),
		"id":       cty.StringVal(region),
		"endpoint": cty.StringVal("ec2." + region + "." + dns),
	}
	if d, ok := regionDescriptions[region]; ok {
		vals["description"] = cty.StringVal(d)
	}
	return vals, nil
}

func readPartition(pc *Config) map[string]cty.Value {
	p, dns, rev := partitionOf(pc.Region)
	return map[string]cty.Value{
		"id":                 cty.StringVal(p),
		"partition":          cty.StringVal(p),
		"dns_suffix":         cty.StringVal(dns),
		"reverse_dns_prefix": cty.StringVal(rev),
	}
}

// readDefaultTags reports the provider's default_tags minus ignore_tags; the
// provider uses its partition as the id.
func readDefaultTags(pc *Config) map[string]cty.Value {
	tags := map[string]string{}
	for k, v := range pc.DefaultTags {
		if !pc.ignoredTag(k) {
			tags[k] = v
		}
	}
	p, _, _ := partitionOf(pc.Region)
	return map[string]cty.Value{"id": cty.StringVal(p), "tags": stringMap(tags)}
}

// readCallerIdentity calls STS GetCallerIdentity at the configured endpoint
// (endpoints.sts, else $AWS_ENDPOINT_URL_STS, else $AWS_ENDPOINT_URL, else
// AWS itself), as the real provider does.
func (s *Server) readCallerIdentity(ctx context.Context, pc *Config) (map[string]cty.Value, []*tfprotov5.Diagnostic) {
	endpoint := pc.Endpoint("sts", s.getenv)
	out, err := s.callerIdentity(ctx, pc, endpoint)
	if err != nil {
		where := endpoint
		if where == "" {
			where = "the public AWS STS endpoint"
		}
		return nil, []*tfprotov5.Diagnostic{errorDiag("Cannot read aws_caller_identity",
			fmt.Sprintf("calling STS GetCallerIdentity at %s: %v. For the local cloud, set "+
				"endpoints { sts = \"http://127.0.0.1:PORT\" } in the provider block or export "+
				"AWS_ENDPOINT_URL, and make sure the local cloud is running.", where, err), nil)}
	}
	return map[string]cty.Value{
		"id":         cty.StringVal(aws.ToString(out.Account)),
		"account_id": cty.StringVal(aws.ToString(out.Account)),
		"arn":        cty.StringVal(aws.ToString(out.Arn)),
		"user_id":    cty.StringVal(aws.ToString(out.UserId)),
	}, nil
}

func (s *Server) callerIdentity(ctx context.Context, pc *Config, endpoint string) (*sts.GetCallerIdentityOutput, error) {
	region := firstNonEmpty(pc.STSRegion, pc.Region)
	opts := []func(*awsconfig.LoadOptions) error{
		awsconfig.WithRegion(region),
		awsconfig.WithHTTPClient(s.client),
		awsconfig.WithRetryMaxAttempts(2),
	}
	if pc.Profile != "" {
		opts = append(opts, awsconfig.WithSharedConfigProfile(pc.Profile))
	}
	if pc.AccessKey != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(pc.AccessKey, pc.SecretKey, pc.Token)))
	}
	if pc.SkipMetadataAPICheck {
		opts = append(opts, awsconfig.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("load aws config: %w", err)
	}
	client := sts.NewFromConfig(cfg, func(o *sts.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
	out, err := client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return nil, fmt.Errorf("sts: %w", err)
	}
	return out, nil
}

// SupportedDataSources lists the data sources the local provider reads.
func SupportedDataSources() []string {
	out := []string{"aws_caller_identity", "aws_default_tags", "aws_partition", "aws_region"}
	sort.Strings(out)
	return out
}
