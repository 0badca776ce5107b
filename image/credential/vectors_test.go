package credential_test

import (
	"bytes"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/credential"
	"github.com/kmeta-go/kmeta/internal/kafkaoracle"
)

// javaError is an exception Kafka's code threw: its simple class name and
// message.
type javaError struct {
	Class, Message string
}

// scramVector is one line of cred_scram (harness CredScram): a login run
// by Kafka's ScramSaslClient against Kafka's ScramSaslServer, or a
// mechanism ScramSaslServerFactory was asked for.
type scramVector struct {
	Kind, Scenario, Mechanism string
	Error                     *javaError
	Credentials               []struct {
		User, Mechanism, StoredMechanism, Password string
		Salt, SaltedPassword, StoredKey, ServerKey []byte
		Iterations                                 int32
	}
	SecretKey string
	NowMs     int64
	Tokens    []struct {
		TokenID, Owner, DerivedSalt              string
		Expiry                                   int64
		Hmac, DerivedStoredKey, DerivedServerKey []byte
		DerivedIterations                        int32
		HmacError                                *javaError
	}
	LoginUser, LoginPassword             string
	ClientFirstIntact, ClientFinalIntact []byte
	ClientNonceBytes, ServerNonceBytes   []byte
	FirstMutation, FinalMutation         *string
	Steps                                []struct {
		In, Out []byte
		Error   *javaError
	}
	ClientError        *javaError
	Complete           bool
	AuthorizationID    string
	Tokenauth          *string
	CredentialLifetime *int64
}

// javaClass is the exception Kafka throws for each failed check:
// SaslAuthenticationException for the authorization id (its message goes to
// the client), IllegalArgumentException from xor or SecretKeySpec,
// IllegalSaslStateException after the end, SaslException for the rest.
func javaClass(k credential.ErrorKind) string {
	switch k {
	case credential.ErrAuthzID:
		return "SaslAuthenticationException"
	case credential.ErrProofLength:
		return "IllegalArgumentException"
	case credential.ErrState:
		return "IllegalSaslStateException"
	}
	return "SaslException"
}

func sameError(err error, want *javaError) bool {
	var e *credential.Error
	if !errors.As(err, &e) || want == nil {
		return false
	}
	return javaClass(e.Kind) == want.Class && e.Message == want.Message
}

// TestScramVectors replays every vector of Kafka's SCRAM exchanges:
// ScramFormatter's salted password, stored and server keys;
// DelegationTokenManager's HMAC and derived credentials; ScramSaslClient's
// messages (those with no extension but tokenauth); and ScramSaslServer's
// answer or exception (class and message) to every message, intact or
// damaged, with the authorization id, tokenauth and credential lifetime of
// each completed login.
//
// One exception, counted: with two or more distinct extension keys in the
// client-first message Kafka signs them in the order of an immutable Java
// map, which depends on a per-JVM random salt (ImmutableCollections.SALT),
// so Kafka's own client and server disagree or agree by chance; kmeta signs
// the client's order. For those vectors only the server-first answer is
// compared.
func TestScramVectors(t *testing.T) {
	var multiExt int
	defer func() {
		t.Logf("%d vectors with two or more extensions: only the server-first answer compared", multiExt)
	}()
	kafkaoracle.Decode(t, "cred_scram", func(n int, v *scramVector) {
		t.Run(kafkaoracle.Name("cred_scram", n), func(t *testing.T) {
			if v.Kind == "mechanism" {
				_, err := credential.NewScramServer(nil, v.Mechanism, credential.Config{})
				if !sameError(err, v.Error) {
					t.Fatalf("mechanism %q: %v, Kafka %+v", v.Mechanism, err, v.Error)
				}
				return
			}
			mech, _ := credential.MechanismByName(v.Mechanism)
			img := checkCredentials(t, v)
			tokenSalt := checkTokens(t, v, mech)
			checkClient(t, v, mech)
			rnd := bytes.NewReader(append(append([]byte(nil), v.ServerNonceBytes...), tokenSalt...))
			srv, err := credential.NewScramServer(img, v.Mechanism, credential.Config{TokenSecretKey: v.SecretKey, Rand: rnd})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range v.Steps {
				if cf, err := credential.ParseClientFirst(v.Steps[0].In); i == 1 && err == nil && len(cf.Extensions) >= 2 {
					multiExt++
					return
				}
				out, _, err := srv.Step(s.In)
				if s.Error != nil {
					if !sameError(err, s.Error) {
						t.Fatalf("step %d %q: %q %v, Kafka %+v", i, s.In, out, err, s.Error)
					}
					continue
				}
				if err != nil || !bytes.Equal(out, s.Out) {
					t.Fatalf("step %d %q: %q %v, Kafka %q", i, s.In, out, err, s.Out)
				}
			}
			login, ok := srv.Login()
			if ok != v.Complete {
				t.Fatalf("complete %v, Kafka %v", ok, v.Complete)
			}
			if !ok {
				return
			}
			wantToken := v.Tokenauth != nil && strings.EqualFold(*v.Tokenauth, "true")
			if login.User != v.AuthorizationID || login.TokenAuthenticated != wantToken {
				t.Fatalf("login %+v, Kafka %q tokenauth %v", login, v.AuthorizationID, v.Tokenauth)
			}
			if (v.CredentialLifetime != nil) != login.TokenAuthenticated ||
				(v.CredentialLifetime != nil && *v.CredentialLifetime != login.TokenExpiryMs) {
				t.Fatalf("token expiry %d, Kafka %v", login.TokenExpiryMs, v.CredentialLifetime)
			}
		})
	})
}

// checkCredentials checks ScramFormatter's derivations of the vector's
// credentials and returns an image holding them.
func checkCredentials(t *testing.T, v *scramVector) *image.Image {
	t.Helper()
	b := image.NewBuilder(nil)
	scram := map[image.ScramKey]*image.ScramCredential{}
	for _, c := range v.Credentials {
		m, _ := credential.MechanismByName(c.Mechanism)
		sp, err := m.SaltedPassword(c.Password, c.Salt, int(c.Iterations))
		if err != nil || !bytes.Equal(sp, c.SaltedPassword) {
			t.Fatalf("salted password of %q: %x %v, Kafka %x", c.Password, sp, err, c.SaltedPassword)
		}
		got := m.Credential(c.Salt, sp, c.Iterations)
		if !bytes.Equal(got.StoredKey, c.StoredKey) || !bytes.Equal(got.ServerKey, c.ServerKey) {
			t.Fatalf("credential of %q: %x %x, Kafka %x %x", c.Password, got.StoredKey, got.ServerKey, c.StoredKey, c.ServerKey)
		}
		stored := image.ScramCredential{Salt: c.Salt, StoredKey: c.StoredKey, ServerKey: c.ServerKey, Iterations: c.Iterations}
		sm, _ := credential.MechanismByName(c.StoredMechanism)
		scram[image.ScramKey{Mechanism: int8(sm), User: c.User}] = &stored
	}
	b.PutScram(scram)
	tokens := map[string]*image.Token{}
	for _, tk := range v.Tokens {
		tokens[tk.TokenID] = &image.Token{TokenID: tk.TokenID, Owner: tk.Owner, Requester: tk.Owner, ExpirationTimestamp: tk.Expiry}
	}
	b.PutTokens(tokens)
	return b.Image(image.EmptyProvenance)
}

// checkTokens checks DelegationTokenManager's HMAC and derived credential
// and returns the random bytes Kafka's salt of the derived credential was
// made from (the inverse of secureRandomString).
func checkTokens(t *testing.T, v *scramVector, m credential.Mechanism) []byte {
	t.Helper()
	var salt []byte
	for _, tk := range v.Tokens {
		h, err := credential.TokenHMAC(v.SecretKey, tk.TokenID)
		if tk.HmacError != nil {
			if err == nil {
				t.Fatalf("HMAC with key %q: no error, Kafka %+v", v.SecretKey, tk.HmacError)
			}
			continue
		}
		if err != nil || !bytes.Equal(h, tk.Hmac) {
			t.Fatalf("HMAC of %q: %x %v, Kafka %x", tk.TokenID, h, err, tk.Hmac)
		}
		c, err := credential.TokenCredential(m, v.SecretKey, tk.TokenID, []byte(tk.DerivedSalt))
		if err != nil || tk.DerivedIterations != credential.MinIterations ||
			!bytes.Equal(c.StoredKey, tk.DerivedStoredKey) || !bytes.Equal(c.ServerKey, tk.DerivedServerKey) {
			t.Fatalf("derived credential of %q: %x %v, Kafka %x", tk.TokenID, c.StoredKey, err, tk.DerivedStoredKey)
		}
		n, ok := new(big.Int).SetString(tk.DerivedSalt, 36)
		if !ok {
			t.Fatalf("derived salt %q is not base 36", tk.DerivedSalt)
		}
		salt = n.FillBytes(make([]byte, 17))
	}
	return salt
}

// checkClient checks ScramClient's messages against ScramSaslClient's
// for the vectors whose only extension is tokenauth=true.
func checkClient(t *testing.T, v *scramVector, m credential.Mechanism) {
	t.Helper()
	first := string(v.ClientFirstIntact)
	token := strings.HasSuffix(first, ",tokenauth=true")
	if strings.Count(first, ",") != 3+btoi(token) {
		return
	}
	cl, err := credential.NewScramClient(m, v.LoginUser, v.LoginPassword, token, bytes.NewReader(v.ClientNonceBytes))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(cl.First()); got != first {
		t.Fatalf("client-first %q, Kafka %q", got, first)
	}
	if v.FirstMutation != nil || v.Steps[0].Out == nil {
		return
	}
	fin, err := cl.Final(v.Steps[0].Out)
	if v.ClientError != nil {
		if err == nil {
			t.Fatalf("client-final: no error, Kafka %+v", v.ClientError)
		}
		return
	}
	if err != nil || !bytes.Equal(fin, v.ClientFinalIntact) {
		t.Fatalf("client-final %q %v, Kafka %q", fin, err, v.ClientFinalIntact)
	}
	if v.FinalMutation == nil && v.Complete {
		if err := cl.Verify(v.Steps[1].Out); err != nil {
			t.Fatalf("client verify: %v", err)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
