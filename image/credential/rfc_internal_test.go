package credential

import (
	"encoding/base64"
	"testing"
)

// TestRFC7677Vector: ScramFormatter's derivations and ScramSaslServer's
// final step reproduce the SCRAM-SHA-256 exchange of RFC 7677 section 3
// (user "user", password "pencil"), which Kafka's implementation follows.
func TestRFC7677Vector(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	cred, err := SHA256.CredentialFromPassword("pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	first, err := ParseClientFirst([]byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"))
	if err != nil {
		t.Fatal(err)
	}
	s := &ScramServer{mech: SHA256, state: stateFinal, first: first, cred: cred,
		nonce: "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"}
	s.serverFirst = serverFirst(s.nonce, salt, 4096)
	if want := "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"; s.serverFirst != want {
		t.Fatalf("server-first %q, want %q", s.serverFirst, want)
	}
	out, done, err := s.Step([]byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	if err != nil || !done {
		t.Fatalf("final step: %v %v", done, err)
	}
	if want := "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="; string(out) != want {
		t.Fatalf("server-final %q, want %q", out, want)
	}
}

// TestRandomStringIsBigIntegerBase36: secureRandomString keeps the low 130
// bits of 17 big-endian bytes and prints them in base 36 without leading
// zeros (BigInteger(130, random).toString(36)).
func TestRandomStringIsBigIntegerBase36(t *testing.T) {
	zero := make([]byte, 17)
	if s, _ := randomString(bytesReader(zero)); s != "0" {
		t.Errorf("zero bytes: %q", s)
	}
	ones := make([]byte, 17)
	for i := range ones {
		ones[i] = 0xff
	}
	// 2^130-1 in base 36.
	if s, _ := randomString(bytesReader(ones)); s != "1omfro7zwmumr3umxudzyj6scf" {
		t.Errorf("all ones: %q", s)
	}
}

type bytesReader []byte

func (b bytesReader) Read(p []byte) (int, error) { return copy(p, b), nil }
