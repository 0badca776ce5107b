package publisher

import (
	"github.com/kmeta-go/kmeta/image/authz"
)

// ACLPublisher is Kafka's AclPublisher: it keeps an incremental
// StandardAuthorizer (authz.Incremental) in step with the published
// images. A snapshot load (Manifest.Type SnapshotLoad, a newly installed
// publisher's first update included) replaces every ACL
// (ClusterMetadataAuthorizer.loadSnapshot); a log delta applies its ACL
// changes one by one in replay order (Changes.ACLs: addAcl, removeAcl). The
// first update completes the initial load: until then principals other than
// super users get authz.ErrNotReady. Install it with Loader.Install; read
// decisions from Authorizer at any time, from any goroutine.
type ACLPublisher struct {
	name string
	a    *authz.Incremental
}

// NewACLPublisher returns an ACLPublisher named name over an authorizer
// configured with cfg (its MetadataVersion follows each image).
func NewACLPublisher(name string, cfg authz.Config) *ACLPublisher {
	return &ACLPublisher{name: name, a: authz.NewIncremental(cfg)}
}

// Authorizer returns the authorizer the publisher keeps.
func (p *ACLPublisher) Authorizer() *authz.Incremental { return p.a }

// Name returns the publisher's name.
func (p *ACLPublisher) Name() string { return p.name }

// OnUpdate applies the update's ACL changes (AclPublisher.onMetadataUpdate).
func (p *ACLPublisher) OnUpdate(u Update) error {
	if mv, ok := u.Changes.MetadataVersionChanged(); ok || u.Manifest.Type == SnapshotLoad {
		if !ok {
			mv = u.Image.Features().EffectiveMetadataVersion()
		}
		p.a.SetMetadataVersion(mv)
	}
	if u.Manifest.Type == SnapshotLoad {
		p.a.LoadSnapshot(u.Image.ACLs())
	} else {
		for _, c := range u.Changes.ACLs() {
			if c.Removed {
				p.a.Remove(c.ID)
			} else {
				p.a.Add(c.ACL)
			}
		}
	}
	if !p.a.Ready() {
		p.a.CompleteInitialLoad()
	}
	return nil
}

// Close does nothing; the authorizer keeps its last state.
func (p *ACLPublisher) Close() error { return nil }
