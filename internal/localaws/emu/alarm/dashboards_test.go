package alarm_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/alarm"
)

// TestDashboardsAreAccountGlobal: two regions of one account share their
// dashboards, so a second region's PutDashboard of the same name replaces
// the first one's (PutDashboard API reference: "All dashboards in your
// account are global, not region-specific").
func TestDashboardsAreAccountGlobal(t *testing.T) {
	t.Parallel()
	shared := alarm.NewDashboards()
	east := newEnv(t, alarm.Options{Region: "us-east-1", Dashboards: shared})
	west := newEnv(t, alarm.Options{Region: "eu-west-1", Dashboards: shared})
	other := newEnv(t, alarm.Options{Region: "eu-west-1"}) // another account
	const first, second = `{"widgets":[]}`, `{"widgets":[],"start":"-PT6H"}`
	_, err := east.client.PutDashboard(ctx(t), &cloudwatch.PutDashboardInput{DashboardName: aws.String("taskpipe"), DashboardBody: aws.String(first)})
	require.NoError(t, err)

	got, err := west.client.GetDashboard(ctx(t), &cloudwatch.GetDashboardInput{DashboardName: aws.String("taskpipe")})
	require.NoError(t, err, "the other region sees the dashboard")
	require.Equal(t, first, aws.ToString(got.DashboardBody))
	require.Equal(t, "arn:aws:cloudwatch::000000000000:dashboard/taskpipe", aws.ToString(got.DashboardArn))

	_, err = west.client.PutDashboard(ctx(t), &cloudwatch.PutDashboardInput{DashboardName: aws.String("taskpipe"), DashboardBody: aws.String(second)})
	require.NoError(t, err)
	got, err = east.client.GetDashboard(ctx(t), &cloudwatch.GetDashboardInput{DashboardName: aws.String("taskpipe")})
	require.NoError(t, err)
	require.Equal(t, second, aws.ToString(got.DashboardBody), "the second region overwrote the first one's dashboard")

	_, err = west.client.DeleteDashboards(ctx(t), &cloudwatch.DeleteDashboardsInput{DashboardNames: []string{"taskpipe"}})
	require.NoError(t, err)
	list, err := east.client.ListDashboards(ctx(t), &cloudwatch.ListDashboardsInput{})
	require.NoError(t, err)
	require.Empty(t, list.DashboardEntries)

	_, err = other.client.GetDashboard(ctx(t), &cloudwatch.GetDashboardInput{DashboardName: aws.String("taskpipe")})
	require.Error(t, err, "a store of its own shares nothing")
}
