package main

import (
	"errors"
	"flag"
	"os"
	"strings"
	"time"

	"github.com/kmeta-go/kmeta/epoch/proxy"
	"github.com/kmeta-go/kmeta/image"
)

// saslFlags are the SASL flags of the upstream mode: the client listeners'
// mechanisms and the proxy's own login upstream.
type saslFlags struct {
	mechanisms, plainUsers, tokenKey string
	maxReauth                        time.Duration
	upMech, upUser, upPassFile       string
}

func newSASLFlags(fs *flag.FlagSet) *saslFlags {
	s := &saslFlags{}
	fs.StringVar(&s.mechanisms, "sasl.enabled.mechanisms", "", "SASL mechanisms clients must authenticate with: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, comma-separated (Kafka's sasl.enabled.mechanisms); none: no SASL")
	fs.StringVar(&s.plainUsers, "sasl.plain.users", "", "file of NAME=PASSWORD lines, PLAIN's users")
	fs.StringVar(&s.tokenKey, "delegation.token.secret.key", "", "accept delegation-token SCRAM logins, with the cluster's delegation.token.secret.key")
	fs.Func("connections.max.reauth.ms", "session lifetime before re-authentication (KIP-368), in ms; 0: none", msFlag(&s.maxReauth))
	fs.StringVar(&s.upMech, "upstream.sasl.mechanism", "", "the proxy's own SASL mechanism to the cluster: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	fs.StringVar(&s.upUser, "upstream.sasl.username", "", "the proxy's own SASL user name to the cluster")
	fs.StringVar(&s.upPassFile, "upstream.sasl.password.file", "", "file holding the proxy's own SASL password to the cluster")
	return s
}

// config is the client listeners' SASL, nil without mechanisms; img gives
// the image SCRAM logins are checked against.
func (s *saslFlags) config(img func() *image.Image) (*proxy.SASLConfig, error) {
	if s.mechanisms == "" {
		return nil, nil
	}
	c := &proxy.SASLConfig{Image: img, TokenSecretKey: s.tokenKey, MaxReauth: s.maxReauth}
	for _, m := range strings.Split(s.mechanisms, ",") {
		m = strings.TrimSpace(m)
		switch m {
		case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
			c.Mechanisms = append(c.Mechanisms, m)
		default:
			return nil, errors.New("-sasl.enabled.mechanisms: unsupported mechanism " + m)
		}
		if m == "PLAIN" {
			if s.plainUsers == "" {
				return nil, errors.New("PLAIN needs -sasl.plain.users")
			}
			users, err := proxy.LoadPlainUsers(s.plainUsers)
			if err != nil {
				return nil, err
			}
			c.PlainUsers = users
		}
	}
	return c, nil
}

// upstream is the proxy's own login upstream, nil without a mechanism.
func (s *saslFlags) upstream() (*proxy.UpstreamSASL, error) {
	if s.upMech == "" {
		return nil, nil
	}
	pass, err := os.ReadFile(s.upPassFile)
	if err != nil {
		return nil, err
	}
	return &proxy.UpstreamSASL{Mechanism: s.upMech, User: s.upUser, Password: strings.TrimSpace(string(pass))}, nil
}
