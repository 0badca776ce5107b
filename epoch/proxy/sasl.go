package proxy

import (
	"bufio"
	"bytes"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/credential"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// SASLConfig is the SASL of a proxy's client listeners (Kafka's
// sasl.enabled.mechanisms on a SASL_PLAINTEXT or SASL_SSL listener):
// every client authenticates before any request but ApiVersions,
// SaslHandshake (v0, then bare tokens, or v1) and SaslAuthenticate is
// served, as Kafka's SaslServerAuthenticator requires.
type SASLConfig struct {
	// Mechanisms are the enabled mechanisms: PLAIN, SCRAM-SHA-256,
	// SCRAM-SHA-512.
	Mechanisms []string
	// PlainUsers are PLAIN's users and passwords (LoadPlainUsers).
	PlainUsers map[string]string
	// Image gives the image whose SCRAM credentials and delegation tokens
	// SCRAM logins are checked against (image/credential).
	Image func() *image.Image
	// TokenSecretKey is delegation.token.secret.key: delegation-token
	// logins (tokenauth) are accepted when it is set.
	TokenSecretKey string
	// MaxReauth is connections.max.reauth.ms (KIP-368): a session lasts
	// this long, then the client must re-authenticate or its connection
	// is closed on its next request; 0: sessions do not expire (a
	// delegation token's session still ends with the token).
	MaxReauth time.Duration

	tokens *credential.TokenCache
}

// LoadPlainUsers reads PLAIN's users from a file of NAME=PASSWORD lines
// ('#' starts a comment line); an error names the file and line.
func LoadPlainUsers(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	users := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, pass, ok := strings.Cut(line, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%s line %d: want NAME=PASSWORD", path, n)
		}
		users[name] = pass
	}
	return users, sc.Err()
}

// saslConn is one connection's SASL state (SaslServerAuthenticator's).
type saslConn struct {
	state     saslState
	mech      string
	scram     *credential.ScramServer
	reauth    bool      // the exchange is a re-authentication
	expires   time.Time // the session's end; zero: none
	principal string    // of the first authentication: re-authentication keeps it
	raw       bool      // after a SaslHandshake v0: bare tokens
}

type saslState uint8

const (
	saslHandshake     saslState = iota // waiting for SaslHandshake
	saslAuthenticate                   // waiting for SaslAuthenticate
	saslAuthenticated                  // requests served
)

// errReauthRequired ends a connection whose session expired (KIP-368).
var errReauthRequired = errors.New("session expired without re-authentication (connections.max.reauth.ms)")

// saslStep handles a request on a SASL listener before it is served: the
// handshake and authentication requests are answered here (handled, out
// their answer; an error after out closes the connection once it is
// sent); any other request before authentication, or after the session
// expired, closes the connection, as SaslServerAuthenticator does.
func (c *fconn) saslStep(h Header, frame []byte) (out []byte, handled bool, err error) {
	s := c.sasl
	switch h.APIKey {
	case 17:
		return c.saslHandshake(h, frame)
	case 36:
		return c.saslAuthenticate(h, frame)
	case 18:
		if s.state != saslAuthenticated && s.principal == "" {
			return nil, false, nil // ApiVersions before the handshake
		}
	}
	if s.principal == "" {
		return nil, true, fmt.Errorf("unexpected Kafka request of type %d during SASL handshake", h.APIKey)
	}
	if !s.expires.IsZero() && time.Now().After(s.expires) {
		return nil, true, errReauthRequired
	}
	return nil, false, nil
}

func (c *fconn) saslHandshake(h Header, frame []byte) ([]byte, bool, error) {
	s, cfg := c.sasl, c.f.sasl
	req := kmsg.NewPtrSASLHandshakeRequest()
	req.Version = h.APIVersion
	if err := req.ReadFrom(frame[h.Size:]); err != nil {
		return nil, true, err
	}
	resp := kmsg.NewPtrSASLHandshakeResponse()
	resp.Version = h.APIVersion
	resp.SupportedMechanisms = cfg.Mechanisms
	switch {
	case s.state == saslAuthenticate:
		resp.ErrorCode = kafkaerr.IllegalSaslState.Int16()
		return c.respond(h, resp.AppendTo(nil)), true, errors.New("SaslHandshake twice")
	case !slices.Contains(cfg.Mechanisms, req.Mechanism):
		resp.ErrorCode = kafkaerr.UnsupportedSaslMechanism.Int16()
		return c.respond(h, resp.AppendTo(nil)), true, fmt.Errorf("unsupported SASL mechanism %s", req.Mechanism)
	case s.principal != "" && req.Mechanism != s.mech:
		// SaslServerAuthenticator.ReauthInfo: the mechanism cannot change.
		resp.ErrorCode = kafkaerr.IllegalSaslState.Int16()
		return c.respond(h, resp.AppendTo(nil)), true, fmt.Errorf("re-authentication with %s, authenticated with %s", req.Mechanism, s.mech)
	}
	s.mech, s.state, s.reauth, s.scram = req.Mechanism, saslAuthenticate, s.principal != "", nil
	// v0: the tokens that follow are sent bare, each with a 4-byte size
	// and no Kafka header (SaslServerAuthenticator's handleSaslToken for
	// a client without SaslAuthenticate); re-authentication needs v1.
	s.raw = h.APIVersion == 0
	if strings.HasPrefix(s.mech, "SCRAM-") {
		var img *image.Image
		if cfg.Image != nil {
			img = cfg.Image()
		}
		if img == nil {
			img = image.Empty()
		}
		srv, err := credential.NewScramServer(img, s.mech, credential.Config{TokenSecretKey: cfg.TokenSecretKey, TokenCache: cfg.tokens})
		if err != nil {
			return nil, true, err
		}
		s.scram = srv
	}
	return c.respond(h, resp.AppendTo(nil)), true, nil
}

func (c *fconn) saslAuthenticate(h Header, frame []byte) ([]byte, bool, error) {
	s := c.sasl
	req := kmsg.NewPtrSASLAuthenticateRequest()
	req.Version = h.APIVersion
	if err := req.ReadFrom(frame[h.Size:]); err != nil {
		return nil, true, err
	}
	resp := kmsg.NewPtrSASLAuthenticateResponse()
	resp.Version = h.APIVersion
	if s.state != saslAuthenticate {
		resp.ErrorCode = kafkaerr.IllegalSaslState.Int16()
		msg := "Unexpected SaslAuthenticate request: no SaslHandshake"
		resp.ErrorMessage = &msg
		return c.respond(h, resp.AppendTo(nil)), true, errors.New(msg)
	}
	var user string
	var login credential.Login
	var fail error
	if s.scram != nil {
		out, done, err := s.scram.Step(req.SASLAuthBytes)
		if err == nil && !done {
			resp.SASLAuthBytes = out
			return c.respond(h, resp.AppendTo(nil)), true, nil
		}
		if err != nil {
			var ce *credential.Error
			if errors.As(err, &ce) {
				if !ce.Responds() {
					return nil, true, err
				}
				msg := ce.ClientMessage(s.mech, s.reauth)
				resp.ErrorCode, resp.ErrorMessage = int16(ce.Code()), &msg
				return c.respond(h, resp.AppendTo(nil)), true, err
			}
			return nil, true, err
		}
		resp.SASLAuthBytes = out
		login, _ = s.scram.Login()
		user = login.User
	} else {
		user, fail = c.plainLogin(req.SASLAuthBytes)
		if fail != nil {
			msg := fail.Error()
			resp.ErrorCode, resp.ErrorMessage = kafkaerr.SaslAuthenticationFailed.Int16(), &msg
			return c.respond(h, resp.AppendTo(nil)), true, fail
		}
	}
	return c.saslDone(h, resp, "User:"+user, login)
}

// saslDone completes an authentication: the principal, the session's
// lifetime (SaslAuthenticate v1+), and a re-authentication's check that
// the principal did not change.
func (c *fconn) saslDone(h Header, resp *kmsg.SASLAuthenticateResponse, principal string, login credential.Login) ([]byte, bool, error) {
	s, cfg := c.sasl, c.f.sasl
	if s.principal != "" && principal != s.principal {
		msg := fmt.Sprintf("Cannot change principals during re-authentication from %s: %s", s.principal, principal)
		resp.ErrorCode, resp.ErrorMessage, resp.SASLAuthBytes = kafkaerr.IllegalSaslState.Int16(), &msg, nil
		return c.respond(h, resp.AppendTo(nil)), true, errors.New(msg)
	}
	now := time.Now()
	lifetime := login.SessionLifetimeMs(now.UnixMilli(), cfg.MaxReauth.Milliseconds())
	if h.APIVersion >= 1 {
		resp.SessionLifetimeMillis = lifetime
	}
	// A session expires where Kafka gives it an expiration time: a token
	// login (the credential's lifetime) or connections.max.reauth.ms set,
	// even at a lifetime of 0 (a lapsed token still in the image: its
	// first request closes the connection, as SocketServer's Processor
	// closes a channel whose serverAuthenticationSessionExpired).
	s.expires = time.Time{}
	if login.TokenAuthenticated || cfg.MaxReauth > 0 {
		s.expires = now.Add(time.Duration(lifetime) * time.Millisecond)
	}
	s.state, s.principal = saslAuthenticated, principal
	c.sess.principal = principal
	return c.respond(h, resp.AppendTo(nil)), true, nil
}

// plainLogin is Kafka's PlainSaslServer.evaluateResponse: the message is
// [authzid] NUL authcid NUL passwd; the authorization id, if given, must
// be the user name; the password is checked against PlainUsers (in
// constant time). The errors are Kafka's messages, which it sends the
// client.
func (c *fconn) plainLogin(msg []byte) (string, error) {
	parts := bytes.Split(msg, []byte{0})
	if len(parts) != 3 {
		return "", saslFailure(fmt.Sprintf("Invalid SASL/PLAIN response: expected 3 tokens, got %d", len(parts)))
	}
	authzID, user, pass := string(parts[0]), string(parts[1]), string(parts[2])
	switch {
	case user == "":
		return "", saslFailure("Authentication failed: username not specified")
	case pass == "":
		return "", saslFailure("Authentication failed: password not specified")
	case authzID != "" && authzID != user:
		return "", saslFailure("Authentication failed: Client requested an authorization id that is different from username")
	}
	want, ok := c.f.sasl.PlainUsers[user]
	if !ok || subtle.ConstantTimeCompare([]byte(want), []byte(pass)) != 1 {
		return "", saslFailure("Authentication failed: Invalid username or password")
	}
	return user, nil
}

// saslGate runs saslStep on a SASL listener; elsewhere SaslHandshake and
// SaslAuthenticate are answered ILLEGAL_SASL_STATE, as KafkaApis answers
// them on a listener without SASL, and never forwarded.
func (c *fconn) saslGate(h Header, frame []byte) ([]byte, bool, error) {
	if c.sasl != nil {
		return c.saslStep(h, frame)
	}
	if h.APIKey != 17 && h.APIKey != 36 {
		return nil, false, nil
	}
	out, ok := errorResponse(h.APIKey, h.APIVersion, h.CorrelationID, kafkaerr.IllegalSaslState.Int16())
	if !ok {
		return nil, true, fmt.Errorf("api %d v%d on a listener without SASL", h.APIKey, h.APIVersion)
	}
	return out, true, nil
}

// saslFailure is an authentication failure whose message is Kafka's, sent
// to the client as it is (a SaslAuthenticationException's).
type saslFailure string

func (e saslFailure) Error() string { return string(e) }

// rawToken handles a bare SASL token after a SaslHandshake v0 (the frame
// is the token itself): it goes through the SaslAuthenticate path as a v0
// request would, and its answer is sent bare too (size, token). A failure
// closes the connection, as Kafka closes it (a bare token has no error
// field).
func (c *fconn) rawToken(token []byte) ([]byte, error) {
	req := kmsg.NewPtrSASLAuthenticateRequest()
	req.SASLAuthBytes = token
	out, _, err := c.saslAuthenticate(Header{APIKey: 36}, req.AppendTo(nil))
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrSASLAuthenticateResponse()
	if err := resp.ReadFrom(out[8:]); err != nil { // after the size and correlation id
		return nil, err
	}
	if c.sasl.state == saslAuthenticated {
		c.sasl.raw = false
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(resp.SASLAuthBytes))), resp.SASLAuthBytes...), nil
}
