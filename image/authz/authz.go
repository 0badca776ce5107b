package authz

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
	PatternUnknown  int8 = 0
	PatternAny      int8 = 1
	PatternMatch    int8 = 2
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
	OpTwoPhaseCommit  int8 = 15
)

// Permission types (org.apache.kafka.common.acl.AclPermissionType codes).
const (
	PermissionUnknown int8 = 0
	PermissionAny     int8 = 1
	PermissionDeny    int8 = 2
	PermissionAllow   int8 = 3
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
		return []int8{OpDescribe, OpWrite, OpTwoPhaseCommit}
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
