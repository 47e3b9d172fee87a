package cli

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/taskpipe/taskpipe/internal/handler"
)

// The opt-out list travels in the scraper's environment, as the pipeline
// module's scraper_optout_domains writes it; these bounds are the module's
// validation of that variable, so what the CLI writes an apply accepts.
const (
	maxOptOutChars = 2048
	// optOutWait bounds the wait for Lambda to finish a configuration
	// update (LastUpdateStatus InProgress → Successful).
	optOutWait = 2 * time.Minute
)

var optOutDomain = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?\.[a-z0-9-]+$`)

var optOutHelp = help{
	name:     "optout",
	synopsis: "list | add DOMAIN... | remove DOMAIN... [--function NAME]",
	text: `
Shows or changes the scraper's opt-out list: domains the scraper never
fetches (a task for a URL on one of them, or on a subdomain, ends Failed
with errorKind optout before any request).

The list is the scraper function's ` + handler.EnvOptOutDomains + ` environment
variable, which the pipeline module sets from scraper_optout_domains. add and
remove update the live function (GetFunctionConfiguration, then
UpdateFunctionConfiguration conditional on the revision read, then a wait
until Lambda reports the update Successful); new invocations see the list,
running ones finish with the old one. Put the printed list into
scraper_optout_domains too, or the next terraform apply reverts it.

Domains are lowercased, a trailing dot dropped; each must be a domain name
(example.com), and the list at most 2,048 characters.`,
}

// LambdaAPI is the subset of *lambda.Client the optout command calls.
type LambdaAPI interface {
	GetFunctionConfiguration(ctx context.Context, in *lambda.GetFunctionConfigurationInput, opts ...func(*lambda.Options)) (*lambda.GetFunctionConfigurationOutput, error)
	UpdateFunctionConfiguration(ctx context.Context, in *lambda.UpdateFunctionConfigurationInput, opts ...func(*lambda.Options)) (*lambda.UpdateFunctionConfigurationOutput, error)
}

var _ LambdaAPI = (*lambda.Client)(nil)

// OptOut runs "taskpipe optout".
func (e *Env) OptOut(ctx context.Context, args []string) error {
	fs := e.newFlagSet(optOutHelp)
	res := e.addResources(fs, OutputScraperFunction)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("optout: name a subcommand: list, add or remove")
	}
	sub, domains := pos[0], pos[1:]
	switch sub {
	case "list":
		if len(domains) != 0 {
			return usagef("optout list takes no domains, got %q", domains)
		}
	case "add", "remove":
		if len(domains) == 0 {
			return usagef("optout %s: name at least one domain", sub)
		}
		for i, d := range domains {
			n := normalizeDomain(d)
			if !optOutDomain.MatchString(n) {
				return usagef("optout %s: %q is not a domain name (want e.g. example.com: no scheme, path or port)", sub, d)
			}
			domains[i] = n
		}
	default:
		return usagef("optout: unknown subcommand %q (want list, add or remove)", sub)
	}
	fn, err := res.get(ctx, res.scraper)
	if err != nil {
		return err
	}
	cfg, err := e.LoadAWS(ctx)
	if err != nil {
		return fmt.Errorf("optout: aws config: %w", err)
	}
	list, err := e.optOut(ctx, lambda.NewFromConfig(cfg), fn, sub, domains)
	if err != nil {
		return err
	}
	out := e.out()
	if len(list) == 0 {
		fmt.Fprintln(out, "opt-out list: empty")
	} else {
		fmt.Fprintf(out, "opt-out list (%d): %s\n", len(list), strings.Join(list, ","))
	}
	if sub != "list" {
		fmt.Fprintf(e.errw(), "set scraper_optout_domains = %s in Terraform too, or the next apply reverts it\n", hclList(list))
	}
	return nil
}

// optOut reads, changes and (for add and remove) writes back the list of
// function fn, and returns the list now in force.
func (e *Env) optOut(ctx context.Context, api LambdaAPI, fn, sub string, domains []string) ([]string, error) {
	conf, err := api.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(fn)})
	if err != nil {
		return nil, fmt.Errorf("optout: read function %s: %w", fn, err)
	}
	vars := map[string]string{}
	if conf.Environment != nil {
		for k, v := range conf.Environment.Variables {
			vars[k] = v
		}
	}
	list := splitDomains(vars[handler.EnvOptOutDomains])
	if sub == "list" {
		return list, nil
	}
	next := slices.Clone(list)
	for _, d := range domains {
		i := slices.Index(next, d)
		switch {
		case sub == "add" && i < 0:
			next = append(next, d)
		case sub == "remove" && i >= 0:
			next = slices.Delete(next, i, i+1)
		case sub == "remove":
			fmt.Fprintf(e.errw(), "%s is not on the list\n", d)
		}
	}
	sort.Strings(next)
	if slices.Equal(next, list) {
		return list, nil
	}
	joined := strings.Join(next, ",")
	if len(joined) > maxOptOutChars {
		return nil, fmt.Errorf("optout: the list would be %d characters, over the %d the module allows (the function's environment is capped at 4 KB in all)", len(joined), maxOptOutChars)
	}
	if joined == "" {
		delete(vars, handler.EnvOptOutDomains)
	} else {
		vars[handler.EnvOptOutDomains] = joined
	}
	// Lambda refuses a configuration change while another is in progress
	// (ResourceConflictException), so wait for a settled function first;
	// the revision condition then catches a change made in between.
	// https://docs.aws.amazon.com/lambda/latest/dg/functions-states.html
	if conf.LastUpdateStatus == lambdatypes.LastUpdateStatusInProgress || conf.State == lambdatypes.StatePending {
		return nil, fmt.Errorf("optout: function %s is being updated (state %s, last update %s); try again when it is done", fn, conf.State, conf.LastUpdateStatus)
	}
	_, err = api.UpdateFunctionConfiguration(ctx, &lambda.UpdateFunctionConfigurationInput{
		FunctionName: aws.String(fn),
		Environment:  &lambdatypes.Environment{Variables: vars},
		RevisionId:   conf.RevisionId,
	})
	if err != nil {
		var pf *lambdatypes.PreconditionFailedException
		if errors.As(err, &pf) {
			return nil, fmt.Errorf("optout: function %s changed while the list was edited; run the command again: %w", fn, err)
		}
		return nil, fmt.Errorf("optout: update function %s: %w", fn, err)
	}
	w := lambda.NewFunctionUpdatedWaiter(api, func(o *lambda.FunctionUpdatedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 250*time.Millisecond, 5*time.Second
	})
	if err := w.Wait(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(fn)}, optOutWait); err != nil {
		return nil, fmt.Errorf("optout: wait for the update of %s: %w", fn, err)
	}
	return next, nil
}

func normalizeDomain(d string) string {
	return strings.ToLower(strings.TrimSuffix(strings.TrimSpace(d), "."))
}

// splitDomains parses the environment value the way the scraper does.
func splitDomains(v string) []string {
	var out []string
	for _, d := range strings.Split(v, ",") {
		if d = normalizeDomain(d); d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

func hclList(list []string) string {
	q := make([]string, len(list))
	for i, d := range list {
		q[i] = `"` + d + `"`
	}
	return "[" + strings.Join(q, ", ") + "]"
}
