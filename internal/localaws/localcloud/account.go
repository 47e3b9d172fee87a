package localcloud

import (
	"fmt"
	"net/http"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/alarm"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/bucket"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/identity"
)

// Account is the state the regions of one AWS account share. A Cloud
// serves one region; Clouds built with the same Account (Config.Account)
// are one account's regions:
//
//   - IAM is global: role and policy names are unique in the account
//     (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html),
//     so a second region creating a role of the same name gets
//     EntityAlreadyExists;
//   - CloudWatch dashboards are global ("All dashboards in your account are
//     global, not region-specific",
//     https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutDashboard.html),
//     so a second region's PutDashboard of the same name replaces the
//     first one's.
//
// Everything else (queues, tables, functions, alarms, the Lambda
// concurrency quota) is regional and belongs to each Cloud.
type Account struct {
	id         string
	identity   *identity.Service
	dashboards *alarm.Dashboards
	// buckets: S3 bucket names are global, so one account's regions
	// share them (a second region's CreateBucket of a name it holds
	// fails): https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
	buckets *bucket.Service
}

// NewAccount returns the shared state of account id (default
// emu.DefaultAccountID); now stamps IAM CreateDates (default time.Now).
func NewAccount(id string, now func() time.Time) *Account {
	if id == "" {
		id = emu.DefaultAccountID
	}
	if now == nil {
		now = time.Now
	}
	return &Account{
		id:         id,
		identity:   identity.New(identity.Options{AccountID: id, Now: now}),
		dashboards: alarm.NewDashboards(),
		buckets:    bucket.New(bucket.Options{Now: now}),
	}
}

// ID returns the account id.
func (a *Account) ID() string { return a.id }

// globalServices are signed for any region and served by the account's
// state, not a region's.
var globalServices = map[string]bool{emu.ServiceIAM: true, emu.ServiceSTS: true, emu.ServiceAdmin: true}

// checkRegion refuses a request to a regional service signed for another
// region: on AWS it would have reached that region's endpoint, or been
// refused by this one ("Credential should be scoped to a valid region"),
// never served by this region's state. Unsigned requests pass.
func (c *Cloud) checkRegion(w http.ResponseWriter, r *http.Request, op emu.Op) bool {
	if globalServices[op.Service] {
		return false
	}
	region := emu.CredentialScopeRegion(r)
	if region == "" || region == c.cfg.Region {
		return false
	}
	emu.WriteJSONError(w, http.StatusForbidden, "InvalidSignatureException",
		fmt.Sprintf("Credential should be scoped to a valid region, not '%s'. This local cloud serves %s; start one per region with a shared localcloud.Account.", region, c.cfg.Region))
	return true
}
