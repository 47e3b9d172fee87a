package alarm

import "sync"

// Dashboards is an account's dashboard store. CloudWatch dashboards are
// account-global ("All dashboards in your account are global, not
// region-specific", PutDashboard API reference,
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutDashboard.html),
// so the Services of every region of one account share one store: a
// PutDashboard in a second region replaces the first region's dashboard of
// the same name, as on AWS.
type Dashboards struct {
	mu sync.Mutex
	m  map[string]*dashboard
}

// NewDashboards returns an empty store.
func NewDashboards() *Dashboards { return &Dashboards{m: map[string]*dashboard{}} }

// lockDashboards takes s.mu and then the dashboard store's lock (always in
// that order) and returns the function that releases both.
func (s *Service) lockDashboards() func() {
	s.mu.Lock()
	s.dash.mu.Lock()
	return func() {
		s.dash.mu.Unlock()
		s.mu.Unlock()
	}
}
