package credential

import (
	"encoding/base64"
	"regexp"
	"strconv"
	"strings"
)

// The grammar of ScramMessages.AbstractScramMessage, as Go regular
// expressions: Java's class intersections ([\x01-\x7F&&[^=,]]) written as
// ranges. Go's leftmost-first matching picks the captures Java's
// backtracking Matcher.matches picks, and, like Java on a UTF-8-decoded
// string, matches no byte outside ASCII.
const (
	reValue     = `[\x01-\x2B\x2D-\x7F]+`
	rePrintable = `[\x21-\x2B\x2D-\x7E]+`
	reSaslName  = `(?:[\x01-\x2B\x2D-\x3C\x3E-\x7F]|=2C|=3D)+`
	reBase64    = `(?:[a-zA-Z0-9/+]{4})*(?:[a-zA-Z0-9/+]{3}=|[a-zA-Z0-9/+]{2}==)?`
	reReserved  = `(?:m=` + reValue + `,)?`
	reExts      = `(?:,[A-Za-z]+=` + reValue + `)*`
)

// clientFirstRE is ScramMessages.ClientFirstMessage's pattern: groups 1
// authzid, 2 saslname, 3 nonce, 4 extensions.
var clientFirstRE = regexp.MustCompile(`^n,(?:a=(` + reSaslName + `))?,` + reReserved +
	`n=(` + reSaslName + `),r=(` + rePrintable + `)(` + reExts + `)$`)

// clientFinalRE is ScramMessages.ClientFinalMessage's pattern: groups 1
// channel binding, 2 nonce, 3 proof.
var clientFinalRE = regexp.MustCompile(`^c=(` + reBase64 + `),r=(` + rePrintable + `)` + reExts +
	`,p=(` + reBase64 + `)$`)

// serverFirstRE is ScramMessages.ServerFirstMessage's pattern: groups 1
// nonce, 2 salt, 3 iterations.
var serverFirstRE = regexp.MustCompile(`^` + reReserved + `r=(` + rePrintable + `),s=(` + reBase64 +
	`),i=([0-9]+)` + reExts + `$`)

// serverFinalRE is ScramMessages.ServerFinalMessage's pattern: groups 1
// error, 2 signature. Java's alternation binds the extensions to the
// signature branch only.
var serverFinalRE = regexp.MustCompile(`^(?:(?:e=([\x01-\x2B\x2D-\x3C\x3E-\x7F]+))|(?:v=(` + reBase64 + `))` + reExts + `)$`)

// Extension is one SCRAM extension of a client-first message (key=value).
type Extension struct {
	Key, Value string
}

// ClientFirst is a parsed client-first message
// (ScramMessages.ClientFirstMessage).
type ClientFirst struct {
	// AuthzID is the gs2 header's authorization id as sent (still
	// SASL-escaped), "" when absent.
	AuthzID string
	// SaslName is the user name as sent, SASL-escaped (=2C, =3D).
	SaslName string
	// Nonce is the client's nonce.
	Nonce string
	// Extensions are the distinct extension keys in the order they first
	// appear, each with its last value (Utils.parseMap into a map).
	Extensions []Extension
}

// ParseClientFirst parses a client-first message as
// ScramMessages.ClientFirstMessage does. The reserved "m=" part is
// accepted and dropped, as Kafka drops it.
func ParseClientFirst(msg []byte) (ClientFirst, error) {
	m := clientFirstRE.FindSubmatch(msg)
	if m == nil {
		return ClientFirst{}, newError(ErrMalformed, "Invalid SCRAM client first message format: "+javaString(msg))
	}
	cf := ClientFirst{AuthzID: string(m[1]), SaslName: string(m[2]), Nonce: string(m[3])}
	if len(m[4]) > 0 {
		cf.Extensions = parseExtensions(string(m[4][1:]))
	}
	return cf, nil
}

// parseExtensions is Utils.parseMap(s, "=", ","): each element split at its
// first "=", a later key replacing an earlier one's value.
func parseExtensions(s string) []Extension {
	var out []Extension
	for elem := range strings.SplitSeq(s, ",") {
		k, v, _ := strings.Cut(elem, "=")
		replaced := false
		for i := range out {
			if out[i].Key == k {
				out[i].Value, replaced = v, true
			}
		}
		if !replaced {
			out = append(out, Extension{Key: k, Value: v})
		}
	}
	return out
}

// Extension returns the value of extension key and whether it was sent.
func (cf ClientFirst) Extension(key string) (string, bool) {
	for _, e := range cf.Extensions {
		if e.Key == key {
			return e.Value, true
		}
	}
	return "", false
}

// TokenAuth says whether the client asks for delegation-token
// authentication: extension tokenauth is "true" in any case
// (ScramExtensions.tokenAuthenticated, Boolean.parseBoolean).
func (cf ClientFirst) TokenAuth() bool {
	v, _ := cf.Extension("tokenauth")
	return strings.EqualFold(v, "true")
}

// Bare is the client-first-message-bare Kafka signs
// (ClientFirstMessage.clientFirstMessageBare): "n=<saslname>,r=<nonce>" and
// the extensions, rebuilt from the parsed message. With two or more
// distinct extension keys Kafka's order is that of an immutable Java map,
// which varies from one JVM to the next; Bare keeps the client's order.
func (cf ClientFirst) Bare() string {
	var b strings.Builder
	b.WriteString("n=")
	b.WriteString(cf.SaslName)
	b.WriteString(",r=")
	b.WriteString(cf.Nonce)
	for _, e := range cf.Extensions {
		b.WriteByte(',')
		b.WriteString(e.Key)
		b.WriteByte('=')
		b.WriteString(e.Value)
	}
	return b.String()
}

// ClientFinal is a parsed client-final message
// (ScramMessages.ClientFinalMessage).
type ClientFinal struct {
	// ChannelBinding is the decoded c= value (Kafka does not check it).
	ChannelBinding []byte
	// Nonce is the combined nonce the client echoes.
	Nonce string
	// Proof is the decoded client proof.
	Proof []byte
}

// ParseClientFinal parses a client-final message as
// ScramMessages.ClientFinalMessage does; extensions before the proof are
// accepted and dropped.
func ParseClientFinal(msg []byte) (ClientFinal, error) {
	m := clientFinalRE.FindSubmatch(msg)
	if m == nil {
		return ClientFinal{}, newError(ErrMalformed, "Invalid SCRAM client final message format: "+javaString(msg))
	}
	cb, err1 := base64.StdEncoding.DecodeString(string(m[1]))
	proof, err2 := base64.StdEncoding.DecodeString(string(m[3]))
	if err1 != nil || err2 != nil { // unreachable: the pattern admits only decodable base64
		return ClientFinal{}, newError(ErrMalformed, "Invalid SCRAM client final message format: "+javaString(msg))
	}
	return ClientFinal{ChannelBinding: cb, Nonce: string(m[2]), Proof: proof}, nil
}

// WithoutProof is client-final-message-without-proof as Kafka signs it
// (ClientFinalMessage.clientFinalMessageWithoutProof): the channel binding
// re-encoded and the nonce, extensions dropped.
func (cf ClientFinal) WithoutProof() string {
	return "c=" + base64.StdEncoding.EncodeToString(cf.ChannelBinding) + ",r=" + cf.Nonce
}

// serverFirst is ServerFirstMessage.toMessage.
func serverFirst(nonce string, salt []byte, iterations int32) string {
	return "r=" + nonce + ",s=" + base64.StdEncoding.EncodeToString(salt) + ",i=" + strconv.Itoa(int(iterations))
}

// javaString is new String(b, UTF_8) for an error message: invalid UTF-8
// becomes U+FFFD.
func javaString(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }

// Username is ScramFormatter.username: the SASL name unescaped (=2C is a
// comma, =3D an equals sign); any other "=" is an error.
func Username(saslName string) (string, error) {
	u := strings.ReplaceAll(saslName, "=2C", ",")
	if strings.Contains(strings.ReplaceAll(u, "=3D", ""), "=") {
		return "", newError(ErrMalformed, "Invalid username: "+saslName)
	}
	return strings.ReplaceAll(u, "=3D", "="), nil
}

// SaslName is ScramFormatter.saslName: "=" escaped as =3D, then "," as =2C.
func SaslName(username string) string {
	return strings.ReplaceAll(strings.ReplaceAll(username, "=", "=3D"), ",", "=2C")
}
