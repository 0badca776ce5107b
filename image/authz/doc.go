// Package authz decides what a client may do, from the ACLs of an image,
// with the semantics of Kafka's StandardAuthorizer (KIP-801): LITERAL,
// PREFIXED and wildcard ("*") resource patterns, DENY over ALLOW, host and
// principal ("User:*") matching, CIDR host ranges from metadata.version
// 4.4-IV1 (KIP-1276), super users, allow.everyone.if.no.acl.found (only
// when no ACL at all is on the resource), the operations an ALLOW implies
// (READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies
// DESCRIBE_CONFIGS), and Authorizer.authorizeByResourceType.
//
// The answers of package image/answer ask an Authorizer, a one-method
// interface an embedder may implement itself; New builds Kafka's from an
// image once per image:
//
//	mv, _ := img.Features().MetadataVersion()
//	a := authz.New(img.ACLs(), authz.Config{SuperUsers: []string{"User:admin"}, MetadataVersion: mv})
//	ok := a.Authorize(authz.Context{Principal: "User:alice", Host: "10.0.0.7"},
//	    authz.OpDescribe, authz.ResourceTopic, "orders")
//
// A broker that follows the log keeps an Incremental instead, as Kafka's
// AclPublisher keeps StandardAuthorizer: loaded from a snapshot, changed ACL
// by ACL in replay order (publisher.ACLPublisher feeds it), not ready for
// principals other than super users until the initial load completes
// (ErrNotReady, Kafka's AuthorizerNotReadyException), its decisions equal to
// New's over the same ACLs and as cheap, with no lock.
//
// Every decision of Kafka's own StandardAuthorizer in the decision tables
// Kafka 4.3.1 and 4.4 wrote (kmeta's tests replay them where present) is
// kmeta's, except where kmeta is deliberately stricter: where Kafka's code
// and its documentation disagree, or where Kafka's code throws or loops,
// kmeta denies (see Standard.Authorize). It never allows what Kafka denies.
//
// It is a package of its own, beside the answers, because brokers need it
// for more than the answers kmeta builds (produce, fetch, admin requests).
package authz
