package credential

import (
	"crypto/sha256"
	"crypto/sha512"
	"hash"

	"github.com/kmeta-go/kmeta/image"
)

// Mechanism is a SCRAM mechanism (ScramMechanism), its value the type byte
// of UserScramCredentialRecord: SHA256 or SHA512. Other values are not
// mechanisms (Valid is false).
type Mechanism int8

// The SCRAM mechanisms Kafka supports (ScramMechanism's constants).
const (
	// SHA256 is SCRAM-SHA-256 (type 1, SHA-256, HmacSHA256).
	SHA256 = Mechanism(image.ScramSHA256)
	// SHA512 is SCRAM-SHA-512 (type 2, SHA-512, HmacSHA512).
	SHA512 = Mechanism(image.ScramSHA512)
)

// Kafka's iteration bounds, the same for both mechanisms
// (ScramMechanism.minIterations, maxIterations).
const (
	MinIterations = 4096
	MaxIterations = 16384
)

// MechanismByName returns the mechanism Kafka names name
// (ScramMechanism.forMechanismName; case-sensitive, as Kafka's map is).
func MechanismByName(name string) (Mechanism, bool) {
	switch name {
	case "SCRAM-SHA-256":
		return SHA256, true
	case "SCRAM-SHA-512":
		return SHA512, true
	}
	return 0, false
}

// Name is Kafka's name of the mechanism ("SCRAM-SHA-256"), or "UNKNOWN".
func (m Mechanism) Name() string { return image.ScramMechanismName(int8(m)) }

// Valid says whether m is SHA256 or SHA512.
func (m Mechanism) Valid() bool { return m == SHA256 || m == SHA512 }

// Size is the length in bytes of the mechanism's hash (32 or 64): of a
// stored key, a server key and a client proof.
func (m Mechanism) Size() int {
	if m == SHA512 {
		return sha512.Size
	}
	return sha256.Size
}

func (m Mechanism) hash() func() hash.Hash {
	if m == SHA512 {
		return sha512.New
	}
	return sha256.New
}

// mechanismNames is Kafka's list of names in an error message: the key set
// of ScramMechanism's HashMap, whose iteration order for these two names
// is SCRAM-SHA-512 first.
const mechanismNames = "[SCRAM-SHA-512, SCRAM-SHA-256]"
