package image

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"slices"

	"github.com/kmeta-go/kmeta/record"
)

// Redacted replaces secrets in WriteJSON's output.
const Redacted = "[redacted]"

// WriteJSONOptions tune one WriteJSON call.
type WriteJSONOptions struct {
	// Sensitive reports whether the config key name of a resource type
	// (ConfigResource.Type id) holds a secret; its value is then printed as
	// Redacted. Nil treats every config value as sensitive, as Kafka's
	// NodeStringifier does when given no criteria
	// (MetadataNodeRedactionCriteria.Strict). redact.IsSensitive (package
	// image/redact) is Kafka's Normal criterion: PASSWORD-typed and unknown
	// configs only.
	Sensitive func(resourceType ConfigType, name string) bool
	// Unredacted prints secrets (SCRAM salts and keys, delegation token ids,
	// sensitive config values) in clear. The default redacts them.
	Unredacted bool
	// Indent, if non-empty, indents the output with this string.
	Indent string
}

// The JSON shape of WriteJSON. Field order is fixed; lists are sorted as
// documented on each field, so equal images print identical bytes.
type jsonImage struct {
	Provenance     jsonProvenance   `json:"provenance"`
	Features       jsonFeatures     `json:"features"`
	Brokers        []jsonBroker     `json:"brokers"`     // by id
	Controllers    []jsonController `json:"controllers"` // by id
	Topics         []jsonTopic      `json:"topics"`      // by name
	Configs        []jsonConfig     `json:"configs"`     // by type, then name
	ClientQuotas   []jsonQuota      `json:"clientQuotas"`
	NextProducerID int64            `json:"nextProducerId"`
	ACLs           []jsonACL        `json:"acls"`             // by id bytes
	Scram          []jsonScram      `json:"scramCredentials"` // by mechanism, user
	Tokens         []jsonToken      `json:"delegationTokens"` // by token id
}

type jsonProvenance struct {
	LastContainedOffset    int64 `json:"lastContainedOffset"`
	LastContainedEpoch     int32 `json:"lastContainedEpoch"`
	LastContainedLogTimeMs int64 `json:"lastContainedLogTimeMs"`
	BatchAligned           bool  `json:"isOffsetBatchAligned"`
}

type jsonFeatures struct {
	MetadataVersion      *string          `json:"metadataVersion"` // null when absent
	MetadataVersionLevel int16            `json:"metadataVersionLevel"`
	Finalized            map[string]int16 `json:"finalized"`
}

type jsonEndpoint struct {
	Name             string `json:"name"`
	Host             string `json:"host"`
	Port             uint16 `json:"port"`
	SecurityProtocol string `json:"securityProtocol"`
}

type jsonRange struct {
	Name string `json:"name"`
	Min  int16  `json:"minSupportedVersion"`
	Max  int16  `json:"maxSupportedVersion"`
}

type jsonBroker struct {
	ID                   int32          `json:"id"`
	Epoch                int64          `json:"epoch"`
	IncarnationID        string         `json:"incarnationId"`
	Listeners            []jsonEndpoint `json:"listeners"`
	SupportedFeatures    []jsonRange    `json:"supportedFeatures"`
	Rack                 *string        `json:"rack"`
	Fenced               bool           `json:"fenced"`
	InControlledShutdown bool           `json:"inControlledShutdown"`
	IsMigratingZKBroker  bool           `json:"isMigratingZkBroker"`
	Directories          []string       `json:"directories"`
	// CordonedDirectories: null until the broker reports them (KIP-1066),
	// in the order the controller recorded them.
	CordonedDirectories []string `json:"cordonedDirectories"`
}

type jsonController struct {
	ID                int32          `json:"id"`
	IncarnationID     string         `json:"incarnationId"`
	ZKMigrationReady  bool           `json:"zkMigrationReady"`
	Listeners         []jsonEndpoint `json:"listeners"`
	SupportedFeatures []jsonRange    `json:"supportedFeatures"`
}

type jsonPartition struct {
	Partition           int32    `json:"partition"`
	Replicas            []int32  `json:"replicas"`
	Directories         []string `json:"directories"`
	ISR                 []int32  `json:"isr"`
	RemovingReplicas    []int32  `json:"removingReplicas"`
	AddingReplicas      []int32  `json:"addingReplicas"`
	ELR                 []int32  `json:"elr"`
	LastKnownELR        []int32  `json:"lastKnownElr"`
	Leader              int32    `json:"leader"`
	LeaderRecoveryState string   `json:"leaderRecoveryState"`
	LeaderEpoch         int32    `json:"leaderEpoch"`
	PartitionEpoch      int32    `json:"partitionEpoch"`
}

type jsonTopic struct {
	Name       string          `json:"name"`
	ID         string          `json:"id"`
	Partitions []jsonPartition `json:"partitions"` // by partition id
}

type jsonConfig struct {
	ResourceType int8              `json:"resourceType"`
	ResourceName string            `json:"resourceName"`
	Configs      map[string]string `json:"configs"`
}

type jsonEntityPart struct {
	Type string  `json:"entityType"`
	Name *string `json:"entityName"`
}

type jsonQuota struct {
	Entity []jsonEntityPart   `json:"entity"`
	Quotas map[string]float64 `json:"quotas"`
}

type jsonACL struct {
	ID             string `json:"id"`
	ResourceType   int8   `json:"resourceType"`
	ResourceName   string `json:"resourceName"`
	PatternType    int8   `json:"patternType"`
	Principal      string `json:"principal"`
	Host           string `json:"host"`
	Operation      int8   `json:"operation"`
	PermissionType int8   `json:"permissionType"`
}

type jsonScram struct {
	Mechanism  string `json:"mechanism"`
	User       string `json:"user"`
	Salt       string `json:"salt"`
	StoredKey  string `json:"storedKey"`
	ServerKey  string `json:"serverKey"`
	Iterations int32  `json:"iterations"`
}

type jsonToken struct {
	TokenID             string   `json:"tokenId"`
	Owner               string   `json:"owner"`
	Requester           string   `json:"requester"`
	Renewers            []string `json:"renewers"`
	IssueTimestamp      int64    `json:"issueTimestamp"`
	MaxTimestamp        int64    `json:"maxTimestamp"`
	ExpirationTimestamp int64    `json:"expirationTimestamp"`
}

func uuidStrings(us []record.UUID) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.String()
	}
	return out
}

func jsonEndpoints(es []Endpoint) []jsonEndpoint {
	out := make([]jsonEndpoint, len(es))
	for i, e := range es {
		out[i] = jsonEndpoint{e.Name, e.Host, e.Port, securityProtocolName(e.SecurityProtocol)}
	}
	return out
}

func jsonRanges(rs []VersionRange) []jsonRange {
	out := make([]jsonRange, len(rs))
	for i, r := range rs {
		out[i] = jsonRange(r)
	}
	return out
}

// WriteJSON writes img as one JSON document in kmeta's own shape (the dump
// tool's image view): provenance, features, brokers, controllers, topics
// with partitions, configs, client quotas, next producer id, ACLs, SCRAM
// credentials and delegation tokens, in a deterministic order. Secrets are
// redacted unless opts.Unredacted: SCRAM salts, stored and server keys,
// delegation token ids (with the server's secret they make the token's
// HMAC), and config values opts.Sensitive reports (every config value when
// it is nil).
func WriteJSON(w io.Writer, img *Image, opts WriteJSONOptions) error {
	secret := func(s string) string {
		if opts.Unredacted {
			return s
		}
		return Redacted
	}
	p := img.provenance
	out := jsonImage{
		Provenance:     jsonProvenance(p),
		NextProducerID: img.producerID,
		Brokers:        []jsonBroker{}, Controllers: []jsonController{}, Topics: []jsonTopic{}, Configs: []jsonConfig{},
		ClientQuotas: []jsonQuota{}, ACLs: []jsonACL{}, Scram: []jsonScram{}, Tokens: []jsonToken{},
	}
	out.Features.Finalized = map[string]int16{}
	if mv, ok := img.features.MetadataVersion(); ok {
		s := mv.String()
		out.Features.MetadataVersion, out.Features.MetadataVersionLevel = &s, int16(mv)
	}
	for _, f := range img.features.finalized {
		out.Features.Finalized[f.Name] = f.Level
	}
	for b := range img.cluster.Brokers() {
		out.Brokers = append(out.Brokers, jsonBrokerOf(b))
	}
	for c := range img.cluster.Controllers() {
		out.Controllers = append(out.Controllers, jsonController{c.id, c.incarnationID.String(), c.zkMigrationReady,
			jsonEndpoints(c.listeners), jsonRanges(c.features)})
	}
	for _, t := range img.topics.Sorted() {
		out.Topics = append(out.Topics, jsonTopicOf(t.t))
	}
	for res, es := range img.configs.resources() {
		jc := jsonConfig{ResourceType: int8(res.Type), ResourceName: res.Name, Configs: map[string]string{}}
		for _, e := range es {
			v := e.Value
			if opts.Sensitive == nil || opts.Sensitive(res.Type, e.Name) {
				v = secret(v)
			}
			jc.Configs[e.Name] = v
		}
		out.Configs = append(out.Configs, jc)
	}
	for _, q := range img.quotas.Entities() {
		jq := jsonQuota{Quotas: map[string]float64{}}
		for _, p := range q.Parts() {
			jq.Entity = append(jq.Entity, jsonEntityPart(p))
		}
		for _, v := range q.values {
			jq.Quotas[v.Key] = v.Value
		}
		out.ClientQuotas = append(out.ClientQuotas, jq)
	}
	for a := range img.acls.All() {
		out.ACLs = append(out.ACLs, jsonACL{a.ID.String(), a.ResourceType, a.ResourceName, a.PatternType, a.Principal, a.Host, a.Operation, a.PermissionType})
	}
	b64 := base64.StdEncoding.EncodeToString
	it := img.scram.m.Iterator()
	for !it.Done() {
		k, c, _ := it.Next()
		out.Scram = append(out.Scram, jsonScram{ScramMechanismName(k.Mechanism), k.User, secret(b64(c.Salt)),
			secret(b64(c.StoredKey)), secret(b64(c.ServerKey)), c.Iterations})
	}
	for t := range img.tokens.All() {
		out.Tokens = append(out.Tokens, jsonToken{secret(t.TokenID), t.Owner, t.Requester, slices.Clone(t.Renewers),
			t.IssueTimestamp, t.MaxTimestamp, t.ExpirationTimestamp})
		if out.Tokens[len(out.Tokens)-1].Renewers == nil {
			out.Tokens[len(out.Tokens)-1].Renewers = []string{}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if opts.Indent != "" {
		enc.SetIndent("", opts.Indent)
	}
	return enc.Encode(out)
}

// jsonBrokerOf is WriteJSON's view of broker b.
func jsonBrokerOf(b *Broker) jsonBroker {
	jb := jsonBroker{ID: b.id, Epoch: b.epoch, IncarnationID: b.incarnationID.String(), Listeners: jsonEndpoints(b.listeners),
		SupportedFeatures: jsonRanges(b.features), Fenced: b.fenced, InControlledShutdown: b.inControlledShutdown,
		IsMigratingZKBroker: b.migratingZK, Directories: uuidStrings(b.dirs)}
	if b.cordonedSet {
		jb.CordonedDirectories = uuidStrings(b.cordoned)
	}
	if r, ok := b.Rack(); ok {
		jb.Rack = &r
	}
	return jb
}

// jsonTopicOf is WriteJSON's view of topic t and its partitions.
func jsonTopicOf(t *topic) jsonTopic {
	jt := jsonTopic{Name: t.name, ID: t.id.String(), Partitions: make([]jsonPartition, 0, len(t.parts))}
	for i := range t.parts {
		p := &t.parts[i]
		rs := "RECOVERED"
		if p.recovery == LeaderRecovering {
			rs = "RECOVERING"
		}
		jt.Partitions = append(jt.Partitions, jsonPartition{Partition: p.id, Replicas: p.Replicas(),
			Directories: uuidStrings(p.Directories()), ISR: p.ISR(), RemovingReplicas: p.RemovingReplicas(),
			AddingReplicas: p.AddingReplicas(), ELR: p.ELR(), LastKnownELR: p.LastKnownELR(), Leader: p.leader,
			LeaderRecoveryState: rs, LeaderEpoch: p.leaderEpoch, PartitionEpoch: p.partitionEpoch})
	}
	return jt
}

// WriteRecordsJSONL writes the writer path's records (Image.Write with
// opts) as Kafka's JSON envelope lines, one per record, as in
// vectors/snapshots/*/snapshot-records.jsonl (the dump tool's
// -image-records). Secrets are printed as Kafka's own converters print them:
// this is a faithful record dump, not a redacted view.
func WriteRecordsJSONL(w io.Writer, img *Image, opts WriteOptions) error {
	var line []byte
	return img.Write(opts, func(r record.Record, v int16) error {
		var err error
		line, err = record.AppendEnvelopeJSON(line[:0], r, v)
		if err != nil {
			return err
		}
		line = append(line, '\n')
		_, err = w.Write(line)
		return err
	})
}
