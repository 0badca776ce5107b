// Package authz decides what a client may do, from the ACLs of an image,
// with the semantics of Kafka's StandardAuthorizer (KIP-801): LITERAL,
// PREFIXED and wildcard ("*") resource patterns, DENY over ALLOW, host and
// principal ("User:*") matching, super users, allow.everyone.if.no.acl.found,
// and the operations an ALLOW implies (READ, WRITE, DELETE and ALTER imply
// DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS).
//
// The answers of package image/answer ask an Authorizer, a one-method
// interface an embedder may implement itself; New builds Kafka's from an
// image once per image:
//
//	a := authz.New(img.ACLs(), authz.Config{SuperUsers: []string{"User:admin"}})
//	ok := a.Authorize(authz.Context{Principal: "User:alice", Host: "10.0.0.7"},
//	    authz.OpDescribe, authz.ResourceTopic, "orders")
//
// It is a package of its own, beside the answers, because brokers need it
// for more than the answers kmeta builds (produce, fetch, admin requests).
package authz
