package cli_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

// newOptOutCloud is a local cloud with one scraper function whose
// environment holds an opt-out list. Function state changes are immediate
// (the waiter polls in real time, the test cloud's clock stands still).
func newOptOutCloud(t *testing.T, vars map[string]string) (aws.Config, *lambda.Client) {
	t.Helper()
	ctx := context.Background()
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0", LambdaTransition: -1})
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	cfg := aws.Config{
		Region:       emu.DefaultRegion,
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(c.URL()),
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("bootstrap")
	require.NoError(t, err)
	_, err = w.Write([]byte("#!/bin/sh\n"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	api := lambda.NewFromConfig(cfg)
	_, err = api.CreateFunction(ctx, &lambda.CreateFunctionInput{
		FunctionName: aws.String("scraper"),
		Runtime:      lambdatypes.RuntimeProvidedal2023,
		Handler:      aws.String("bootstrap"),
		Role:         aws.String("arn:aws:iam::000000000000:role/scraper"),
		Code:         &lambdatypes.FunctionCode{ZipFile: buf.Bytes()},
		Environment:  &lambdatypes.Environment{Variables: vars},
	})
	require.NoError(t, err)
	return cfg, api
}

func optOutEnv(cfg aws.Config) (*cli.Env, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	return &cli.Env{
		Stdout:  &stdout,
		Stderr:  &stderr,
		Getenv:  func(k string) string { return map[string]string{cli.EnvScraperFunction: "scraper"}[k] },
		LoadAWS: func(context.Context) (aws.Config, error) { return cfg.Copy(), nil },
	}, &stdout, &stderr
}

func TestOptOut(t *testing.T) {
	t.Parallel()
	cfg, api := newOptOutCloud(t, map[string]string{handler.EnvOptOutDomains: "b.example", "TABLE_NAME": "tasks"})
	ctx := context.Background()
	steps := []struct {
		args       []string
		wantOut    string
		wantErr    string // on stderr
		wantEnvVar string // "" when the variable must be absent
	}{
		{[]string{"list"}, "opt-out list (1): b.example\n", "", "b.example"},
		{[]string{"add", "C.example.", "a.example", "b.example"}, "opt-out list (3): a.example,b.example,c.example\n",
			`set scraper_optout_domains = ["a.example", "b.example", "c.example"] in Terraform too`, "a.example,b.example,c.example"},
		{[]string{"remove", "b.example", "zz.example"}, "opt-out list (2): a.example,c.example\n", "zz.example is not on the list", "a.example,c.example"},
		{[]string{"remove", "a.example", "c.example"}, "opt-out list: empty\n", "set scraper_optout_domains = []", ""},
	}
	for _, s := range steps {
		env, stdout, stderr := optOutEnv(cfg)
		require.NoError(t, env.OptOut(ctx, s.args), "%v", s.args)
		require.Equal(t, s.wantOut, stdout.String(), "%v", s.args)
		require.Contains(t, stderr.String(), s.wantErr, "%v", s.args)
		conf, err := api.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String("scraper")})
		require.NoError(t, err)
		got, ok := conf.Environment.Variables[handler.EnvOptOutDomains]
		require.Equal(t, s.wantEnvVar != "", ok, "%v", s.args)
		require.Equal(t, s.wantEnvVar, got, "%v", s.args)
		require.Equal(t, "tasks", conf.Environment.Variables["TABLE_NAME"], "the other variables stay")
		require.Equal(t, lambdatypes.LastUpdateStatusSuccessful, conf.LastUpdateStatus, "the command waits for the update")
	}
}

func TestOptOutRejects(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 60) + ".example"
	var many []string
	for i := 0; i < 40; i++ {
		many = append(many, string(rune('a'+i%26))+strings.Repeat("x", i)+long)
	}
	cfg, api := newOptOutCloud(t, map[string]string{handler.EnvOptOutDomains: "b.example"})
	tests := []struct {
		name  string
		args  []string
		want  string
		usage bool
	}{
		{"no subcommand", nil, "name a subcommand", true},
		{"unknown subcommand", []string{"purge"}, `unknown subcommand "purge"`, true},
		{"add nothing", []string{"add"}, "name at least one domain", true},
		{"list with args", []string{"list", "a.example"}, "takes no domains", true},
		{"URL, not a domain", []string{"add", "https://a.example/"}, `"https://a.example/" is not a domain name`, true},
		{"no dot", []string{"add", "localhost"}, `"localhost" is not a domain name`, true},
		{"over the module's 2,048 characters", append([]string{"add"}, many...), "over the 2048 the module allows", false},
		{"no such function", []string{"list", "--function", "nope"}, "optout: read function nope", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env, _, _ := optOutEnv(cfg)
			err := env.OptOut(context.Background(), tt.args)
			require.ErrorContains(t, err, tt.want)
			var ue *cli.UsageError
			require.Equal(t, tt.usage, errors.As(err, &ue))
		})
	}
	conf, err := api.GetFunctionConfiguration(context.Background(), &lambda.GetFunctionConfigurationInput{FunctionName: aws.String("scraper")})
	require.NoError(t, err)
	require.Equal(t, "b.example", conf.Environment.Variables[handler.EnvOptOutDomains], "a rejected change changes nothing")
}
