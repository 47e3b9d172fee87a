package dynamostore

import (
	"encoding/base64"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	c := cursor{Kind: cursorLive, Scope: "Running", Shard: 5, Key: map[string]types.AttributeValue{
		"taskId":  sv("t-1"),
		"liveKey": sv("Running#05"),
		"dueAt":   nv(1772366400000),
	}}
	text, err := c.encode()
	require.NoError(t, err)
	got, err := decodeCursor(text, cursorLive, "Running", 8)
	require.NoError(t, err)
	require.Equal(t, c, got)

	_, err = decodeCursor(text, cursorLive, "Running", 5)
	require.ErrorIs(t, err, ErrInvalidInput, "shard 5 of 5")
	_, err = decodeCursor(text, cursorLive, "Pending", 8)
	require.ErrorIs(t, err, ErrInvalidInput)
	_, err = decodeCursor(text, cursorRun, "Running", 0)
	require.ErrorIs(t, err, ErrInvalidInput)
}

func TestCursorRejects(t *testing.T) {
	t.Parallel()
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for name, text := range map[string]string{
		"NotBase64":   "%%%",
		"NotJSON":     enc("nope"),
		"NegShard":    enc(`{"k":"live","s":"Pending","h":-1}`),
		"BothTypes":   enc(`{"k":"live","s":"Pending","e":{"taskId":{"S":"a","N":"1"}}}`),
		"NoType":      enc(`{"k":"live","s":"Pending","e":{"taskId":{}}}`),
		"BadNumber":   enc(`{"k":"live","s":"Pending","e":{"taskId":{"S":"a"},"dueAt":{"N":"1e9"}}}`),
		"NoTaskID":    enc(`{"k":"live","s":"Pending","e":{"dueAt":{"N":"1"}}}`),
		"TooManyKeys": enc(`{"k":"live","s":"Pending","e":{"taskId":{"S":"a"},"b":{"S":"a"},"c":{"S":"a"},"d":{"S":"a"}}}`),
		"Huge":        enc(`{"k":"live","s":"Pending","x":"` + string(make([]byte, maxCursorBytes)) + `"}`),
	} {
		_, err := decodeCursor(text, cursorLive, "Pending", 8)
		require.ErrorIs(t, err, ErrInvalidInput, name)
	}
}

// FuzzDecodeCursor feeds arbitrary text to the cursor parser: a cursor comes
// back from callers (the CLI prints it), so it is untrusted. It must never
// panic, and whatever it accepts must re-encode to an equivalent cursor.
func FuzzDecodeCursor(f *testing.F) {
	seed := cursor{Kind: cursorLive, Scope: "Pending", Shard: 3, Key: map[string]types.AttributeValue{
		"taskId": sv("t"), "liveKey": sv("Pending#03"), "dueAt": nv(17),
	}}
	text, err := seed.encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(text)
	f.Add("")
	f.Add("e30")
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"k":"live","s":"Pending","h":7}`)))
	f.Fuzz(func(t *testing.T, text string) {
		c, err := decodeCursor(text, cursorLive, "Pending", 8)
		if err != nil {
			return
		}
		again, err := c.encode()
		if err != nil {
			t.Fatalf("accepted cursor does not re-encode: %v", err)
		}
		c2, err := decodeCursor(again, cursorLive, "Pending", 8)
		if err != nil {
			t.Fatalf("re-encoded cursor rejected: %v", err)
		}
		require.Equal(t, c, c2)
	})
}
