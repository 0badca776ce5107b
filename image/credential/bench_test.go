package credential_test

import (
	"testing"

	"github.com/kmeta-go/kmeta/image/credential"
	"github.com/kmeta-go/kmeta/internal/benchtest"
)

// BenchmarkScramServerLogin is the server's side of one SCRAM-SHA-512 login
// from the image (both steps; the client's messages are made once): a few
// HMACs, no PBKDF2: Kafka's server too keeps only the stored and server
// keys.
func BenchmarkScramServerLogin(b *testing.B) {
	img := testImage(b)
	cl, _ := credential.NewScramClient(credential.SHA512, "alice", "alice-pw", false, seeded(2))
	srv, _ := credential.NewScramServer(img, "SCRAM-SHA-512", credential.Config{Rand: seeded(1)})
	sf, _, _ := srv.Step(cl.First())
	final, err := cl.Final(sf)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := benchtest.ProcessCPU()
	for b.Loop() {
		srv, _ := credential.NewScramServer(img, "SCRAM-SHA-512", credential.Config{Rand: seeded(1)})
		srv.Step(cl.First())
		if _, _, err := srv.Step(final); err != nil {
			b.Fatal(err)
		}
	}
	benchtest.ReportCPU(b, start)
}

// BenchmarkScramTokenLogin is the server's side of a delegation-token
// login: dominated by the PBKDF2 of 4096 iterations that derives the
// token's credential (DelegationTokenManager pays it once per token update,
// the client on every login).
func BenchmarkScramTokenLogin(b *testing.B) {
	img := testImage(b)
	pw, _ := credential.TokenPassword(secret, "tok1")
	cl, _ := credential.NewScramClient(credential.SHA512, "tok1", pw, true, seeded(2))
	srv, _ := credential.NewScramServer(img, "SCRAM-SHA-512", credential.Config{TokenSecretKey: secret, Rand: seeded(1)})
	sf, _, _ := srv.Step(cl.First())
	final, err := cl.Final(sf)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := benchtest.ProcessCPU()
	for b.Loop() {
		srv, _ := credential.NewScramServer(img, "SCRAM-SHA-512", credential.Config{TokenSecretKey: secret, Rand: seeded(1)})
		srv.Step(cl.First())
		if _, _, err := srv.Step(final); err != nil {
			b.Fatal(err)
		}
	}
	benchtest.ReportCPU(b, start)
}

// BenchmarkScramTokenLoginCached is a token login with a TokenCache: the
// derivation paid once, as Kafka pays it once per token update.
func BenchmarkScramTokenLoginCached(b *testing.B) {
	img := testImage(b)
	pw, _ := credential.TokenPassword(secret, "tok1")
	cache := credential.NewTokenCache(16)
	cfg := func() credential.Config {
		return credential.Config{TokenSecretKey: secret, Rand: seeded(1), TokenCache: cache}
	}
	cl, _ := credential.NewScramClient(credential.SHA512, "tok1", pw, true, seeded(2))
	srv, _ := credential.NewScramServer(img, "SCRAM-SHA-512", cfg())
	sf, _, _ := srv.Step(cl.First())
	final, err := cl.Final(sf)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := benchtest.ProcessCPU()
	for b.Loop() {
		srv, _ := credential.NewScramServer(img, "SCRAM-SHA-512", cfg())
		srv.Step(cl.First())
		if _, _, err := srv.Step(final); err != nil {
			b.Fatal(err)
		}
	}
	benchtest.ReportCPU(b, start)
}

// BenchmarkSaltedPassword4096 is the PBKDF2 alone (ScramFormatter.hi at
// Kafka's minimum 4096 iterations), the cost a client pays per login.
func BenchmarkSaltedPassword4096(b *testing.B) {
	for _, m := range []credential.Mechanism{credential.SHA256, credential.SHA512} {
		b.Run(m.Name(), func(b *testing.B) {
			b.ReportAllocs()
			start := benchtest.ProcessCPU()
			for b.Loop() {
				if _, err := m.SaltedPassword("alice-pw", []byte("salt"), 4096); err != nil {
					b.Fatal(err)
				}
			}
			benchtest.ReportCPU(b, start)
		})
	}
}
