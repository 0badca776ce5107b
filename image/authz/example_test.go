package authz_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/record"
)

// Kafka's StandardAuthorizer over an image's ACLs: a prefixed ALLOW, a DENY
// that wins over it, an operation implied by another, a super user.
func ExampleNew() {
	sim := deltatest.MustCluster(1)
	for _, acl := range []image.ACL{
		{ResourceType: int8(authz.ResourceTopic), ResourceName: "orders", PatternType: int8(authz.PatternPrefixed),
			Principal: "User:alice", Host: "*", Operation: int8(authz.OpRead), PermissionType: int8(authz.PermissionAllow)},
		{ResourceType: int8(authz.ResourceTopic), ResourceName: "orders-secret", PatternType: int8(authz.PatternLiteral),
			Principal: "User:alice", Host: "*", Operation: int8(authz.OpRead), PermissionType: int8(authz.PermissionDeny)},
	} {
		if _, err := sim.CreateACL(acl); err != nil {
			panic(err)
		}
	}
	a := authz.New(sim.Image().ACLs(), authz.Config{SuperUsers: []string{"User:admin"}})
	alice := authz.Context{Principal: "User:alice", Host: "10.0.0.7"}

	fmt.Println("alice reads orders-eu:", a.Authorize(alice, authz.OpRead, authz.ResourceTopic, "orders-eu"))
	fmt.Println("alice reads orders-secret:", a.Authorize(alice, authz.OpRead, authz.ResourceTopic, "orders-secret"))
	fmt.Println("alice describes orders-eu (READ implies DESCRIBE):", a.Authorize(alice, authz.OpDescribe, authz.ResourceTopic, "orders-eu"))
	fmt.Println("alice writes orders-eu:", a.Authorize(alice, authz.OpWrite, authz.ResourceTopic, "orders-eu"))
	fmt.Println("admin writes anything:", a.Authorize(authz.Context{Principal: "User:admin", Host: "10.0.0.9"}, authz.OpWrite, authz.ResourceTopic, "payments"))
	// Output:
	// alice reads orders-eu: true
	// alice reads orders-secret: false
	// alice describes orders-eu (READ implies DESCRIBE): true
	// alice writes orders-eu: false
	// admin writes anything: true
}

// authorizeByResourceType: may alice read at least one topic? A PREFIXED
// ALLOW gives yes unless a DENY on a prefix of it dominates.
func ExampleStandard_AuthorizeByResourceType() {
	acls := aclsOf([]image.ACL{
		{ID: record.UUID{15: 1}, ResourceType: int8(authz.ResourceTopic), ResourceName: "team-a-", PatternType: int8(authz.PatternPrefixed),
			Principal: "User:alice", Host: "*", Operation: int8(authz.OpRead), PermissionType: int8(authz.PermissionAllow)},
		{ID: record.UUID{15: 2}, ResourceType: int8(authz.ResourceGroup), ResourceName: "team", PatternType: int8(authz.PatternPrefixed),
			Principal: "User:alice", Host: "*", Operation: int8(authz.OpRead), PermissionType: int8(authz.PermissionDeny)},
		{ID: record.UUID{15: 3}, ResourceType: int8(authz.ResourceGroup), ResourceName: "team-a-app", PatternType: int8(authz.PatternLiteral),
			Principal: "User:alice", Host: "*", Operation: int8(authz.OpRead), PermissionType: int8(authz.PermissionAllow)},
	})
	a := authz.New(acls, authz.Config{})
	alice := authz.Context{Principal: "User:alice", Host: "10.0.0.7"}
	fmt.Println("some topic:", a.AuthorizeByResourceType(alice, authz.OpRead, authz.ResourceTopic))
	fmt.Println("some group:", a.AuthorizeByResourceType(alice, authz.OpRead, authz.ResourceGroup))
	// Output:
	// some topic: true
	// some group: false
}

// CIDR host patterns (KIP-1276) are ranges from metadata.version 4.4-IV1;
// below it a CIDR ALLOW allows nothing.
func ExampleConfig_metadataVersion() {
	acls := aclsOf([]image.ACL{
		{ID: record.UUID{15: 1}, ResourceType: int8(authz.ResourceTopic), ResourceName: "orders", PatternType: int8(authz.PatternLiteral),
			Principal: "User:*", Host: "10.0.0.0/24", Operation: int8(authz.OpRead), PermissionType: int8(authz.PermissionAllow)},
	})
	client := authz.Context{Principal: "User:alice", Host: "10.0.0.7"}
	for _, mv := range []image.MetadataVersion{image.MV4_2_IV1, image.MV4_4_IV1} {
		a := authz.New(acls, authz.Config{MetadataVersion: mv})
		fmt.Printf("level %d: %t\n", mv, a.Authorize(client, authz.OpRead, authz.ResourceTopic, "orders"))
	}
	// Output:
	// level 29: false
	// level 32: true
}

// aclsOf returns the ACLs of an image holding list.
func aclsOf(list []image.ACL) *image.ACLs {
	b := image.NewBuilder(nil)
	b.PutACLs(list, nil)
	return b.Image(image.EmptyProvenance).ACLs()
}

// An authorizer kept as Kafka's AclPublisher keeps StandardAuthorizer:
// not ready until the initial load, then changed ACL by ACL.
func ExampleIncremental() {
	inc := authz.NewIncremental(authz.Config{SuperUsers: []string{"User:admin"}})
	alice := authz.Context{Principal: "User:alice", Host: "10.0.0.1"}
	_, err := inc.Check(alice, authz.OpRead, authz.ResourceTopic, "orders")
	fmt.Println(err)

	inc.LoadSnapshot(aclsOf(nil))
	inc.CompleteInitialLoad()
	read := image.ACL{ID: record.UUID{1}, ResourceType: int8(authz.ResourceTopic), ResourceName: "orders",
		PatternType: int8(authz.PatternLiteral), Principal: "User:alice", Host: "*",
		Operation: int8(authz.OpRead), PermissionType: int8(authz.PermissionAllow)}
	inc.Add(read)
	fmt.Println(inc.Authorize(alice, authz.OpRead, authz.ResourceTopic, "orders"))
	inc.Remove(read.ID)
	fmt.Println(inc.Authorize(alice, authz.OpRead, authz.ResourceTopic, "orders"))
	// Output:
	// authorizer not ready: the initial ACL load has not completed
	// true
	// false
}
