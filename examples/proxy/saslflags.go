package main

import (
	"errors"
	"flag"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kmeta-go/kmeta/epoch/proxy"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/publisher"
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

// imageAuthz is a publisher keeping the latest image of a followed
// metadata directory, and the StandardAuthorizer over its ACLs.
type imageAuthz struct {
	cfg authz.Config
	img atomic.Pointer[image.Image]
	a   atomic.Pointer[authz.Standard]
}

func (p *imageAuthz) Name() string { return "proxy-acls" }
func (p *imageAuthz) Close() error { return nil }
func (p *imageAuthz) OnUpdate(u publisher.Update) error {
	cfg := p.cfg
	if mv, ok := u.Image.Features().MetadataVersion(); ok {
		cfg.MetadataVersion = mv
	}
	p.a.Store(authz.New(u.Image.ACLs(), cfg))
	p.img.Store(u.Image)
	return nil
}

// Authorize asks the authorizer of the latest image (everything denied
// before the first).
func (p *imageAuthz) Authorize(ctx authz.Context, op authz.Operation, rt authz.ResourceType, name string) bool {
	a := p.a.Load()
	return a != nil && a.Authorize(ctx, op, rt, name)
}

// AuthorizeByResourceType is the latest image's.
func (p *imageAuthz) AuthorizeByResourceType(ctx authz.Context, op authz.Operation, rt authz.ResourceType) bool {
	a := p.a.Load()
	return a != nil && a.AuthorizeByResourceType(ctx, op, rt)
}

// image is the latest image, nil before the first.
func (p *imageAuthz) image() *image.Image { return p.img.Load() }
