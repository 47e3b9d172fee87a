// Package wire is the format of the committed model artifact (model.json.gz)
// shared by the generator and the awsmodel package. Field order is model
// order; nothing here is documentation text.
package wire

import "encoding/json"

// File is the whole artifact.
type File struct {
	Format          int       `json:"format"`
	BotocoreVersion string    `json:"botocoreVersion"`
	License         License   `json:"license"`
	Services        []Service `json:"services"`
}

// License names the licence of the botocore models the artifact is derived from.
type License struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	Source string `json:"source"`
}

// Service is one AWS service model, reduced to the served operations.
type Service struct {
	Key          string   `json:"key"`   // local-cloud service key (SigV4 signing name)
	Model        string   `json:"model"` // botocore data directory name
	APIVersion   string   `json:"apiVersion"`
	ModelSHA256  string   `json:"modelSha256"` // sha256 of the decompressed service-2.json
	FileSHA256   string   `json:"fileSha256"`  // sha256 of service-2.json.gz as shipped
	ServiceID    string   `json:"serviceId"`
	Protocol     string   `json:"protocol"`
	Protocols    []string `json:"protocols,omitempty"`
	JSONVersion  string   `json:"jsonVersion,omitempty"`
	TargetPrefix string   `json:"targetPrefix,omitempty"`
	XMLNamespace string   `json:"xmlNamespace,omitempty"`
	SigningName  string   `json:"signingName,omitempty"`
	// QueryCompatible is the awsQueryCompatible trait (SQS): errors carry
	// the legacy query code in x-amzn-query-error.
	QueryCompatible bool `json:"queryCompatible,omitempty"`
	// LegacyQuery names the older model the query wire names came from.
	LegacyQuery *Legacy     `json:"legacyQuery,omitempty"`
	Operations  []Operation `json:"operations"`
	Shapes      []Shape     `json:"shapes"`
}

// Legacy records the provenance of query wire names taken from an older model.
type Legacy struct {
	BotocoreVersion string `json:"botocoreVersion"`
	Protocol        string `json:"protocol"`
	ModelSHA256     string `json:"modelSha256"`
}

// Operation is one served operation and its HTTP binding.
type Operation struct {
	Name         string `json:"name"`
	Method       string `json:"method"`
	RequestURI   string `json:"requestUri"`
	ResponseCode int    `json:"responseCode,omitempty"`
	Input        string `json:"input,omitempty"` // input shape name; empty: no input
	// InputLocationName / InputXMLNamespace: the input reference's traits
	// (REST-XML root element of operations whose input is the payload).
	InputLocationName string `json:"inputLocationName,omitempty"`
	InputXMLNamespace string `json:"inputXmlNamespace,omitempty"`
	HostPrefix        string `json:"hostPrefix,omitempty"`
}

// Shape is one shape reachable from a served input.
type Shape struct {
	Name            string      `json:"name"`
	Type            string      `json:"type"`
	Required        []string    `json:"required,omitempty"`
	Members         []Member    `json:"members,omitempty"`
	Member          *Ref        `json:"member,omitempty"` // list
	Key             *Ref        `json:"key,omitempty"`    // map
	Value           *Ref        `json:"value,omitempty"`  // map
	Min             json.Number `json:"min,omitempty"`
	Max             json.Number `json:"max,omitempty"`
	Pattern         string      `json:"pattern,omitempty"`
	Enum            []string    `json:"enum,omitempty"`
	Flattened       bool        `json:"flattened,omitempty"`
	LocationName    string      `json:"locationName,omitempty"`
	XMLNamespace    *XMLNS      `json:"xmlNamespace,omitempty"`
	Sensitive       bool        `json:"sensitive,omitempty"`
	Union           bool        `json:"union,omitempty"`
	Document        bool        `json:"document,omitempty"`
	Streaming       bool        `json:"streaming,omitempty"`
	EventStream     bool        `json:"eventstream,omitempty"`
	Payload         string      `json:"payload,omitempty"`
	TimestampFormat string      `json:"timestampFormat,omitempty"`
}

// Member is a structure member: its name and reference traits.
type Member struct {
	Name string `json:"name"`
	Ref
}

// Ref is a shape reference with its serialization traits (the reference's
// own traits; the target shape's locationName/flattened are on the Shape).
type Ref struct {
	Shape            string `json:"shape"`
	Location         string `json:"location,omitempty"` // uri, querystring, header, headers, statusCode
	LocationName     string `json:"locationName,omitempty"`
	QueryName        string `json:"queryName,omitempty"` // query protocol wire name, if not the default
	Flattened        bool   `json:"flattened,omitempty"`
	XMLAttribute     bool   `json:"xmlAttribute,omitempty"`
	XMLNamespace     *XMLNS `json:"xmlNamespace,omitempty"`
	IdempotencyToken bool   `json:"idempotencyToken,omitempty"`
	HostLabel        bool   `json:"hostLabel,omitempty"`
	JSONValue        bool   `json:"jsonvalue,omitempty"`
	Streaming        bool   `json:"streaming,omitempty"`
	TimestampFormat  string `json:"timestampFormat,omitempty"`
	// QueryFlattened is the effective flattened trait (reference or target
	// shape) for the query protocol; QueryName (above) the effective query
	// wire name. For SQS both come from the legacy query model.
	QueryFlattened bool `json:"queryFlattened,omitempty"`
}

// XMLNS is an xmlNamespace trait.
type XMLNS struct {
	URI    string `json:"uri,omitempty"`
	Prefix string `json:"prefix,omitempty"`
}
