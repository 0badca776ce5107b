package credential_test

import (
	"fmt"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/credential"
)

// A broker verifies a SCRAM-SHA-512 login from the image: the image holds
// alice's credential (as a UserScramCredentialRecord puts it there), the
// client sends its first and final messages, and the server answers each
// until the login is done.
func ExampleNewScramServer() {
	cred, _ := credential.SHA512.CredentialFromPassword("alice-secret", []byte("some-salt"), 4096)
	b := image.NewBuilder(nil)
	b.PutScram(map[image.ScramKey]*image.ScramCredential{{Mechanism: image.ScramSHA512, User: "alice"}: &cred})
	img := b.Image(image.EmptyProvenance)

	srv, err := credential.NewScramServer(img, "SCRAM-SHA-512", credential.Config{})
	if err != nil {
		panic(err)
	}
	client, _ := credential.NewScramClient(credential.SHA512, "alice", "alice-secret", false, nil)
	serverFirst, _, err := srv.Step(client.First())
	if err != nil {
		panic(err)
	}
	clientFinal, _ := client.Final(serverFirst)
	serverFinal, done, err := srv.Step(clientFinal)
	fmt.Println(done, err, client.Verify(serverFinal))
	login, _ := srv.Login()
	fmt.Println(login.User, login.TokenAuthenticated)
	// Output:
	// true <nil> <nil>
	// alice false
}

// A wrong password fails with Kafka's check and Kafka's answer: the code
// and the generic message a broker sends (the detailed message is for the
// log).
func ExampleError() {
	cred, _ := credential.SHA256.CredentialFromPassword("right", []byte("salt"), 4096)
	b := image.NewBuilder(nil)
	b.PutScram(map[image.ScramKey]*image.ScramCredential{{Mechanism: image.ScramSHA256, User: "alice"}: &cred})
	srv, _ := credential.NewScramServer(b.Image(image.EmptyProvenance), "SCRAM-SHA-256", credential.Config{})
	client, _ := credential.NewScramClient(credential.SHA256, "alice", "wrong", false, nil)
	serverFirst, _, _ := srv.Step(client.First())
	clientFinal, _ := client.Final(serverFirst)
	_, _, err := srv.Step(clientFinal)
	e := err.(*credential.Error)
	fmt.Println(e.Kind, e.Code(), e.Responds())
	fmt.Println(e.Message)
	fmt.Println(e.ClientMessage("SCRAM-SHA-256", false))
	// Output:
	// invalid proof SASL_AUTHENTICATION_FAILED true
	// Invalid client credentials
	// Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256
}

// A delegation token authenticates as its owner: the client's user name is
// the token id and its password the token's HMAC from
// delegation.token.secret.key.
func ExampleTokenPassword() {
	b := image.NewBuilder(nil)
	b.PutTokens(map[string]*image.Token{"tok-1": {TokenID: "tok-1", Owner: "User:carol", Requester: "User:carol",
		ExpirationTimestamp: 1_700_000_000_000}})
	img := b.Image(image.EmptyProvenance)
	const key = "the-cluster-secret"

	pw, _ := credential.TokenPassword(key, "tok-1")
	srv, _ := credential.NewScramServer(img, "SCRAM-SHA-256", credential.Config{TokenSecretKey: key})
	client, _ := credential.NewScramClient(credential.SHA256, "tok-1", pw, true, nil)
	serverFirst, _, _ := srv.Step(client.First())
	clientFinal, _ := client.Final(serverFirst)
	_, done, err := srv.Step(clientFinal)
	login, _ := srv.Login()
	fmt.Println(done, err, login.User, login.TokenAuthenticated, login.TokenID)
	// Output:
	// true <nil> carol true tok-1
}

// Mechanisms by Kafka's name, with their type byte and hash size.
func ExampleMechanismByName() {
	m, ok := credential.MechanismByName("SCRAM-SHA-512")
	fmt.Println(m.Name(), int8(m), m.Size(), ok)
	_, ok = credential.MechanismByName("scram-sha-512")
	fmt.Println(ok)
	// Output:
	// SCRAM-SHA-512 2 64 true
	// false
}

// A client-first message as Kafka parses it: the escaped user name, the
// nonce, the extensions, and the bare message Kafka signs (the reserved m=
// part dropped).
func ExampleParseClientFirst() {
	cf, err := credential.ParseClientFirst([]byte("n,,m=x,n=a=2Cb,r=abc,tokenauth=true"))
	if err != nil {
		panic(err)
	}
	user, _ := credential.Username(cf.SaslName)
	fmt.Println(user, cf.Nonce, cf.TokenAuth(), cf.Bare())
	fmt.Println(credential.SaslName("a,b=c"))
	_, err = credential.ParseClientFirst([]byte("n,,n=alice"))
	fmt.Println(err)
	// Output:
	// a,b abc true n=a=2Cb,r=abc,tokenauth=true
	// a=2Cb=3Dc
	// credential: malformed message: Invalid SCRAM client first message format: n,,n=alice
}

// The session lifetime of KIP-368 re-authentication: a token's remaining
// lifetime, bounded by connections.max.reauth.ms.
func ExampleLogin_SessionLifetimeMs() {
	l := credential.Login{User: "carol", TokenAuthenticated: true, TokenExpiryMs: 10_000}
	fmt.Println(l.SessionLifetimeMs(4_000, 0), l.SessionLifetimeMs(4_000, 1_000), l.SessionLifetimeMs(11_000, 0))
	// Output:
	// 6000 1000 0
}

// A token's HMAC and the SCRAM credential Kafka derives from it (at 4096
// iterations, here with a fixed salt); without a secret key tokens are
// disabled.
func ExampleTokenCredential() {
	h, _ := credential.TokenHMAC("secret", "tok-1")
	c, _ := credential.TokenCredential(credential.SHA256, "secret", "tok-1", []byte("salt"))
	fmt.Println(len(h), c.Iterations, len(c.StoredKey), len(c.ServerKey))
	_, err := credential.TokenHMAC(" ", "tok-1")
	fmt.Println(err)
	// Output:
	// 64 4096 32 32
	// credential: no delegation.token.secret.key: delegation tokens are disabled
}

// A proxy logs in upstream with ScramClient: its first message, then the
// final one computed from the server's first message.
func ExampleNewScramClient() {
	cl, _ := credential.NewScramClient(credential.SHA256, "alice", "pw", false, strings.NewReader(strings.Repeat("\x00", 16)+"\x01"))
	fmt.Println(string(cl.First()))
	_, err := cl.Final([]byte("r=zzz,s=c2FsdA==,i=4096"))
	fmt.Println(err)
	// Output:
	// n,,n=alice,r=1
	// credential: wrong nonce: Invalid server nonce: does not start with client nonce
}

// A TokenCache shared by a listener's exchanges derives each token's
// credential once: the second login of the token pays no PBKDF2.
func ExampleTokenCache() {
	b := image.NewBuilder(nil)
	b.PutTokens(map[string]*image.Token{"tok-1": {TokenID: "tok-1", Owner: "User:carol", Requester: "User:carol"}})
	img := b.Image(image.EmptyProvenance)
	cache := credential.NewTokenCache(10_000)
	pw, _ := credential.TokenPassword("k", "tok-1")
	for range 2 {
		srv, _ := credential.NewScramServer(img, "SCRAM-SHA-512", credential.Config{TokenSecretKey: "k", TokenCache: cache})
		client, _ := credential.NewScramClient(credential.SHA512, "tok-1", pw, true, nil)
		serverFirst, _, _ := srv.Step(client.First())
		clientFinal, _ := client.Final(serverFirst)
		_, done, err := srv.Step(clientFinal)
		fmt.Println(done, err, cache.Len())
	}
	// Output:
	// true <nil> 1
	// true <nil> 1
}
