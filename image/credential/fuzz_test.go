package credential_test

import (
	"testing"

	"github.com/kmeta-go/kmeta/image/credential"
)

// FuzzScramMessages: any bytes as a client-first and then a client-final
// message give an answer or a typed *credential.Error, never a panic; a
// parsed client-first message's Bare form parses again to the same fields.
func FuzzScramMessages(f *testing.F) {
	img := testImage(f)
	for _, s := range []string{"n,,n=alice,r=abc", "n,a=alice,m=x,n=alice,r=abc,tokenauth=true", "n,,n=tok1,r=x,tokenauth=TRUE",
		"n,,n==2C=3D,r=!", "c=biws,r=abc,p=AAAA"} {
		f.Add([]byte(s), []byte("c=biws,r=abc,ext=1,p=AAAA"))
	}
	f.Fuzz(func(t *testing.T, first, final []byte) {
		if cf, err := credential.ParseClientFirst(first); err == nil {
			again, err := credential.ParseClientFirst([]byte("n,," + cf.Bare()))
			if err != nil || again.Bare() != cf.Bare() {
				t.Fatalf("Bare %q does not parse back: %v", cf.Bare(), err)
			}
		}
		srv, err := credential.NewScramServer(img, "SCRAM-SHA-256", credential.Config{TokenSecretKey: secret, Rand: seeded(4)})
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range [][]byte{first, final, final} {
			out, _, err := srv.Step(msg)
			if err != nil {
				if _, ok := err.(*credential.Error); !ok {
					t.Fatalf("untyped error %v", err)
				}
				return
			}
			if len(out) == 0 {
				t.Fatal("empty answer")
			}
		}
	})
}
