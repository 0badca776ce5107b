package answer_test

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/answer"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/credential"
)

// A broker answers DescribeUserScramCredentials from the image: alice has
// a SCRAM-SHA-512 credential, bob none, and carol is asked for twice.
func ExampleResponder_DescribeUserSCRAMCredentials() {
	c, _ := credential.SHA512.CredentialFromPassword("pw", []byte("salt"), 8192)
	b := image.NewBuilder(nil)
	b.PutScram(map[image.ScramKey]*image.ScramCredential{{Mechanism: image.ScramSHA512, User: "alice"}: &c})
	img := b.Image(image.EmptyProvenance)

	req := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
	for _, u := range []string{"alice", "bob", "carol", "carol"} {
		req.Users = append(req.Users, kmsg.DescribeUserSCRAMCredentialsRequestUser{Name: u})
	}
	resp := answer.New(answer.Config{}).DescribeUserSCRAMCredentials(img, req, answer.Request{Principal: "User:admin"})
	for _, r := range resp.Results { // in Kafka's HashMap order
		fmt.Printf("%s %d %q\n", r.User, r.ErrorCode, *r.ErrorMessage)
		for _, c := range r.CredentialInfos {
			fmt.Println(" ", credential.Mechanism(c.Mechanism).Name(), c.Iterations)
		}
	}
	// Output:
	// carol 92 "Cannot describe SCRAM credentials for the same user twice in a single request: carol"
	// bob 91 "Attempt to describe a user credential that does not exist: bob"
	// alice 0 ""
	//   SCRAM-SHA-512 8192
}

// DescribeAcls lists the image's ACLs that match the filter; a filter with
// an UNKNOWN element is refused as a broker refuses to parse it.
func ExampleResponder_DescribeACLs() {
	b := image.NewBuilder(nil)
	b.PutACLs([]image.ACL{
		{ID: [16]byte{1}, ResourceType: int8(authz.ResourceTopic), ResourceName: "orders", PatternType: int8(authz.PatternLiteral),
			Principal: "User:alice", Host: "*", Operation: int8(authz.OpRead), PermissionType: int8(authz.PermissionAllow)},
		{ID: [16]byte{2}, ResourceType: int8(authz.ResourceTopic), ResourceName: "ord", PatternType: int8(authz.PatternPrefixed),
			Principal: "User:bob", Host: "*", Operation: int8(authz.OpWrite), PermissionType: int8(authz.PermissionDeny)},
		{ID: [16]byte{3}, ResourceType: int8(authz.ResourceGroup), ResourceName: "g", PatternType: int8(authz.PatternLiteral),
			Principal: "User:alice", Host: "*", Operation: int8(authz.OpRead), PermissionType: int8(authz.PermissionAllow)},
	}, nil)
	img := b.Image(image.EmptyProvenance)
	a := authz.New(img.ACLs(), authz.Config{SuperUsers: []string{"User:admin"}})
	r := answer.New(answer.Config{Authorizer: a})

	req := kmsg.NewPtrDescribeACLsRequest()
	req.Version = 3
	name := "orders"
	req.ResourceType, req.ResourceName, req.ResourcePatternType = kmsg.ACLResourceType(authz.ResourceTopic), &name,
		kmsg.ACLResourcePatternType(authz.PatternMatch)
	req.Operation, req.PermissionType = kmsg.ACLOperation(authz.OpAny), kmsg.ACLPermissionType(authz.PermissionAny)
	resp, _ := r.DescribeACLs(img, req, answer.Request{Principal: "User:admin", Host: "10.0.0.1"})
	for _, res := range resp.Resources {
		fmt.Println(res.ResourceName, res.ResourcePatternType, res.ACLs[0].Principal, res.ACLs[0].Operation)
	}
	req.Operation = 0
	_, err := r.DescribeACLs(img, req, answer.Request{Principal: "User:admin"})
	fmt.Println(errors.Is(err, answer.ErrInvalidACLFilter))
	// Output:
	// orders LITERAL User:alice READ
	// ord PREFIXED User:bob WRITE
	// true
}

// DescribeDelegationToken lists the tokens the requester owns, requested
// or may renew (or may describe), with their HMACs from the secret key;
// over PLAINTEXT a broker refuses token requests.
func ExampleResponder_DescribeDelegationToken() {
	b := image.NewBuilder(nil)
	b.PutTokens(map[string]*image.Token{
		"t1": {TokenID: "t1", Owner: "User:alice", Requester: "User:alice", ExpirationTimestamp: 2000},
		"t2": {TokenID: "t2", Owner: "User:bob", Requester: "User:bob", Renewers: []string{"User:alice"}},
		"t3": {TokenID: "t3", Owner: "User:carol", Requester: "User:carol"},
	})
	img := b.Image(image.EmptyProvenance)
	r := answer.New(answer.Config{Authorizer: authz.New(image.Empty().ACLs(), authz.Config{})})
	req := kmsg.NewPtrDescribeDelegationTokenRequest()
	req.Version = 3
	tr := answer.TokenRequest{SecretKey: "cluster-secret", SecurityProtocol: "SASL_SSL"}
	resp := r.DescribeDelegationToken(img, req, answer.Request{Principal: "User:alice"}, tr)
	for _, t := range resp.TokenDetails {
		fmt.Println(t.TokenID, t.PrincipalName, len(t.HMAC))
	}
	tr.SecurityProtocol = "PLAINTEXT"
	fmt.Println(r.DescribeDelegationToken(img, req, answer.Request{Principal: "User:alice"}, tr).ErrorCode)
	// Output:
	// t1 alice 64
	// t2 bob 64
	// 64
}
