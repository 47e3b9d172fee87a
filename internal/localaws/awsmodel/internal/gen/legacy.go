package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// legacyNames are the query-protocol wire names of the last query-protocol
// SQS model: for each reference (keyed "Shape$member", "Shape$$member",
// "Shape$$key", "Shape$$value") its effective locationName and flattened
// trait, the reference's own or else its target shape's, as botocore's
// query serializer resolves them.
type legacyNames struct {
	Source          string                `json:"source"`
	BotocoreVersion string                `json:"botocoreVersion"`
	ModelSHA256     string                `json:"modelSha256"`
	Refs            map[string]legacyName `json:"refs"`
}

type legacyName struct {
	Name      string `json:"name,omitempty"`
	Flattened bool   `json:"flattened,omitempty"`
}

func readLegacy(path string) (legacyNames, error) {
	var l legacyNames
	b, err := os.ReadFile(path)
	if err != nil {
		return l, fmt.Errorf("legacy query names: %w", err)
	}
	err = json.Unmarshal(b, &l)
	return l, err
}

// extractLegacy reads sqs/2012-11-05/service-2.json of an older botocore
// data directory and writes the query names it defines.
func extractLegacy(dataDir, out string) error {
	version, err := botocoreVersion(dataDir)
	if err != nil {
		return err
	}
	raw, modelSum, _, err := readModel(modelPath(dataDir, "sqs", "2012-11-05", "service-2"))
	if err != nil {
		return err
	}
	var m model
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	if m.Metadata.Protocol != "query" {
		return fmt.Errorf("%s: SQS model protocol is %q, not query", dataDir, m.Metadata.Protocol)
	}
	shapes := map[string]rawShape{}
	members := map[string][]namedRef{}
	for name, rs := range m.Shapes {
		var s rawShape
		if err := json.Unmarshal(rs, &s); err != nil {
			return err
		}
		mem, err := orderedMembers(s.Members)
		if err != nil {
			return err
		}
		shapes[name], members[name] = s, mem
	}
	l := legacyNames{
		Source:          "botocore " + version + " data/sqs/2012-11-05/service-2.json (query protocol; Apache-2.0)",
		BotocoreVersion: version, ModelSHA256: modelSum, Refs: map[string]legacyName{},
	}
	add := func(key string, r *rawRef) {
		if r == nil {
			return
		}
		t := shapes[r.Shape]
		n := legacyName{Name: r.LocationName, Flattened: r.Flattened || t.Flattened}
		if n.Name == "" {
			n.Name = t.LocationName
		}
		if n != (legacyName{}) {
			l.Refs[key] = n
		}
	}
	names := make([]string, 0, len(shapes))
	for n := range shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := shapes[n]
		for _, mr := range members[n] {
			r := mr.rawRef
			add(n+"$"+mr.Name, &r)
		}
		add(n+"$$member", s.Member)
		add(n+"$$key", s.Key)
		add(n+"$$value", s.Value)
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}
