package credential

import (
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"strconv"
	"strings"
)

// ScramClient is the client side of one SCRAM exchange, Kafka's
// ScramSaslClient: what a proxy uses to log in to a cluster, and tests to
// log in to a ScramServer. It is single-use and not safe for concurrent
// use.
type ScramClient struct {
	mech     Mechanism
	password string
	first    ClientFirst
	auth     string
	salted   []byte
	state    uint8
}

// NewScramClient starts an exchange as user with password. tokenAuth adds
// the extension tokenauth=true (the user is then a token id and the
// password its HMAC in base64, TokenPassword). rnd draws the client nonce
// (nil: crypto/rand.Reader).
func NewScramClient(m Mechanism, user, password string, tokenAuth bool, rnd io.Reader) (*ScramClient, error) {
	if !m.Valid() {
		return nil, newError(ErrUnsupportedMechanism, "invalid mechanism "+strconv.Itoa(int(m)))
	}
	if rnd == nil {
		rnd = rand.Reader
	}
	nonce, err := randomString(rnd)
	if err != nil {
		return nil, err
	}
	c := &ScramClient{mech: m, password: password, first: ClientFirst{SaslName: SaslName(user), Nonce: nonce}}
	if tokenAuth {
		c.first.Extensions = []Extension{{Key: "tokenauth", Value: "true"}}
	}
	return c, nil
}

// First is the client-first message ("n,," and the bare message,
// ClientFirstMessage.toMessage).
func (c *ScramClient) First() []byte { return []byte("n,," + c.first.Bare()) }

// Final takes the server-first message and returns the client-final
// message with the proof (ScramSaslClient's RECEIVE_SERVER_FIRST_MESSAGE):
// the server's nonce must extend the client's and its iteration count be at
// least 4096.
func (c *ScramClient) Final(serverFirstMsg []byte) ([]byte, error) {
	if c.state != 0 {
		return nil, newError(ErrState, "Unexpected challenge in Sasl client state")
	}
	c.state = 2
	m := serverFirstRE.FindSubmatch(serverFirstMsg)
	if m == nil {
		return nil, newError(ErrMalformed, "Invalid SCRAM server first message format: "+javaString(serverFirstMsg))
	}
	iter, err := strconv.ParseInt(string(m[3]), 10, 32)
	if err != nil || iter <= 0 {
		return nil, newError(ErrMalformed, "Invalid SCRAM server first message format: invalid iterations")
	}
	nonce := string(m[1])
	salt, _ := base64.StdEncoding.DecodeString(string(m[2]))
	if !strings.HasPrefix(nonce, c.first.Nonce) {
		return nil, newError(ErrNonce, "Invalid server nonce: does not start with client nonce")
	}
	if iter < MinIterations {
		return nil, newError(ErrIterations, "Requested iterations "+string(m[3])+" is less than the minimum 4096 for "+
			strings.ReplaceAll(c.mech.Name(), "-", "_"))
	}
	c.salted, err = c.mech.SaltedPassword(c.password, salt, int(iter))
	if err != nil {
		return nil, err
	}
	final := ClientFinal{ChannelBinding: []byte("n,,"), Nonce: nonce}
	c.auth = c.first.Bare() + "," + serverFirst(nonce, salt, int32(iter)) + "," + final.WithoutProof()
	clientKey := c.mech.hmac(c.salted, []byte("Client Key"))
	proof := c.mech.hmac(c.mech.digest(clientKey), []byte(c.auth))
	for i := range proof {
		proof[i] ^= clientKey[i]
	}
	c.state = 1
	return []byte(final.WithoutProof() + ",p=" + base64.StdEncoding.EncodeToString(proof)), nil
}

// Verify checks the server-final message's signature
// (ScramSaslClient.handleServerFinalMessage); an "e=" message is an error
// naming the server's error.
func (c *ScramClient) Verify(serverFinalMsg []byte) error {
	if c.state != 1 {
		return newError(ErrState, "Unexpected challenge in Sasl client state")
	}
	c.state = 2
	m := serverFinalRE.FindSubmatch(serverFinalMsg)
	if m == nil {
		return newError(ErrMalformed, "Invalid SCRAM server final message format: "+javaString(serverFinalMsg))
	}
	if m[1] != nil {
		return errors.New("credential: Sasl authentication using " + strings.ReplaceAll(c.mech.Name(), "-", "_") +
			" failed with error: " + string(m[1]))
	}
	sig, _ := base64.StdEncoding.DecodeString(string(m[2]))
	want := c.mech.hmac(c.mech.hmac(c.salted, []byte("Server Key")), []byte(c.auth))
	if !hmac.Equal(sig, want) {
		return newError(ErrBadProof, "Invalid server signature in server final message")
	}
	return nil
}
