package main

import (
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/record"
)

// The shell's tree is the tree of Kafka's kafka-metadata-shell: RootShellNode
// holds /local and /image, and /image is MetadataImageNode with the children
// of org.apache.kafka.image.node (provenance, features, cluster/brokers,
// cluster/controllers, topics/byName, topics/byId, configs, clientQuotas,
// producerIds, acls/byId, scram, delegationToken), each leaf printing what
// Kafka's node prints.

// node is MetadataNode: a directory with children, or a leaf that prints
// text.
type node interface {
	isDir() bool
	children() []string // sorted
	child(name string) node
	text() string // a leaf's output (MetadataLeafNode.print)
}

type leaf string

func (leaf) isDir() bool              { return false }
func (leaf) children() []string       { return nil }
func (leaf) child(string) node        { return nil }
func (l leaf) text() string           { return string(l) }
func newLeaf(f string, a ...any) leaf { return leaf(fmt.Sprintf(f, a...)) }

// dir is a directory whose children are made on demand.
type dir struct {
	names func() []string
	get   func(name string) node
}

func (dir) isDir() bool              { return true }
func (d dir) children() []string     { n := d.names(); slices.Sort(n); return n }
func (d dir) child(name string) node { return d.get(name) }
func (dir) text() string             { return "" }

// fixed is a directory with a fixed set of children.
func fixed(m map[string]func() node) dir {
	return dir{
		names: func() []string {
			out := make([]string, 0, len(m))
			for k := range m {
				out = append(out, k)
			}
			return out
		},
		get: func(name string) node {
			if f, ok := m[name]; ok {
				return f()
			}
			return nil
		},
	}
}

// toolVersion and toolCommit are what /local prints (AppInfoParser's
// version and commit id in Kafka's shell): the module version and VCS
// revision Go stamped into the binary, "unknown" when none was.
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "unknown"
}

func toolCommit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// shellRoot is RootShellNode over img.
func shellRoot(img *image.Image, unredacted bool) node {
	return fixed(map[string]func() node{
		// LocalShellNode: the tool's own version and commit.
		"local": func() node {
			return fixed(map[string]func() node{
				"version":  func() node { return leaf(toolVersion()) },
				"commitId": func() node { return leaf(toolCommit()) },
			})
		},
		"image": func() node { return imageNode(img, unredacted) },
	})
}

// imageNode is MetadataImageNode.
func imageNode(img *image.Image, unredacted bool) node {
	return fixed(map[string]func() node{
		"provenance": func() node {
			// ProvenanceNode: "offset N, epoch E, time ISO_ZONED_DATE_TIME".
			p := img.Provenance()
			return newLeaf("offset %d, epoch %d, time %s", p.LastContainedOffset, p.LastContainedEpoch, isoZoned(p.LastContainedLogTimeMs))
		},
		"features":     func() node { return featuresNode(img.Features()) },
		"cluster":      func() node { return clusterNode(img.Cluster()) },
		"topics":       func() node { return topicsNode(img.Topics()) },
		"configs":      func() node { return configsNode(img.Configs(), unredacted) },
		"clientQuotas": func() node { return quotasNode(img.ClientQuotas()) },
		"producerIds": func() node {
			return fixed(map[string]func() node{"nextProducerId": func() node { return newLeaf("%d", img.NextProducerID()) }})
		},
		"acls":            func() node { return fixed(map[string]func() node{"byId": func() node { return aclsNode(img.ACLs()) }}) },
		"scram":           func() node { return scramNode(img.Scram(), unredacted) },
		"delegationToken": func() node { return tokensNode(img.Tokens(), unredacted) },
	})
}

// isoZoned prints ms as DateTimeFormatter.ISO_ZONED_DATE_TIME prints a UTC
// ZonedDateTime: seconds always, the fraction only when not zero, then
// "Z[UTC]".
func isoZoned(ms int64) string {
	s := fmtMs(ms) // 2006-01-02T15:04:05.000Z
	base, frac := s[:19], s[20:23]
	if frac == "000" {
		return base + "Z[UTC]"
	}
	return base + "." + frac + "Z[UTC]"
}

// featuresNode is FeaturesImageNode: metadataVersion and finalized_<name>.
func featuresNode(f *image.Features) node {
	return dir{
		names: func() []string {
			out := []string{"metadataVersion"}
			for _, l := range f.Finalized() {
				out = append(out, "finalized_"+l.Name)
			}
			return out
		},
		get: func(name string) node {
			if name == "metadataVersion" {
				return leaf(f.EffectiveMetadataVersion().String())
			}
			if k, ok := strings.CutPrefix(name, "finalized_"); ok {
				return newLeaf("%d", f.Level(k))
			}
			return nil
		},
	}
}

// clusterNode is ClusterImageNode: brokers/<id> and controllers/<id>, each
// printing the registration's toString.
func clusterNode(c *image.Cluster) node {
	return fixed(map[string]func() node{
		"brokers": func() node {
			return dir{
				names: func() []string {
					var out []string
					for b := range c.Brokers() {
						out = append(out, strconv.Itoa(int(b.ID())))
					}
					return out
				},
				get: func(name string) node {
					id, err := strconv.ParseInt(name, 10, 32)
					if err != nil {
						return nil
					}
					if b, ok := c.Broker(int32(id)); ok {
						return leaf(b.String())
					}
					return nil
				},
			}
		},
		"controllers": func() node {
			return dir{
				names: func() []string {
					var out []string
					for b := range c.Controllers() {
						out = append(out, strconv.Itoa(int(b.ID())))
					}
					return out
				},
				get: func(name string) node {
					id, err := strconv.ParseInt(name, 10, 32)
					if err != nil {
						return nil
					}
					if b, ok := c.Controller(int32(id)); ok {
						return leaf(controllerString(b))
					}
					return nil
				},
			}
		},
	})
}

// controllerString is ControllerRegistration.toString.
func controllerString(c *image.Controller) string {
	var s strings.Builder
	fmt.Fprintf(&s, "ControllerRegistration(id=%d, incarnationId=%s, zkMigrationReady=%t, listeners=[", c.ID(), c.IncarnationID(), c.ZKMigrationReady())
	for i, e := range c.Listeners() {
		if i > 0 {
			s.WriteString(", ")
		}
		fmt.Fprintf(&s, "Endpoint(listenerName='%s', securityProtocol=%s, host='%s', port=%d)", e.Name, securityProtocol(e.SecurityProtocol), e.Host, e.Port)
	}
	s.WriteString("], supportedFeatures={")
	for i, f := range c.SupportedFeatures() {
		if i > 0 {
			s.WriteString(", ")
		}
		fmt.Fprintf(&s, "%s: %d-%d", f.Name, f.Min, f.Max)
	}
	s.WriteString("})")
	return s.String()
}

func securityProtocol(p int16) string {
	if n, ok := enumName([]string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}, int(p)); ok {
		return n
	}
	return strconv.Itoa(int(p))
}

func enumName(names []string, i int) (string, bool) {
	if i >= 0 && i < len(names) {
		return names[i], true
	}
	return "", false
}

// topicsNode is TopicsImageNode: byName/<name> and byId/<uuid>, each a
// TopicImageNode with name, id and one leaf per partition printing
// PartitionRegistration.toString.
func topicsNode(ts *image.Topics) node {
	return fixed(map[string]func() node{
		"byName": func() node {
			return dir{
				names: func() []string {
					out := make([]string, 0, ts.Len())
					for t := range ts.All() {
						out = append(out, t.Name())
					}
					return out
				},
				get: func(name string) node {
					if t, ok := ts.ByName(name); ok {
						return topicNode(t)
					}
					return nil
				},
			}
		},
		"byId": func() node {
			return dir{
				names: func() []string {
					out := make([]string, 0, ts.Len())
					for t := range ts.All() {
						out = append(out, t.ID().String())
					}
					return out
				},
				get: func(name string) node {
					id, err := record.ParseUUID(name)
					if err != nil {
						return nil
					}
					if t, ok := ts.ByID(id); ok {
						return topicNode(t)
					}
					return nil
				},
			}
		},
	})
}

func topicNode(t image.Topic) node {
	return dir{
		names: func() []string {
			out := []string{"name", "id"}
			for p := range t.Partitions() {
				out = append(out, strconv.Itoa(int(p.ID())))
			}
			return out
		},
		get: func(name string) node {
			switch name {
			case "name":
				return leaf(t.Name())
			case "id":
				return leaf(t.ID().String())
			}
			id, err := strconv.ParseInt(name, 10, 32)
			if err != nil {
				return nil
			}
			if p, ok := t.Partition(int32(id)); ok {
				return leaf(p.String())
			}
			return nil
		},
	}
}

// configsNode is ConfigurationsImageNode: TYPE or TYPE:name, then one leaf
// per key; sensitive values print [redacted] (MetadataNodeRedactionCriteria)
// unless unredacted.
func configsNode(c *image.Configs, unredacted bool) node {
	return dir{
		names: func() []string {
			var out []string
			for res := range c.Resources() {
				out = append(out, configResourceName(res))
			}
			return out
		},
		get: func(name string) node {
			for res, entries := range c.Resources() {
				if configResourceName(res) != name {
					continue
				}
				es := slices.Clone(entries)
				return dir{
					names: func() []string {
						out := make([]string, len(es))
						for i, e := range es {
							out[i] = e.Name
						}
						return out
					},
					get: func(key string) node {
						for _, e := range es {
							if e.Name == key {
								if !unredacted && redact.IsSensitive(res.Type, key) {
									return leaf(image.Redacted)
								}
								return leaf(e.Value)
							}
						}
						return nil
					},
				}
			}
			return nil
		},
	}
}

// quotasNode is ClientQuotasImageNode: entities named
// clientId(x)_ip(y)_user(z), each a directory of quota keys whose leaves print
// the value as Java prints a Double.
func quotasNode(q *image.ClientQuotas) node {
	return dir{
		names: func() []string {
			var out []string
			for _, e := range q.Entities() {
				out = append(out, quotaEntityName(e))
			}
			return out
		},
		get: func(name string) node {
			for _, e := range q.Entities() {
				if quotaEntityName(e) != name {
					continue
				}
				vals := e.Values()
				return dir{
					names: func() []string {
						out := make([]string, len(vals))
						for i, v := range vals {
							out[i] = v.Key
						}
						return out
					},
					get: func(key string) node {
						for _, v := range vals {
							if v.Key == key {
								return leaf(javaDouble(v.Value))
							}
						}
						return nil
					},
				}
			}
			return nil
		},
	}
}

// quotaEntityName is ClientQuotasImageNode.clientQuotaEntityToString:
// clientId, ip, then user, joined by "_", with \, ( and ) escaped.
func quotaEntityName(e *image.QuotaEntity) string {
	vals := map[string]string{}
	for _, p := range e.Parts() {
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		vals[p.Type] = name
	}
	esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	var parts []string
	for _, k := range []struct{ typ, label string }{{"client-id", "clientId"}, {"ip", "ip"}, {"user", "user"}} {
		if v, ok := vals[k.typ]; ok {
			parts = append(parts, k.label+"("+esc.Replace(v)+")")
		}
	}
	return strings.Join(parts, "_")
}

// javaDouble prints f as Java's Double.toString for the values quotas take.
func javaDouble(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e7 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'E', -1, 64)
	m, e, _ := strings.Cut(s, "E")
	if !strings.Contains(m, ".") {
		m += ".0"
	}
	e = strings.TrimPrefix(e, "+")
	return m + "E" + strings.TrimLeft(e, "0")
}

// aclsNode is AclsImageByIdNode: one leaf per ACL id printing StandardAcl.
func aclsNode(a *image.ACLs) node {
	return dir{
		names: func() []string {
			var out []string
			for acl := range a.All() {
				out = append(out, acl.ID.String())
			}
			return out
		},
		get: func(name string) node {
			id, err := record.ParseUUID(name)
			if err != nil {
				return nil
			}
			if acl, ok := a.Get(id); ok {
				return leaf(aclString(acl))
			}
			return nil
		},
	}
}

// aclString is StandardAcl's record toString.
func aclString(a image.ACL) string {
	name := func(names []string, v int8) string {
		if n, ok := enumName(names, int(v)); ok {
			return n
		}
		return "UNKNOWN"
	}
	return fmt.Sprintf("StandardAcl[resourceType=%s, resourceName=%s, patternType=%s, principal=%s, host=%s, operation=%s, permissionType=%s]",
		name([]string{"UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"}, a.ResourceType),
		a.ResourceName,
		name([]string{"UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"}, a.PatternType),
		a.Principal, a.Host,
		name([]string{"UNKNOWN", "ANY", "ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "CLUSTER_ACTION",
			"DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "CREATE_TOKENS", "DESCRIBE_TOKENS", "TWO_PHASE_COMMIT"}, a.Operation),
		name([]string{"UNKNOWN", "ANY", "DENY", "ALLOW"}, a.PermissionType))
}

// scramNode is ScramImageNode: SCRAM-SHA-256 and SCRAM-SHA-512 always, then
// users, each printing ScramCredentialDataNode's text.
func scramNode(s *image.Scram, unredacted bool) node {
	mechs := map[string]int8{}
	for _, m := range []int8{1, 2} {
		mechs[image.ScramMechanismName(m)] = m
	}
	return dir{
		names: func() []string { return []string{image.ScramMechanismName(1), image.ScramMechanismName(2)} },
		get: func(name string) node {
			m, ok := mechs[name]
			if !ok {
				return nil
			}
			return dir{
				names: func() []string {
					var out []string
					for k := range s.Keys() {
						if k.Mechanism == m {
							out = append(out, k.User)
						}
					}
					return out
				},
				get: func(user string) node {
					c, ok := s.Get(image.ScramKey{Mechanism: m, User: user})
					if !ok {
						return nil
					}
					if !unredacted {
						return leaf("ScramCredentialData(salt=[redacted], storedKey=[redacted], serverKey=[redacted], iterations=[redacted])")
					}
					return newLeaf("ScramCredentialData(salt=%x, storedKey=%x, serverKey=%x, iterations=%d)", c.Salt, c.StoredKey, c.ServerKey, c.Iterations)
				},
			}
		},
	}
}

// tokensNode is DelegationTokenImageNode: one leaf per token id printing
// DelegationTokenDataNode's text.
func tokensNode(ts *image.Tokens, unredacted bool) node {
	return dir{
		names: func() []string {
			var out []string
			for t := range ts.All() {
				out = append(out, t.TokenID)
			}
			return out
		},
		get: func(id string) node {
			t, ok := ts.Get(id)
			if !ok {
				return nil
			}
			r := func(s string) string {
				if unredacted {
					return s
				}
				return image.Redacted
			}
			return newLeaf("DelegationTokenDatatokenId=%s(owner=%s(tokenRequester=%s(renewers=%s, issueTimestamp=%s, maxTimestamp=%s), expiryTimestamp=%s",
				r(t.TokenID), r(t.Owner), r(t.Requester), r(strings.Join(t.Renewers, " ")),
				r(strconv.FormatInt(t.IssueTimestamp, 10)), r(strconv.FormatInt(t.MaxTimestamp, 10)), r(strconv.FormatInt(t.ExpirationTimestamp, 10)))
		},
	}
}

// configResourceName is ConfigurationsImageNode's name of a resource: the
// type, then ":" and the name unless it is the default resource.
func configResourceName(r image.ConfigResource) string {
	t := configTypeName(r.Type)
	if r.Name == "" {
		return t
	}
	return t + ":" + r.Name
}

// configTypeName is ConfigResource.Type's name.
func configTypeName(t image.ConfigType) string {
	switch t {
	case 2:
		return "TOPIC"
	case 4:
		return "BROKER"
	case 8:
		return "BROKER_LOGGER"
	case 16:
		return "CLIENT_METRICS"
	case 32:
		return "GROUP"
	}
	return "UNKNOWN"
}
