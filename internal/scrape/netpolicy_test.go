package scrape

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBlockReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr    string
		blocked bool
	}{
		// Public addresses pass.
		{"93.184.216.34", false},
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"2606:4700:4700::1111", false},
		{"2a00:1450:4001:80b::200e", false},
		{"::ffff:93.184.216.34", false},                // IPv4-mapped public
		{"64:ff9b::5db8:d822", false},                  // NAT64 of 93.184.216.34
		{"2002:5db8:d822::1", false},                   // 6to4 of 93.184.216.34
		{"100.63.255.255", false},                      // just below CGNAT
		{"100.128.0.0", false},                         // just above CGNAT
		{"172.15.255.255", false},                      // just below 172.16/12
		{"172.32.0.0", false},                          // just above 172.16/12
		{"169.253.255.255", false},                     // just below link-local
		{"223.255.255.255", false},                     // just below multicast
		{"fbff:ffff:ffff:ffff::1", false},              // just below fc00::/7
		{"2001:db9::1", false},                         // just above documentation
		{"2001:1::1", false},                           // just above Teredo
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", true}, // Teredo
		{"0.0.0.0", true},                              // unspecified
		{"0.1.2.3", true},                              // this network
		{"127.0.0.1", true},                            // loopback
		{"127.255.255.254", true},                      // loopback
		{"10.0.0.1", true},                             // RFC 1918
		{"172.16.0.1", true},                           // RFC 1918
		{"172.31.255.255", true},                       // RFC 1918
		{"192.168.1.1", true},                          // RFC 1918
		{"100.64.0.1", true},                           // CGNAT
		{"100.127.255.255", true},                      // CGNAT
		{"169.254.169.254", true},                      // AWS/GCP/Azure metadata
		{"169.254.0.1", true},                          // link-local
		{"192.0.0.192", true},                          // IETF assignments (Oracle metadata)
		{"192.0.2.10", true},                           // TEST-NET-1
		{"198.18.0.1", true},                           // benchmarking
		{"224.0.0.1", true},                            // multicast
		{"239.255.255.250", true},                      // SSDP multicast
		{"240.0.0.1", true},                            // reserved
		{"255.255.255.255", true},                      // broadcast
		{"::", true},                                   // unspecified
		{"::1", true},                                  // loopback
		{"fe80::1", true},                              // link-local
		{"fe80::1%eth0", true},                         // link-local with zone
		{"fc00::1", true},                              // unique local
		{"fd12:3456::1", true},                         // unique local
		{"fd00:ec2::254", true},                        // AWS IPv6 metadata
		{"fec0::1", true},                              // site-local
		{"ff02::1", true},                              // multicast
		{"::ffff:127.0.0.1", true},                     // IPv4-mapped loopback
		{"::ffff:10.1.2.3", true},                      // IPv4-mapped private
		{"::ffff:169.254.169.254", true},               // IPv4-mapped metadata
		{"::ffff:0.0.0.0", true},                       // IPv4-mapped unspecified
		{"::127.0.0.1", true},                          // IPv4-compatible (deprecated)
		{"64:ff9b::7f00:1", true},                      // NAT64 of 127.0.0.1
		{"64:ff9b::a9fe:a9fe", true},                   // NAT64 of 169.254.169.254
		{"64:ff9b::c0a8:101", true},                    // NAT64 of 192.168.1.1
		{"64:ff9b:1::5db8:d822", true},                 // local-use NAT64
		{"2002:7f00:1::1", true},                       // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", true},                    // 6to4 of metadata
		{"2001:db8::1", true},                          // documentation
		{"100::1", true},                               // discard-only
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			t.Parallel()
			r := blockReason(netip.MustParseAddr(tt.addr))
			if tt.blocked {
				require.NotEmpty(t, r)
			} else {
				require.Empty(t, r)
			}
		})
	}
}

func TestDialPolicy(t *testing.T) {
	t.Parallel()
	allowed := netip.MustParseAddrPort("127.0.0.1:8080")
	tests := []struct {
		name    string
		policy  dialPolicy
		network string
		address string
		ok      bool
	}{
		{"public", dialPolicy{}, "tcp4", "93.184.216.34:443", true},
		{"public v6", dialPolicy{}, "tcp6", "[2606:4700:4700::1111]:443", true},
		{"loopback", dialPolicy{}, "tcp4", "127.0.0.1:8080", false},
		{"mapped loopback", dialPolicy{}, "tcp6", "[::ffff:127.0.0.1]:8080", false},
		{"exception exact", dialPolicy{exceptions: map[netip.AddrPort]bool{allowed: true}}, "tcp4", "127.0.0.1:8080", true},
		{"exception mapped form", dialPolicy{exceptions: map[netip.AddrPort]bool{allowed: true}}, "tcp6", "[::ffff:127.0.0.1]:8080", true},
		{"exception other port", dialPolicy{exceptions: map[netip.AddrPort]bool{allowed: true}}, "tcp4", "127.0.0.1:8081", false},
		{"exception other ip", dialPolicy{exceptions: map[netip.AddrPort]bool{allowed: true}}, "tcp4", "127.0.0.2:8080", false},
		{"private allowed", dialPolicy{allowPrivate: true}, "tcp4", "10.0.0.1:80", true},
		{"loopback allowed", dialPolicy{allowPrivate: true}, "tcp6", "[::1]:80", true},
		{"metadata never", dialPolicy{allowPrivate: true}, "tcp4", "169.254.169.254:80", false},
		{"mapped metadata never", dialPolicy{allowPrivate: true}, "tcp6", "[::ffff:169.254.169.254]:80", false},
		{"nat64 metadata never", dialPolicy{allowPrivate: true}, "tcp6", "[64:ff9b::a9fe:a9fe]:80", false},
		{"v6 metadata never", dialPolicy{allowPrivate: true}, "tcp6", "[fd00:ec2::254]:80", false},
		{"udp", dialPolicy{allowPrivate: true}, "udp4", "93.184.216.34:53", false},
		{"garbage", dialPolicy{}, "tcp4", "not-an-address", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.policy.control(tt.network, tt.address, nil)
			if tt.ok {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, ErrBlockedAddress)
			}
		})
	}
}
