package authz

import (
	"testing"

	"github.com/kmeta-go/kmeta/image"
)

// TestDeliberateDifferences: where Kafka's StandardAuthorizer code and its
// documentation disagree, or where its code fails, kmeta denies. Each row
// says what Kafka 4.3/4.4 does and what kmeta does.
func TestDeliberateDifferences(t *testing.T) {
	alice := Context{Principal: "User:alice", Host: "10.0.0.1"}
	type row struct {
		rule string
		acls []image.ACL
		cfg  Config
		name string
		want bool
	}
	wildAllow := acl(ResourceTopic, "*", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow)
	wildDeny := acl(ResourceTopic, "*", PatternLiteral, "User:alice", "*", OpRead, PermissionDeny)
	wildBob := acl(ResourceTopic, "*", PatternLiteral, "User:bob", "*", OpRead, PermissionAllow)
	prefAllow := acl(ResourceTopic, "*s", PatternPrefixed, "User:alice", "*", OpRead, PermissionAllow)
	rows := []row{
		// checkSection skips LITERAL "*" for names starting with "*";
		// the documentation says it matches every name.
		{"Kafka ALLOWS nothing through LITERAL \"*\" for \"*star\" (checkSection skips it): kmeta agrees", []image.ACL{wildAllow}, Config{}, "*star", false},
		{"Kafka ALLOWS \"*star\" past a LITERAL \"*\" DENY (skipped); the documentation denies: kmeta DENIES", []image.ACL{prefAllow, wildDeny}, Config{}, "*star", false},
		{"Kafka ALLOWS \"*star\" by allow.everyone (the \"*\" ACL does not count); the documentation finds an ACL on it: kmeta DENIES", []image.ACL{wildBob}, Config{AllowIfNoACLFound: true}, "*star", false},
		{"Kafka and the documentation ALLOW \"*star\" through a PREFIXED \"*s\" ACL: kmeta ALLOWS", []image.ACL{prefAllow}, Config{}, "*star", true},
		{"\"*\" itself is matched by LITERAL \"*\" in Kafka: kmeta ALLOWS", []image.ACL{wildAllow}, Config{}, "*", true},
		// findAclRule's second checkSection restarts at "*".substring(0, n).
		{"Kafka loops forever for \"!x\" past an ACL named \"!a\" (restart at \"*\" again): kmeta DENIES", []image.ACL{
			acl(ResourceTopic, "!x", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "!a", PatternLiteral, "User:bob", "*", OpRead, PermissionAllow)}, Config{}, "!x", false},
		{"Kafka throws StringIndexOutOfBoundsException for \"!xy\" past an ACL named \"!xz\": kmeta DENIES", []image.ACL{
			acl(ResourceTopic, "!xy", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "!xz", PatternLiteral, "User:bob", "*", OpRead, PermissionAllow)}, Config{}, "!xy", false},
		{"a PREFIXED \"*\" ACL restarts Kafka's scan at \"\" instead: Kafka and kmeta ALLOW \"!x\"", []image.ACL{
			acl(ResourceTopic, "!x", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "!a", PatternLiteral, "User:bob", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "*", PatternPrefixed, "User:bob", "*", OpRead, PermissionAllow)}, Config{}, "!x", true},
		{"an ACL named \"#a\" (between \"!\" and \"*\") restarts Kafka's scan at \"\": Kafka and kmeta ALLOW \"!x\"", []image.ACL{
			acl(ResourceTopic, "!x", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "!a", PatternLiteral, "User:bob", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "#a", PatternLiteral, "User:bob", "*", OpRead, PermissionAllow)}, Config{}, "!x", true},
		{"a prefix of the name below \"*\" is matched, not a restart: Kafka and kmeta ALLOW \"!x\"", []image.ACL{
			acl(ResourceTopic, "!", PatternPrefixed, "User:alice", "*", OpRead, PermissionAllow)}, Config{}, "!x", true},
		// StandardAcl.kafkaPrincipal throws for a principal without ":".
		{"Kafka throws on an ACL principal without \":\" on the resource: kmeta DENIES", []image.ACL{wildAllow,
			acl(ResourceTopic, "orders", PatternLiteral, "alice", "*", OpRead, PermissionAllow)}, Config{}, "orders", false},
		// StandardAcl.fromRecord keeps pattern codes other than LITERAL;
		// checkSection matches them as prefixes.
		{"an ACL with pattern MATCH matches as a prefix in Kafka's checkSection: a DENY of it DENIES", []image.ACL{wildAllow,
			acl(ResourceTopic, "ord", PatternMatch, "User:alice", "*", OpRead, PermissionDeny)}, Config{}, "orders", false},
		// findResult: any permission but ALLOW denies.
		{"an ACL with permission UNKNOWN that matches DENIES (findResult: not ALLOW is DENIED)", []image.ACL{wildAllow,
			acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpRead, PermissionUnknown)}, Config{}, "orders", false},
	}
	for _, r := range rows {
		t.Run(r.rule, func(t *testing.T) {
			s := New(acls(r.acls...), r.cfg)
			if got := s.Authorize(alice, OpRead, ResourceTopic, r.name); got != r.want {
				t.Errorf("Authorize(%q) = %t, want %t", r.name, got, r.want)
			}
			m := &model{acls: r.acls, cfg: r.cfg}
			if got := m.authorize(alice, OpRead, ResourceTopic, r.name); got != r.want {
				t.Errorf("model: authorize(%q) = %t, want %t", r.name, got, r.want)
			}
		})
	}
}

// TestWildcardSessionPrincipal: a session principal User:* that is not a
// super user makes StandardAuthorizerData.matchingPrincipals throw
// (Set.of refuses the duplicate User:*): Kafka never allows it anything,
// even with allow.everyone.if.no.acl.found; a super user User:* is allowed.
func TestWildcardSessionPrincipal(t *testing.T) {
	star := Context{Principal: "User:*", Host: "10.0.0.1"}
	list := acls(acl(ResourceTopic, "orders", PatternLiteral, "User:*", "*", OpRead, PermissionAllow))
	for _, cfg := range []Config{{}, {AllowIfNoACLFound: true}} {
		s := New(list, cfg)
		if s.Authorize(star, OpRead, ResourceTopic, "orders") || s.Authorize(star, OpRead, ResourceGroup, "g") ||
			s.AuthorizeByResourceType(star, OpRead, ResourceTopic) {
			t.Errorf("%+v: User:* allowed", cfg)
		}
	}
	if !New(list, Config{SuperUsers: []string{"User:*"}}).Authorize(star, OpWrite, ResourceTopic, "x") {
		t.Errorf("super user User:* denied")
	}
}

// TestCIDRHosts: Kafka 4.4's findResult with CidrUtils.isInRange, and what
// kmeta does below 4.4-IV1 (see Config.MetadataVersion).
func TestCIDRHosts(t *testing.T) {
	at44 := Config{MetadataVersion: image.MV4_4_IV1}
	type row struct {
		pattern, host string
		perm          PermissionType
		cfg           Config
		want          bool // Authorize READ on the topic
	}
	allow, deny := PermissionAllow, PermissionDeny
	rows := []row{
		{"10.0.0.0/24", "10.0.0.7", allow, at44, true},
		{"10.0.0.7/24", "10.0.0.255", allow, at44, true}, // host bits ignored, broadcast included
		{"10.0.0.0/24", "10.0.1.0", allow, at44, false},
		{"0.0.0.0/0", "0.0.0.0", allow, at44, false}, // SubnetInfo.isInRange: 0.0.0.0 never
		{"0.0.0.0/0", "255.255.255.255", allow, at44, true},
		{"010.000.000.000/8", "10.9.9.9", allow, at44, true},
		{"10.0.0.1/032", "10.0.0.1", allow, at44, false}, // \d{1,2}
		{"10.0.0.0/8", "0:0:0:0:0:0:a00:1", allow, at44, false},
		{"::/96", "0:0:0:0:0:0:a00:1", allow, at44, true},
		{"::/0", "10.0.0.1", allow, at44, false},
		{"2001:db8::/+64", "2001:db8:0:0:ffff:0:0:1", allow, at44, true},
		{"2001:db8::/६४", "2001:db8:0:0:ffff:0:0:1", allow, at44, true}, // Integer.parseInt reads Unicode digits
		{"2001:db8::/64 ", "2001:db8:0:0:0:0:0:1", allow, at44, false},
		{"[2001:db8::]/32", "2001:db8:ffff:0:0:0:0:1", allow, at44, true},
		{"fe80::1%1/128", "fe80:0:0:0:0:0:0:1", allow, at44, true},
		{"fe80::1%1/128", "fe80:0:0:0:0:0:0:1%1", allow, at44, true},
		{"::ffff:10.0.0.0/104", "10.0.0.1", allow, at44, false}, // an Inet4Address
		{"1::2:3:4:5:6:7:8/128", "1:2:3:4:5:6:7:8", allow, at44, false},
		{"0001:0db8::/32", "2001:db8:0:0:0:0:0:1", allow, at44, false},
		{"00001:db8::/32", "1:db8:0:0:0:0:0:1", allow, at44, true}, // any number of leading zeros
		// Machine-dependent answers: an interface-named zone, a host name.
		{"fe80::1%eth9/128", "fe80:0:0:0:0:0:0:1", allow, at44, false},
		{"fe80::1%eth9/128", "fe80:0:0:0:0:0:0:1", deny, at44, false},
		{"::/0", "localhost", allow, at44, false},
		{"::/0", "localhost", deny, at44, false},
		// Below 4.4-IV1: a CIDR ALLOW allows nothing, a CIDR DENY denies its range.
		{"10.0.0.0/24", "10.0.0.7", allow, Config{}, false},
		{"10.0.0.0/24", "10.0.0.7", deny, Config{}, false},
		{"10.0.0.0/24", "10.0.1.7", deny, Config{}, true},
	}
	for _, r := range rows {
		list := []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", r.pattern, OpRead, r.perm)}
		if r.perm == deny {
			list = append(list, acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpRead, allow))
		}
		ctx := Context{Principal: "User:alice", Host: r.host}
		s := New(acls(list...), r.cfg)
		if got := s.Authorize(ctx, OpRead, ResourceTopic, "orders"); got != r.want {
			t.Errorf("%s ACL %q, host %q, level %d: Authorize = %t, want %t", verdictPerm(r.perm), r.pattern, r.host, r.cfg.MetadataVersion, got, r.want)
		}
		m := &model{acls: list, cfg: r.cfg}
		if got := m.authorize(ctx, OpRead, ResourceTopic, "orders"); got != r.want {
			t.Errorf("model: %s ACL %q, host %q, level %d: authorize = %t, want %t", verdictPerm(r.perm), r.pattern, r.host, r.cfg.MetadataVersion, got, r.want)
		}
	}
}

func verdictPerm(p PermissionType) string {
	if p == PermissionAllow {
		return "ALLOW"
	}
	return "DENY"
}

// TestAuthorizeByResourceType: Authorizer.authorizeByResourceType's rules.
func TestAuthorizeByResourceType(t *testing.T) {
	alice := Context{Principal: "User:alice", Host: "10.0.0.1"}
	type row struct {
		rule string
		acls []image.ACL
		cfg  Config
		op   Operation
		want bool
	}
	rows := []row{
		{"no ACL: the \"hardcode\" check gives the default DENIED", nil, Config{}, OpRead, false},
		{"no ACL: allow.everyone.if.no.acl.found", nil, Config{AllowIfNoACLFound: true}, OpRead, true},
		{"super user", nil, Config{SuperUsers: []string{"User:alice"}}, OpRead, true},
		{"a LITERAL ALLOW on some topic", []image.ACL{acl(ResourceTopic, "t", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow)}, Config{}, OpRead, true},
		{"no implied operation: ALLOW READ does not give DESCRIBE", []image.ACL{acl(ResourceTopic, "t", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow)}, Config{}, OpDescribe, false},
		{"a LITERAL DENY of the same name dominates", []image.ACL{
			acl(ResourceTopic, "t", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "t", PatternLiteral, "User:alice", "*", OpRead, PermissionDeny)}, Config{}, OpRead, false},
		{"a PREFIXED DENY on a prefix dominates", []image.ACL{
			acl(ResourceTopic, "team-a", PatternPrefixed, "User:alice", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "team", PatternPrefixed, "User:alice", "*", OpRead, PermissionDeny)}, Config{}, OpRead, false},
		{"a PREFIXED DENY on \"\" dominates nothing", []image.ACL{
			acl(ResourceTopic, "team-a", PatternPrefixed, "User:alice", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "", PatternPrefixed, "User:alice", "*", OpRead, PermissionDeny)}, Config{}, OpRead, true},
		{"a LITERAL \"*\" DENY denies", []image.ACL{
			acl(ResourceTopic, "t", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "*", PatternLiteral, "User:alice", "*", OpRead, PermissionDeny)}, Config{}, OpRead, false},
		{"operation ANY is refused", nil, Config{AllowIfNoACLFound: true}, OpAny, false},
		{"an ACL with operation ANY anywhere makes AclCache.acls throw", []image.ACL{
			acl(ResourceTopic, "t", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
			acl(ResourceGroup, "g", PatternLiteral, "User:bob", "*", OpAny, PermissionAllow)}, Config{}, OpRead, false},
	}
	for _, r := range rows {
		t.Run(r.rule, func(t *testing.T) {
			s := New(acls(r.acls...), r.cfg)
			if got := s.AuthorizeByResourceType(alice, r.op, ResourceTopic); got != r.want {
				t.Errorf("AuthorizeByResourceType = %t, want %t", got, r.want)
			}
			m := &model{acls: r.acls, cfg: r.cfg}
			if got := m.authorizeByResourceType(alice, r.op, ResourceTopic); got != r.want {
				t.Errorf("model = %t, want %t", got, r.want)
			}
		})
	}
}

// TestTwoPhaseCommit: TRANSACTIONAL_ID supports TWO_PHASE_COMMIT
// (AclEntry.supportedOperations, KIP-939).
func TestTwoPhaseCommit(t *testing.T) {
	ops := SupportedOperations(ResourceTransactionalID)
	found := false
	for _, op := range ops {
		found = found || op == OpTwoPhaseCommit
	}
	if !found || len(ops) != 3 {
		t.Errorf("SupportedOperations(TRANSACTIONAL_ID) = %v, want DESCRIBE, WRITE, TWO_PHASE_COMMIT", ops)
	}
	a := New(acls(acl(ResourceTransactionalID, "tx", PatternLiteral, "User:alice", "*", OpTwoPhaseCommit, PermissionAllow)), Config{})
	if got, want := AuthorizedOperations(a, Context{Principal: "User:alice"}, ResourceTransactionalID, "tx"), int32(1<<OpTwoPhaseCommit); got != want {
		t.Errorf("AuthorizedOperations = %b, want %b", got, want)
	}
}

// TestJavaStrings: Kafka compares the strings Java decodes from UTF-8, so
// a request name with an invalid byte is the name with U+FFFD, and a DENY
// on that name denies it (new String(bytes, UTF_8)).
func TestJavaStrings(t *testing.T) {
	alice := Context{Principal: "User:alice", Host: "10.0.0.1"}
	s := New(acls(
		acl(ResourceGroup, "app", PatternPrefixed, "User:alice", "*", OpRead, PermissionAllow),
		acl(ResourceGroup, "app-\uFFFD", PatternLiteral, "User:alice", "*", OpRead, PermissionDeny),
		acl(ResourceGroup, "\xffx", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
	), Config{})
	for _, r := range []struct {
		name string
		want bool
	}{
		{"app-1", true},
		{"app-\xff", false},         // Java: "app-\uFFFD", the DENY
		{"app-\xed\xa0\x80", false}, // an encoded surrogate: one U+FFFD
		{"app-\xff\xff", true},      // two U+FFFD: another name
		{"\uFFFDx", true},           // the ALLOW's name as Java holds it
	} {
		if got := s.Authorize(alice, OpRead, ResourceGroup, r.name); got != r.want {
			t.Errorf("Authorize(%q) = %t, want %t", r.name, got, r.want)
		}
	}
}

// TestConcurrentReaders: one Standard is read by many goroutines at once
// (run under -race), CIDR hosts included, with the same answers.
func TestConcurrentReaders(t *testing.T) {
	list := []image.ACL{
		acl(ResourceTopic, "ord", PatternPrefixed, "User:alice", "10.0.0.0/24", OpRead, PermissionAllow),
		acl(ResourceTopic, "orders-x", PatternLiteral, "User:alice", "2001:db8::/32", OpRead, PermissionDeny),
	}
	s := New(acls(list...), Config{MetadataVersion: image.MV4_4_IV2})
	hosts := []string{"10.0.0.7", "10.0.1.7", "2001:db8:0:0:0:0:0:1"}
	want := make([]bool, len(hosts))
	for i, h := range hosts {
		want[i] = s.Authorize(Context{Principal: "User:alice", Host: h}, OpRead, ResourceTopic, "orders-x")
	}
	if !want[0] || want[1] || want[2] {
		t.Fatalf("answers %v", want)
	}
	done := make(chan bool)
	for g := 0; g < 8; g++ {
		go func() {
			ok := true
			for k := 0; k < 500; k++ {
				i := k % len(hosts)
				ok = ok && s.Authorize(Context{Principal: "User:alice", Host: hosts[i]}, OpRead, ResourceTopic, "orders-x") == want[i]
				s.AuthorizeByResourceType(Context{Principal: "User:alice", Host: hosts[i]}, OpRead, ResourceTopic)
			}
			done <- ok
		}()
	}
	for g := 0; g < 8; g++ {
		if !<-done {
			t.Errorf("a concurrent reader got another answer")
		}
	}
}
