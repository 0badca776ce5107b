package credential

import (
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// ErrorKind says which of Kafka's checks a SCRAM exchange failed.
type ErrorKind uint8

// The ways a SCRAM exchange fails, each named after the check of
// ScramSaslServer (or ScramSaslServerFactory) that fails it.
const (
	// ErrUnsupportedMechanism: the mechanism is not SCRAM-SHA-256 or -512
	// (ScramSaslServerFactory.createSaslServer). A broker answers the
	// SaslHandshake with UNSUPPORTED_SASL_MECHANISM before any exchange.
	ErrUnsupportedMechanism ErrorKind = iota + 1
	// ErrMalformed: a message does not match ScramMessages' grammar, or
	// the user name's escapes are invalid.
	ErrMalformed
	// ErrUnknownUser: the image has no credential of the mechanism for the
	// user ("Authentication failed: Invalid user credentials").
	ErrUnknownUser
	// ErrUnknownToken: tokenauth=true and no delegation token with that id
	// is in the image, or token authentication is disabled (no
	// delegation.token.secret.key).
	ErrUnknownToken
	// ErrAuthzID: the client asked for an authorization id other than its
	// user name. Kafka sends this message to the client.
	ErrAuthzID
	// ErrIterations: the credential's iteration count is below 4096.
	ErrIterations
	// ErrNonce: the client-final message's nonce is not the client's nonce
	// followed by the server's.
	ErrNonce
	// ErrBadProof: the client proof does not match the stored key (wrong
	// password).
	ErrBadProof
	// ErrProofLength: the proof's length is not the hash's, or the stored
	// or server key is empty: Java's xor or SecretKeySpec throws an
	// IllegalArgumentException, which a broker does not answer: it closes
	// the connection.
	ErrProofLength
	// ErrState: Step was called after the exchange completed or failed
	// (IllegalSaslStateException).
	ErrState
)

// String names the kind.
func (k ErrorKind) String() string {
	switch k {
	case ErrUnsupportedMechanism:
		return "unsupported mechanism"
	case ErrMalformed:
		return "malformed message"
	case ErrUnknownUser:
		return "unknown user"
	case ErrUnknownToken:
		return "unknown token"
	case ErrAuthzID:
		return "authorization id mismatch"
	case ErrIterations:
		return "too few iterations"
	case ErrNonce:
		return "wrong nonce"
	case ErrBadProof:
		return "invalid proof"
	case ErrProofLength:
		return "invalid proof or key length"
	case ErrState:
		return "illegal state"
	}
	return "unknown"
}

// Error is a failed SCRAM exchange. Its Message is the message of the
// exception Kafka's code throws (for the log: it may name the user); what a
// broker sends the client is ClientMessage.
type Error struct {
	Kind ErrorKind
	// Message is the exception's message in Kafka.
	Message string
}

func newError(k ErrorKind, msg string) *Error { return &Error{Kind: k, Message: msg} }

// Error is "credential: <kind>: <Kafka's message>".
func (e *Error) Error() string { return "credential: " + e.Kind.String() + ": " + e.Message }

// Code is the error code of Kafka's answer: SASL_AUTHENTICATION_FAILED in a
// SaslAuthenticate response for the failed checks,
// UNSUPPORTED_SASL_MECHANISM (in SaslHandshake) for an unknown mechanism,
// ILLEGAL_SASL_STATE for ErrState. For ErrProofLength a broker sends no
// answer at all (Responds is false).
func (e *Error) Code() kafkaerr.Code {
	switch e.Kind {
	case ErrUnsupportedMechanism:
		return kafkaerr.UnsupportedSaslMechanism
	case ErrState:
		return kafkaerr.IllegalSaslState
	}
	return kafkaerr.SaslAuthenticationFailed
}

// Responds says whether a broker answers the failing SaslAuthenticate
// request before closing the connection: false for ErrProofLength (an
// unexpected IllegalArgumentException out of ScramSaslServer) and ErrState
// (an IllegalSaslStateException, which SaslServerAuthenticator does not
// catch).
func (e *Error) Responds() bool { return e.Kind != ErrProofLength && e.Kind != ErrState }

// Public says whether Kafka sends Message itself to the client (a
// SaslAuthenticationException: ErrAuthzID) rather than the generic text.
func (e *Error) Public() bool { return e.Kind == ErrAuthzID }

// ClientMessage is the error message of the SaslAuthenticate response
// Kafka sends (SaslServerAuthenticator.handleSaslToken): Message for a
// public error, else "Authentication failed during authentication due to
// invalid credentials with SASL mechanism <mechanism>" ("re-authentication"
// when reauth).
func (e *Error) ClientMessage(mechanism string, reauth bool) string {
	if e.Public() {
		return e.Message
	}
	what := "authentication"
	if reauth {
		what = "re-authentication"
	}
	return "Authentication failed during " + what + " due to invalid credentials with SASL mechanism " + mechanism
}
