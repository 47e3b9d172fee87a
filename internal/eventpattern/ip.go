package eventpattern

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// looksLikeIP mirrors Ruler's Constants.IPv4_REGEX ("[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+")
// and IPv6_REGEX ("[0-9a-fA-F:]*:[0-9a-fA-F:]*"), both matched against the
// whole string. Ruler only tries to parse strings of these shapes.
func looksLikeIP(s string) bool {
	return looksLikeIPv4(s) || looksLikeIPv6(s)
}

func looksLikeIPv4(s string) bool {
	parts := 0
	digits := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			if digits == 0 {
				return false
			}
			parts++
			digits = 0
		default:
			return false
		}
	}
	return parts == 3 && digits > 0
}

func looksLikeIPv6(s string) bool {
	colon := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			colon = true
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return false
		}
	}
	return colon
}

// parseIP parses an address the way Ruler's CIDR.ipToBytes does: only
// strings of IP shape, and IPv4-mapped IPv6 addresses become IPv4 (Java's
// InetAddress returns an Inet4Address for them).
func parseIP(s string) (netip.Addr, bool) {
	if !looksLikeIP(s) {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// parseCIDR validates a cidr operand with Ruler's rules and messages
// (aws/event-ruler CIDR.cidr). Ruler rejects a /32 IPv4 and a /128 IPv6
// mask ("mask bits must be < 32"); we keep that, since it is what AWS runs.
func parseCIDR(s string) (netip.Prefix, error) {
	// Java's String.split drops trailing empty strings: "10.0.0.0/" has one part.
	parts := strings.Split(s, "/")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) != 2 {
		return netip.Prefix{}, invalid("Malformed CIDR, one '/' required")
	}
	bits, err := strconv.Atoi(parts[1])
	if err != nil {
		return netip.Prefix{}, invalid("Malformed CIDR, mask bits must be an integer")
	}
	if bits < 0 {
		return netip.Prefix{}, invalid("Malformed CIDR, mask bits must not be negative")
	}
	if !looksLikeIP(parts[0]) {
		return netip.Prefix{}, invalid("Nonstandard IP address: " + parts[0])
	}
	addr, err := netip.ParseAddr(parts[0])
	if err != nil {
		return netip.Prefix{}, invalid("Invalid IP address: " + parts[0])
	}
	addr = addr.Unmap()
	if addr.Is4() && bits > 31 {
		return netip.Prefix{}, invalid("IPv4 mask bits must be < 32")
	}
	if addr.Is6() && bits > 127 {
		return netip.Prefix{}, invalid("IPv6 mask bits must be < 128")
	}
	p, err := addr.Prefix(bits)
	if err != nil {
		return netip.Prefix{}, invalid(fmt.Sprintf("Malformed CIDR %q", s))
	}
	return p, nil
}
