package scrape

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
)

// ErrBlockedAddress is wrapped by the error of a fetch whose connection
// would have reached an address the scraper must not talk to (loopback,
// private, link-local, metadata, ...). It is fatal: the same name will
// resolve to the same kind of address next time.
var ErrBlockedAddress = errors.New("blocked address")

// A fetch may connect only to an address that IANA lists as globally
// reachable, and never to a cloud metadata endpoint. The tables follow the
// IANA IPv4 and IPv6 Special-Purpose Address Registries
// (https://www.iana.org/assignments/iana-ipv4-special-registry,
// https://www.iana.org/assignments/iana-ipv6-special-registry, RFC 6890
// and updates) and the IPv6 Address Space registry, in which only
// 2000::/3 is global unicast. It is an allow-list: an IPv6 address
// outside 2000::/3 is refused whatever it is, so a range assigned after
// this table was written is refused until someone looks at it. IPv4 has no
// such envelope (all of 0.0.0.0/0 is unicast or listed below), so there
// the registry's non-global rows are the exceptions.
//
// The most specific matching row decides. Rows marked global carve the
// globally reachable assignments (anycast services, AS112, AMT) out of the
// non-global blocks around them.
type rangeRow struct {
	prefix netip.Prefix
	global bool
	reason string // why a non-global row is refused
}

var ipv4Rows = []rangeRow{
	{pfx("0.0.0.0/8"), false, "unspecified (this network)"},
	{pfx("10.0.0.0/8"), false, "private (RFC 1918)"},
	{pfx("100.64.0.0/10"), false, "carrier-grade NAT (RFC 6598)"},
	{pfx("127.0.0.0/8"), false, "loopback"},
	{pfx("169.254.0.0/16"), false, "link-local"},
	{pfx("172.16.0.0/12"), false, "private (RFC 1918)"},
	{pfx("192.0.0.0/24"), false, "IETF protocol assignments"},
	{pfx("192.0.0.9/32"), true, ""},  // Port Control Protocol anycast (RFC 7723)
	{pfx("192.0.0.10/32"), true, ""}, // TURN anycast (RFC 8155)
	{pfx("192.0.2.0/24"), false, "documentation"},
	{pfx("192.31.196.0/24"), true, ""}, // AS112-v4 (RFC 7535)
	{pfx("192.52.193.0/24"), true, ""}, // AMT (RFC 7450)
	{pfx("192.88.99.0/24"), false, "6to4 relay anycast (deprecated, RFC 7526)"},
	{pfx("192.168.0.0/16"), false, "private (RFC 1918)"},
	{pfx("192.175.48.0/24"), true, ""}, // AS112 direct delegation (RFC 7534)
	{pfx("198.18.0.0/15"), false, "benchmarking"},
	{pfx("198.51.100.0/24"), false, "documentation"},
	{pfx("203.0.113.0/24"), false, "documentation"},
	{pfx("224.0.0.0/4"), false, "multicast"},
	{pfx("240.0.0.0/4"), false, "reserved or broadcast"},
}

var ipv6Rows = []rangeRow{
	{pfx("2000::/3"), true, ""}, // global unicast (IPv6 Address Space registry)
	{pfx("2001::/23"), false, "IETF protocol assignments"},
	{pfx("2001::/32"), false, "Teredo"},
	{pfx("2001:1::1/128"), true, ""}, // PCP anycast (RFC 7723)
	{pfx("2001:1::2/128"), true, ""}, // TURN anycast (RFC 8155)
	{pfx("2001:1::3/128"), true, ""}, // DNS-SD service registration anycast (RFC 9665)
	{pfx("2001:2::/48"), false, "benchmarking"},
	{pfx("2001:3::/32"), true, ""},     // AMT (RFC 7450)
	{pfx("2001:4:112::/48"), true, ""}, // AS112-v6 (RFC 7535)
	// IANA marks ORCHIDv2 and DETs globally reachable, but they are
	// identifiers that "are not routable at the IP layer" (RFC 7343 §2,
	// RFC 9374 §3): no website lives there.
	{pfx("2001:20::/28"), false, "ORCHIDv2 identifier (RFC 7343)"},
	{pfx("2001:30::/28"), false, "drone entity tag identifier (RFC 9374)"},
	{pfx("2001:db8::/32"), false, "documentation"},
	{pfx("2620:4f:8000::/48"), true, ""}, // AS112 direct delegation (RFC 7534)
	{pfx("3fff::/20"), false, "documentation (RFC 9637)"},
}

// ipv6Outside names the best-known blocks outside 2000::/3, for the
// message; NAT64's well-known prefix is the one global form there.
var ipv6Outside = []rangeRow{
	{pfx("::/128"), false, "unspecified"},
	{pfx("::1/128"), false, "loopback"},
	{pfx("::/96"), false, "IPv4-compatible (deprecated)"},
	{pfx("::ffff:0:0:0/96"), false, "IPv4-translated (RFC 2765)"},
	{pfx("64:ff9b::/96"), true, ""}, // NAT64 well-known prefix (RFC 6052): judged by the IPv4 address it embeds
	{pfx("64:ff9b:1::/48"), false, "local-use NAT64 (RFC 8215)"},
	{pfx("100::/64"), false, "discard-only"},
	{pfx("5f00::/16"), false, "SRv6 SIDs (RFC 9602)"},
	{pfx("fc00::/7"), false, "unique local"},
	{pfx("fe80::/10"), false, "link-local"},
	{pfx("fec0::/10"), false, "site-local (deprecated)"},
	{pfx("ff00::/8"), false, "multicast"},
}

// metadataAddrs are the credential and metadata endpoints of the cloud the
// scraper runs in. They stay blocked even when private networks are
// allowed, in every notation that reaches them: a local run has no use for
// them, and credentials live behind them. Sources: EC2 instance metadata
// (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html),
// ECS task credentials
// (https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-iam-roles.html),
// EKS Pod Identity (https://docs.aws.amazon.com/eks/latest/userguide/pod-id-how-it-works.html).
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true, // EC2 IMDS (also GCP and Azure)
	netip.MustParseAddr("fd00:ec2::254"):   true, // EC2 IMDS over IPv6
	netip.MustParseAddr("169.254.170.2"):   true, // ECS task credentials
	netip.MustParseAddr("169.254.170.23"):  true, // EKS Pod Identity agent
	netip.MustParseAddr("fd00:ec2::23"):    true, // EKS Pod Identity agent over IPv6
}

// reasonMetadata marks the metadata endpoints in error messages.
const reasonMetadata = "cloud metadata"

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// Embedded IPv4 forms: IPv6 prefixes whose addresses carry an IPv4 address
// that a translator, tunnel or the local stack turns them into.
var (
	translated = pfx("::ffff:0:0:0/96") // IPv4-translated (RFC 2765 §2.1)
	compatible = pfx("::/96")           // IPv4-compatible (RFC 4291 §2.5.5.1)
	nat64      = pfx("64:ff9b::/96")    // RFC 6052 §2.1
	nat64Local = pfx("64:ff9b:1::/48")  // RFC 8215: any RFC 6052 §2.2 length from /48 to /96
	sixToFour  = pfx("2002::/16")       // RFC 3056 §2
	teredo     = pfx("2001::/32")       // RFC 4380 §4: server at bits 32-63, client obfuscated in 96-127
)

// embedded returns the IPv4 addresses that a may stand for.
func embedded(a netip.Addr) []netip.Addr {
	if !a.Is6() {
		return nil
	}
	b := a.As16()
	v4 := func(i int) netip.Addr { return netip.AddrFrom4([4]byte(b[i : i+4])) }
	switch {
	case translated.Contains(a), nat64.Contains(a), compatible.Contains(a):
		return []netip.Addr{v4(12)}
	case nat64Local.Contains(a):
		// RFC 6052 §2.2: for a /48 the IPv4 address is bits 48-63 and
		// 72-87 (bits 64-71 are the zero "u" octet), for a /56 bits 56-63
		// and 72-95, for a /64 bits 72-103, for a /96 bits 96-127.
		return []netip.Addr{
			netip.AddrFrom4([4]byte{b[6], b[7], b[9], b[10]}),
			netip.AddrFrom4([4]byte{b[7], b[9], b[10], b[11]}),
			v4(9),
			v4(12),
		}
	case sixToFour.Contains(a):
		return []netip.Addr{v4(2)}
	case teredo.Contains(a):
		client := v4(12).As4()
		for i := range client {
			client[i] ^= 0xff
		}
		return []netip.Addr{v4(4), netip.AddrFrom4(client)}
	}
	return nil
}

// verdict is the policy's judgement of one address.
type verdict struct {
	// reason is why a fetch must not connect, "" for a globally reachable
	// address.
	reason string
	// metadata says the address reaches a metadata endpoint, in any
	// notation: no option lets a fetch connect then.
	metadata bool
}

// judge classifies a.
func judge(a netip.Addr) verdict {
	if !a.IsValid() {
		return verdict{reason: "invalid address"}
	}
	a = a.WithZone("")
	if a.Is4In6() {
		// The stack connects to the IPv4 address itself.
		v := judge(a.Unmap())
		if v.reason != "" {
			v.reason = "IPv4-mapped " + v.reason
		}
		return v
	}
	if metadataAddrs[a] {
		return verdict{reason: reasonMetadata, metadata: true}
	}
	inner := embedded(a)
	for _, v4 := range inner {
		if metadataAddrs[v4] {
			return verdict{reason: formName(a) + " " + reasonMetadata, metadata: true}
		}
	}
	if a.Is4() {
		return verdict{reason: lookup(ipv4Rows, a, "")}
	}
	reason := lookup(ipv6Rows, a, "not globally reachable (outside 2000::/3)")
	if reason == "not globally reachable (outside 2000::/3)" {
		reason = lookup(ipv6Outside, a, reason)
	}
	if reason != "" {
		return verdict{reason: reason}
	}
	// A global form that a translator or tunnel turns into an IPv4 address
	// (NAT64, 6to4) is as reachable as that address.
	for _, v4 := range inner {
		if r := lookup(ipv4Rows, v4, ""); r != "" {
			return verdict{reason: formName(a) + " " + r}
		}
	}
	return verdict{}
}

// lookup returns the reason of the most specific row containing a: "" for
// a global row, def when no row contains a.
func lookup(rows []rangeRow, a netip.Addr, def string) string {
	best := -1
	for i, r := range rows {
		if r.prefix.Contains(a) && (best < 0 || r.prefix.Bits() > rows[best].prefix.Bits()) {
			best = i
		}
	}
	if best < 0 {
		return def
	}
	return rows[best].reason
}

// formName names the IPv6 form that embeds an IPv4 address, for messages.
func formName(a netip.Addr) string {
	switch {
	case translated.Contains(a):
		return "IPv4-translated"
	case nat64.Contains(a), nat64Local.Contains(a):
		return "NAT64"
	case compatible.Contains(a):
		return "IPv4-compatible"
	case sixToFour.Contains(a):
		return "6to4"
	case teredo.Contains(a):
		return "Teredo"
	}
	return "IPv6"
}

// blockReason returns why a fetch must not connect to a, or "" when a is
// globally reachable.
func blockReason(a netip.Addr) string { return judge(a).reason }

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
	v := judge(ap.Addr())
	if v.reason == "" || (p.allowPrivate && !v.metadata) {
		return nil
	}
	return fmt.Errorf("%w: %s is %s", ErrBlockedAddress, ap, v.reason)
}
