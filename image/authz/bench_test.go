package authz

import (
	"fmt"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/internal/benchtest"
)

// benchACLs is a broker's ACL set: per team a PREFIXED topic ALLOW, a
// LITERAL group ALLOW and a DENY on one topic, plus wildcard describes.
func benchACLs(teams int) *image.ACLs {
	var list []image.ACL
	for i := 0; i < teams; i++ {
		p := fmt.Sprintf("User:team-%d", i)
		list = append(list,
			image.ACL{ResourceType: int8(ResourceTopic), ResourceName: fmt.Sprintf("team-%d-", i), PatternType: int8(PatternPrefixed), Principal: p, Host: "*", Operation: int8(OpRead), PermissionType: int8(PermissionAllow)},
			image.ACL{ResourceType: int8(ResourceGroup), ResourceName: fmt.Sprintf("team-%d-app", i), PatternType: int8(PatternLiteral), Principal: p, Host: "*", Operation: int8(OpRead), PermissionType: int8(PermissionAllow)},
			image.ACL{ResourceType: int8(ResourceTopic), ResourceName: fmt.Sprintf("team-%d-secret", i), PatternType: int8(PatternLiteral), Principal: p, Host: "10.0.0.9", Operation: int8(OpRead), PermissionType: int8(PermissionDeny)})
	}
	list = append(list, image.ACL{ResourceType: int8(ResourceTopic), ResourceName: "*", PatternType: int8(PatternLiteral), Principal: "User:*", Host: "*", Operation: int8(OpDescribe), PermissionType: int8(PermissionAllow)})
	return acls(list...)
}

// BenchmarkAuthorize: one authorize call on a set of 3 001 ACLs (1 000
// teams): an allowed prefixed read, a denied one, and a describe allowed
// by the wildcard.
func BenchmarkAuthorize(b *testing.B) {
	s := New(benchACLs(1000), Config{})
	ctx := Context{Principal: "User:team-500", Host: "10.0.0.1"}
	for _, c := range []struct {
		name string
		op   Operation
		rt   ResourceType
		res  string
		want bool
	}{
		{"prefixed-allow", OpRead, ResourceTopic, "team-500-orders", true},
		{"no-match-deny", OpRead, ResourceTopic, "team-501-orders", false},
		{"wildcard-describe", OpDescribe, ResourceTopic, "team-7-orders", true},
	} {
		b.Run(c.name, func(b *testing.B) {
			if s.Authorize(ctx, c.op, c.rt, c.res) != c.want {
				b.Fatalf("wrong decision")
			}
			b.ReportAllocs()
			defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
			for b.Loop() {
				s.Authorize(ctx, c.op, c.rt, c.res)
			}
		})
	}
}

// BenchmarkNew: building the index from 3 001 ACLs, once per image.
func BenchmarkNew(b *testing.B) {
	list := benchACLs(1000)
	b.ReportAllocs()
	defer benchtest.ReportCPU(b, benchtest.ProcessCPU())
	for b.Loop() {
		New(list, Config{})
	}
}
