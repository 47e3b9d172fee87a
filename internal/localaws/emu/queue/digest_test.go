package queue

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

type md5Vectors struct {
	Bodies []struct {
		Body string `json:"body"`
		MD5  string `json:"md5"`
	} `json:"bodies"`
	Attributes []struct {
		Name       string                   `json:"name"`
		Attributes map[string]wireAttribute `json:"attributes"`
		MD5        string                   `json:"md5"`
	} `json:"attributes"`
}

func TestDigestsMatchAWSRecordedVectors(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/md5-vectors.json")
	require.NoError(t, err)
	var v md5Vectors
	require.NoError(t, json.Unmarshal(raw, &v))
	require.NotEmpty(t, v.Bodies)
	require.NotEmpty(t, v.Attributes)
	for _, b := range v.Bodies {
		t.Run("Body/"+b.Body, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, b.MD5, MD5OfBody(b.Body))
		})
	}
	for _, a := range v.Attributes {
		t.Run("Attributes/"+a.Name, func(t *testing.T) {
			t.Parallel()
			attrs, err := toAttributes(a.Attributes)
			require.NoError(t, err)
			require.Equal(t, a.MD5, MD5OfMessageAttributes(attrs))
		})
	}
}

func TestMD5OfMessageAttributesEmpty(t *testing.T) {
	t.Parallel()
	require.Empty(t, MD5OfMessageAttributes(nil))
}
