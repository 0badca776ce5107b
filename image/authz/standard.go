package authz

import (
	"iter"
	"slices"
	"strings"

	"github.com/kmeta-go/kmeta/image"
)

// Config is the StandardAuthorizer's configuration.
type Config struct {
	// SuperUsers are principals allowed everything (super.users, e.g.
	// "User:admin"). As StandardAuthorizer.getConfiguredSuperUsers reads
	// the config, each entry may hold several separated by ";", and each
	// is trimmed; an entry without a ":" (which Kafka refuses at
	// configure time) makes nobody a super user.
	SuperUsers []string
	// AllowIfNoACLFound is allow.everyone.if.no.acl.found (default false):
	// the result when no ACL at all has a resource pattern that matches the
	// resource (StandardAuthorizerData.MatchingRuleBuilder.build). Any ACL
	// on the resource, whatever its principal, host, operation or
	// permission, makes a request that matches none of them DENIED.
	AllowIfNoACLFound bool
	// MetadataVersion is the image's metadata.version
	// (img.Features().MetadataVersion()). From 4.4-IV1
	// (image.MV4_4_IV1, MetadataVersion.isCidrAclSupported) an ACL host containing "/" is a CIDR range,
	// matched as Kafka 4.4's StandardAuthorizerData.findResult matches it
	// (CidrUtils.isInRange). Below that level, or when zero, no Kafka
	// controller writes such an ACL; a Kafka 4.3 broker compares the host
	// as a string (it matches nothing), a 4.4 broker matches the range, and
	// kmeta takes whichever denies: a CIDR DENY applies to its range, a
	// CIDR ALLOW allows nothing.
	MetadataVersion image.MetadataVersion
}

// Standard is Kafka's StandardAuthorizer over the ACLs of one image: an
// index built once (O(ACLs)), then read by any number of goroutines. Build a
// new one when the image's ACLs change, or keep an Incremental; it holds no
// reference to the image.
type Standard struct {
	superUsers map[string]struct{}
	allowNone  bool
	cidr       bool // CIDR ALLOWs match (metadata.version >= 4.4-IV1)
	byType     map[ResourceType]*typeIndex
	// bindingFails: an ACL that AclCache.acls cannot turn into an
	// AclBinding (StandardAcl.toBinding throws for resource type ANY,
	// pattern ANY or MATCH, operation ANY, permission ANY), so that
	// authorizeByResourceType throws past its first check.
	bindingFails int
}

// entry is one ACL compiled for matching.
type entry struct {
	id           [16]byte // the ACL's id (record.UUID)
	name         string
	literal      bool        // PatternType LITERAL; every other pattern matches as a prefix in authorize
	pattern      PatternType // PatternType.fromCode
	principal    string
	badPrincipal bool // no ":": StandardAcl.kafkaPrincipal and SecurityUtils.parseKafkaPrincipal throw
	host         string
	isCIDR       bool           // the host contains "/"
	cidr         *cidr          // compiled when isCIDR
	op           Operation      // AclOperation.fromCode
	perm         PermissionType // AclPermissionType.fromCode
}

// typeIndex holds the ACLs of one resource type by how their pattern matches.
type typeIndex struct {
	literal    nameIndex   // exact names (LITERAL, not "*")
	wildcard   []entry     // LITERAL "*"
	prefixed   nameIndex   // every other pattern, by name
	prefixLens []int       // distinct prefixed name lengths, ascending
	lens       map[int]int // how many prefixed names have each length
	// prefixedStar: a PREFIXED "*" ACL, which sends the wildcard scan of
	// StandardAuthorizerData.findAclRule to the empty name (see kafkaFails).
	prefixedStar int
	// low holds the distinct non-empty names that sort before "*", by
	// their first byte (see kafkaFails).
	low map[byte][]string
	bad []entry // the ACLs whose principal has no ":"
}

// Codes outside an enum are its UNKNOWN value, as the fromCode methods of
// ResourceType, PatternType, AclOperation and AclPermissionType make them.
func resourceTypeFromCode(c int8) ResourceType {
	if t := ResourceType(c); t >= ResourceUnknown && t <= ResourceUser {
		return t
	}
	return ResourceUnknown
}

func patternTypeFromCode(c int8) PatternType {
	if t := PatternType(c); t >= PatternUnknown && t <= PatternPrefixed {
		return t
	}
	return PatternUnknown
}

func operationFromCode(c int8) Operation {
	if t := Operation(c); t >= OpUnknown && t <= OpTwoPhaseCommit {
		return t
	}
	return OpUnknown
}

func permissionFromCode(c int8) PermissionType {
	if t := PermissionType(c); t >= PermissionUnknown && t <= PermissionAllow {
		return t
	}
	return PermissionUnknown
}

// New builds a StandardAuthorizer from the image's ACLs, as
// StandardAuthorizer.loadSnapshot does (StandardAcl.fromRecord: no
// validation, unknown codes become UNKNOWN). Strings that are not valid
// UTF-8, in the ACLs and in requests, are compared as the Java strings
// Kafka decodes them to (see javaString).
func New(acls *image.ACLs, cfg Config) *Standard {
	s := &Standard{superUsers: superUserSet(cfg.SuperUsers), allowNone: cfg.AllowIfNoACLFound,
		cidr: cfg.MetadataVersion.CidrACLSupported(), byType: map[ResourceType]*typeIndex{}}
	if acls == nil {
		return s
	}
	for a := range acls.All() {
		s.add(a)
	}
	return s
}

// compile turns an ACL into its resource type and index entry
// (StandardAcl.fromRecord), and says whether AclCache could not turn it into
// an AclBinding.
func compile(a image.ACL) (ResourceType, entry, bool) {
	rt := resourceTypeFromCode(a.ResourceType)
	e := entry{id: a.ID, name: javaString(a.ResourceName), pattern: patternTypeFromCode(a.PatternType),
		principal: javaString(a.Principal), host: javaString(a.Host),
		op: operationFromCode(a.Operation), perm: permissionFromCode(a.PermissionType)}
	e.literal = e.pattern == PatternLiteral
	e.badPrincipal = !strings.Contains(e.principal, ":")
	if strings.Contains(e.host, "/") {
		c := compileCIDR(e.host)
		e.isCIDR, e.cidr = true, &c
	}
	fails := ResourceType(a.ResourceType) == ResourceAny || e.pattern == PatternAny || e.pattern == PatternMatch ||
		e.op == OpAny || e.perm == PermissionAny
	return rt, e, fails
}

// add indexes one ACL (StandardAuthorizerData.addAcl).
func (s *Standard) add(a image.ACL) {
	rt, e, fails := compile(a)
	if fails {
		s.bindingFails++
	}
	ti := s.byType[rt]
	if ti == nil {
		ti = &typeIndex{lens: map[int]int{}}
		s.byType[rt] = ti
	}
	if e.badPrincipal {
		ti.bad = append(ti.bad, e)
	}
	switch {
	case e.literal && e.name == WildcardResource:
		ti.wildcard = append(ti.wildcard, e)
	case e.literal:
		ti.literal.set(e.name, append(ti.literal.get(e.name), e))
	default:
		if !ti.prefixed.has(e.name) {
			if ti.lens[len(e.name)] == 0 {
				ti.prefixLens = insertSorted(ti.prefixLens, len(e.name))
			}
			ti.lens[len(e.name)]++
		}
		ti.prefixed.set(e.name, append(ti.prefixed.get(e.name), e))
		if e.pattern == PatternPrefixed && e.name == WildcardResource {
			ti.prefixedStar++
		}
	}
	if e.name != "" && e.name[0] < '*' {
		if ti.low == nil {
			ti.low = map[byte][]string{}
		}
		if !containsString(ti.low[e.name[0]], e.name) {
			ti.low[e.name[0]] = append(ti.low[e.name[0]], e.name)
		}
	}
}

// dropID removes the entry with id from list, keeping the others' order.
func dropID(list []entry, id [16]byte) ([]entry, bool) {
	for i := range list {
		if list[i].id == id {
			return append(list[:i:i], list[i+1:]...), true
		}
	}
	return list, false
}

// remove unindexes the ACL a (StandardAuthorizerData.removeAcl); a must be
// the ACL that was added under its id.
func (s *Standard) remove(a image.ACL) {
	rt, e, fails := compile(a)
	ti := s.byType[rt]
	if ti == nil {
		return
	}
	var ok bool
	switch {
	case e.literal && e.name == WildcardResource:
		ti.wildcard, ok = dropID(ti.wildcard, a.ID)
	case e.literal:
		var l []entry
		l, ok = dropID(ti.literal.get(e.name), a.ID)
		ti.literal.set(e.name, l)
	default:
		var l []entry
		l, ok = dropID(ti.prefixed.get(e.name), a.ID)
		ti.prefixed.set(e.name, l)
		if ok && len(l) == 0 {
			if ti.lens[len(e.name)]--; ti.lens[len(e.name)] == 0 {
				delete(ti.lens, len(e.name))
				ti.prefixLens = slices.DeleteFunc(ti.prefixLens, func(n int) bool { return n == len(e.name) })
			}
		}
		if ok && e.pattern == PatternPrefixed && e.name == WildcardResource {
			ti.prefixedStar--
		}
	}
	if !ok {
		return
	}
	if fails {
		s.bindingFails--
	}
	if e.badPrincipal {
		ti.bad, _ = dropID(ti.bad, a.ID)
	}
	if e.name != "" && e.name[0] < '*' && !ti.literal.has(e.name) && !ti.prefixed.has(e.name) {
		ti.low[e.name[0]] = slices.DeleteFunc(ti.low[e.name[0]], func(n string) bool { return n == e.name })
		if len(ti.low[e.name[0]]) == 0 {
			delete(ti.low, e.name[0])
		}
	}
}

// superUserSet is StandardAuthorizer.getConfiguredSuperUsers: entries split
// at ";" and trimmed, empty ones dropped. An entry without ":" makes Kafka
// refuse the whole configuration (SecurityUtils.parseKafkaPrincipal), and
// kmeta then has no super user.
func superUserSet(list []string) map[string]struct{} {
	set := map[string]struct{}{}
	for _, l := range list {
		for _, u := range strings.Split(l, ";") {
			if u = javaTrim(u); u == "" {
				continue
			}
			if !strings.Contains(u, ":") {
				return map[string]struct{}{}
			}
			set[u] = struct{}{}
		}
	}
	return set
}

// javaTrim is String.trim: it removes every leading and trailing character
// at or below U+0020.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func insertSorted(s []int, v int) []int {
	for i, x := range s {
		if x == v {
			return s
		}
		if x > v {
			s = append(s, 0)
			copy(s[i+1:], s[i:])
			s[i] = v
			return s
		}
	}
	return append(s, v)
}

// outcome of one ACL for one request (StandardAuthorizerData.findResult):
// no match (null), ALLOWED or DENIED.
type outcome uint8

const (
	noMatch outcome = iota
	allowed
	denied
)

// request is one authorize call's inputs, parsed once.
type request struct {
	ctx    Context
	op     Operation
	host   hostAddr
	parsed bool
	// failed: Kafka throws or loops on this request (kmeta denies it).
	failed bool
}

func (r *request) hostAddr() *hostAddr {
	if !r.parsed {
		r.host, r.parsed = parseHost(r.ctx.Host), true
	}
	return &r.host
}

// rule folds the ACLs whose resource pattern matches the resource
// (StandardAuthorizerData.MatchingRuleBuilder): whether any matched the
// resource at all (hasResourceAcls), and whether one allowed or denied.
type rule struct {
	has, allow, deny bool
}

// scan is the loop of StandardAuthorizerData.checkSection over ACLs whose
// resource pattern matches: it stops at the first DENY.
func (s *Standard) scan(ru *rule, req *request, list []entry) {
	for i := range list {
		ru.has = true
		switch s.findResult(req, &list[i]) {
		case allowed:
			ru.allow = true
		case denied:
			ru.deny = true
			return
		}
	}
}

// Authorize is StandardAuthorizerData.authorize for one LITERAL resource:
// super users are allowed everything (SuperUserRule); otherwise the ACLs of
// the resource type whose pattern matches the name (LITERAL with the exact
// name, PREFIXED with a prefix of it, LITERAL "*") are checked by
// findResult, any matching DENY wins over any matching ALLOW, and when none
// matches the result is allow.everyone.if.no.acl.found only if no ACL at all
// has a pattern matching the resource (MatchingRuleBuilder.build: else
// DENIED). Matching prefixed ACLs are all considered, as after KAFKA-14265
// (a prefix ACL no longer shadows a shorter one); an ACL whose pattern type
// is neither LITERAL nor PREFIXED matches as a prefix, as checkSection
// treats it.
//
// Two deliberate differences make kmeta stricter than Kafka where Kafka's
// code and its documentation disagree or Kafka's code fails:
//
//   - A name that starts with "*" (other than "*" itself) is not matched by
//     the LITERAL "*" ACLs in Kafka (checkSection skips "*" there as a
//     literal name that is a proper prefix of the resource name), while the
//     documentation says "*" matches every name. kmeta answers both ways and
//     allows only if both allow.
//   - For a name that starts with a character below "*" (space, !"#$%&'()),
//     Kafka's wildcard scan (findAclRule's second checkSection) can jump
//     back to "*" and loop forever or throw StringIndexOutOfBoundsException
//     (see kafkaFails); such a request is never allowed by Kafka, and kmeta
//     denies it.
//
// An ACL whose principal has no ":" makes Kafka throw when it is reached
// (StandardAcl.kafkaPrincipal), and so does a session principal User:*
// that is not a super user (matchingPrincipals builds Set.of(principal,
// User:*), which refuses the duplicate); kmeta denies such requests.
func (s *Standard) Authorize(ctx Context, op Operation, rt ResourceType, name string) bool {
	req := newRequest(ctx, op)
	return s.authorize(&req, rt, javaString(name))
}

// newRequest holds the request's strings as Java decodes them.
func newRequest(ctx Context, op Operation) request {
	ctx.Principal, ctx.Host = javaString(ctx.Principal), javaString(ctx.Host)
	return request{ctx: ctx, op: operationFromCode(int8(op))}
}

// authorize is Authorize; req.failed tells when Kafka would have thrown or
// looped instead of answering.
func (s *Standard) authorize(req *request, rt ResourceType, name string) bool {
	if _, ok := s.superUsers[req.ctx.Principal]; ok {
		return true
	}
	if req.ctx.Principal == WildcardPrincipal {
		// StandardAuthorizerData.matchingPrincipals: Set.of(principal,
		// User:*) throws IllegalArgumentException (duplicate element).
		req.failed = true
		return false
	}
	ti := s.byType[resourceTypeFromCode(int8(rt))]
	if ti == nil {
		return s.allowNone
	}
	var k rule
	s.scan(&k, req, ti.literal.get(name))
	if k.deny {
		return false
	}
	for _, l := range ti.prefixLens {
		if l > len(name) {
			break
		}
		if s.scan(&k, req, ti.prefixed.get(name[:l])); k.deny {
			return false
		}
	}
	if name == WildcardResource || !strings.HasPrefix(name, WildcardResource) {
		if s.scan(&k, req, ti.wildcard); k.deny {
			return false
		}
		ok := k.allow || !k.has && s.allowNone
		if ok && ti.kafkaFails(name) {
			req.failed = true
			return false
		}
		return ok
	}
	// A name starting with "*": Kafka's answer (the LITERAL "*" ACLs
	// skipped) and the documented one (they match), whichever denies.
	var w rule
	if s.scan(&w, req, ti.wildcard); w.deny {
		return false
	}
	kafka := k.allow || !k.has && s.allowNone
	documented := k.allow || w.allow || !k.has && !w.has && s.allowNone
	return kafka && documented
}

// kafkaFails says whether StandardAuthorizerData.findAclRule fails for name
// in its second checkSection (the one started at the LITERAL "*" wildcard).
// That scan walks the ACLs of the type downwards from "*" in StandardAcl
// order (reverse name order); at an ACL whose name is not a prefix of the
// resource name it restarts from the first matchesUpTo characters of the
// exemplar's name, which is "*" there, not the resource name. When the
// resource name starts with a character below "*" and the first such ACL
// shares that first character, the restart point is "*" again (an endless
// loop) or past its end (StringIndexOutOfBoundsException). A PREFIXED "*"
// ACL, met first, restarts the scan at "" instead, and an ACL whose name
// starts with a character between the resource name's first and "*" does
// the same.
func (ti *typeIndex) kafkaFails(name string) bool {
	if ti.low == nil || name == "" || name[0] >= '*' || ti.prefixedStar > 0 {
		return false
	}
	for c := name[0] + 1; c < '*'; c++ {
		if len(ti.low[c]) > 0 {
			return false
		}
	}
	for _, n := range ti.low[name[0]] {
		if !strings.HasPrefix(name, n) {
			return true
		}
	}
	return false
}

// each yields every ACL of the type.
func (ti *typeIndex) each() iter.Seq[*entry] {
	return func(yield func(*entry) bool) {
		for i := range ti.wildcard {
			if !yield(&ti.wildcard[i]) {
				return
			}
		}
		for _, ni := range []*nameIndex{&ti.literal, &ti.prefixed} {
			for list := range ni.lists {
				for i := range list {
					if !yield(&list[i]) {
						return
					}
				}
			}
		}
	}
}

// badMatches says whether an ACL whose principal has no ":" has a resource
// pattern matching name, so that StandardAuthorizerData.findResult throws
// if checkSection reaches it before a DENY.
func (ti *typeIndex) badMatches(name string) bool {
	for _, e := range ti.bad {
		switch {
		case !e.literal && strings.HasPrefix(name, e.name), e.literal && e.name == name,
			e.literal && e.name == WildcardResource && (name == WildcardResource || !strings.HasPrefix(name, WildcardResource)):
			return true
		}
	}
	return false
}

// findResult is StandardAuthorizerData.findResult for an ACL whose resource
// pattern matches: the principal must be the session's or "User:*", the
// host "*", the client's address or (Kafka 4.4, KIP-1276) a CIDR range
// holding it; an ALLOW ACL for READ, WRITE, DELETE or ALTER also allows
// DESCRIBE and one for ALTER_CONFIGS also allows DESCRIBE_CONFIGS
// (IMPLIES_DESCRIBE, IMPLIES_DESCRIBE_CONFIGS); any other ACL (DENY, and
// the UNKNOWN permission) matches only its own operation and denies; ALL
// matches every operation.
func (s *Standard) findResult(req *request, a *entry) outcome {
	if a.badPrincipal {
		req.failed = true
		return denied // Kafka throws IllegalStateException here
	}
	if a.principal != req.ctx.Principal && a.principal != WildcardPrincipal {
		return noMatch
	}
	if !s.hostMatches(req, a) {
		return noMatch
	}
	op := req.op
	isAllow := a.perm == PermissionAllow
	if a.op != OpAll {
		if isAllow {
			switch op {
			case OpDescribe:
				switch a.op {
				case OpDescribe, OpRead, OpWrite, OpDelete, OpAlter:
				default:
					return noMatch
				}
			case OpDescribeConfigs:
				switch a.op {
				case OpDescribeConfigs, OpAlterConfigs:
				default:
					return noMatch
				}
			default:
				if op != a.op {
					return noMatch
				}
			}
		} else if op != a.op {
			return noMatch
		}
	}
	if isAllow {
		return allowed
	}
	return denied
}

// hostMatches is the host test of findResult and of
// Authorizer.authorizeByResourceType: "*", the client's address as a
// string, or a CIDR range (see Config.MetadataVersion).
func (s *Standard) hostMatches(req *request, a *entry) bool {
	if a.host == WildcardHost || a.host == req.ctx.Host {
		return true
	}
	if !a.isCIDR {
		return false
	}
	isDeny := a.perm != PermissionAllow
	if !s.cidr && !isDeny {
		return false
	}
	return a.cidr.inRange(req.hostAddr(), isDeny)
}

// AuthorizeByResourceType is Kafka's Authorizer.authorizeByResourceType
// (the interface's default method, which StandardAuthorizer does not
// override): whether ctx may perform op on at least one resource of type
// rt. Resource types ANY and UNKNOWN and operations ANY and UNKNOWN are
// refused (SecurityUtils.authorizeByResourceTypeCheckArgs throws: false).
// It is allowed when authorize allows the LITERAL name "hardcode" (super
// users, the default result, wildcards); otherwise, over the ACLs of the
// type whose host, principal and operation (op or ALL, no implied
// operations) match: a LITERAL "*" DENY denies, a LITERAL "*" ALLOW
// allows, and else it is allowed when some LITERAL or PREFIXED ALLOW is
// not dominated by a DENY: a LITERAL DENY of the same name, or a PREFIXED
// DENY on a non-empty prefix of its name.
func (s *Standard) AuthorizeByResourceType(ctx Context, op Operation, rt ResourceType) bool {
	req := newRequest(ctx, op)
	return s.authorizeByResourceType(&req, rt)
}

func (s *Standard) authorizeByResourceType(req *request, rt ResourceType) bool {
	ctx, op := req.ctx, req.op
	rt = resourceTypeFromCode(int8(rt))
	if rt == ResourceAny || rt == ResourceUnknown || op == OpAny || op == OpUnknown {
		req.failed = true
		return false
	}
	if s.authorize(req, rt, "hardcode") {
		return true
	}
	if req.failed || s.byType[rt] != nil && s.byType[rt].badMatches("hardcode") {
		req.failed = true
		return false // authorize threw, or may have (a DENY met first answers DENIED instead)
	}
	if s.bindingFails > 0 {
		req.failed = true
		return false // AclCache.acls throws building the bindings
	}
	ti := s.byType[rt]
	if ti == nil {
		return false
	}
	denyLiteral := map[string]bool{}
	denyPrefixed := map[string]bool{}
	var allowLiteral, allowPrefixed []string
	wildcardAllow := false
	// Every ACL of the type (AclCache.acls with the type's filter); the
	// order does not change the answer.
	for a := range ti.each() {
		if !s.hostMatches(req, a) {
			continue
		}
		if a.badPrincipal {
			req.failed = true
			return false // SecurityUtils.parseKafkaPrincipal throws
		}
		if a.principal != ctx.Principal && a.principal != WildcardPrincipal {
			continue
		}
		if a.op != op && a.op != OpAll {
			continue
		}
		switch a.perm {
		case PermissionDeny:
			switch a.pattern {
			case PatternLiteral:
				if a.name == WildcardResource {
					return false
				}
				denyLiteral[a.name] = true
			case PatternPrefixed:
				denyPrefixed[a.name] = true
			}
		case PermissionAllow:
			switch a.pattern {
			case PatternLiteral:
				if a.name == WildcardResource {
					wildcardAllow = true
				} else {
					allowLiteral = append(allowLiteral, a.name)
				}
			case PatternPrefixed:
				allowPrefixed = append(allowPrefixed, a.name)
			}
		}
	}
	return wildcardAllow || allowSurvives(allowLiteral, allowPrefixed, denyLiteral, denyPrefixed)
}

// allowSurvives is the end of Authorizer.authorizeByResourceType: some
// ALLOW, literal or prefixed, is neither denied by a literal DENY of its
// name nor dominated by a prefixed DENY of one of its prefixes.
func allowSurvives(allowLiteral, allowPrefixed []string, denyLiteral, denyPrefixed map[string]bool) bool {
	dominated := func(name string) bool {
		for i := 1; i <= len(name); i++ {
			if denyPrefixed[name[:i]] {
				return true
			}
		}
		return false
	}
	for _, n := range allowLiteral {
		if !denyLiteral[n] && !dominated(n) {
			return true
		}
	}
	for _, n := range allowPrefixed {
		if !dominated(n) {
			return true
		}
	}
	return false
}
