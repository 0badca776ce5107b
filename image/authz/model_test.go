package authz

import (
	"fmt"
	"math/rand"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"

	"github.com/kmeta-go/kmeta/image"
)

// The model: StandardAuthorizer's rules written as plainly as possible, ACL
// by ACL, with no index, to check Standard's indexed implementation
// against. Each rule names the Kafka method it follows; the model itself is
// checked against Kafka's decision tables (TestModelAgainstKafkaVectors).

type model struct {
	acls []image.ACL
	cfg  Config
}

// modelCode is the fromCode rule of Kafka's enums: codes outside the enum
// are UNKNOWN (0).
func modelCode(c, max int8) int8 {
	if c < 0 || c > max {
		return 0
	}
	return c
}

// The model's fromCode of each enum of an ACL (ResourceType.fromCode,
// PatternType.fromCode, AclOperation.fromCode, AclPermissionType.fromCode),
// written apart from the implementation's.
func modelResourceType(c int8) ResourceType { return ResourceType(modelCode(c, 7)) }
func modelPatternType(c int8) PatternType   { return PatternType(modelCode(c, 4)) }
func modelOperation(c int8) Operation       { return Operation(modelCode(c, 15)) }
func modelPermission(c int8) PermissionType { return PermissionType(modelCode(c, 3)) }

func (m *model) superUser(principal string) bool {
	// StandardAuthorizer.getConfiguredSuperUsers.
	var users []string
	for _, l := range m.cfg.SuperUsers {
		for _, u := range strings.Split(l, ";") {
			u = strings.TrimFunc(u, func(r rune) bool { return r <= ' ' })
			if u == "" {
				continue
			}
			if !strings.Contains(u, ":") {
				return false // the configuration is refused
			}
			users = append(users, u)
		}
	}
	for _, u := range users {
		if u == principal {
			return true
		}
	}
	return false
}

// javaACL is a as Kafka's Java strings hold it (javaString: checked
// against the JDK's decoder while writing it).
func javaACL(a image.ACL) image.ACL {
	a.ResourceName, a.Principal, a.Host = javaString(a.ResourceName), javaString(a.Principal), javaString(a.Host)
	return a
}

// authorize is StandardAuthorizerData.authorize.
func (m *model) authorize(ctx Context, opType Operation, rtType ResourceType, name string) bool {
	ctx.Principal, ctx.Host, name = javaString(ctx.Principal), javaString(ctx.Host), javaString(name)
	if m.superUser(ctx.Principal) {
		return true
	}
	if ctx.Principal == "User:*" {
		return false // matchingPrincipals: Set.of throws on the duplicate
	}
	op, rt := modelOperation(int8(opType)), modelResourceType(int8(rtType))
	startsWithStar := name != "*" && strings.HasPrefix(name, "*")
	type result struct{ has, allow, deny bool }
	var kafka, documented result
	for _, a := range m.acls {
		a = javaACL(a)
		if modelResourceType(a.ResourceType) != rt {
			continue
		}
		literal := modelPatternType(a.PatternType) == PatternLiteral
		var matchesKafka, matchesDoc bool
		if literal {
			// checkSection: a LITERAL ACL matches its exact name, and
			// "*" matches every name, except (in Kafka's code, not its
			// documentation) names that start with "*".
			matchesDoc = a.ResourceName == name || a.ResourceName == "*"
			matchesKafka = a.ResourceName == name || a.ResourceName == "*" && !startsWithStar
		} else {
			// checkSection: any other pattern matches the names it is a
			// prefix of.
			matchesDoc = strings.HasPrefix(name, a.ResourceName)
			matchesKafka = matchesDoc
		}
		r := m.findResult(ctx, op, a)
		for _, x := range []struct {
			match bool
			res   *result
		}{{matchesKafka, &kafka}, {matchesDoc, &documented}} {
			if !x.match {
				continue
			}
			x.res.has = true
			x.res.allow = x.res.allow || r == allowed
			x.res.deny = x.res.deny || r == denied
		}
	}
	// MatchingRuleBuilder.build: a DENY, else an ALLOW, else the default
	// only if no ACL matched the resource, else DENIED.
	decide := func(r result) bool {
		return !r.deny && (r.allow || !r.has && m.cfg.AllowIfNoACLFound)
	}
	if !decide(kafka) || !decide(documented) {
		return false
	}
	// Kafka's second checkSection fails (a loop or an exception) for
	// some names below "*": never allowed.
	return !m.wildcardScanFails(ctx, op, rt, name)
}

// findResult is StandardAuthorizerData.findResult.
func (m *model) findResult(ctx Context, op Operation, a image.ACL) outcome {
	if !strings.Contains(a.Principal, ":") {
		return denied // StandardAcl.kafkaPrincipal throws: never allowed
	}
	if a.Principal != ctx.Principal && a.Principal != "User:*" {
		return noMatch
	}
	perm := modelPermission(a.PermissionType)
	if !m.hostMatches(a.Host, ctx.Host, perm != PermissionAllow) {
		return noMatch
	}
	aop := modelOperation(a.Operation)
	if aop != OpAll {
		switch {
		case perm == PermissionAllow && op == OpDescribe:
			if aop != OpDescribe && aop != OpRead && aop != OpWrite && aop != OpDelete && aop != OpAlter {
				return noMatch
			}
		case perm == PermissionAllow && op == OpDescribeConfigs:
			if aop != OpDescribeConfigs && aop != OpAlterConfigs {
				return noMatch
			}
		default:
			if aop != op {
				return noMatch
			}
		}
	}
	if perm == PermissionAllow {
		return allowed
	}
	return denied
}

// hostMatches is findResult's host test: "*", the same string, or (Kafka
// 4.4) CidrUtils.isInRange. Below 4.4-IV1 only a DENY's range counts (the
// stricter of 4.3 and 4.4); where Kafka's answer depends on the machine, a
// DENY matches and an ALLOW does not.
func (m *model) hostMatches(pattern, host string, deny bool) bool {
	if pattern == "*" || pattern == host {
		return true
	}
	if !strings.Contains(pattern, "/") {
		return false
	}
	if m.cfg.MetadataVersion < image.MV4_4_IV1 && !deny {
		return false
	}
	switch modelInRange(host, pattern) {
	case yes:
		return true
	case depends:
		return deny
	}
	return false
}

type tri uint8

const (
	no tri = iota
	yes
	depends // on the machine: a host name to resolve, a named zone
)

var (
	modelV4CIDR = regexp.MustCompile(`^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})/([0-9]{1,2})$`)
	modelV4Host = regexp.MustCompile(`^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$`)
)

// modelInRange is CidrUtils.isInRange(host, pattern) with commons-net's
// SubnetUtils / SubnetUtils6, on top of net/netip.
func modelInRange(host, pattern string) tri {
	if strings.Contains(pattern, ":") {
		slash := strings.Index(pattern, "/")
		bits, ok := modelParseInt(pattern[slash+1:])
		if !ok || bits < 0 || bits > 128 {
			return no
		}
		a, as := modelParse6(pattern[:slash])
		if as == no {
			return no
		}
		h, hs := modelParse6(host)
		if hs == no {
			return no
		}
		if !a.IsValid() || !h.IsValid() {
			return depends // a host name on either side
		}
		in := netip.PrefixFrom(a.WithZone(""), bits).Masked().Contains(h.WithZone(""))
		if !in {
			return no
		}
		if as == depends || hs == depends {
			return depends
		}
		return yes
	}
	p := modelV4CIDR.FindStringSubmatch(pattern)
	h := modelV4Host.FindStringSubmatch(host)
	if p == nil || h == nil {
		return no
	}
	octets := func(g []string) (netip.Addr, bool) {
		var b [4]byte
		for i := range b {
			n, _ := strconv.Atoi(g[i])
			if n > 255 {
				return netip.Addr{}, false
			}
			b[i] = byte(n)
		}
		return netip.AddrFrom4(b), true
	}
	pa, ok1 := octets(p[1:5])
	ha, ok2 := octets(h[1:5])
	bits, _ := strconv.Atoi(p[5])
	if !ok1 || !ok2 || bits > 32 || ha == netip.AddrFrom4([4]byte{}) {
		return no // SubnetInfo.isInRange: 0.0.0.0 never is
	}
	if netip.PrefixFrom(pa, bits).Masked().Contains(ha) {
		return yes
	}
	return no
}

// modelParseInt is Integer.parseInt: optional sign, Unicode decimal digits
// of the Basic Multilingual Plane.
func modelParseInt(s string) (int, bool) {
	var b strings.Builder
	for i, r := range s {
		switch {
		case i == 0 && (r == '+' || r == '-') && len(s) > 1:
			b.WriteRune(r)
		case r <= 0xFFFF && unicode.Is(unicode.Nd, r):
			b.WriteByte(byte('0' + modelDigitValue(r)))
		default:
			return 0, false
		}
	}
	n, err := strconv.ParseInt(b.String(), 10, 32)
	return int(n), err == nil
}

// modelDigitValue: Unicode's Nd table lists runs that start at a zero.
func modelDigitValue(r rune) int {
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	return -1
}

// modelParse6 is InetAddress.getByName as SubnetUtils6 uses it: yes with
// the address of an Inet6Address, no for an error or an Inet4Address,
// depends for a name the resolver would look up (no address) or a zone
// naming an interface (the address).
func modelParse6(s string) (netip.Addr, tri) {
	if s == "" {
		return netip.Addr{}, no // the loopback 127.0.0.1
	}
	bracketed := false
	if s[0] == '[' {
		if len(s) <= 2 || s[len(s)-1] != ']' {
			return netip.Addr{}, no
		}
		s, bracketed = s[1:len(s)-1], true
	}
	c := s[0]
	literal := c == ':' || c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	if !literal || !strings.Contains(s, ":") {
		if bracketed || modelV4Host.MatchString(s) {
			return netip.Addr{}, no
		}
		return netip.Addr{}, depends
	}
	addr, zone, hasZone := strings.Cut(s, "%")
	st := yes
	if hasZone {
		if zone == "" {
			return netip.Addr{}, no
		}
		if n, err := strconv.ParseUint(zone, 10, 31); err != nil || zone[0] == '+' || n > 1<<31-1 {
			st = depends // an interface name: NetworkInterface.getByName
		}
	}
	// Java reads hex groups of any length up to 0xffff and embedded IPv4
	// parts with leading zeros (at most 15 characters); netip does not.
	fields := strings.Split(addr, ":")
	for i, f := range fields {
		if strings.Contains(f, ".") {
			if i != len(fields)-1 || len(f) > 15 {
				return netip.Addr{}, no
			}
			parts := strings.Split(f, ".")
			for k, p := range parts {
				if len(p) > 1 && strings.Trim(p, "0123456789") == "" {
					parts[k] = strings.TrimLeft(p, "0")
					if parts[k] == "" {
						parts[k] = "0"
					}
				}
			}
			fields[i] = strings.Join(parts, ".")
		} else if len(f) > 4 && strings.Trim(f, "0123456789abcdefABCDEF") == "" {
			fields[i] = strings.TrimLeft(f, "0")
			if fields[i] == "" {
				fields[i] = "0"
			}
		}
	}
	a, err := netip.ParseAddr(strings.Join(fields, ":"))
	if err != nil || !a.Is6() {
		return netip.Addr{}, no
	}
	if a.Is4In6() {
		return netip.Addr{}, no // Java makes it an Inet4Address
	}
	return a, st
}

// wildcardScanFails replays the second checkSection of
// StandardAuthorizerData.findAclRule (the one whose exemplar is the
// LITERAL "*" ACL) over the ACLs in StandardAcl.compareTo order, and says
// whether it would loop forever (a restart at a name it restarted at
// before) or throw StringIndexOutOfBoundsException (a restart past the end
// of the exemplar's name, "*"). It stops at a DENY, as checkSection does.
// scanACL is an ACL as StandardAuthorizerData's TreeSet holds it
// (StandardAcl): its codes as fromCode reads them and its strings as Java's
// UTF-16.
type scanACL struct {
	a                     image.ACL
	rt                    ResourceType
	pt                    PatternType
	op                    Operation
	perm                  PermissionType
	name, principal, host []uint16
	literal               bool
}

// utf16Of is s as Java's String holds it.
func utf16Of(s string) []uint16 { return utf16.Encode([]rune(s)) }

// compareUTF16 is String.compareTo.
func compareUTF16(a, b []uint16) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}

// compare is StandardAcl.compareTo: resource type, then name in reverse,
// pattern type, operation, principal, host and permission.
func (x scanACL) compare(y scanACL) int {
	if x.rt != y.rt {
		return int(x.rt) - int(y.rt)
	}
	if c := compareUTF16(y.name, x.name); c != 0 {
		return c // reverse
	}
	if x.pt != y.pt {
		return int(x.pt) - int(y.pt)
	}
	if x.op != y.op {
		return int(x.op) - int(y.op)
	}
	if c := compareUTF16(x.principal, y.principal); c != 0 {
		return c
	}
	if c := compareUTF16(x.host, y.host); c != 0 {
		return c
	}
	return int(x.perm) - int(y.perm)
}

// wildcardScanFails is whether Kafka's second checkSection (the scan from
// the exemplar "*" of StandardAuthorizerData.authorize) throws or loops for
// name: a prefix restart that cannot be cut from the exemplar's name, or the
// same restart twice.
func (m *model) wildcardScanFails(ctx Context, op Operation, rt ResourceType, name string) bool {
	var set []scanACL
	for _, a := range m.acls {
		a = javaACL(a)
		x := scanACL{a: a, rt: modelResourceType(a.ResourceType), pt: modelPatternType(a.PatternType), op: modelOperation(a.Operation),
			perm: modelPermission(a.PermissionType), name: utf16Of(a.ResourceName), principal: utf16Of(a.Principal), host: utf16Of(a.Host)}
		x.literal = x.pt == PatternLiteral
		set = append(set, x)
	}
	sort.Slice(set, func(i, j int) bool { return set[i].compare(set[j]) < 0 })
	tail := func(ex scanACL) int { // NavigableSet.tailSet(exemplar, true)
		return sort.Search(len(set), func(i int) bool { return set[i].compare(ex) >= 0 })
	}
	res := utf16Of(name)
	ex := scanACL{rt: rt, pt: PatternLiteral, name: utf16Of("*")}
	seen := map[string]bool{}
	for i := tail(ex); i < len(set); {
		a := set[i]
		if a.rt != rt {
			return false
		}
		k := 0
		for k < len(res) && k < len(a.name) && res[k] == a.name[k] {
			k++
		}
		if k == len(a.name) {
			if a.literal && k != len(res) {
				i++
				continue
			}
		} else if !(a.literal && string(utf16.Decode(a.name)) == "*") {
			if k > len(ex.name) {
				return true // substring(0, k) of the exemplar's name throws
			}
			ex.name = ex.name[:k]
			key := string(utf16.Decode(ex.name))
			if seen[key] {
				return true // the same restart again: an endless loop
			}
			seen[key] = true
			i = tail(ex)
			continue
		}
		if m.findResult(ctx, op, a.a) == denied {
			return false
		}
		i++
	}
	return false
}

// authorizeByResourceType is Authorizer.authorizeByResourceType (the
// default method).
func (m *model) authorizeByResourceType(ctx Context, opType Operation, rtType ResourceType) bool {
	ctx.Principal, ctx.Host = javaString(ctx.Principal), javaString(ctx.Host)
	op, rt := modelOperation(int8(opType)), modelResourceType(int8(rtType))
	if rt == ResourceAny || rt == ResourceUnknown || op == OpAny || op == OpUnknown {
		return false // authorizeByResourceTypeCheckArgs throws
	}
	if m.authorize(ctx, op, rt, "hardcode") {
		return true
	}
	if ctx.Principal == "User:*" {
		return false // authorize threw
	}
	for _, a := range m.acls {
		a = javaACL(a)
		// authorize("hardcode") throws (or answers DENIED) when an ACL
		// matching it has a principal without ":".
		lit := modelPatternType(a.PatternType) == PatternLiteral
		if modelResourceType(a.ResourceType) == rt && !strings.Contains(a.Principal, ":") &&
			(lit && (a.ResourceName == "hardcode" || a.ResourceName == "*") || !lit && strings.HasPrefix("hardcode", a.ResourceName)) {
			return false
		}
	}
	for _, a := range m.acls {
		// AclCache.acls: StandardAcl.toBinding throws for these.
		if ResourceType(a.ResourceType) == ResourceAny || modelPatternType(a.PatternType) == PatternAny || modelPatternType(a.PatternType) == PatternMatch ||
			modelOperation(a.Operation) == OpAny || modelPermission(a.PermissionType) == PermissionAny {
			return false
		}
	}
	denyLit, denyPre := map[string]bool{}, map[string]bool{}
	var allowLit, allowPre []string
	wildAllow := false
	for _, a := range m.acls {
		a = javaACL(a)
		if modelResourceType(a.ResourceType) != rt {
			continue
		}
		perm := modelPermission(a.PermissionType)
		if !m.hostMatches(a.Host, ctx.Host, perm != PermissionAllow) {
			continue
		}
		if !strings.Contains(a.Principal, ":") {
			return false // parseKafkaPrincipal throws
		}
		if a.Principal != ctx.Principal && a.Principal != "User:*" {
			continue
		}
		if aop := modelOperation(a.Operation); aop != op && aop != OpAll {
			continue
		}
		pt := modelPatternType(a.PatternType)
		switch {
		case perm == PermissionDeny && pt == PatternLiteral && a.ResourceName == "*":
			return false
		case perm == PermissionDeny && pt == PatternLiteral:
			denyLit[a.ResourceName] = true
		case perm == PermissionDeny && pt == PatternPrefixed:
			denyPre[a.ResourceName] = true
		case perm == PermissionAllow && pt == PatternLiteral && a.ResourceName == "*":
			wildAllow = true
		case perm == PermissionAllow && pt == PatternLiteral:
			allowLit = append(allowLit, a.ResourceName)
		case perm == PermissionAllow && pt == PatternPrefixed:
			allowPre = append(allowPre, a.ResourceName)
		}
	}
	return wildAllow || modelAllowSurvives(allowLit, allowPre, denyLit, denyPre)
}

// modelAllowSurvives: some ALLOW name is neither a literal DENY's name nor
// has a prefixed DENY's name as a prefix (Authorizer.authorizeByResourceType).
func modelAllowSurvives(allowLit, allowPre []string, denyLit, denyPre map[string]bool) bool {
	dominated := func(n string) bool {
		for i := 1; i <= len(n); i++ {
			if denyPre[n[:i]] {
				return true
			}
		}
		return false
	}
	for _, n := range allowLit {
		if !denyLit[n] && !dominated(n) {
			return true
		}
	}
	for _, n := range allowPre {
		if !dominated(n) {
			return true
		}
	}
	return false
}

func (m *model) decide(r vectorRow) bool {
	if r.byType {
		return m.authorizeByResourceType(r.ctx, r.op, r.rt)
	}
	return m.authorize(r.ctx, r.op, r.rt, r.name)
}

// TestModelAgainstKafkaVectors: the model gives Kafka's decision on every
// row of Kafka's tables, except the listed stricter rows (strictException),
// where it denies.
func TestModelAgainstKafkaVectors(t *testing.T) {
	for _, d := range vectorDirs {
		t.Run(d.dir, func(t *testing.T) {
			var rows, excepted int
			for _, c := range loadVectorCases(t, d.dir, d.mv) {
				m := &model{acls: c.acls, cfg: c.cfg}
				bad := 0
				for _, r := range c.rows {
					rows++
					got := m.decide(r)
					if got == r.allowed {
						continue
					}
					if !got && strictException(c, r) != "" {
						excepted++
						continue
					}
					if bad++; bad <= 5 {
						t.Errorf("%s: %s: model %s, Kafka %s", c, r, verdict(got), verdict(r.allowed))
					}
				}
			}
			if excepted != d.stricter {
				t.Errorf("%s: model DENIED %d rows under the listed exception, want %d", d.dir, excepted, d.stricter)
			}
			t.Logf("%s: model equal to Kafka on %d rows, %d listed stricter", d.dir, rows-excepted, excepted)
		})
	}
}

// Pools the random ACL sets and requests draw from: names that nest as
// prefixes, the wildcard, names starting with "*" and with characters below
// "*", hosts exact and CIDR (odd spellings included), odd enum codes.
var (
	genNames = []string{"", "*", "**", "*s", "*star", "o", "or", "ord", "orders", "orders-eu", "orders-eu-1", "payments",
		"kafka-cluster", "txn-1", "ü", "ü-topic", "!", "!a", "!ab", "!b", "#x", "#", "(g", "(", " sp", "hardcode", "hard", "zz"}
	genPrincipals = []string{"User:*", "User:alice", "User:bob", "User:admin", "Group:devs", "User:a:b", "alice", "User:"}
	genCtxUsers   = []string{"User:alice", "User:bob", "User:admin", "User:eve", "Group:devs", "User:a:b", "User:*", "User:"}
	genACLHosts   = []string{"*", "*", "*", "10.0.0.1", "10.0.0.2", "192.168.1.10", "0:0:0:0:0:0:0:1", "::1", "0.0.0.0",
		"10.0.0.0/24", "10.0.0.7/24", "10.0.0.0/31", "0.0.0.0/0", "0.0.0.0/32", "10.0.0.1/32", "010.000.000.000/8",
		"10.0.0.1/032", "10.0.0.0/33", "256.0.0.0/8", "10.0.0/24", "192.168.0.0/16", "127.0.0.0/8",
		"::/0", "::/96", "::/128", "::1/128", "2001:db8::/32", "2001:DB8::/32", "2001:db8::/+64", "2001:db8::/-0",
		"2001:db8::/६४", "[2001:db8::]/32", "fe80::1%1/128", "fe80::1%eth9/128", "fe80::/10", "::ffff:10.0.0.0/104",
		"2001:db8:::/64", "2001:db8::/129", "2001:db8::/64 ", "0001:0db8::/32", "::0010.0.0.1/128", "db8.example/64:",
		"fe80:0:0:0:0:0:0:1%1", "/24", "10.0.0.0/"}
	genCtxHosts = []string{"10.0.0.1", "10.0.0.2", "10.0.0.255", "10.0.1.0", "192.168.1.10", "127.0.0.1", "0.0.0.0",
		"255.255.255.255", "0:0:0:0:0:0:0:1", "0:0:0:0:0:0:0:0", "2001:db8:0:0:0:0:0:1", "2001:db9:0:0:0:0:0:1",
		"fe80:0:0:0:0:0:0:1", "fe80:0:0:0:0:0:0:1%1", "fe80:0:0:0:0:0:0:1%eth0", "0:0:0:0:0:0:a00:1", "localhost", "::1"}
)

func pick[T any](r *rand.Rand, list []T) T { return list[r.Intn(len(list))] }

func randomACL(r *rand.Rand) image.ACL {
	a := image.ACL{
		ResourceType:   int8(pick(r, []ResourceType{ResourceTopic, ResourceTopic, ResourceGroup, ResourceCluster, ResourceTransactionalID, ResourceUser, ResourceDelegationToken})),
		ResourceName:   pick(r, genNames),
		PatternType:    int8(pick(r, []PatternType{PatternLiteral, PatternLiteral, PatternPrefixed, PatternPrefixed})),
		Principal:      pick(r, genPrincipals[:5]),
		Host:           pick(r, genACLHosts),
		Operation:      int8(2 + r.Intn(14)),
		PermissionType: int8(pick(r, []PermissionType{PermissionAllow, PermissionAllow, PermissionAllow, PermissionDeny})),
	}
	if r.Intn(10) == 0 { // what only a hand-written record holds
		switch r.Intn(6) {
		case 0:
			a.ResourceType = pick(r, []int8{0, 1, 9})
		case 1:
			a.PatternType = pick(r, []int8{0, 1, 2, 7})
		case 2:
			a.Principal = pick(r, genPrincipals)
		case 3:
			a.Operation = pick(r, []int8{0, 1, 20})
		case 4:
			a.PermissionType = pick(r, []int8{0, 1, 5})
		case 5:
			a.ResourceName = pick(r, genNames) + pick(r, genNames)
		}
	}
	return a
}

func randomRequest(r *rand.Rand, acls []image.ACL) vectorRow {
	q := vectorRow{ctx: Context{Principal: pick(r, genCtxUsers), Host: pick(r, genCtxHosts)},
		op: Operation(3 + r.Intn(13)), rt: pick(r, []ResourceType{2, 3, 4, 5, 6, 7}), name: pick(r, genNames)}
	if len(acls) > 0 && r.Intn(2) == 0 { // aimed at an ACL
		a := pick(r, acls)
		q.rt = ResourceType(a.ResourceType)
		q.name = a.ResourceName + pick(r, []string{"", "", "-1", "s", "*"})
		if r.Intn(4) == 0 && len(q.name) > 0 {
			q.name = q.name[:r.Intn(len(q.name))]
		}
		if r.Intn(2) == 0 {
			q.ctx.Principal = a.Principal
		}
		if r.Intn(2) == 0 {
			q.op = Operation(a.Operation)
		}
	}
	if r.Intn(8) == 0 {
		q.name = "*" + q.name
	}
	if r.Intn(20) == 0 {
		q.op = pick(r, []Operation{0, 1, 2, 30})
		q.rt = pick(r, []ResourceType{0, 1, 9})
	}
	q.byType = r.Intn(6) == 0
	return q
}

// TestModelRandom: random ACL sets and requests through Standard and the
// model, every configuration and both sides of 4.4-IV1; equal on every
// row. Reproduce one with go test -run 'TestModelRandom/seed=N$'.
func TestModelRandom(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 40
	}
	for seed := 0; seed < seeds; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(seed)))
			list := make([]image.ACL, 1+r.Intn(30))
			for i := range list {
				list[i] = randomACL(r)
			}
			reqs := make([]vectorRow, 300)
			for i := range reqs {
				reqs[i] = randomRequest(r, list)
			}
			bad := 0
			for _, cfg := range modelConfigs {
				s := New(acls(list...), cfg)
				m := &model{acls: list, cfg: cfg}
				for i, q := range reqs {
					if got, want := decide(s, q), m.decide(q); got != want {
						if bad++; bad <= 5 {
							t.Errorf("%+v, request %d %s: Standard %s, model %s; ACLs %+v", cfg, i, q, verdict(got), verdict(want), list)
						}
					}
				}
			}
		})
	}
}

var modelConfigs = []Config{
	{}, {AllowIfNoACLFound: true}, {SuperUsers: []string{"User:admin"}}, {SuperUsers: []string{" User:admin ; User:bob"}, AllowIfNoACLFound: true},
	{MetadataVersion: image.MV4_4_IV1}, {MetadataVersion: image.MV4_4_IV2, AllowIfNoACLFound: true},
	{MetadataVersion: image.MV4_4_IV2, SuperUsers: []string{"admin"}},
}
