package queue

import (
	"crypto/md5" //nolint:gosec // SQS defines its checksums as MD5; this is not a security use.
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sort"
	"strings"
)

// MessageAttribute is one user (or system) message attribute. DataType is
// "String", "Number" or "Binary", optionally followed by ".<custom>". String
// and Number types carry StringValue; Binary types carry BinaryValue.
type MessageAttribute struct {
	DataType    string
	StringValue string
	BinaryValue []byte
}

// isBinary reports whether the attribute travels as bytes (transport type 2).
func (a MessageAttribute) isBinary() bool {
	return a.DataType == "Binary" || strings.HasPrefix(a.DataType, "Binary.")
}

// size is what the attribute counts towards MaximumMessageSize: its name,
// data type and value (the AWS-validated LocalStack test
// test_send_oversized_message counts exactly these).
func (a MessageAttribute) size(name string) int {
	n := len(name) + len(a.DataType)
	if a.isBinary() {
		return n + len(a.BinaryValue)
	}
	return n + len(a.StringValue)
}

// MD5OfBody returns the lower-case hex MD5 of a message body, as SQS
// returns it in MD5OfMessageBody / MD5OfBody (aws-sdk-go-v2 validates it:
// service/sqs/cust_checksum_validation.go).
func MD5OfBody(body string) string {
	sum := md5.Sum([]byte(body)) //nolint:gosec // protocol checksum
	return hex.EncodeToString(sum[:])
}

// MD5OfMessageAttributes returns the digest SQS returns in
// MD5OfMessageAttributes (and, over the system attributes, in
// MD5OfMessageSystemAttributes), or "" for no attributes.
//
// The encoding (docs/aws-behaviour.md §3.7; checked against AWS-recorded
// vectors in testdata/md5-vectors.json): for each attribute in name order,
// the 4-byte big-endian length and UTF-8 bytes of the name, then of the data
// type, then one transport byte (1 = string-valued, 2 = binary) followed by
// the length-prefixed value.
func MD5OfMessageAttributes(attrs map[string]MessageAttribute) string {
	if len(attrs) == 0 {
		return ""
	}
	names := make([]string, 0, len(attrs))
	for name := range attrs {
		names = append(names, name)
	}
	sort.Strings(names)
	h := md5.New() //nolint:gosec // protocol checksum
	for _, name := range names {
		a := attrs[name]
		writeLenPrefixed(h, []byte(name))
		writeLenPrefixed(h, []byte(a.DataType))
		if a.isBinary() {
			h.Write([]byte{2})
			writeLenPrefixed(h, a.BinaryValue)
		} else {
			h.Write([]byte{1})
			writeLenPrefixed(h, []byte(a.StringValue))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeLenPrefixed(h hash.Hash, b []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b))) //nolint:gosec // values are bounded by the message size limit
	h.Write(n[:])
	h.Write(b)
}
