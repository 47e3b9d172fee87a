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
		{"2c0f:ffff::1", false},                        // public, near the end of 2000::/3
		{"fbff:ffff:ffff:ffff::1", true},               // unassigned, outside 2000::/3
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

		// Issue 15 item 4: ranges the block list missed. The allow-list of
		// IANA globally reachable ranges refuses them.
		{"::ffff:0:7f00:1", true},                      // IPv4-translated (RFC 2765) loopback
		{"::ffff:0:5db8:d822", true},                   // IPv4-translated: not a global form at all
		{"3fff::1", true},                              // documentation (RFC 9637)
		{"5f00::1", true},                              // SRv6 SIDs (RFC 9602)
		{"2001:20::1", true},                           // ORCHIDv2: an identifier, not routable (RFC 7343)
		{"2001:30::1", true},                           // DETs: identifiers (RFC 9374)
		{"2001:2::1", true},                            // benchmarking (RFC 5180)
		{"2001:10::1", true},                           // deprecated ORCHID
		{"4000::1", true},                              // unassigned, outside 2000::/3
		{"1.0.0.1", false},                             // an ordinary public IPv4 address
		{"192.0.0.9", false},                           // PCP anycast: globally reachable inside 192.0.0.0/24
		{"192.0.0.10", false},                          // TURN anycast
		{"192.0.0.8", true},                            // IPv4 dummy address
		{"192.31.196.1", false},                        // AS112-v4
		{"2001:1::1", false},                           // PCP anycast: globally reachable inside 2001::/23
		{"2001:3::1", false},                           // AMT
		{"2001:4:112::1", false},                       // AS112-v6
		{"2620:4f:8000::1", false},                     // AS112 direct delegation
		{"64:ff9b::808:808", false},                    // NAT64 of 8.8.8.8
		{"2002:808:808::1", false},                     // 6to4 of 8.8.8.8
		{"2001:0:4136:e378:8000:63bf:f7f7:f7f7", true}, // Teredo, whatever it embeds
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
		// Issue 15 item 4: the metadata rule must win over the row of the
		// form that embeds the address, and cover the ECS and EKS
		// credential endpoints.
		{"compatible metadata never", dialPolicy{allowPrivate: true}, "tcp6", "[::a9fe:a9fe]:80", false},
		{"local nat64 metadata never", dialPolicy{allowPrivate: true}, "tcp6", "[64:ff9b:1::a9fe:a9fe]:80", false},
		{"translated metadata never", dialPolicy{allowPrivate: true}, "tcp6", "[::ffff:0:a9fe:a9fe]:80", false},
		{"6to4 metadata never", dialPolicy{allowPrivate: true}, "tcp6", "[2002:a9fe:a9fe::1]:80", false},
		{"teredo metadata never", dialPolicy{allowPrivate: true}, "tcp6", "[2001:0:4136:e378:8000:63bf:5601:5601]:80", false},
		{"ecs credentials never", dialPolicy{allowPrivate: true}, "tcp4", "169.254.170.2:80", false},
		{"eks pod identity never", dialPolicy{allowPrivate: true}, "tcp4", "169.254.170.23:80", false},
		{"eks pod identity v6 never", dialPolicy{allowPrivate: true}, "tcp6", "[fd00:ec2::23]:80", false},
		{"mapped ecs credentials never", dialPolicy{allowPrivate: true}, "tcp6", "[::ffff:169.254.170.2]:80", false},
		{"other link-local allowed", dialPolicy{allowPrivate: true}, "tcp4", "169.254.1.1:80", true},
		{"compatible loopback allowed", dialPolicy{allowPrivate: true}, "tcp6", "[::7f00:1]:80", true},
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
