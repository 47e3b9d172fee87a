package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel/internal/sdkenum"
)

// sdkEnums are enum values the repository's aws-sdk-go-v2 service modules
// know and the botocore models do not: features released after the
// botocore version (DynamoDB Streams' AT_TIMESTAMP iterator, new Lambda
// runtimes). Without them the validator would reject requests the SDKs in
// go.mod send and AWS accepts. The refresh (-gosdk) reads each module's
// types/enums.go (package sdkenum); otherwise the committed file is
// used as is. Only values are added; no constraint is relaxed.
type sdkEnums struct {
	// Modules maps a service key to "module@version".
	Modules map[string]string `json:"modules"`
	// Added maps a service key to shape name to the values added.
	Added map[string]map[string][]string `json:"added"`
}

func readSDKEnums(path string) (sdkEnums, error) {
	var e sdkEnums
	b, err := os.ReadFile(path)
	if err != nil {
		return e, fmt.Errorf("sdk enums: %w", err)
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("sdk enums: %w", err)
	}
	return e, nil
}

func refreshSDKEnums(dataDir, out string) error {
	res := sdkEnums{Modules: map[string]string{}, Added: map[string]map[string][]string{}}
	for _, ss := range served {
		if ss.SDK == "" {
			continue
		}
		mod, ok := sdkenum.Resolve("go", ss.SDK)
		if !ok {
			continue // not in this module graph
		}
		enums, err := mod.Enums()
		if err != nil {
			return err
		}
		raw, _, _, err := readModel(modelPath(dataDir, ss.Model, ss.APIVersion, "service-2"))
		if err != nil {
			return err
		}
		var m model
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		res.Modules[ss.Key] = mod.Path + "@" + mod.Version
		for name, vals := range enums {
			rs, ok := m.Shapes[name]
			if !ok {
				continue
			}
			var s rawShape
			if err := json.Unmarshal(rs, &s); err != nil || len(s.Enum) == 0 {
				continue
			}
			var extra []string
			for _, v := range vals {
				if !contains(s.Enum, v) {
					extra = append(extra, v)
				}
			}
			if len(extra) == 0 {
				continue
			}
			sort.Strings(extra)
			if res.Added[ss.Key] == nil {
				res.Added[ss.Key] = map[string][]string{}
			}
			res.Added[ss.Key][name] = extra
		}
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

// withSDKValues appends the SDK's newer values to a model enum (model order first).
func withSDKValues(enum, added []string) []string {
	if len(enum) == 0 || len(added) == 0 {
		return enum
	}
	out := append([]string(nil), enum...)
	for _, v := range added {
		if !contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
