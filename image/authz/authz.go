package authz

import (
	"github.com/kmeta-go/kmeta/image"
)

// Resource types (org.apache.kafka.common.resource.ResourceType codes).
const (
	ResourceUnknown         int8 = 0
	ResourceAny             int8 = 1
	ResourceTopic           int8 = 2
	ResourceGroup           int8 = 3
	ResourceCluster         int8 = 4
	ResourceTransactionalID int8 = 5
	ResourceDelegationToken int8 = 6
	ResourceUser            int8 = 7
)

// Pattern types (org.apache.kafka.common.resource.PatternType codes).
const (
	PatternLiteral  int8 = 3
	PatternPrefixed int8 = 4
)

// Operations (org.apache.kafka.common.acl.AclOperation codes).
const (
	OpUnknown         int8 = 0
	OpAny             int8 = 1
	OpAll             int8 = 2
	OpRead            int8 = 3
	OpWrite           int8 = 4
	OpCreate          int8 = 5
	OpDelete          int8 = 6
	OpAlter           int8 = 7
	OpDescribe        int8 = 8
	OpClusterAction   int8 = 9
	OpDescribeConfigs int8 = 10
	OpAlterConfigs    int8 = 11
	OpIdempotentWrite int8 = 12
	OpCreateTokens    int8 = 13
	OpDescribeTokens  int8 = 14
)

// Permission types (org.apache.kafka.common.acl.AclPermissionType codes).
const (
	PermissionDeny  int8 = 2
	PermissionAllow int8 = 3
)

// ClusterName is the name of the one CLUSTER resource (Resource.CLUSTER_NAME).
const ClusterName = "kafka-cluster"

// Wildcards of StandardAcl: the resource name "*" (with pattern LITERAL),
// the host "*" and the principal "User:*" (AclEntry.WILDCARD_*).
const (
	WildcardResource  = "*"
	WildcardHost      = "*"
	WildcardPrincipal = "User:*"
)

// Context is who asks: the session's principal as Kafka prints it
// ("User:alice", KafkaPrincipal.toString) and the client's address as
// InetAddress.getHostAddress prints it ("127.0.0.1").
type Context struct {
	Principal string
	Host      string
}

// Authorizer decides whether ctx may perform op on the resource of type rt
// named name (Kafka's Authorizer.authorize for one Action). Answers call it
// with their request's context; an embedder may supply any implementation.
// Implementations must be safe for concurrent use.
type Authorizer interface {
	Authorize(ctx Context, op int8, rt int8, name string) bool
}

// AllowAll is the authorizer of a broker with no authorizer.class.name:
// everything is allowed (KafkaApis' AuthHelper with no authorizer).
type AllowAll struct{}

// Authorize allows everything.
func (AllowAll) Authorize(Context, int8, int8, string) bool { return true }

// SupportedOperations lists the operations of a resource type, the bits an
// authorized-operations field may carry (AclEntry.supportedOperations).
func SupportedOperations(rt int8) []int8 {
	switch rt {
	case ResourceTopic:
		return []int8{OpRead, OpWrite, OpCreate, OpDescribe, OpDelete, OpAlter, OpDescribeConfigs, OpAlterConfigs}
	case ResourceGroup:
		return []int8{OpRead, OpDescribe, OpDelete, OpDescribeConfigs, OpAlterConfigs}
	case ResourceCluster:
		return []int8{OpCreate, OpClusterAction, OpDescribeConfigs, OpAlterConfigs, OpIdempotentWrite, OpAlter, OpDescribe}
	case ResourceTransactionalID:
		return []int8{OpDescribe, OpWrite}
	case ResourceDelegationToken:
		return []int8{OpDescribe}
	case ResourceUser:
		return []int8{OpCreateTokens, OpDescribeTokens}
	}
	return nil
}

// AuthorizedOperations is the bit field of the supported operations of
// resource (rt, name) that a allows ctx (AuthHelper.authorizedOperations and
// Utils.to32BitField: bit op for each allowed operation). A nil a allows
// every supported operation, as Kafka does without an authorizer.
func AuthorizedOperations(a Authorizer, ctx Context, rt int8, name string) int32 {
	var bits int32
	for _, op := range SupportedOperations(rt) {
		if a == nil || a.Authorize(ctx, op, rt, name) {
			bits |= 1 << uint(op)
		}
	}
	return bits
}

// Config is the StandardAuthorizer's configuration.
type Config struct {
	// SuperUsers are principals allowed everything (super.users, e.g.
	// "User:admin").
	SuperUsers []string
	// AllowIfNoACLFound is allow.everyone.if.no.acl.found (default false):
	// the result when no ACL matches the action.
	AllowIfNoACLFound bool
}

// Standard is Kafka's StandardAuthorizer over the ACLs of one image: an
// index built once (O(ACLs)), then read by any number of goroutines. Build a
// new one when the image's ACLs change; it holds no reference to the image.
type Standard struct {
	superUsers map[string]struct{}
	allowNone  bool
	byType     map[int8]*typeIndex
}

// typeIndex holds the ACLs of one resource type by how their pattern matches.
type typeIndex struct {
	literal     map[string][]image.ACL // exact names (LITERAL, not "*")
	wildcard    []image.ACL            // LITERAL "*"
	prefixed    map[string][]image.ACL // PREFIXED, by prefix
	prefixLens  []int                  // distinct prefix lengths, ascending
	hasPrefixed bool
}

// New builds a StandardAuthorizer from the image's ACLs.
func New(acls *image.ACLs, cfg Config) *Standard {
	s := &Standard{superUsers: map[string]struct{}{}, allowNone: cfg.AllowIfNoACLFound, byType: map[int8]*typeIndex{}}
	for _, u := range cfg.SuperUsers {
		s.superUsers[u] = struct{}{}
	}
	if acls == nil {
		return s
	}
	for a := range acls.All() {
		ti := s.byType[a.ResourceType]
		if ti == nil {
			ti = &typeIndex{literal: map[string][]image.ACL{}, prefixed: map[string][]image.ACL{}}
			s.byType[a.ResourceType] = ti
		}
		switch {
		case a.PatternType == PatternLiteral && a.ResourceName == WildcardResource:
			ti.wildcard = append(ti.wildcard, a)
		case a.PatternType == PatternLiteral:
			ti.literal[a.ResourceName] = append(ti.literal[a.ResourceName], a)
		case a.PatternType == PatternPrefixed:
			if _, ok := ti.prefixed[a.ResourceName]; !ok {
				ti.prefixLens = insertSorted(ti.prefixLens, len(a.ResourceName))
			}
			ti.prefixed[a.ResourceName] = append(ti.prefixed[a.ResourceName], a)
			ti.hasPrefixed = true
		}
		// Other pattern types never match a literal action
		// (StandardAcl.fromRecord accepts only LITERAL and PREFIXED).
	}
	return s
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

// outcome of scanning ACLs: no match, allow, or deny.
type outcome uint8

const (
	noMatch outcome = iota
	allowed
	denied
)

// Authorize is StandardAuthorizerData.authorize: super users are allowed
// everything; otherwise the ACLs whose pattern matches the resource (LITERAL
// with the exact name, PREFIXED with a prefix of it, LITERAL "*") are
// checked, any matching DENY wins over any matching ALLOW, and when none
// matches the result is allow.everyone.if.no.acl.found. Matching prefixed
// ACLs are all considered, as after KAFKA-14265 (a prefix ACL no longer
// shadows a shorter one).
func (s *Standard) Authorize(ctx Context, op int8, rt int8, name string) bool {
	if _, ok := s.superUsers[ctx.Principal]; ok {
		return true
	}
	ti := s.byType[rt]
	if ti == nil {
		return s.allowNone
	}
	res := scan(noMatch, op, ctx, ti.literal[name])
	if res == denied {
		return false
	}
	if ti.hasPrefixed {
		for _, l := range ti.prefixLens {
			if l > len(name) {
				break
			}
			if res = scan(res, op, ctx, ti.prefixed[name[:l]]); res == denied {
				return false
			}
		}
	}
	if res = scan(res, op, ctx, ti.wildcard); res != noMatch {
		return res == allowed
	}
	return s.allowNone
}

// scan folds the ACLs of list into res, stopping at the first DENY
// (StandardAuthorizerData.checkSection).
func scan(res outcome, op int8, ctx Context, list []image.ACL) outcome {
	for i := range list {
		switch findResult(op, ctx, &list[i]) {
		case allowed:
			res = allowed
		case denied:
			return denied
		}
	}
	return res
}

// findResult is StandardAuthorizerData.findResult for an ACL whose resource
// pattern matches: the principal must be the session's or "User:*", the host
// the client's or "*"; an ALLOW ACL for READ, WRITE, DELETE or ALTER also
// allows DESCRIBE and one for ALTER_CONFIGS also allows DESCRIBE_CONFIGS
// (IMPLIES_DESCRIBE, IMPLIES_DESCRIBE_CONFIGS); a DENY ACL denies only its
// own operation; ALL matches every operation.
func findResult(op int8, ctx Context, a *image.ACL) outcome {
	if a.Principal != ctx.Principal && a.Principal != WildcardPrincipal {
		return noMatch
	}
	if a.Host != WildcardHost && a.Host != ctx.Host {
		return noMatch
	}
	if a.Operation != OpAll {
		if a.PermissionType == PermissionAllow {
			switch op {
			case OpDescribe:
				switch a.Operation {
				case OpDescribe, OpRead, OpWrite, OpDelete, OpAlter:
				default:
					return noMatch
				}
			case OpDescribeConfigs:
				switch a.Operation {
				case OpDescribeConfigs, OpAlterConfigs:
				default:
					return noMatch
				}
			default:
				if op != a.Operation {
					return noMatch
				}
			}
		} else if op != a.Operation {
			return noMatch
		}
	}
	switch a.PermissionType {
	case PermissionAllow:
		return allowed
	case PermissionDeny:
		return denied
	}
	return noMatch
}
