package eventpatterntest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCasesProvenance(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	sum := sha256.Sum256(casesJSON)
	require.Contains(t, string(readme), hex.EncodeToString(sum[:]),
		"README.md must record the sha256 of aws-validated-cases.json")
	require.Len(t, Load(t), 120)
}
