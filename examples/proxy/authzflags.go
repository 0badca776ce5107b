package main

import (
	"errors"
	"flag"
	"log"
	"strings"

	"github.com/kmeta-go/kmeta/epoch/proxy"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
)

// authzFlags are the authorization flags of the upstream mode.
type authzFlags struct {
	acls, superUsers string
	metadataDir      string
	allowEveryone    bool
	passThrough      bool
	imageAuthz       bool
}

func newAuthzFlags(fs *flag.FlagSet) *authzFlags {
	a := &authzFlags{}
	fs.StringVar(&a.acls, "acls", "", "file of ACLs (one ACCESS_CONTROL_ENTRY_RECORD JSON a line) every request is authorized against (-upstream)")
	fs.StringVar(&a.metadataDir, "metadata.dir", "", "a cluster's metadata directory (__cluster_metadata-0), followed: its ACLs authorize requests and its SCRAM credentials and tokens check SASL logins (-upstream)")
	fs.StringVar(&a.superUsers, "super.users", "", "principals allowed everything, separated by ';' (Kafka's super.users)")
	fs.BoolVar(&a.allowEveryone, "allow.everyone.if.no.acl.found", false, "allow a resource no ACL names (Kafka's allow.everyone.if.no.acl.found)")
	fs.BoolVar(&a.imageAuthz, "authz", false, "image mode: answer as a broker with an authorizer over the image's own ACLs (Metadata lists what the client may DESCRIBE); with -upstream requests are always authorized")
	fs.BoolVar(&a.passThrough, "authz.pass-through", false, "DANGEROUS: forward every request unauthorized, every client acting as the proxy's own principal upstream")
	return a
}

// authorizer is the StandardAuthorizer over -acls, or nil with
// -authz.pass-through.
func (a *authzFlags) authorizer() (authz.Authorizer, error) {
	if a.acls != "" && a.metadataDir != "" {
		return nil, errors.New("-acls and -metadata.dir: choose one source of ACLs")
	}
	if a.passThrough {
		if a.acls != "" {
			return nil, errors.New("-authz.pass-through and -acls: choose one")
		}
		return nil, nil
	}
	var acls *image.ACLs
	if a.acls != "" {
		var err error
		if acls, err = proxy.LoadACLFile(a.acls); err != nil {
			return nil, err
		}
	} else if a.metadataDir == "" {
		log.Printf("proxy: no -acls: only super.users%s are allowed anything", map[bool]string{true: " and resources no ACL names (allow.everyone.if.no.acl.found)"}[a.allowEveryone])
	}
	return authz.New(acls, a.config()), nil
}

// config is the authorizer's configuration from the flags.
func (a *authzFlags) config() authz.Config {
	cfg := authz.Config{AllowIfNoACLFound: a.allowEveryone, MetadataVersion: image.MV4_4_IV2}
	for _, s := range strings.Split(a.superUsers, ";") {
		if s = strings.TrimSpace(s); s != "" {
			cfg.SuperUsers = append(cfg.SuperUsers, s)
		}
	}
	return cfg
}
