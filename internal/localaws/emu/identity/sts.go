package identity

import (
	"encoding/xml"
	"net/http"
	"net/url"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

type getCallerIdentityResult struct {
	XMLName xml.Name `xml:"GetCallerIdentityResult"`
	Arn     string   `xml:"Arn"`
	UserID  string   `xml:"UserId"`
	Account string   `xml:"Account"`
}

// STS returns the STS API handler (query protocol, Version 2011-06-15).
func (s *Service) STS() http.Handler {
	return &handler{service: emu.ServiceSTS, namespace: stsNamespace, version: "2011-06-15", actions: map[string]func(url.Values) (any, error){
		"GetCallerIdentity": s.getCallerIdentity,
	}}
}

// getCallerIdentity answers as for the account's root user, whatever
// credentials signed the request (the local cloud accepts any): for root,
// AWS reports the account id as UserId and arn:aws:iam::<account>:root.
func (s *Service) getCallerIdentity(url.Values) (any, error) {
	return getCallerIdentityResult{
		Arn:     "arn:aws:iam::" + s.accountID + ":root",
		UserID:  s.accountID,
		Account: s.accountID,
	}, nil
}
