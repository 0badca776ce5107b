package authz

import (
	"strings"
	"unicode"
	"unicode/utf16"
)

// CIDR host patterns (KIP-1276): Kafka 4.4's StandardAuthorizerData.findResult
// matches an ACL host that contains "/" with CidrUtils.isInRange(host,
// pattern), which builds commons-net's SubnetUtils (IPv4) or SubnetUtils6
// (IPv6, when the pattern contains ":") and returns false on any
// IllegalArgumentException. The functions below follow those classes and
// the JDK 17 parsers they call (java.util.regex \d, Integer.parseInt,
// InetAddress.getByName) character for character.

// cidrKind is what a host pattern containing "/" is.
type cidrKind uint8

const (
	cidrInvalid cidrKind = iota // no client host is ever in range
	cidrV4                      // SubnetUtils: lo..hi over dotted-quad hosts, 0.0.0.0 excluded
	cidrV6                      // SubnetUtils6: lo..hi over IPv6 hosts
	// cidrV6Unknown: Kafka's answer depends on the broker machine
	// (InetAddress.getByName resolves the address part as a host name, or
	// its zone names a network interface that may not exist). kmeta takes
	// whichever answer denies: such an ALLOW matches no host, such a DENY
	// matches every IPv6 host (or, with a known address and a named zone,
	// its range).
	cidrV6Unknown
)

// cidr is a compiled host pattern containing "/".
type cidr struct {
	kind     cidrKind
	lo4, hi4 uint32
	lo6, hi6 [16]byte
	known    bool // cidrV6Unknown: lo6..hi6 hold the range
}

// compileCIDR is the constructor of SubnetUtils (with
// setInclusiveHostCount(true)) or SubnetUtils6, as CidrUtils.isInRange
// picks them: IPv6 when the pattern contains ":".
func compileCIDR(pattern string) cidr {
	if strings.Contains(pattern, ":") {
		return compileCIDR6(pattern)
	}
	return compileCIDR4(pattern)
}

// compileCIDR4 is SubnetUtils(String): the pattern must match
// (\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})/(\d{1,2}) in full (\d is an
// ASCII digit in java.util.regex), octets 0..255, prefix 0..32; network =
// address AND mask, broadcast = network OR NOT mask, both included.
func compileCIDR4(pattern string) cidr {
	slash := strings.IndexByte(pattern, '/')
	if slash < 0 {
		return cidr{}
	}
	addr, ok := parseDottedQuad(pattern[:slash])
	if !ok {
		return cidr{}
	}
	p := pattern[slash+1:]
	if len(p) < 1 || len(p) > 2 || !asciiDigits(p) {
		return cidr{}
	}
	bits := atoiASCII(p)
	if bits > 32 {
		return cidr{}
	}
	mask := uint32(uint64(0xFFFFFFFF) << (32 - uint(bits)))
	network := addr & mask
	return cidr{kind: cidrV4, lo4: network, hi4: network | ^mask}
}

// parseDottedQuad is SubnetUtils.toInteger: four groups of one to three
// ASCII digits, each at most 255 (leading zeros allowed, decimal).
func parseDottedQuad(s string) (uint32, bool) {
	var addr uint32
	for i := 0; i < 4; i++ {
		end := len(s)
		if i < 3 {
			end = strings.IndexByte(s, '.')
			if end < 0 {
				return 0, false
			}
		}
		g := s[:end]
		if len(g) < 1 || len(g) > 3 || !asciiDigits(g) {
			return 0, false
		}
		n := atoiASCII(g)
		if n > 255 {
			return 0, false
		}
		addr = addr<<8 | uint32(n)
		if i < 3 {
			s = s[end+1:]
		}
	}
	return addr, true
}

func asciiDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func atoiASCII(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// compileCIDR6 is SubnetUtils6(String): split at the first "/", the prefix
// through Integer.parseInt (0..128), the address through
// InetAddress.getByName, which must give an Inet6Address; network =
// address AND mask, high = network OR NOT mask, both included.
func compileCIDR6(pattern string) cidr {
	slash := strings.IndexByte(pattern, '/')
	if slash < 0 {
		return cidr{}
	}
	bits, ok := javaParseInt(pattern[slash+1:])
	if !ok || bits < 0 || bits > 128 {
		return cidr{}
	}
	addr, res := javaGetByName6(pattern[:slash])
	var c cidr
	switch res {
	case inet6:
		c.kind, c.known = cidrV6, true
	case inet6Zoned:
		c.kind, c.known = cidrV6Unknown, true
	case inetUnknown:
		return cidr{kind: cidrV6Unknown}
	default:
		return cidr{}
	}
	for i := 0; i < 16; i++ {
		// Bits of byte i that belong to the prefix.
		keep := bits - 8*i
		var m byte
		switch {
		case keep >= 8:
			m = 0xFF
		case keep > 0:
			m = byte(0xFF << (8 - uint(keep)))
		}
		c.lo6[i] = addr[i] & m
		c.hi6[i] = addr[i] | ^m
	}
	return c
}

// javaParseInt is Integer.parseInt(s, 10): an optional sign, then one or
// more decimal digits as Character.digit(char, 10) reads them (any Unicode
// decimal digit of the Basic Multilingual Plane: parseInt reads UTF-16
// units, so a supplementary digit is two non-digits), no overflow.
func javaParseInt(s string) (int, bool) {
	u := utf16.Encode([]rune(s))
	if len(u) == 0 {
		return 0, false
	}
	neg, i := false, 0
	if u[0] == '+' || u[0] == '-' {
		if len(u) == 1 {
			return 0, false
		}
		neg, i = u[0] == '-', 1
	}
	n := int64(0)
	for ; i < len(u); i++ {
		d := bmpDigit(u[i])
		if d < 0 {
			return 0, false
		}
		n = n*10 + int64(d)
		if n > 1<<31 {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	if n > 1<<31-1 || n < -(1<<31) {
		return 0, false
	}
	return int(n), true
}

// bmpDigit is Character.digit(c, 10) for a UTF-16 unit: the value of a
// Unicode decimal digit (general category Nd), or -1. Decimal digits come
// in runs of ten from zero, so the value is the distance from the start
// of the run, modulo ten.
func bmpDigit(c uint16) int {
	r := rune(c)
	if r >= 0xD800 && r <= 0xDFFF || !unicode.IsDigit(r) {
		return -1
	}
	start := r
	for start > 0 && unicode.IsDigit(start-1) {
		start--
	}
	return int(r-start) % 10
}

// getByName results for IPv6 matching.
type inetResult uint8

const (
	inetNotV6   inetResult = iota // an error, or an Inet4Address
	inet6                         // an Inet6Address, numeric zone or none
	inet6Zoned                    // an Inet6Address whose zone names an interface: exists on some machines only
	inetUnknown                   // InetAddress.getByName would resolve a host name
)

// javaGetByName6 is InetAddress.getByName(s) of JDK 17 as far as
// SubnetUtils6 needs it: whether the result is an Inet6Address, and its 16
// bytes. Brackets are stripped; a string that starts with an ASCII hex
// digit or ":" is a literal (IPAddressUtil.textToNumericFormatV6, an
// IPv4-mapped address becoming an Inet4Address; the zone after "%" is a
// number of ASCII digits or an interface name); anything else is a host
// name for the resolver.
func javaGetByName6(s string) ([16]byte, inetResult) {
	var zero [16]byte
	if s == "" {
		return zero, inetNotV6 // the loopback address, 127.0.0.1
	}
	bracketed := false
	if s[0] == '[' {
		if len(s) <= 2 || s[len(s)-1] != ']' {
			return zero, inetNotV6
		}
		s, bracketed = s[1:len(s)-1], true
	}
	if !(isHex(s[0]) || s[0] == ':') {
		if bracketed {
			return zero, inetNotV6
		}
		return zero, inetUnknown
	}
	if !strings.Contains(s, ":") {
		// An IPv4 literal (an Inet4Address, or an error between brackets
		// or when ambiguous), else a name to resolve.
		if _, ok := parseDottedQuad(s); ok || bracketed {
			return zero, inetNotV6
		}
		return zero, inetUnknown
	}
	named := false
	if pos := strings.IndexByte(s, '%'); pos >= 0 {
		named = !numericZone(s[pos+1:])
	}
	addr, n := textToNumericFormatV6(s)
	if n != 16 {
		return zero, inetNotV6
	}
	if named {
		return addr, inet6Zoned
	}
	return addr, inet6
}

// numericZone is InetAddress.checkNumericZone != -1: ASCII digits only
// (none at all is zone 0) without int overflow.
func numericZone(z string) bool {
	n := 0
	for i := 0; i < len(z); i++ {
		if z[i] < '0' || z[i] > '9' {
			return false
		}
		if n > (1<<31-1)/10 {
			return false
		}
		n = n*10 + int(z[i]-'0')
		if n > 1<<31-1 {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// textToNumericFormatV6 is JDK 17's IPAddressUtil.textToNumericFormatV6
// (with ASCII digits): the 16 bytes and n = 16, or n = 4 for an
// IPv4-mapped address (::ffff:a.b.c.d, which Java makes an Inet4Address),
// or n = 0 when s is not a literal. The zone after "%" is not read here.
func textToNumericFormatV6(s string) ([16]byte, int) {
	var dst [16]byte
	if len(s) < 2 {
		return dst, 0
	}
	end := v6AddressEnd(s)
	if end < 0 {
		return dst, 0
	}
	colonp, i, j := -1, 0, 0
	if s[0] == ':' {
		i++
		if i >= end || s[i] != ':' {
			return dst, 0
		}
	}
	curtok, sawX, val := i, false, 0
	for i < end {
		ch := s[i]
		i++
		if v := hexVal(ch); v >= 0 {
			val = val<<4 | v
			if val > 0xFFFF {
				return dst, 0
			}
			sawX = true
			continue
		}
		if ch == ':' {
			curtok = i
			if !sawX {
				if colonp != -1 {
					return dst, 0
				}
				colonp = j
				continue
			} else if i == end {
				return dst, 0
			}
			if j+2 > 16 {
				return dst, 0
			}
			dst[j], dst[j+1] = byte(val>>8), byte(val)
			j += 2
			sawX, val = false, 0
			continue
		}
		if ch == '.' && j+4 <= 16 {
			v4, ok := textToNumericFormatV4(s[curtok:end])
			if !ok {
				return dst, 0
			}
			copy(dst[j:], v4[:])
			j += 4
			sawX = false
			break
		}
		return dst, 0
	}
	if sawX {
		if j+2 > 16 {
			return dst, 0
		}
		dst[j], dst[j+1] = byte(val>>8), byte(val)
		j += 2
	}
	if colonp != -1 {
		if j == 16 {
			return dst, 0
		}
		expandV6Gap(&dst, colonp, j)
		j = 16
	}
	if j != 16 {
		return dst, 0
	}
	return dst, v6Length(&dst)
}

// v6AddressEnd is where the address of s ends: at a '%' that starts a scope
// id, else at the end of s; -1 when the '%' is the last byte (no scope id).
func v6AddressEnd(s string) int {
	pc := strings.IndexByte(s, '%')
	switch {
	case pc < 0:
		return len(s)
	case pc == len(s)-1:
		return -1
	}
	return pc
}

// expandV6Gap moves the groups written after the "::" at byte colonp (up to
// byte j) to the end of dst, zeros filling the gap, as
// IPAddressUtil.textToNumericFormatV6 does.
func expandV6Gap(dst *[16]byte, colonp, j int) {
	n := j - colonp
	for k := 1; k <= n; k++ {
		dst[16-k] = dst[colonp+n-k]
		dst[colonp+n-k] = 0
	}
}

// v6Length is 4 for an IPv4-mapped address (::ffff:a.b.c.d, which
// IPAddressUtil.convertFromIPv4MappedAddress turns into IPv4) and 16
// otherwise.
func v6Length(dst *[16]byte) int {
	for k := 0; k < 10; k++ {
		if dst[k] != 0 {
			return 16
		}
	}
	if dst[10] == 0xFF && dst[11] == 0xFF {
		return 4
	}
	return 16
}

// textToNumericFormatV4 is IPAddressUtil.textToNumericFormatV4 for the
// dotted quad an IPv6 literal may end with: exactly three dots, four
// non-empty decimal parts each at most 255, at most 15 characters.
func textToNumericFormatV4(s string) ([4]byte, bool) {
	var out [4]byte
	if len(s) == 0 || len(s) > 15 || strings.Count(s, ".") != 3 {
		return out, false
	}
	for i, part := range strings.Split(s, ".") {
		if part == "" || !asciiDigits(part) {
			return out, false
		}
		n := atoiASCII(part)
		if n > 255 {
			return out, false
		}
		out[i] = byte(n)
	}
	return out, true
}

// hostKind is the client host as SubnetUtils and SubnetUtils6 read it.
type hostAddr struct {
	v4ok bool // a dotted quad (SubnetUtils.toInteger)
	v4   uint32
	v6   inetResult // InetAddress.getByName for SubnetUtils6
	b6   [16]byte
}

// parseHost reads a client host (InetAddress.getHostAddress: a dotted quad
// or a full IPv6 address, maybe with a zone) once per decision.
func parseHost(h string) hostAddr {
	var a hostAddr
	a.v4, a.v4ok = parseDottedQuad(h)
	a.b6, a.v6 = javaGetByName6(h)
	return a
}

// inRange is CidrUtils.isInRange(host, pattern) for a compiled pattern;
// deny says which answer the caller needs when Kafka's depends on the
// machine (see cidrV6Unknown): true for a DENY ACL.
func (c *cidr) inRange(h *hostAddr, deny bool) bool {
	switch c.kind {
	case cidrV4:
		// SubnetUtils.SubnetInfo.isInRange(int): 0.0.0.0 is never in range.
		return h.v4ok && h.v4 != 0 && h.v4 >= c.lo4 && h.v4 <= c.hi4
	case cidrV6:
		switch h.v6 {
		case inet6:
			return in16(h.b6, c.lo6, c.hi6)
		case inet6Zoned:
			return deny && in16(h.b6, c.lo6, c.hi6)
		case inetUnknown:
			return deny
		}
	case cidrV6Unknown:
		if !deny {
			return false
		}
		switch h.v6 {
		case inet6, inet6Zoned:
			return !c.known || in16(h.b6, c.lo6, c.hi6)
		case inetUnknown:
			return true
		}
	}
	return false
}

func in16(a, lo, hi [16]byte) bool {
	return string(a[:]) >= string(lo[:]) && string(a[:]) <= string(hi[:])
}
