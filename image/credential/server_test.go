package credential_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/credential"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

const secret = "s3cr3t"

// testImage holds alice's credentials of both mechanisms (password
// "alice-pw"), bob's SCRAM-SHA-256 credential with too few iterations, and
// token "tok1" owned by User:carol expiring at 5000.
func testImage(t testing.TB) *image.Image {
	t.Helper()
	b := image.NewBuilder(nil)
	scram := map[image.ScramKey]*image.ScramCredential{}
	for _, m := range []credential.Mechanism{credential.SHA256, credential.SHA512} {
		c, err := m.CredentialFromPassword("alice-pw", []byte("salt-"+m.Name()), 4096)
		if err != nil {
			t.Fatal(err)
		}
		scram[image.ScramKey{Mechanism: int8(m), User: "alice"}] = &c
	}
	weak, _ := credential.SHA256.CredentialFromPassword("bob-pw", []byte("s"), 4095)
	scram[image.ScramKey{Mechanism: int8(credential.SHA256), User: "bob"}] = &weak
	b.PutScram(scram)
	b.PutTokens(map[string]*image.Token{"tok1": {TokenID: "tok1", Owner: "User:carol", Requester: "User:carol",
		IssueTimestamp: 1000, MaxTimestamp: 9000, ExpirationTimestamp: 5000}})
	return b.Image(image.EmptyProvenance)
}

func seeded(seed uint64) *rand.ChaCha8 {
	var s [32]byte
	s[0] = byte(seed)
	return rand.NewChaCha8(s)
}

// login runs a whole exchange and returns the server's login or the first
// error of either side.
func login(t *testing.T, img *image.Image, m credential.Mechanism, user, pw string, token bool) (credential.Login, error) {
	t.Helper()
	srv, err := credential.NewScramServer(img, m.Name(), credential.Config{TokenSecretKey: secret, Rand: seeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := credential.NewScramClient(m, user, pw, token, seeded(2))
	if err != nil {
		t.Fatal(err)
	}
	sf, done, err := srv.Step(cl.First())
	if err != nil || done {
		return credential.Login{}, err
	}
	cf, err := cl.Final(sf)
	if err != nil {
		t.Fatalf("client final: %v", err)
	}
	fin, done, err := srv.Step(cf)
	if err != nil {
		return credential.Login{}, err
	}
	if !done {
		t.Fatal("not done after the final step")
	}
	if err := cl.Verify(fin); err != nil {
		t.Fatalf("client verify: %v", err)
	}
	l, ok := srv.Login()
	if !ok {
		t.Fatal("Login not ok after done")
	}
	return l, nil
}

func kindOf(err error) credential.ErrorKind {
	var e *credential.Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// TestScramSaslServerLogin: a user's and a token's login over both
// mechanisms, and a wrong password, unknown user, too few iterations,
// unknown token and disabled tokens each fail with ScramSaslServer's check.
func TestScramSaslServerLogin(t *testing.T) {
	img := testImage(t)
	for _, m := range []credential.Mechanism{credential.SHA256, credential.SHA512} {
		l, err := login(t, img, m, "alice", "alice-pw", false)
		if err != nil || l.User != "alice" || l.TokenAuthenticated || l.Mechanism != m.Name() {
			t.Errorf("%s alice: %+v %v", m.Name(), l, err)
		}
		pw, _ := credential.TokenPassword(secret, "tok1")
		l, err = login(t, img, m, "tok1", pw, true)
		if err != nil || l.User != "carol" || !l.TokenAuthenticated || l.TokenID != "tok1" || l.TokenExpiryMs != 5000 {
			t.Errorf("%s token: %+v %v", m.Name(), l, err)
		}
		for _, c := range []struct {
			user, pw string
			token    bool
			want     credential.ErrorKind
		}{
			{"alice", "wrong", false, credential.ErrBadProof},
			{"nobody", "x", false, credential.ErrUnknownUser},
			{"tok1", pw, false, credential.ErrUnknownUser},
			{"alice", "alice-pw", true, credential.ErrUnknownToken},
			{"tok1", "wrong", true, credential.ErrBadProof},
		} {
			if _, err := login(t, img, m, c.user, c.pw, c.token); kindOf(err) != c.want {
				t.Errorf("%s %+v: %v, want %v", m.Name(), c, err, c.want)
			}
		}
	}
	if _, err := login(t, img, credential.SHA256, "bob", "bob-pw", false); kindOf(err) != credential.ErrIterations ||
		!strings.Contains(err.Error(), "Iterations 4095 is less than the minimum 4096 for SCRAM_SHA_256") {
		t.Errorf("bob: %v", err)
	}
	srv, _ := credential.NewScramServer(img, "SCRAM-SHA-256", credential.Config{})
	cl, _ := credential.NewScramClient(credential.SHA256, "tok1", "x", true, nil)
	if _, _, err := srv.Step(cl.First()); kindOf(err) != credential.ErrUnknownToken {
		t.Errorf("tokens disabled: %v", err)
	}
}

// TestScramSaslServerBadInput: malformed messages, a wrong nonce, a proof
// of the wrong length, a foreign authorization id, Step after the end and
// an unknown mechanism are typed errors with Kafka's codes and messages.
func TestScramSaslServerBadInput(t *testing.T) {
	img := testImage(t)
	if _, err := credential.NewScramServer(img, "SCRAM-SHA-1", credential.Config{}); kindOf(err) != credential.ErrUnsupportedMechanism ||
		err.(*credential.Error).Code() != kafkaerr.UnsupportedSaslMechanism {
		t.Errorf("unknown mechanism: %v", err)
	}
	first := func() *credential.ScramServer {
		srv, _ := credential.NewScramServer(img, "SCRAM-SHA-256", credential.Config{Rand: seeded(3)})
		return srv
	}
	for _, msg := range []string{"", "y,,n=alice,r=abc", "n,,n=alice", "n,,n=al=ice,r=abc", "n,,n=alice,r=a,b", "n,,n=alice,r=abc,x", "n,,n=ålice,r=abc"} {
		if _, _, err := first().Step([]byte(msg)); kindOf(err) != credential.ErrMalformed {
			t.Errorf("client-first %q: %v", msg, err)
		}
	}
	srv := first()
	if _, _, err := srv.Step([]byte("n,a=bob,n=alice,r=abc")); kindOf(err) != credential.ErrAuthzID {
		t.Errorf("authzid: %v", err)
	} else if e := err.(*credential.Error); !e.Public() || e.ClientMessage("SCRAM-SHA-256", false) != e.Message {
		t.Errorf("authzid is public: %+v", e)
	}
	if _, _, err := srv.Step([]byte("n,,n=alice,r=abc")); kindOf(err) != credential.ErrState {
		t.Errorf("after failure: %v", err)
	}
	srv = first()
	sf, _, err := srv.Step([]byte("n,,n=alice,r=abc"))
	if err != nil || !bytes.HasPrefix(sf, []byte("r=abc")) {
		t.Fatalf("server-first %q %v", sf, err)
	}
	nonce := strings.TrimPrefix(strings.Split(string(sf), ",")[0], "r=")
	cases := []struct {
		msg  string
		want credential.ErrorKind
	}{
		{"c=biws,r=" + nonce, credential.ErrMalformed},
		{"c=biws,r=" + nonce + "x,p=AAAA", credential.ErrNonce},
		{"c=biws,r=" + nonce + ",p=AAAA", credential.ErrProofLength},
		{"c=biws,r=" + nonce + ",p=" + strings.Repeat("A", 43) + "=", credential.ErrBadProof},
	}
	for _, c := range cases {
		s := first()
		s.Step([]byte("n,,n=alice,r=abc"))
		_, _, err := s.Step([]byte(c.msg))
		if kindOf(err) != c.want {
			t.Errorf("client-final %q: %v, want %v", c.msg, err, c.want)
			continue
		}
		e := err.(*credential.Error)
		if want := c.want != credential.ErrProofLength; e.Responds() != want {
			t.Errorf("%q responds %v", c.msg, e.Responds())
		}
		if e.Code() != kafkaerr.SaslAuthenticationFailed || e.ClientMessage("SCRAM-SHA-256", true) !=
			"Authentication failed during re-authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256" {
			t.Errorf("%q: %v %q", c.msg, e.Code(), e.ClientMessage("SCRAM-SHA-256", true))
		}
	}
}

// TestSessionLifetimeMs: calcCompletionTimesAndReturnSessionLifetimeMs's
// four cases, and 0 for an expired token.
func TestSessionLifetimeMs(t *testing.T) {
	user := credential.Login{User: "alice"}
	tok := credential.Login{User: "carol", TokenAuthenticated: true, TokenExpiryMs: 5000}
	for _, c := range []struct {
		l            credential.Login
		now, maxAuth int64
		want         int64
	}{
		{user, 1000, 0, 0}, {user, 1000, 300, 300}, {tok, 1000, 0, 4000}, {tok, 1000, 300, 300},
		{tok, 1000, 9000, 4000}, {tok, 6000, 0, 0}, {tok, 6000, 300, 0},
	} {
		if got := c.l.SessionLifetimeMs(c.now, c.maxAuth); got != c.want {
			t.Errorf("%+v at %d max %d: %d, want %d", c.l, c.now, c.maxAuth, got, c.want)
		}
	}
}

// TestTokenCacheConcurrent: logins of several tokens share one TokenCache
// from many goroutines (run with -race), each succeeding as the token's
// owner, and the cache holds one credential per token and mechanism within
// its bound.
func TestTokenCacheConcurrent(t *testing.T) {
	b := image.NewBuilder(nil)
	toks := map[string]*image.Token{}
	for i := range 3 {
		id := "t" + string(rune('a'+i))
		toks[id] = &image.Token{TokenID: id, Owner: "User:o" + id, Requester: "User:o" + id}
	}
	b.PutTokens(toks)
	img := b.Image(image.EmptyProvenance)
	cache := credential.NewTokenCache(4)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := "t" + string(rune('a'+g%3))
			pw, _ := credential.TokenPassword(secret, id)
			srv, _ := credential.NewScramServer(img, "SCRAM-SHA-256", credential.Config{TokenSecretKey: secret, TokenCache: cache})
			cl, _ := credential.NewScramClient(credential.SHA256, id, pw, true, nil)
			sf, _, err := srv.Step(cl.First())
			if err != nil {
				t.Error(err)
				return
			}
			cf, _ := cl.Final(sf)
			if _, _, err := srv.Step(cf); err != nil {
				t.Error(err)
			}
			if l, _ := srv.Login(); l.User != "o"+id {
				t.Errorf("login %+v", l)
			}
		}()
	}
	wg.Wait()
	if n := cache.Len(); n < 1 || n > 3 {
		t.Errorf("cache holds %d", n)
	}
}
