package delta_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-go/kmeta/delta/deltatest"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/internal/datadriven"
)

// resourceCommands change configs, quotas, ACLs, SCRAM credentials,
// delegation tokens and producer id blocks.
func resourceCommands() []namedCommand {
	return []namedCommand{
		{"alter-configs", scriptCommand{"topic|broker NAME|\"\" KEY=VALUE|KEY=<delete>...", (*replayScript).alterConfigs}},
		{"alter-client-quota", scriptCommand{"user=U|<default> [client-id=C] [ip=I] KEY=VALUE|KEY=<delete>", (*replayScript).alterClientQuota}},
		{"create-acl", scriptCommand{"NAME resource=TYPE:NAME[:prefixed] principal=P op=OP perm=allow|deny [host=H]", (*replayScript).createACL}},
		{"delete-acl", scriptCommand{"NAME", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			id := s.aclID(t, c, pos(t, c, 0))
			return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.DeleteACL(id) })
		}}},
		{"upsert-scram", scriptCommand{"USER sha256|sha512 ITERATIONS PASSWORD", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			user, mech, it, pw := pos(t, c, 0), scramMechanism(t, c), int32(num(t, c, pos(t, c, 2))), pos(t, c, 3)
			return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.UpsertScramCredential(user, mech, it, pw) })
		}}},
		{"delete-scram", scriptCommand{"USER sha256|sha512", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			user, mech := pos(t, c, 0), scramMechanism(t, c)
			return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.DeleteScramCredential(user, mech) })
		}}},
		{"create-token", scriptCommand{"NAME owner=P [renewers=P,...] [max-lifetime=D]", (*replayScript).createToken}},
		{"renew-token", scriptCommand{"NAME PERIOD", (*replayScript).changeToken}},
		{"expire-token", scriptCommand{"NAME PERIOD   (a negative period removes it)", (*replayScript).changeToken}},
		{"allocate-producer-ids", scriptCommand{"BROKER", func(s *replayScript, t *testing.T, c *datadriven.Case) string {
			b := id32(t, c, 0)
			var first int64
			out := s.step(t, c, func(sim *deltatest.Simulator) (err error) { first, err = sim.AllocateProducerIDs(b); return err })
			if out != "ok" {
				return out
			}
			return "first id " + strconv.FormatInt(first, 10)
		}}},
	}
}

func (s *replayScript) alterConfigs(t *testing.T, c *datadriven.Case) string {
	rt := deltatest.TopicResource
	switch pos(t, c, 0) {
	case "topic":
	case "broker":
		rt = deltatest.BrokerResource
	default:
		t.Fatalf("%s: resource type topic or broker", c.Pos)
	}
	name := strings.Trim(pos(t, c, 1), `"`)
	changes := map[string]*string{}
	for _, a := range c.Args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		if v == "<delete>" {
			changes[k] = nil
		} else {
			changes[k] = &v
		}
	}
	return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.AlterConfigs(rt, name, changes) })
}

func (s *replayScript) alterClientQuota(t *testing.T, c *datadriven.Case) string {
	var entity []image.QuotaEntityPart
	var key string
	var value *float64
	for _, a := range c.Args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "user", "client-id", "ip":
			part := image.QuotaEntityPart{Type: k}
			if v != "<default>" {
				part.Name = &v
			}
			entity = append(entity, part)
		default:
			key = k
			if v != "<delete>" {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("%s: %v", c.Pos, err)
				}
				value = &f
			}
		}
	}
	return s.step(t, c, func(sim *deltatest.Simulator) error { return sim.AlterClientQuota(entity, key, value) })
}

var (
	aclResources   = map[string]int8{"topic": int8(authz.ResourceTopic), "group": int8(authz.ResourceGroup), "cluster": int8(authz.ResourceCluster), "transactional-id": int8(authz.ResourceTransactionalID), "delegation-token": int8(authz.ResourceDelegationToken), "user": int8(authz.ResourceUser)}
	aclOperations  = map[string]int8{"all": int8(authz.OpAll), "read": int8(authz.OpRead), "write": int8(authz.OpWrite), "create": int8(authz.OpCreate), "delete": int8(authz.OpDelete), "alter": int8(authz.OpAlter), "describe": int8(authz.OpDescribe), "cluster-action": int8(authz.OpClusterAction), "describe-configs": int8(authz.OpDescribeConfigs), "alter-configs": int8(authz.OpAlterConfigs), "idempotent-write": int8(authz.OpIdempotentWrite)}
	aclPermissions = map[string]int8{"allow": int8(authz.PermissionAllow), "deny": int8(authz.PermissionDeny)}
)

func lookup(t *testing.T, c *datadriven.Case, m map[string]int8, what, v string) int8 {
	n, ok := m[v]
	if !ok {
		t.Fatalf("%s: unknown %s %q", c.Pos, what, v)
	}
	return n
}

// createACL creates an ACL and remembers its id under the script's name.
func (s *replayScript) createACL(t *testing.T, c *datadriven.Case) string {
	name := pos(t, c, 0)
	acl := image.ACL{Host: "*", PatternType: int8(authz.PatternLiteral)}
	for _, a := range c.Args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "resource":
			f := strings.Split(v, ":")
			acl.ResourceType, acl.ResourceName = lookup(t, c, aclResources, "resource type", f[0]), f[1]
			if len(f) > 2 && f[2] == "prefixed" {
				acl.PatternType = int8(authz.PatternPrefixed)
			}
		case "principal":
			acl.Principal = v
		case "host":
			acl.Host = v
		case "op":
			acl.Operation = lookup(t, c, aclOperations, "operation", v)
		case "perm":
			acl.PermissionType = lookup(t, c, aclPermissions, "permission", v)
		}
	}
	return s.step(t, c, func(sim *deltatest.Simulator) error {
		id, err := sim.CreateACL(acl)
		s.names[name] = id.String()
		return err
	})
}

func (s *replayScript) aclID(t *testing.T, c *datadriven.Case, name string) (id [16]byte) {
	v, ok := s.names[name]
	if !ok {
		t.Fatalf("%s: no ACL named %q", c.Pos, name)
	}
	for a := range s.image().ACLs().All() {
		if a.ID.String() == v {
			return a.ID
		}
	}
	t.Fatalf("%s: ACL %q is not in the image", c.Pos, name)
	return id
}

func scramMechanism(t *testing.T, c *datadriven.Case) int8 {
	switch pos(t, c, 1) {
	case "sha256":
		return deltatest.ScramSHA256
	case "sha512":
		return deltatest.ScramSHA512
	}
	t.Fatalf("%s: mechanism sha256 or sha512", c.Pos)
	return 0
}

func (s *replayScript) createToken(t *testing.T, c *datadriven.Case) string {
	name := pos(t, c, 0)
	owner, _ := c.Arg("owner")
	var renewers []string
	if v, ok := c.Arg("renewers"); ok {
		renewers = strings.Split(v, ",")
	}
	var life time.Duration
	if v, ok := c.Arg("max-lifetime"); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("%s: %v", c.Pos, err)
		}
		life = d
	}
	return s.step(t, c, func(sim *deltatest.Simulator) error {
		id, err := sim.CreateDelegationToken(owner, renewers, life)
		s.names[name] = id
		return err
	})
}

func (s *replayScript) changeToken(t *testing.T, c *datadriven.Case) string {
	id, ok := s.names[pos(t, c, 0)]
	if !ok {
		t.Fatalf("%s: no token named %q", c.Pos, pos(t, c, 0))
	}
	d, err := time.ParseDuration(pos(t, c, 1))
	if err != nil {
		t.Fatalf("%s: %v", c.Pos, err)
	}
	return s.step(t, c, func(sim *deltatest.Simulator) error {
		if c.Cmd == "renew-token" {
			return sim.RenewDelegationToken(id, d)
		}
		return sim.ExpireDelegationToken(id, d)
	})
}
