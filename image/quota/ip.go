package quota

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/image"
)

// ErrNotIPLiteral is wrapped by ParseIP's errors: the name is not an IP
// address literal as InetAddress.getByName reads one.
var ErrNotIPLiteral = errors.New("not an IP address literal")

// NoConnectionRate is the connection rate of an address with no IP quota
// (QuotaConfig.IP_CONNECTION_RATE_DEFAULT, Integer.MAX_VALUE): ConnectionQuotas
// does not throttle its connections.
const NoConnectionRate = math.MaxInt32

// ParseIP reads name as InetAddress.getByName reads an address literal,
// without resolving host names: IPv4 in one to four decimal parts, each
// with any number of leading zeros ("10.1" is 10.0.0.1, "010.0.0.1" is
// 10.0.0.1, "167772161" is 10.0.0.1; at most 15 characters); IPv6 with an
// optional numeric or named scope ("%1", ignored by address equality, so it
// is dropped) and optional brackets, an embedded IPv4 tail read the same
// way; an IPv4-mapped IPv6 address is its IPv4 address (Inet4Address); the
// empty name is the loopback address 127.0.0.1. Anything else is an error
// wrapping ErrNotIPLiteral: Kafka would look it up as a host name.
func ParseIP(name string) (netip.Addr, error) {
	if name == "" {
		return netip.AddrFrom4([4]byte{127, 0, 0, 1}), nil
	}
	bracketed := strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]")
	s := name
	if bracketed {
		s = name[1 : len(name)-1]
	}
	if a, ok := parseIPv4(s); ok {
		if bracketed {
			return netip.Addr{}, fmt.Errorf("quota: ip %q: %w (IPv4 in brackets)", name, ErrNotIPLiteral)
		}
		return a, nil
	}
	if a, ok := parseIPv6(s); ok {
		return a, nil
	}
	return netip.Addr{}, fmt.Errorf("quota: ip %q: %w", name, ErrNotIPLiteral)
}

// parseIPv4 is IPAddressUtil.textToNumericFormatV4: up to four dot-separated
// decimal parts, the last filling the bytes the others left.
func parseIPv4(s string) (netip.Addr, bool) {
	if len(s) == 0 || len(s) > 15 {
		return netip.Addr{}, false
	}
	var b [4]byte
	n := 0
	var cur int64
	fresh := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if fresh || cur > 0xff || n == 3 {
				return netip.Addr{}, false
			}
			b[n] = byte(cur)
			n++
			cur, fresh = 0, true
		case c >= '0' && c <= '9':
			cur = cur*10 + int64(c-'0')
			fresh = false
		default:
			return netip.Addr{}, false
		}
	}
	if fresh || cur >= 1<<((4-n)*8) {
		return netip.Addr{}, false
	}
	for i := 3; i >= n; i-- {
		b[i] = byte(cur)
		cur >>= 8
	}
	return netip.AddrFrom4(b), true
}

// parseIPv6 reads an IPv6 literal (IPAddressUtil.textToNumericFormatV6,
// with the scope InetAddress.getAllByName splits off), the IPv4-mapped
// form as its IPv4 address.
func parseIPv6(s string) (netip.Addr, bool) {
	if !strings.Contains(s, ":") {
		return netip.Addr{}, false
	}
	if i := strings.IndexByte(s, '%'); i >= 0 {
		if i == len(s)-1 {
			return netip.Addr{}, false
		}
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, ':'); strings.Contains(s[i+1:], ".") {
		tail := s[i+1:]
		if strings.Count(tail, ".") != 3 {
			return netip.Addr{}, false
		}
		v4, ok := parseIPv4(tail)
		if !ok {
			return netip.Addr{}, false
		}
		b := v4.As4()
		s = s[:i+1] + strconv.FormatUint(uint64(b[0])<<8|uint64(b[1]), 16) + ":" + strconv.FormatUint(uint64(b[2])<<8|uint64(b[3]), 16)
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// HostAddress prints addr as InetAddress.getHostAddress does, the value of
// the "ip" metric tag of its connection-rate sensor
// (ConnectionQuotaEntity.ipQuotaEntity): IPv4 dotted, IPv6 as eight
// lower-case hex groups without leading zeros or "::", then "%" and the
// zone when it has one. An IPv4-mapped address prints as its IPv4 address,
// as Java gives it for a socket's peer.
func HostAddress(addr netip.Addr) string {
	addr = unmapKeepZone(addr)
	if addr.Is4() {
		return addr.String()
	}
	b := addr.As16()
	var sb strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			sb.WriteByte(':')
		}
		sb.WriteString(strconv.FormatUint(uint64(b[i])<<8|uint64(b[i+1]), 16))
	}
	if z := addr.Zone(); z != "" {
		sb.WriteByte('%')
		sb.WriteString(z)
	}
	return sb.String()
}

func unmapKeepZone(addr netip.Addr) netip.Addr {
	if addr.Is4In6() {
		return addr.Unmap()
	}
	return addr
}

// ipIndex is ConnectionQuotas' connectionRatePerIp and
// defaultConnectionRatePerIp.
type ipIndex struct {
	rates   map[netip.Addr]int32
	def     int32
	names   map[netip.Addr]string // the entity name each rate came from
	pending []ipQuota
}

type ipQuota struct {
	key  string
	name string
	addr netip.Addr
	rate int32
}

func newIPIndex() ipIndex {
	return ipIndex{rates: map[netip.Addr]int32{}, def: NoConnectionRate, names: map[netip.Addr]string{}}
}

// addIP routes an ip entity (ClientQuotaMetadataManager.handleIpQuota):
// only connection_creation_rate counts, its value cut to an int.
func (ix *Index) addIP(key string, parts []image.QuotaEntityPart, e *image.QuotaEntity) {
	name, _ := part(parts, EntityIP)
	var addr netip.Addr
	if name != nil {
		a, err := ParseIP(*name)
		if err != nil {
			ix.ignored = append(ix.ignored, Ignored{Entity: key, Reason: ReasonUnresolvedIP})
			return
		}
		addr = a
	}
	for _, qv := range e.Values() {
		if qv.Key != KeyConnectionCreationRate {
			ix.ignored = append(ix.ignored, Ignored{Entity: key, Key: qv.Key, Reason: ReasonUnexpectedKey})
			continue
		}
		if name == nil {
			ix.ip.def = javaInt(qv.Value)
			continue
		}
		ix.ip.pending = append(ix.ip.pending, ipQuota{key: key, name: *name, addr: addr, rate: javaInt(qv.Value)})
	}
}

// finish puts the per-address rates, resolving entities that name one
// address (see ReasonShadowed).
func (ip *ipIndex) finish(ix *Index) {
	for _, q := range ip.pending {
		prev, dup := ip.names[q.addr]
		if dup {
			canon := HostAddress(q.addr)
			if prev == canon && q.name != canon {
				ix.ignored = append(ix.ignored, Ignored{Entity: q.key, Key: KeyConnectionCreationRate, Reason: ReasonShadowed})
				continue
			}
			prevKey := image.QuotaEntityKey([]image.QuotaEntityPart{{Type: EntityIP, Name: &prev}})
			ix.ignored = append(ix.ignored, Ignored{Entity: prevKey, Key: KeyConnectionCreationRate, Reason: ReasonShadowed})
		}
		ip.rates[q.addr] = q.rate
		ip.names[q.addr] = q.name
	}
	ip.pending = nil
	ip.names = nil
}

// IP returns the connection creation rate ConnectionQuotas applies to
// connections from addr (connectionRateForIp: the address's own
// ip=<address> quota, else ip=<default>, else NoConnectionRate) and whether
// that throttles at all (recordIpConnectionMaybeThrottle's quotaEnabled:
// the rate is not NoConnectionRate). Addresses are equal as Java's
// InetAddress values are: an IPv4-mapped address is its IPv4 address and
// the zone does not count. IP allocates nothing.
func (ix *Index) IP(addr netip.Addr) (rate int32, enabled bool) {
	addr = addr.Unmap().WithZone("")
	rate, ok := ix.ip.rates[addr]
	if !ok {
		rate = ix.ip.def
	}
	return rate, rate != NoConnectionRate
}
