package awsmodel

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// XMLPayload decodes the body of a REST-XML request (S3) into the generic
// tree of its payload member, for HTTPInput: a structure payload
// (CreateBucketConfiguration, LifecycleConfiguration, Tagging, Delete, …)
// becomes a map keyed by member name, walking the shapes as botocore's
// REST-XML serializer writes them (element names from locationName,
// flattened lists as repeated elements — <Rule>…</Rule><Rule>…</Rule> —,
// wrapped lists as <Name><member-name>…</member-name></Name>, maps as
// <entry><key/><value/></entry>, xmlAttribute members from attributes);
// a blob payload (PutObject's Body) is returned as the bytes, a string
// payload (PutBucketPolicy's Policy) as the text. An empty body is nil.
// Elements the model does not define are ignored; malformed XML is an
// error (S3 answers MalformedXML).
func (op *Operation) XMLPayload(body []byte) (any, error) {
	in := op.Input
	if in == nil || in.Payload == "" {
		return nil, fmt.Errorf("awsmodel: %s has no payload member", op)
	}
	pm := in.MemberByName(in.Payload)
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	switch pm.Shape.Type {
	case "blob":
		return body, nil
	case "string":
		return string(body), nil
	}
	root, err := parseXML(body)
	if err != nil {
		return nil, err
	}
	return xmlValue(root, pm.Shape, 0), nil
}

type xmlNode struct {
	name     string
	attrs    []xml.Attr
	children []*xmlNode
	text     strings.Builder
}

const (
	xmlMaxDepth = 64
	xmlMaxNodes = 100000
)

func parseXML(body []byte) (*xmlNode, error) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	var stack []*xmlNode
	var root *xmlNode
	nodes := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("awsmodel: malformed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			nodes++
			if len(stack) >= xmlMaxDepth || nodes > xmlMaxNodes {
				return nil, errors.New("awsmodel: XML too deep or too large")
			}
			n := &xmlNode{name: t.Name.Local, attrs: t.Attr}
			if len(stack) == 0 {
				if root != nil {
					return nil, errors.New("awsmodel: malformed XML: several root elements")
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(t)
			}
		}
	}
	if root == nil {
		return nil, errors.New("awsmodel: malformed XML: no element")
	}
	return root, nil
}

// xmlName is a member's element name.
func xmlName(m *Member) string {
	if m.LocationName != "" {
		return m.LocationName
	}
	if m.Shape.LocationName != "" && m.Shape.Type != "list" {
		return m.Shape.LocationName
	}
	return m.Name
}

func xmlValue(n *xmlNode, sh *Shape, depth int) any {
	if depth > MaxDepth {
		return nil
	}
	switch sh.Type {
	case "structure", "union":
		obj := map[string]any{}
		for _, m := range sh.Members {
			name := xmlName(m)
			if m.XMLAttribute {
				for _, a := range n.attrs {
					if a.Name.Local == name || a.Name.Space+":"+a.Name.Local == name {
						obj[m.Name] = scalarFromString(a.Value, m.Shape)
					}
				}
				continue
			}
			flat := m.Flattened || m.Shape.Flattened
			if flat && (m.Shape.Type == "list" || m.Shape.Type == "map") {
				var els []*xmlNode
				for _, c := range n.children {
					if c.name == name {
						els = append(els, c)
					}
				}
				if len(els) == 0 {
					continue
				}
				if m.Shape.Type == "list" {
					items := make([]any, 0, len(els))
					for _, c := range els {
						items = append(items, xmlValue(c, m.Shape.Member.Shape, depth+1))
					}
					obj[m.Name] = items
				} else {
					obj[m.Name] = xmlMapEntries(els, m.Shape, depth)
				}
				continue
			}
			for _, c := range n.children {
				if c.name == name {
					obj[m.Name] = xmlValue(c, m.Shape, depth+1)
					break
				}
			}
		}
		return obj
	case "list":
		elem := nameOr(sh.Member.LocationName, "member")
		items := []any{}
		for _, c := range n.children {
			if c.name == elem {
				items = append(items, xmlValue(c, sh.Member.Shape, depth+1))
			}
		}
		return items
	case "map":
		var els []*xmlNode
		for _, c := range n.children {
			if c.name == "entry" {
				els = append(els, c)
			}
		}
		return xmlMapEntries(els, sh, depth)
	}
	return scalarFromString(strings.TrimSpace(n.text.String()), sh)
}

func xmlMapEntries(els []*xmlNode, sh *Shape, depth int) map[string]any {
	kn, vn := nameOr(sh.Key.LocationName, "key"), nameOr(sh.Value.LocationName, "value")
	mp := map[string]any{}
	for _, e := range els {
		var k *xmlNode
		var v any
		for _, c := range e.children {
			switch c.name {
			case kn:
				k = c
			case vn:
				v = xmlValue(c, sh.Value.Shape, depth+1)
			}
		}
		if k != nil {
			mp[strings.TrimSpace(k.text.String())] = v
		}
	}
	return mp
}
