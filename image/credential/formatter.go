package credential

import (
	"crypto/hmac"
	"crypto/pbkdf2"

	"fmt"
	"io"
	"math/big"

	"github.com/kmeta-go/kmeta/image"
)

// SaltedPassword is Hi(password, salt, iterations) of RFC 5802, Kafka's
// ScramFormatter.saltedPassword: PBKDF2 with the mechanism's HMAC and one
// block of output. The password's UTF-8 bytes are used as they are
// (ScramFormatter.normalize does no SASLprep). An empty password or a
// non-positive iteration count is an error (Java's SecretKeySpec refuses an
// empty key).
func (m Mechanism) SaltedPassword(password string, salt []byte, iterations int) ([]byte, error) {
	if !m.Valid() {
		return nil, fmt.Errorf("credential: invalid mechanism %d", m)
	}
	if password == "" {
		return nil, fmt.Errorf("credential: empty password (Java's SecretKeySpec: Empty key)")
	}
	if iterations < 1 {
		return nil, fmt.Errorf("credential: iterations %d < 1", iterations)
	}
	return pbkdf2.Key(m.hash(), password, salt, iterations, m.Size())
}

// Credential is ScramFormatter.generateCredential(salt, saltedPassword,
// iterations): the stored key H(HMAC(saltedPassword, "Client Key")) and the
// server key HMAC(saltedPassword, "Server Key") a broker keeps for a user.
func (m Mechanism) Credential(salt, saltedPassword []byte, iterations int32) image.ScramCredential {
	clientKey := m.hmac(saltedPassword, []byte("Client Key"))
	return image.ScramCredential{
		Salt:       append([]byte(nil), salt...),
		StoredKey:  m.digest(clientKey),
		ServerKey:  m.hmac(saltedPassword, []byte("Server Key")),
		Iterations: iterations,
	}
}

// CredentialFromPassword is ScramFormatter.generateCredential(password,
// iterations) with the salt given: SaltedPassword, then Credential.
func (m Mechanism) CredentialFromPassword(password string, salt []byte, iterations int32) (image.ScramCredential, error) {
	sp, err := m.SaltedPassword(password, salt, int(iterations))
	if err != nil {
		return image.ScramCredential{}, err
	}
	return m.Credential(salt, sp, iterations), nil
}

func (m Mechanism) hmac(key, msg []byte) []byte {
	h := hmac.New(m.hash(), key)
	h.Write(msg)
	return h.Sum(nil)
}

func (m Mechanism) digest(b []byte) []byte {
	h := m.hash()()
	h.Write(b)
	return h.Sum(nil)
}

// randomString is ScramFormatter.secureRandomString: new BigInteger(130,
// random).toString(36). BigInteger draws 17 bytes and keeps the low 130
// bits of their big-endian value; the digits are lower-case, without
// leading zeros. Server nonces and the salts of delegation tokens' derived
// credentials are such strings.
func randomString(r io.Reader) (string, error) {
	var b [17]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("credential: random source: %w", err)
	}
	b[0] &= 0x03 // 17*8-130 = 6 excess bits
	return new(big.Int).SetBytes(b[:]).Text(36), nil
}
