package authz_test

import (
	"fmt"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
)

// Kafka's StandardAuthorizer over an image's ACLs: a prefixed ALLOW, a DENY
// that wins over it, an operation implied by another, a super user.
func ExampleNew() {
	sim := deltatest.MustCluster(1)
	for _, acl := range []image.ACL{
		{ResourceType: authz.ResourceTopic, ResourceName: "orders", PatternType: authz.PatternPrefixed,
			Principal: "User:alice", Host: "*", Operation: authz.OpRead, PermissionType: authz.PermissionAllow},
		{ResourceType: authz.ResourceTopic, ResourceName: "orders-secret", PatternType: authz.PatternLiteral,
			Principal: "User:alice", Host: "*", Operation: authz.OpRead, PermissionType: authz.PermissionDeny},
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
