package pipe

import "testing"

func TestLogGroupName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ arn, want string }{
		{"arn:aws:logs:us-east-1:000000000000:log-group:/aws/vendedlogs/pipes/p", "/aws/vendedlogs/pipes/p"},
		{"arn:aws:logs:us-east-1:000000000000:log-group:/aws/vendedlogs/pipes/p:*", "/aws/vendedlogs/pipes/p"},
		{"arn:aws:sqs:us-east-1:000000000000:q", ""},
	} {
		if got := logGroupName(tc.arn); got != tc.want {
			t.Errorf("logGroupName(%q) = %q, want %q", tc.arn, got, tc.want)
		}
	}
}
