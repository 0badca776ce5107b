package authz

// ResourceType is a resource type code of an ACL
// (org.apache.kafka.common.resource.ResourceType).
type ResourceType int8

// Resource types (org.apache.kafka.common.resource.ResourceType codes).
const (
	ResourceUnknown         ResourceType = 0
	ResourceAny             ResourceType = 1
	ResourceTopic           ResourceType = 2
	ResourceGroup           ResourceType = 3
	ResourceCluster         ResourceType = 4
	ResourceTransactionalID ResourceType = 5
	ResourceDelegationToken ResourceType = 6
	ResourceUser            ResourceType = 7
)

// PatternType is a resource pattern type code of an ACL
// (org.apache.kafka.common.resource.PatternType).
type PatternType int8

// Pattern types (org.apache.kafka.common.resource.PatternType codes).
const (
	PatternUnknown  PatternType = 0
	PatternAny      PatternType = 1
	PatternMatch    PatternType = 2
	PatternLiteral  PatternType = 3
	PatternPrefixed PatternType = 4
)

// Operation is an operation code of an ACL
// (org.apache.kafka.common.acl.AclOperation).
type Operation int8

// Operations (org.apache.kafka.common.acl.AclOperation codes).
const (
	OpUnknown         Operation = 0
	OpAny             Operation = 1
	OpAll             Operation = 2
	OpRead            Operation = 3
	OpWrite           Operation = 4
	OpCreate          Operation = 5
	OpDelete          Operation = 6
	OpAlter           Operation = 7
	OpDescribe        Operation = 8
	OpClusterAction   Operation = 9
	OpDescribeConfigs Operation = 10
	OpAlterConfigs    Operation = 11
	OpIdempotentWrite Operation = 12
	OpCreateTokens    Operation = 13
	OpDescribeTokens  Operation = 14
	OpTwoPhaseCommit  Operation = 15
)

// PermissionType is a permission type code of an ACL
// (org.apache.kafka.common.acl.AclPermissionType).
type PermissionType int8

// Permission types (org.apache.kafka.common.acl.AclPermissionType codes).
const (
	PermissionUnknown PermissionType = 0
	PermissionAny     PermissionType = 1
	PermissionDeny    PermissionType = 2
	PermissionAllow   PermissionType = 3
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
	Authorize(ctx Context, op Operation, rt ResourceType, name string) bool
}

// AllowAll is the authorizer of a broker with no authorizer.class.name:
// everything is allowed (KafkaApis' AuthHelper with no authorizer).
type AllowAll struct{}

// Authorize allows everything.
func (AllowAll) Authorize(Context, Operation, ResourceType, string) bool { return true }

// SupportedOperations lists the operations of a resource type, the bits an
// authorized-operations field may carry (AclEntry.supportedOperations).
func SupportedOperations(rt ResourceType) []Operation {
	switch rt {
	case ResourceTopic:
		return []Operation{OpRead, OpWrite, OpCreate, OpDescribe, OpDelete, OpAlter, OpDescribeConfigs, OpAlterConfigs}
	case ResourceGroup:
		return []Operation{OpRead, OpDescribe, OpDelete, OpDescribeConfigs, OpAlterConfigs}
	case ResourceCluster:
		return []Operation{OpCreate, OpClusterAction, OpDescribeConfigs, OpAlterConfigs, OpIdempotentWrite, OpAlter, OpDescribe}
	case ResourceTransactionalID:
		return []Operation{OpDescribe, OpWrite, OpTwoPhaseCommit}
	case ResourceDelegationToken:
		return []Operation{OpDescribe}
	case ResourceUser:
		return []Operation{OpCreateTokens, OpDescribeTokens}
	}
	return nil
}

// AuthorizedOperations is the bit field of the supported operations of
// resource (rt, name) that a allows ctx (AuthHelper.authorizedOperations and
// Utils.to32BitField: bit op for each allowed operation). A nil a allows
// every supported operation, as Kafka does without an authorizer.
func AuthorizedOperations(a Authorizer, ctx Context, rt ResourceType, name string) int32 {
	var bits int32
	for _, op := range SupportedOperations(rt) {
		if a == nil || a.Authorize(ctx, op, rt, name) {
			bits |= 1 << uint(op)
		}
	}
	return bits
}
