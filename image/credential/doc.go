// Package credential lets a broker (or a proxy in front of one) log clients
// in from an image alone, as a Kafka 4.4 broker does: SCRAM-SHA-256 and
// SCRAM-SHA-512 against the image's SCRAM credentials (Kafka's
// ScramSaslServer, ScramFormatter, ScramMessages and
// ScramServerCallbackHandler), and delegation tokens (tokenauth=true)
// against the image's tokens with the HMAC and SCRAM credentials Kafka's
// DelegationTokenManager derives from delegation.token.secret.key.
//
// # API in short
//
//	tokens := credential.NewTokenCache(100_000) // one per listener: each token's PBKDF2 paid once
//	srv, err := credential.NewScramServer(img, "SCRAM-SHA-512",
//	    credential.Config{TokenSecretKey: key, TokenCache: tokens})
//	// err: *Error of kind ErrUnsupportedMechanism for an unknown mechanism
//	out, done, err := srv.Step(clientFirst) // -> server-first, done false
//	out, done, err = srv.Step(clientFinal)  // -> server-final ("v=..."), done true
//	login, ok := srv.Login()                // login.User: the principal's name (a token's owner),
//	                                        // login.TokenAuthenticated, TokenID, TokenExpiryMs
//	lifetime := login.SessionLifetimeMs(nowMs, connectionsMaxReauthMs) // KIP-368
//
// Every failed check is an *Error: Kind names the check (ErrMalformed,
// ErrUnknownUser, ErrUnknownToken, ErrAuthzID, ErrIterations, ErrNonce,
// ErrBadProof, ErrProofLength, ErrState), Message is the message of
// Kafka's exception (for the log: it may name the user), Code the error
// code of Kafka's answer (SASL_AUTHENTICATION_FAILED for a SaslAuthenticate
// failure), ClientMessage(mechanism, reauth) the SaslAuthenticate error
// message Kafka sends (the generic "Authentication failed during
// authentication due to invalid credentials with SASL mechanism ..." except
// for ErrAuthzID, whose message Kafka sends as it is), and Responds false
// where Kafka closes the connection without an answer (a proof of the wrong
// length, Step after the end). A broker answers a SaslHandshake for a
// mechanism MechanismByName does not know with UNSUPPORTED_SASL_MECHANISM.
//
// ScramClient is ScramSaslClient, for a proxy's own login upstream and for
// tests. TokenHMAC, TokenPassword and TokenCredential are
// DelegationTokenManager's derivations; Mechanism's SaltedPassword,
// Credential and CredentialFromPassword are ScramFormatter's.
//
// # What Kafka does that this package does too
//
// Kafka checks neither the channel binding (c=) nor the server's maximum
// iteration count, drops the reserved m= part and client-final extensions
// when it rebuilds the signed messages, compares the requested
// authorization id as sent (escaped) with the unescaped user name, and
// authenticates a token that has expired but is still in the image (with a
// session lifetime of 0). Token credentials are derived at 4096 iterations
// with a random base-36 salt; Kafka derives them once per token when the
// image changes, this package on a token's first login when a TokenCache
// is given (else on every token login: one PBKDF2 of 4096 iterations).
//
// One exception: when a client-first message carries two or more distinct
// extension keys, Kafka signs them in the iteration order of an immutable
// Java map, which differs from one JVM to the next (a runtime-only value);
// this package signs them in the client's order.
package credential
