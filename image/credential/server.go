package credential

import (
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/image"
)

// Config is what a broker's configuration gives a SCRAM exchange.
type Config struct {
	// TokenSecretKey is delegation.token.secret.key. Like Kafka's ConfigDef
	// (a PASSWORD value is trimmed: String.trim) the key is used without
	// leading and trailing characters up to U+0020; empty disables
	// delegation-token authentication, as it does in Kafka
	// (DelegationTokenManagerConfigs.tokenAuthEnabled).
	TokenSecretKey string
	// Rand is the source of server nonces and of the salts of delegation
	// tokens' derived credentials (Kafka's SecureRandom); nil means
	// crypto/rand.Reader.
	Rand io.Reader
	// TokenCache, when set, keeps each token's derived credential for the
	// next logins (Kafka derives it once per token); nil derives it on
	// every token login.
	TokenCache *TokenCache
}

type serverState uint8

const (
	stateFirst serverState = iota
	stateFinal
	stateComplete
	stateFailed
)

func (s serverState) String() string {
	switch s {
	case stateFirst:
		return "RECEIVE_CLIENT_FIRST_MESSAGE"
	case stateFinal:
		return "RECEIVE_CLIENT_FINAL_MESSAGE"
	case stateComplete:
		return "COMPLETE"
	}
	return "FAILED"
}

// ScramServer is one SCRAM exchange on the server side, Kafka's
// ScramSaslServer with ScramServerCallbackHandler over the credentials and
// delegation tokens of one image. It is single-use and not safe for
// concurrent use.
type ScramServer struct {
	img   *image.Image
	mech  Mechanism
	cfg   Config
	state serverState

	first       ClientFirst
	serverFirst string
	nonce       string
	cred        image.ScramCredential
	login       Login
}

// Login is who a completed exchange authenticated.
type Login struct {
	// Mechanism is the SCRAM mechanism's name.
	Mechanism string
	// User is the authorization id, the name of the principal (of type
	// User) Kafka builds: the user name, or for a delegation token the
	// name of the token's owner.
	User string
	// TokenAuthenticated says the client authenticated with a delegation
	// token (KafkaPrincipal.tokenAuthenticated).
	TokenAuthenticated bool
	// TokenID is the token's id (the SCRAM user name) when
	// TokenAuthenticated.
	TokenID string
	// TokenExpiryMs is the token's expiration timestamp when
	// TokenAuthenticated (the credential lifetime Kafka negotiates).
	TokenExpiryMs int64
}

// SessionLifetimeMs is the session lifetime Kafka sends in the final
// SaslAuthenticate response (SaslServerAuthenticator's
// calcCompletionTimesAndReturnSessionLifetimeMs, KIP-368), at nowMs with
// connections.max.reauth.ms maxReauthMs (0: not set): the token's
// remaining lifetime, the maximum, or the smaller of both, never negative;
// 0 when neither applies. An expired token that is still in the image
// authenticates with lifetime 0.
func (l Login) SessionLifetimeMs(nowMs, maxReauthMs int64) int64 {
	maxSet := maxReauthMs > 0
	switch {
	case !l.TokenAuthenticated && !maxSet:
		return 0
	case !l.TokenAuthenticated:
		return maxReauthMs
	case !maxSet:
		return max(l.TokenExpiryMs-nowMs, 0)
	}
	return max(min(l.TokenExpiryMs-nowMs, maxReauthMs), 0)
}

// NewScramServer starts an exchange of mechanism ("SCRAM-SHA-256" or
// "SCRAM-SHA-512") over img's credentials and tokens. An unknown mechanism
// is an *Error of kind ErrUnsupportedMechanism
// (ScramSaslServerFactory.createSaslServer).
func NewScramServer(img *image.Image, mechanism string, cfg Config) (*ScramServer, error) {
	m, ok := MechanismByName(mechanism)
	if !ok {
		return nil, newError(ErrUnsupportedMechanism, "Requested mechanism '"+mechanism+
			"' is not supported. Supported mechanisms are '"+mechanismNames+"'.")
	}
	if img == nil {
		img = image.Empty()
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	cfg.TokenSecretKey = javaTrim(cfg.TokenSecretKey)
	return &ScramServer{img: img, mech: m, cfg: cfg}, nil
}

// Step takes the client's next message and returns the server's answer
// (ScramSaslServer.evaluateResponse): the client-first message gives the
// server-first message, the client-final message the server-final message
// with done true. A failure is an *Error (see its Code, Responds and
// ClientMessage) and ends the exchange; any other error is the random
// source's.
func (s *ScramServer) Step(msg []byte) (out []byte, done bool, err error) {
	switch s.state {
	case stateFirst:
		out, err = s.stepFirst(msg)
	case stateFinal:
		out, err = s.stepFinal(msg)
		done = err == nil
	default:
		// Kafka's IllegalSaslStateException is an AuthenticationException:
		// evaluateResponse's catch fails the exchange (even a completed one).
		err = newError(ErrState, "Unexpected challenge in Sasl server state "+s.state.String())
	}
	if err != nil {
		s.state, s.cred, s.first = stateFailed, image.ScramCredential{}, ClientFirst{}
		return nil, false, err
	}
	return out, done, nil
}

// Login returns who the exchange authenticated, once Step has returned
// done.
func (s *ScramServer) Login() (Login, bool) {
	return s.login, s.state == stateComplete
}

// Mechanism is the exchange's mechanism.
func (s *ScramServer) Mechanism() Mechanism { return s.mech }

func (s *ScramServer) stepFirst(msg []byte) ([]byte, error) {
	cf, err := ParseClientFirst(msg)
	if err != nil {
		return nil, err
	}
	serverNonce, err := randomString(s.cfg.Rand)
	if err != nil {
		return nil, err
	}
	username, err := Username(cf.SaslName)
	if err != nil {
		return nil, newError(ErrMalformed, "Authentication failed: Credentials could not be obtained")
	}
	login := Login{Mechanism: s.mech.Name(), User: username}
	var cred image.ScramCredential
	found := false
	if cf.TokenAuth() {
		tok, owner, ok := s.token(username)
		if !ok {
			return nil, newError(ErrUnknownToken, "Token Authentication failed: Invalid tokenId : "+username)
		}
		login.User, login.TokenAuthenticated, login.TokenID, login.TokenExpiryMs = owner, true, tok.TokenID, tok.ExpirationTimestamp
		derive := func() (image.ScramCredential, error) {
			salt, err := randomString(s.cfg.Rand)
			if err != nil {
				return image.ScramCredential{}, err
			}
			return TokenCredential(s.mech, s.cfg.TokenSecretKey, username, []byte(salt))
		}
		if s.cfg.TokenCache != nil {
			cred, err = s.cfg.TokenCache.credential(s.mech, username, s.cfg.TokenSecretKey, derive)
		} else {
			cred, err = derive()
		}
		if err != nil {
			return nil, err
		}
		found = true
	} else {
		cred, found = s.img.Scram().Get(image.ScramKey{Mechanism: int8(s.mech), User: username})
	}
	if !found {
		return nil, newError(ErrUnknownUser, "Authentication failed: Invalid user credentials")
	}
	if cf.AuthzID != "" && cf.AuthzID != username {
		return nil, newError(ErrAuthzID, "Authentication failed: Client requested an authorization id that is different from username")
	}
	if cred.Iterations < MinIterations {
		return nil, newError(ErrIterations, "Iterations "+strconv.Itoa(int(cred.Iterations))+
			" is less than the minimum 4096 for "+strings.ReplaceAll(s.mech.Name(), "-", "_"))
	}
	s.first, s.cred, s.login = cf, cred, login
	s.nonce = cf.Nonce + serverNonce
	s.serverFirst = serverFirst(s.nonce, cred.Salt, cred.Iterations)
	s.state = stateFinal
	return []byte(s.serverFirst), nil
}

// token finds delegation token id in the image and its owner's name
// (DelegationTokenCache.owner: the name of the owner principal, parsed as
// SecurityUtils.parseKafkaPrincipal). Without a secret key Kafka's cache
// holds no token (DelegationTokenManager cannot compute their HMACs).
func (s *ScramServer) token(id string) (image.Token, string, bool) {
	if s.cfg.TokenSecretKey == "" {
		return image.Token{}, "", false
	}
	tok, ok := s.img.Tokens().Get(id)
	if !ok {
		return tok, "", false
	}
	_, name, ok := strings.Cut(tok.Owner, ":")
	if !ok {
		return tok, "", false
	}
	return tok, name, true
}

func (s *ScramServer) stepFinal(msg []byte) ([]byte, error) {
	cf, err := ParseClientFinal(msg)
	if err != nil {
		return nil, err
	}
	if cf.Nonce != s.nonce {
		return nil, newError(ErrNonce, "Invalid client nonce in the final client message.")
	}
	auth := []byte(s.first.Bare() + "," + s.serverFirst + "," + cf.WithoutProof())
	if len(s.cred.StoredKey) == 0 {
		return nil, newError(ErrProofLength, "Empty key")
	}
	sig := s.mech.hmac(s.cred.StoredKey, auth)
	if len(cf.Proof) != len(sig) {
		return nil, newError(ErrProofLength, "Argument arrays must be of the same length")
	}
	for i := range sig {
		sig[i] ^= cf.Proof[i]
	}
	if !hmac.Equal(s.mech.digest(sig), s.cred.StoredKey) {
		return nil, newError(ErrBadProof, "Invalid client credentials")
	}
	if len(s.cred.ServerKey) == 0 {
		return nil, newError(ErrProofLength, "Empty key")
	}
	serverSig := s.mech.hmac(s.cred.ServerKey, auth)
	s.state, s.cred, s.first = stateComplete, image.ScramCredential{}, ClientFirst{}
	return []byte("v=" + base64.StdEncoding.EncodeToString(serverSig)), nil
}

// TokenHMAC is a delegation token's HMAC, DelegationTokenManager.createHmac:
// HmacSHA512 keyed with the secret key's UTF-8 bytes over the token id's.
// The key is trimmed as Kafka's ConfigDef trims it; an empty key is an
// error (Kafka disables tokens).
func TokenHMAC(secretKey, tokenID string) ([]byte, error) {
	secretKey = javaTrim(secretKey)
	if secretKey == "" {
		return nil, errNoSecretKey
	}
	return SHA512.hmac([]byte(secretKey), []byte(tokenID)), nil
}

// TokenPassword is the password a client authenticates a token with: the
// HMAC in standard base64 (DelegationToken.hmacAsBase64String).
func TokenPassword(secretKey, tokenID string) (string, error) {
	h, err := TokenHMAC(secretKey, tokenID)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(h), nil
}

// TokenCredential is the SCRAM credential of mechanism m Kafka derives for a
// token (DelegationTokenManager.prepareScramCredentials): the token's
// password at 4096 iterations with salt. Kafka draws the salt at random
// once per token (a base-36 string's bytes, as NewScramServer does); the
// result is only ever checked against the client's proof.
func TokenCredential(m Mechanism, secretKey, tokenID string, salt []byte) (image.ScramCredential, error) {
	pw, err := TokenPassword(secretKey, tokenID)
	if err != nil {
		return image.ScramCredential{}, err
	}
	return m.CredentialFromPassword(pw, salt, MinIterations)
}

var errNoSecretKey = errors.New("credential: no delegation.token.secret.key: delegation tokens are disabled")

// javaTrim is Java's String.trim: leading and trailing characters up to
// U+0020 removed (ConfigDef.parseType trims every string and password).
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}
