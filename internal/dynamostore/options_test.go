package dynamostore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
)

func TestNewValidation(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	for _, tc := range []struct {
		name string
		api  dynamostore.API
		opts dynamostore.Options
		msg  string // "" means valid
	}{
		{"Defaults", l.Client, dynamostore.Options{Table: "t"}, ""},
		{"MaxShards", l.Client, dynamostore.Options{Table: "t", LiveShards: 100}, ""},
		{"TTL", l.Client, dynamostore.Options{Table: "t", ResultTTL: 24 * time.Hour}, ""},
		{"NilAPI", nil, dynamostore.Options{Table: "t"}, "nil API"},
		{"NoTable", l.Client, dynamostore.Options{}, "empty table name"},
		{"NegativeShards", l.Client, dynamostore.Options{Table: "t", LiveShards: -1}, "live shards -1 out of range"},
		{"TooManyShards", l.Client, dynamostore.Options{Table: "t", LiveShards: 101}, "live shards 101 out of range"},
		{"NegativeTTL", l.Client, dynamostore.Options{Table: "t", ResultTTL: -time.Hour}, "negative result TTL"},
		{"SubSecondTTL", l.Client, dynamostore.Options{Table: "t", ResultTTL: time.Millisecond}, "under one second"},
		{"NegativeAttempts", l.Client, dynamostore.Options{Table: "t", BatchAttempts: -2}, "negative batch attempts"},
		{"Several", nil, dynamostore.Options{LiveShards: 200}, "nil API\nempty table name\nlive shards 200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := dynamostore.New(tc.api, tc.opts)
			if tc.msg == "" {
				require.NoError(t, err)
				require.Equal(t, tc.opts.Table, s.Table())
				return
			}
			require.ErrorIs(t, err, dynamostore.ErrInvalidInput)
			require.ErrorContains(t, err, tc.msg)
			require.Nil(t, s)
		})
	}
	s, err := dynamostore.New(l.Client, dynamostore.Options{Table: "t"})
	require.NoError(t, err)
	require.Equal(t, dynamostore.DefaultLiveShards, s.LiveShards())
}
