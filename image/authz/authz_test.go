package authz

import (
	"testing"

	"github.com/kmeta-go/kmeta/image"
)

func acl(rt ResourceType, name string, pt PatternType, principal, host string, op Operation, perm PermissionType) image.ACL {
	return image.ACL{ResourceType: int8(rt), ResourceName: name, PatternType: int8(pt), Principal: principal, Host: host, Operation: int8(op), PermissionType: int8(perm)}
}

// TestStandardAuthorizer: each row names the StandardAuthorizerData rule it
// checks.
func TestStandardAuthorizer(t *testing.T) {
	alice := Context{Principal: "User:alice", Host: "10.0.0.1"}
	bob := Context{Principal: "User:bob", Host: "10.0.0.2"}
	type row struct {
		rule string
		acls []image.ACL
		cfg  Config
		ctx  Context
		op   Operation
		rt   ResourceType
		name string
		want bool
	}
	allowRead := acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow)
	rows := []row{
		{"authorize: no ACL matches -> default DENY (allow.everyone.if.no.acl.found=false)", nil, Config{}, alice, OpRead, ResourceTopic, "orders", false},
		{"authorize: no ACL matches -> default ALLOW (allow.everyone.if.no.acl.found=true)", nil, Config{AllowIfNoACLFound: true}, alice, OpRead, ResourceTopic, "orders", true},
		{"MatchingRuleBuilder.build: an ACL on the resource for another principal -> DENIED, not the default", []image.ACL{allowRead}, Config{AllowIfNoACLFound: true}, bob, OpRead, ResourceTopic, "orders", false},
		{"MatchingRuleBuilder.build: an ACL on another resource -> the default (allow.everyone.if.no.acl.found=true)", []image.ACL{allowRead}, Config{AllowIfNoACLFound: true}, bob, OpRead, ResourceTopic, "payments", true},
		{"MatchingRuleBuilder.build: a prefixed ACL for another operation -> DENIED, not the default", []image.ACL{acl(ResourceTopic, "ord", PatternPrefixed, "User:alice", "*", OpWrite, PermissionAllow)}, Config{AllowIfNoACLFound: true}, alice, OpRead, ResourceTopic, "orders", false},
		{"authorize: super users are allowed everything (SuperUserRule)", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpAll, PermissionDeny)}, Config{SuperUsers: []string{"User:alice"}}, alice, OpDelete, ResourceTopic, "orders", true},
		{"checkSection: LITERAL matches the exact name", []image.ACL{allowRead}, Config{}, alice, OpRead, ResourceTopic, "orders", true},
		{"checkSection: LITERAL name that is a prefix does not match", []image.ACL{allowRead}, Config{}, alice, OpRead, ResourceTopic, "orders-eu", false},
		{"checkSection: PREFIXED matches names starting with it", []image.ACL{acl(ResourceTopic, "ord", PatternPrefixed, "User:alice", "*", OpRead, PermissionAllow)}, Config{}, alice, OpRead, ResourceTopic, "orders-eu", true},
		{"checkSection: PREFIXED does not match other names", []image.ACL{acl(ResourceTopic, "ord", PatternPrefixed, "User:alice", "*", OpRead, PermissionAllow)}, Config{}, alice, OpRead, ResourceTopic, "payments", false},
		{"KAFKA-14265: a shorter PREFIXED ACL is not shadowed by a longer non-matching one", []image.ACL{
			acl(ResourceTopic, "f", PatternPrefixed, "User:alice", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "fooa", PatternPrefixed, "User:alice", "*", OpRead, PermissionAllow),
			acl(ResourceTopic, "foobar", PatternPrefixed, "User:bob", "*", OpRead, PermissionAllow)}, Config{}, alice, OpRead, ResourceTopic, "foobar", true},
		{"findAclRule: LITERAL \"*\" matches every name of the type", []image.ACL{acl(ResourceTopic, "*", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow)}, Config{}, alice, OpRead, ResourceTopic, "anything", true},
		{"checkSection: PREFIXED \"*\" is only a prefix, not a wildcard", []image.ACL{acl(ResourceTopic, "*", PatternPrefixed, "User:alice", "*", OpRead, PermissionAllow)}, Config{}, alice, OpRead, ResourceTopic, "anything", false},
		{"checkSection: resource types are separate sections", []image.ACL{acl(ResourceGroup, "orders", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow)}, Config{}, alice, OpRead, ResourceTopic, "orders", false},
		{"MatchingAclBuilder: DENY wins over ALLOW on the same name", []image.ACL{allowRead, acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpRead, PermissionDeny)}, Config{}, alice, OpRead, ResourceTopic, "orders", false},
		{"findAclRule: a wildcard DENY wins over a literal ALLOW", []image.ACL{allowRead, acl(ResourceTopic, "*", PatternLiteral, "User:*", "*", OpRead, PermissionDeny)}, Config{}, alice, OpRead, ResourceTopic, "orders", false},
		{"findAclRule: a prefixed DENY wins over a literal ALLOW", []image.ACL{allowRead, acl(ResourceTopic, "or", PatternPrefixed, "User:alice", "*", OpRead, PermissionDeny)}, Config{}, alice, OpRead, ResourceTopic, "orders", false},
		{"findResult: principal User:* matches every user", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:*", "*", OpRead, PermissionAllow)}, Config{}, bob, OpRead, ResourceTopic, "orders", true},
		{"findResult: another principal does not match", []image.ACL{allowRead}, Config{}, bob, OpRead, ResourceTopic, "orders", false},
		{"findResult: host must equal the client's address", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "10.0.0.9", OpRead, PermissionAllow)}, Config{}, alice, OpRead, ResourceTopic, "orders", false},
		{"findResult: host matches the client's address", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "10.0.0.1", OpRead, PermissionAllow)}, Config{}, alice, OpRead, ResourceTopic, "orders", true},
		{"findResult: a DENY for one host does not deny another", []image.ACL{allowRead, acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "10.0.0.9", OpRead, PermissionDeny)}, Config{}, alice, OpRead, ResourceTopic, "orders", true},
		{"findResult: ALL matches every operation", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpAll, PermissionAllow)}, Config{}, alice, OpAlterConfigs, ResourceTopic, "orders", true},
		{"findResult: DENY ALL denies every operation", []image.ACL{allowRead, acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpAll, PermissionDeny)}, Config{}, alice, OpRead, ResourceTopic, "orders", false},
		{"IMPLIES_DESCRIBE: ALLOW READ implies DESCRIBE", []image.ACL{allowRead}, Config{}, alice, OpDescribe, ResourceTopic, "orders", true},
		{"IMPLIES_DESCRIBE: ALLOW WRITE implies DESCRIBE", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpWrite, PermissionAllow)}, Config{}, alice, OpDescribe, ResourceTopic, "orders", true},
		{"IMPLIES_DESCRIBE: ALLOW DELETE implies DESCRIBE", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpDelete, PermissionAllow)}, Config{}, alice, OpDescribe, ResourceTopic, "orders", true},
		{"IMPLIES_DESCRIBE: ALLOW ALTER implies DESCRIBE", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpAlter, PermissionAllow)}, Config{}, alice, OpDescribe, ResourceTopic, "orders", true},
		{"IMPLIES_DESCRIBE: ALLOW CREATE does not imply DESCRIBE", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpCreate, PermissionAllow)}, Config{}, alice, OpDescribe, ResourceTopic, "orders", false},
		{"IMPLIES_DESCRIBE_CONFIGS: ALLOW ALTER_CONFIGS implies DESCRIBE_CONFIGS", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpAlterConfigs, PermissionAllow)}, Config{}, alice, OpDescribeConfigs, ResourceTopic, "orders", true},
		{"findResult: implication is one way (DESCRIBE does not allow READ)", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpDescribe, PermissionAllow)}, Config{}, alice, OpRead, ResourceTopic, "orders", false},
		{"findResult: DENY READ does not deny DESCRIBE (implication only for ALLOW)", []image.ACL{acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpWrite, PermissionAllow), acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpRead, PermissionDeny)}, Config{}, alice, OpDescribe, ResourceTopic, "orders", true},
	}
	for _, r := range rows {
		t.Run(r.rule, func(t *testing.T) {
			a := New(acls(r.acls...), r.cfg)
			if got := a.Authorize(r.ctx, r.op, r.rt, r.name); got != r.want {
				t.Errorf("Authorize(%v, op %d, type %d, %q) = %t, want %t", r.ctx, r.op, r.rt, r.name, got, r.want)
			}
		})
	}
}

// TestAuthorizedOperations: the bit field holds 1<<op for each allowed
// supported operation (AuthHelper.authorizedOperations, Utils.to32BitField);
// without an authorizer, every supported operation.
func TestAuthorizedOperations(t *testing.T) {
	a := New(acls(acl(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow)), Config{})
	ctx := Context{Principal: "User:alice", Host: "h"}
	if got, want := AuthorizedOperations(a, ctx, ResourceTopic, "orders"), int32(1<<OpRead|1<<OpDescribe); got != want {
		t.Errorf("got %b, want %b", got, want)
	}
	if got, want := AuthorizedOperations(nil, ctx, ResourceTopic, "orders"), int32(3576); got != want {
		t.Errorf("no authorizer: got %d, want %d", got, want)
	}
}
