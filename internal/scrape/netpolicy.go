package scrape

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"syscall"
)

// ErrBlockedAddress is wrapped by the error of a fetch whose connection
// would have reached an address the scraper must not talk to (loopback,
// private, link-local, metadata, ...). It is fatal: the same name will
// resolve to the same kind of address next time.
var ErrBlockedAddress = errors.New("blocked address")

// blockedRanges are the destinations a fetch may never reach, with the
// reason reported in the error. Sources: IANA IPv4 and IPv6 Special-Purpose
// Address Registries (RFC 6890 and updates), RFC 6598 (CGNAT), RFC 6052 and
// RFC 8215 (NAT64), AWS "Instance metadata service" docs (169.254.169.254,
// fd00:ec2::254). IPv4-mapped, NAT64 and 6to4 IPv6 forms are unwrapped and
// checked against the IPv4 rows in blockReason.
var blockedRanges = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified (this network)"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private (RFC 1918)"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT (RFC 6598)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.169.254/32"), reasonMetadata},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private (RFC 1918)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private (RFC 1918)"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved or broadcast"},

	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible (deprecated)"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64 (RFC 8215)"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/32"), "Teredo"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("fd00:ec2::254/128"), reasonMetadata},
	{netip.MustParsePrefix("fc00::/7"), "unique local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// reasonMetadata marks the instance metadata endpoints, which stay blocked
// even when private networks are allowed: a local run has no use for them,
// and credentials live behind them.
const reasonMetadata = "cloud metadata"

var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96") // RFC 6052 §2.1
	sixToFour      = netip.MustParsePrefix("2002::/16")    // RFC 3056 §2
)

// blockReason returns why a fetch must not connect to a, or "" when a is a
// public unicast address.
func blockReason(a netip.Addr) string {
	if !a.IsValid() {
		return "invalid address"
	}
	a = a.WithZone("")
	if a.Is4In6() {
		if r := blockReason(a.Unmap()); r != "" {
			return "IPv4-mapped " + r
		}
		return ""
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64WellKnown.Contains(a):
			// The gateway translates to the embedded IPv4 address.
			if r := blockReason(netip.AddrFrom4([4]byte(b[12:16]))); r != "" {
				return "NAT64 " + r
			}
			return ""
		case sixToFour.Contains(a):
			if r := blockReason(netip.AddrFrom4([4]byte(b[2:6]))); r != "" {
				return "6to4 " + r
			}
		}
	}
	for _, r := range blockedRanges {
		if r.prefix.Contains(a) {
			return r.reason
		}
	}
	// Belt and braces: the standard library's own classification.
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	case a.IsUnspecified():
		return "unspecified"
	}
	return ""
}

// dialPolicy decides, per connection, whether the resolved address may be
// dialled. It runs in net.Dialer.Control, after DNS resolution and for every
// address the dialer tries, so neither redirects nor DNS rebinding (a name
// that resolves to a public address at check time and a private one at
// connect time) can reach a blocked address: there is no check time apart
// from connect time.
type dialPolicy struct {
	allowPrivate bool
	// exceptions are exact ip:port pairs that bypass the block list; see
	// Options.AllowAddrs.
	exceptions map[netip.AddrPort]bool
}

// control is a net.Dialer.Control function.
func (p dialPolicy) control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("%w: network %s is not tcp", ErrBlockedAddress, network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse %q: %w", ErrBlockedAddress, address, err)
	}
	return p.check(ap)
}

func (p dialPolicy) check(ap netip.AddrPort) error {
	if p.exceptions[netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())] {
		return nil
	}
	r := blockReason(ap.Addr())
	if r == "" || (p.allowPrivate && !strings.HasSuffix(r, reasonMetadata)) {
		return nil
	}
	return fmt.Errorf("%w: %s is %s", ErrBlockedAddress, ap, r)
}
