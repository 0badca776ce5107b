package node

import (
	"strconv"
	"strings"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
	"github.com/kmeta-go/kmeta/record"
)

// Image returns Kafka's MetadataImageNode over img: a directory with the
// children provenance, features, cluster, topics, configs, clientQuotas,
// producerIds, acls, scram and delegationToken (see the package doc). c
// decides what prints as "[redacted]" (MetadataNodeRedactionCriteria); nil
// is redact.Strict. kafka-metadata-shell prints with redact.Disabled.
func Image(img *image.Image, c redact.Criteria) Node {
	if c == nil {
		c = redact.Strict
	}
	return Fixed(map[string]func() Node{
		"provenance":   func() Node { return provenanceNode(img.Provenance()) },
		"features":     func() Node { return featuresNode(img.Features()) },
		"cluster":      func() Node { return clusterNode(img.Cluster()) },
		"topics":       func() Node { return topicsNode(img.Topics()) },
		"configs":      func() Node { return configsNode(img.Configs(), c) },
		"clientQuotas": func() Node { return quotasNode(img.ClientQuotas()) },
		"producerIds": func() Node {
			// ProducerIdsImageNode.
			return Fixed(map[string]func() Node{"nextProducerId": func() Node { return leaff("%d", img.NextProducerID()) }})
		},
		"acls": func() Node {
			// AclsImageNode.
			return Fixed(map[string]func() Node{"byId": func() Node { return aclsNode(img.ACLs()) }})
		},
		"scram":           func() Node { return scramNode(img.Scram(), c) },
		"delegationToken": func() Node { return tokensNode(img.Tokens(), c) },
	})
}

// provenanceNode is ProvenanceNode.
func provenanceNode(p image.Provenance) Node {
	return leaff("offset %d, epoch %d, time %s", p.LastContainedOffset, p.LastContainedEpoch, ISOZoned(p.LastContainedLogTimeMs))
}

// ISOZoned prints ms (milliseconds since the Unix epoch) as Java's
// DateTimeFormatter.ISO_ZONED_DATE_TIME prints it in a UTC ZonedDateTime,
// as ProvenanceNode does: seconds always, then the fraction of a second
// without its trailing zeros (".25", none when zero), then "Z[UTC]".
func ISOZoned(ms int64) string {
	t := time.UnixMilli(ms).UTC()
	frac := strings.TrimRight(t.Format(".000"), "0")
	if frac == "." {
		frac = ""
	}
	return t.Format("2006-01-02T15:04:05") + frac + "Z[UTC]"
}

// featuresNode is FeaturesImageNode: metadataVersion and finalized_<name>.
func featuresNode(f *image.Features) Node {
	return Dir{
		Names: func() []string {
			out := []string{"metadataVersion"}
			for _, l := range f.Finalized() {
				out = append(out, "finalized_"+l.Name)
			}
			return out
		},
		Get: func(name string) Node {
			if name == "metadataVersion" {
				return Leaf(f.EffectiveMetadataVersion().String())
			}
			if k, ok := strings.CutPrefix(name, "finalized_"); ok {
				return leaff("%d", f.Level(k))
			}
			return nil
		},
	}
}

// idDir is a directory of nodes named by an int32 id, as
// ClusterImageBrokersNode and ClusterImageControllersNode are.
func idDir(ids func(yield func(int32) bool), get func(int32) (Node, bool)) Dir {
	return Dir{
		Names: func() []string {
			var out []string
			for id := range ids {
				out = append(out, strconv.Itoa(int(id)))
			}
			return out
		},
		Get: func(name string) Node {
			id, err := strconv.ParseInt(name, 10, 32)
			if err != nil {
				return nil
			}
			if n, ok := get(int32(id)); ok {
				return n
			}
			return nil
		},
	}
}

// clusterNode is ClusterImageNode: brokers/<id> and controllers/<id>, each
// printing the registration's toString.
func clusterNode(c *image.Cluster) Node {
	return Fixed(map[string]func() Node{
		"brokers": func() Node {
			return idDir(func(yield func(int32) bool) {
				for b := range c.Brokers() {
					if !yield(b.ID()) {
						return
					}
				}
			}, func(id int32) (Node, bool) {
				b, ok := c.Broker(id)
				if !ok {
					return nil, false
				}
				return Leaf(b.String()), true
			})
		},
		"controllers": func() Node {
			return idDir(func(yield func(int32) bool) {
				for b := range c.Controllers() {
					if !yield(b.ID()) {
						return
					}
				}
			}, func(id int32) (Node, bool) {
				b, ok := c.Controller(id)
				if !ok {
					return nil, false
				}
				return Leaf(controllerString(b)), true
			})
		},
	})
}

// topicsNode is TopicsImageNode: byName/<name> (TopicsImageByNameNode) and
// byId/<uuid> (TopicsImageByIdNode).
func topicsNode(ts *image.Topics) Node {
	return Fixed(map[string]func() Node{
		"byName": func() Node {
			return Dir{
				Names: func() []string {
					out := make([]string, 0, ts.Len())
					for t := range ts.All() {
						out = append(out, t.Name())
					}
					return out
				},
				Get: func(name string) Node {
					if t, ok := ts.ByName(name); ok {
						return topicNode(t)
					}
					return nil
				},
			}
		},
		"byId": func() Node {
			return Dir{
				Names: func() []string {
					out := make([]string, 0, ts.Len())
					for t := range ts.All() {
						out = append(out, t.ID().String())
					}
					return out
				},
				Get: func(name string) Node {
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

// topicNode is TopicImageNode: name, id, and one leaf per partition
// printing PartitionRegistration.toString.
func topicNode(t image.Topic) Node {
	return Dir{
		Names: func() []string {
			out := []string{"name", "id"}
			for p := range t.Partitions() {
				out = append(out, strconv.Itoa(int(p.ID())))
			}
			return out
		},
		Get: func(name string) Node {
			switch name {
			case "name":
				return Leaf(t.Name())
			case "id":
				return Leaf(t.ID().String())
			}
			id, err := strconv.ParseInt(name, 10, 32)
			if err != nil {
				return nil
			}
			if p, ok := t.Partition(int32(id)); ok {
				return Leaf(p.String())
			}
			return nil
		},
	}
}

// aclsNode is AclsImageByIdNode: one leaf per ACL id printing StandardAcl.
func aclsNode(a *image.ACLs) Node {
	return Dir{
		Names: func() []string {
			var out []string
			for acl := range a.All() {
				out = append(out, acl.ID.String())
			}
			return out
		},
		Get: func(name string) Node {
			id, err := record.ParseUUID(name)
			if err != nil {
				return nil
			}
			if acl, ok := a.Get(id); ok {
				return Leaf(aclString(acl))
			}
			return nil
		},
	}
}
