package image

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/record"
)

// DiffKind names the kind of entity a Difference is about. Each kind is one
// kind of record of the writer path (Image.Write), and each entity is the
// records that write it back: a feature is a FeatureLevelRecord, a broker a
// RegisterBrokerRecord, a topic its TopicRecord, a partition its
// PartitionRecord, a config resource its ConfigRecords, a client quota
// entity its ClientQuotaRecords, and so on.
type DiffKind string

// The kinds, in the order Diff lists them (Kafka's MetadataImage.write
// order).
const (
	DiffFeature     DiffKind = "feature"
	DiffBroker      DiffKind = "broker"
	DiffController  DiffKind = "controller"
	DiffTopic       DiffKind = "topic"
	DiffPartition   DiffKind = "partition"
	DiffConfig      DiffKind = "config"
	DiffClientQuota DiffKind = "clientQuota"
	DiffProducerIDs DiffKind = "producerIds"
	DiffACL         DiffKind = "acl"
	DiffScram       DiffKind = "scram"
	DiffToken       DiffKind = "delegationToken"
)

// DiffOp says whether an entity was added, removed or changed.
type DiffOp string

// The operations.
const (
	Added   DiffOp = "added"
	Removed DiffOp = "removed"
	Changed DiffOp = "changed"
)

// FieldChange is one field of an entity that differs. Field is the name
// the field has in the JSON form of the entity's record (Kafka's
// JsonConverter names: "leader", "isr", "brokerEpoch", ...), or for config
// resources and quota entities the config name or quota key. Old and New
// are the values printed as Kafka's JSON form prints them (lists as
// [1,2,3]); HasOld/HasNew are false where the side has no value (a config
// key set or deleted). Sensitive values print as Redacted.
type FieldChange struct {
	Field  string `json:"field"`
	Old    string `json:"old,omitempty"`
	New    string `json:"new,omitempty"`
	HasOld bool   `json:"-"`
	HasNew bool   `json:"-"`
}

// Difference is one entity that differs between two images: added (only in
// the second), removed (only in the first) or changed (its fields that
// differ). For added and removed entities Fields lists every field of the
// side that has it.
type Difference struct {
	Kind DiffKind `json:"kind"`
	// Key names the entity within its kind: a feature name, a broker or
	// controller id, a topic name, "topic-partition", "type:name" of a
	// config resource, the quota entity ("user=alice,client-id=app"),
	// an ACL id, "user mechanism" of a SCRAM credential, a token id, or
	// "nextProducerId".
	Key    string        `json:"key"`
	Op     DiffOp        `json:"op"`
	Fields []FieldChange `json:"fields,omitempty"`
}

// String returns the difference on one line: what happened to which
// entity, then the fields that changed (sensitive values redacted as the
// DiffOptions said).
func (d Difference) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", d.Op, d.Kind, d.Key)
	for i, f := range d.Fields {
		if i == 0 {
			b.WriteString(":")
		}
		b.WriteString(" ")
		b.WriteString(f.Field)
		switch {
		case f.HasOld && f.HasNew:
			fmt.Fprintf(&b, " %s -> %s", f.Old, f.New)
		case f.HasNew:
			fmt.Fprintf(&b, "=%s", f.New)
		case f.HasOld:
			fmt.Fprintf(&b, " (was %s)", f.Old)
		}
		if i < len(d.Fields)-1 {
			b.WriteString(";")
		}
	}
	return b.String()
}

// DiffOptions control Diff.
type DiffOptions struct {
	// Sensitive reports whether a config's value is a secret (as in
	// WriteJSONOptions); nil treats every config value as sensitive, as Kafka's
	// NodeStringifier does by default (MetadataNodeRedactionCriteria.Strict).
	// redact.IsSensitive (package image/redact) is Kafka's Normal criterion.
	Sensitive func(resourceType ConfigType, name string) bool
	// Unredacted prints secrets: sensitive config values, SCRAM salts,
	// keys and iterations, delegation token owners, renewers and
	// timestamps (the values metadump's dump hides).
	Unredacted bool
	// Limit is the most differences returned (the first ones in Diff's
	// order); 0 returns all. DiffTotal still counts every difference.
	Limit int
	// Kinds, when set, compares only the entities of these kinds.
	Kinds []DiffKind
}

// Diff returns what differs from image a to image b (nil means the empty
// image), entity by entity, in the order of the writer path (features,
// brokers, controllers, topics, partitions, configs, client quotas,
// producer ids, ACLs, SCRAM credentials, delegation tokens) and by key
// within a kind. Two images whose writer paths produce the same records
// have no differences; the provenance is not compared.
//
// What the two images share is skipped without being looked at: a
// component (the cluster, the topics, the configs, ...) that is the same
// value in both, and a topic that is the same Topic in both, as a delta
// leaves every topic it did not touch; of two versions of a topic, only the
// partitions that differ are formatted. So the diff of two nearby images
// of one log costs about the number of topics, not of partitions.
func Diff(a, b *Image, opts DiffOptions) []Difference {
	ds, _ := DiffTotal(a, b, opts)
	return ds
}

// DiffTotal is Diff that also returns the number of differences in all,
// those past opts.Limit included.
func DiffTotal(a, b *Image, opts DiffOptions) ([]Difference, int) {
	if a == nil {
		a = Empty()
	}
	if b == nil {
		b = Empty()
	}
	d := &differ{opts: opts}
	if d.want(DiffFeature) && a.features != b.features {
		d.maps(DiffFeature, featureFields(a), featureFields(b))
	}
	if a.cluster != b.cluster {
		if d.want(DiffBroker) {
			d.maps(DiffBroker, brokerFields(a), brokerFields(b))
		}
		if d.want(DiffController) {
			d.maps(DiffController, controllerFields(a), controllerFields(b))
		}
	}
	elrA, elrB := withELR(a), withELR(b)
	if (a.topics != b.topics || elrA != elrB) && (d.want(DiffTopic) || d.want(DiffPartition)) {
		ta, tb := changedTopics(a.topics, b.topics, elrA == elrB)
		if d.want(DiffTopic) {
			d.maps(DiffTopic, topicFields(ta), topicFields(tb))
		}
		if d.want(DiffPartition) {
			d.partitions(ta, tb, elrA, elrB)
		}
	}
	if d.want(DiffConfig) && a.configs != b.configs {
		d.maps(DiffConfig, configFields(a, opts), configFields(b, opts))
	}
	if d.want(DiffClientQuota) && a.quotas != b.quotas {
		d.maps(DiffClientQuota, quotaFields(a), quotaFields(b))
	}
	if d.want(DiffProducerIDs) && a.producerID != b.producerID {
		d.maps(DiffProducerIDs, producerFields(a), producerFields(b))
	}
	if d.want(DiffACL) && a.acls != b.acls {
		d.maps(DiffACL, aclFields(a), aclFields(b))
	}
	if d.want(DiffScram) && a.scram != b.scram {
		d.maps(DiffScram, scramFields(a, opts), scramFields(b, opts))
	}
	if d.want(DiffToken) && a.tokens != b.tokens {
		d.maps(DiffToken, tokenFields(a, opts), tokenFields(b, opts))
	}
	return d.out, d.total
}

// differ collects DiffTotal's differences: at most opts.Limit kept, total
// counting every one.
type differ struct {
	opts  DiffOptions
	out   []Difference
	total int
}

// want reports whether the options compare entities of kind.
func (d *differ) want(kind DiffKind) bool {
	return d.opts.Kinds == nil || slices.Contains(d.opts.Kinds, kind)
}

// keep reports whether one more difference is kept, and counts it.
func (d *differ) keep() bool {
	d.total++
	return d.opts.Limit <= 0 || len(d.out) < d.opts.Limit
}

// field is one field of an entity: its name, its value as printed, and the
// value compared (the same, except for secrets, which print as Redacted
// but are compared in clear so that a changed secret shows as changed).
type field struct{ name, shown, raw string }

// fields is an entity's fields in order.
type fields []field

func plain(name, v string) field { return field{name, v, v} }

// maps compares the entities of one kind.
func (d *differ) maps(kind DiffKind, a, b map[string]fields) {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compareKeys)
	for _, k := range keys {
		fa, inA := a[k]
		fb, inB := b[k]
		switch {
		case !inA:
			if !d.keep() {
				continue
			}
			e := Difference{Kind: kind, Key: k, Op: Added}
			for _, f := range fb {
				e.Fields = append(e.Fields, FieldChange{Field: f.name, New: f.shown, HasNew: true})
			}
			d.out = append(d.out, e)
		case !inB:
			if !d.keep() {
				continue
			}
			e := Difference{Kind: kind, Key: k, Op: Removed}
			for _, f := range fa {
				e.Fields = append(e.Fields, FieldChange{Field: f.name, Old: f.shown, HasOld: true})
			}
			d.out = append(d.out, e)
		default:
			if fc := diffFieldLists(fa, fb); len(fc) > 0 && d.keep() {
				d.out = append(d.out, Difference{Kind: kind, Key: k, Op: Changed, Fields: fc})
			}
		}
	}
}

// compareKeys orders keys with numbers in them naturally (broker 2 before
// 10, partition orders-2 before orders-10).
func compareKeys(a, b string) int {
	ia, ea := strconv.Atoi(a)
	ib, eb := strconv.Atoi(b)
	if ea == nil && eb == nil {
		return cmp.Compare(ia, ib)
	}
	pa, na, oka := splitPartition(a)
	pb, nb, okb := splitPartition(b)
	if oka && okb && pa == pb {
		return cmp.Compare(na, nb)
	}
	if oka && okb {
		return strings.Compare(pa, pb)
	}
	return strings.Compare(a, b)
}

func splitPartition(k string) (string, int, bool) {
	i := strings.LastIndexByte(k, '-')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(k[i+1:])
	return k[:i], n, err == nil
}

// diffFieldLists compares two field lists by name, keeping a's order then
// b's new names.
func diffFieldLists(a, b fields) []FieldChange {
	var out []FieldChange
	find := func(fs fields, name string) (field, bool) {
		for _, f := range fs {
			if f.name == name {
				return f, true
			}
		}
		return field{}, false
	}
	for _, f := range a {
		nf, ok := find(b, f.name)
		if !ok {
			out = append(out, FieldChange{Field: f.name, Old: f.shown, HasOld: true})
		} else if nf.raw != f.raw {
			out = append(out, FieldChange{Field: f.name, Old: f.shown, New: nf.shown, HasOld: true, HasNew: true})
		}
	}
	for _, f := range b {
		if _, ok := find(a, f.name); !ok {
			out = append(out, FieldChange{Field: f.name, New: f.shown, HasNew: true})
		}
	}
	return out
}

func ints(v []int32) string {
	b := []byte{'['}
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return string(append(b, ']'))
}

func uuids(v []record.UUID) string {
	parts := make([]string, len(v))
	for i, u := range v {
		parts[i] = strconv.Quote(u.String())
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func endpoints(es []Endpoint) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%s://%s:%d/%d", e.Name, e.Host, e.Port, e.SecurityProtocol)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func ranges(rs []VersionRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s:%d-%d", r.Name, r.Min, r.Max)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func featureFields(img *Image) map[string]fields {
	m := map[string]fields{}
	if mv, ok := img.features.MetadataVersion(); ok {
		m[MetadataVersionFeature] = fields{plain("featureLevel", strconv.Itoa(int(mv)))}
	}
	for _, f := range img.features.finalized {
		m[f.Name] = fields{plain("featureLevel", strconv.Itoa(int(f.Level)))}
	}
	return m
}

func brokerFields(img *Image) map[string]fields {
	m := map[string]fields{}
	for b := range img.cluster.Brokers() {
		rack := "null"
		if r, ok := b.Rack(); ok {
			rack = strconv.Quote(r)
		}
		m[strconv.Itoa(int(b.id))] = fields{
			plain("isMigratingZkBroker", strconv.FormatBool(b.migratingZK)),
			plain("incarnationId", b.incarnationID.String()),
			plain("brokerEpoch", strconv.FormatInt(b.epoch, 10)),
			plain("endPoints", endpoints(b.listeners)),
			plain("features", ranges(b.features)),
			plain("rack", rack),
			plain("fenced", strconv.FormatBool(b.fenced)),
			plain("inControlledShutdown", strconv.FormatBool(b.inControlledShutdown)),
			plain("logDirs", uuids(b.dirs)),
		}
	}
	return m
}

func controllerFields(img *Image) map[string]fields {
	m := map[string]fields{}
	for c := range img.cluster.Controllers() {
		m[strconv.Itoa(int(c.id))] = fields{
			plain("incarnationId", c.incarnationID.String()),
			plain("zkMigrationReady", strconv.FormatBool(c.zkMigrationReady)),
			plain("endPoints", endpoints(c.listeners)),
			plain("features", ranges(c.features)),
		}
	}
	return m
}

// withELR reports whether img's partitions carry the ELR fields (KIP-966).
func withELR(img *Image) bool {
	return img.features.EffectiveMetadataVersion().ELRSupported() && img.features.ELREnabled()
}

// changedTopics returns the topics of a and of b that are not the same
// topic in the other image, by topic id; without skipShared, every topic.
func changedTopics(a, b *Topics, skipShared bool) (ta, tb []*topic) {
	for t := range a.byID.All() {
		if o, ok := b.byID.getID(t.id); !skipShared || !ok || o != t {
			ta = append(ta, t)
		}
	}
	for t := range b.byID.All() {
		if o, ok := a.byID.getID(t.id); !skipShared || !ok || o != t {
			tb = append(tb, t)
		}
	}
	return ta, tb
}

func topicFields(ts []*topic) map[string]fields {
	m := make(map[string]fields, len(ts))
	for _, t := range ts {
		m[t.name] = fields{plain("topicId", t.id.String())}
	}
	return m
}

// partitions compares the partitions of the topics ta (of image a) and tb
// (of image b), keyed "topic-partition" in Diff's order (topic name, then
// partition id: compareKeys' order of such keys). A partition is formatted
// only when its difference is kept; the rest are counted, so that a diff
// with a Limit over many changed partitions costs their comparison, not
// their printing.
func (d *differ) partitions(ta, tb []*topic, elrA, elrB bool) {
	byName := func(ts []*topic) map[string]*topic {
		m := make(map[string]*topic, len(ts))
		for _, t := range ts {
			m[t.name] = t
		}
		return m
	}
	ma, mb := byName(ta), byName(tb)
	names := make([]string, 0, len(ma)+len(mb))
	for n := range ma {
		names = append(names, n)
	}
	for n := range mb {
		if _, ok := ma[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		x, y := ma[name], mb[name]
		var xs, ys []PartitionRegistration
		if x != nil {
			xs = x.parts
		}
		if y != nil {
			ys = y.parts
		}
		// Both sorted by partition id: merge them.
		for i, j := 0, 0; i < len(xs) || j < len(ys); {
			switch {
			case j == len(ys) || (i < len(xs) && xs[i].id < ys[j].id):
				d.partitionOnly(Removed, x, &xs[i], elrA)
				i++
			case i == len(xs) || ys[j].id < xs[i].id:
				d.partitionOnly(Added, y, &ys[j], elrB)
				j++
			default:
				px, py := &xs[i], &ys[j]
				i++
				j++
				if x.id == y.id && elrA == elrB && sameFields(px, py, elrA) {
					continue
				}
				if d.keep() {
					fc := diffFieldLists(partitionDiffEntry(x, px, elrA), partitionDiffEntry(y, py, elrB))
					d.out = append(d.out, Difference{Kind: DiffPartition, Key: partitionKey(y, py), Op: Changed, Fields: fc})
				}
			}
		}
	}
}

// partitionOnly adds a partition that only one side has.
func (d *differ) partitionOnly(op DiffOp, t *topic, p *PartitionRegistration, elr bool) {
	if !d.keep() {
		return
	}
	e := Difference{Kind: DiffPartition, Key: partitionKey(t, p), Op: op}
	for _, f := range partitionDiffEntry(t, p, elr) {
		if op == Added {
			e.Fields = append(e.Fields, FieldChange{Field: f.name, New: f.shown, HasNew: true})
		} else {
			e.Fields = append(e.Fields, FieldChange{Field: f.name, Old: f.shown, HasOld: true})
		}
	}
	d.out = append(d.out, e)
}

func partitionKey(t *topic, p *PartitionRegistration) string {
	return t.name + "-" + strconv.Itoa(int(p.id))
}

// sameFields reports whether two partitions of one topic id have the same
// fields as partitionDiffEntry prints them (the ELR lists only with elr).
func sameFields(p, q *PartitionRegistration, elr bool) bool {
	if p.Equal(q) {
		return true
	}
	if elr || p.leader != q.leader || p.leaderEpoch != q.leaderEpoch || p.partitionEpoch != q.partitionEpoch ||
		p.recovery != q.recovery || p.hasDirs != q.hasDirs {
		return false
	}
	for _, l := range []int{listReplicas, listISR, listRemoving, listAdding} {
		if !slices.Equal(p.list(l), q.list(l)) {
			return false
		}
	}
	if p.hasDirs {
		for i := 0; i < int(p.n[listReplicas]); i++ {
			if p.dirAt(i) != q.dirAt(i) {
				return false
			}
		}
	}
	return true
}

// partitionDiffEntry is the fields of one partition, as its PartitionRecord
// writes them.
func partitionDiffEntry(t *topic, p *PartitionRegistration, elr bool) fields {
	f := fields{
		plain("topicId", t.id.String()),
		plain("replicas", ints(p.Replicas())),
		plain("isr", ints(p.ISR())),
		plain("removingReplicas", ints(p.RemovingReplicas())),
		plain("addingReplicas", ints(p.AddingReplicas())),
		plain("leader", strconv.Itoa(int(p.leader))),
		plain("leaderRecoveryState", strconv.Itoa(int(p.recovery))),
		plain("leaderEpoch", strconv.Itoa(int(p.leaderEpoch))),
		plain("partitionEpoch", strconv.Itoa(int(p.partitionEpoch))),
	}
	if p.hasDirs {
		f = append(f, plain("directories", uuids(p.Directories())))
	}
	if elr {
		f = append(f, plain("eligibleLeaderReplicas", ints(p.ELR())), plain("lastKnownElr", ints(p.LastKnownELR())))
	}
	return f
}

func configResourceKey(res ConfigResource) string {
	switch res.Type {
	case ConfigTopic:
		return "topic:" + res.Name
	case ConfigBroker:
		if res.Name == "" {
			return "broker:<default>"
		}
		return "broker:" + res.Name
	case ConfigBrokerLogger:
		return "broker-logger:" + res.Name
	case ConfigClientMetrics:
		return "client-metrics:" + res.Name
	case ConfigGroup:
		return "group:" + res.Name
	}
	return fmt.Sprintf("resource-%d:%s", res.Type, res.Name)
}

// secret is a field holding a secret: printed as Redacted unless
// opts.Unredacted.
func secret(name, v string, opts DiffOptions) field {
	if opts.Unredacted {
		return plain(name, v)
	}
	return field{name, Redacted, v}
}

func configFields(img *Image, opts DiffOptions) map[string]fields {
	m := map[string]fields{}
	for res, es := range img.configs.resources() {
		var f fields
		for _, e := range es {
			if opts.Sensitive == nil || opts.Sensitive(res.Type, e.Name) {
				f = append(f, secret(e.Name, strconv.Quote(e.Value), opts))
			} else {
				f = append(f, plain(e.Name, strconv.Quote(e.Value)))
			}
		}
		m[configResourceKey(res)] = f
	}
	return m
}

func quotaKey(parts []QuotaEntityPart) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		if p.Name == nil {
			s[i] = p.Type + "=<default>"
		} else {
			s[i] = p.Type + "=" + *p.Name
		}
	}
	return strings.Join(s, ",")
}

func quotaFields(img *Image) map[string]fields {
	m := map[string]fields{}
	for _, q := range img.quotas.Entities() {
		var f fields
		for _, v := range q.values {
			f = append(f, plain(v.Key, strconv.FormatFloat(v.Value, 'g', -1, 64)))
		}
		m[quotaKey(q.parts)] = f
	}
	return m
}

func producerFields(img *Image) map[string]fields {
	m := map[string]fields{}
	if img.producerID >= 0 {
		m["nextProducerId"] = fields{plain("nextProducerId", strconv.FormatInt(img.producerID, 10))}
	}
	return m
}

func aclFields(img *Image) map[string]fields {
	m := map[string]fields{}
	for a := range img.acls.All() {
		m[a.ID.String()] = fields{
			plain("resourceType", strconv.Itoa(int(a.ResourceType))),
			plain("resourceName", strconv.Quote(a.ResourceName)),
			plain("patternType", strconv.Itoa(int(a.PatternType))),
			plain("principal", strconv.Quote(a.Principal)),
			plain("host", strconv.Quote(a.Host)),
			plain("operation", strconv.Itoa(int(a.Operation))),
			plain("permissionType", strconv.Itoa(int(a.PermissionType))),
		}
	}
	return m
}

func scramFields(img *Image, opts DiffOptions) map[string]fields {
	m := map[string]fields{}
	for k := range img.scram.Keys() {
		c, _ := img.scram.Get(k)
		b64 := base64.StdEncoding.EncodeToString
		m[k.User+" "+ScramMechanismName(k.Mechanism)] = fields{
			secret("salt", b64(c.Salt), opts),
			secret("storedKey", b64(c.StoredKey), opts),
			secret("serverKey", b64(c.ServerKey), opts),
			secret("iterations", strconv.Itoa(int(c.Iterations)), opts),
		}
	}
	return m
}

func tokenFields(img *Image, opts DiffOptions) map[string]fields {
	m := map[string]fields{}
	for t := range img.tokens.All() {
		m[t.TokenID] = fields{
			secret("owner", strconv.Quote(t.Owner), opts),
			secret("requester", strconv.Quote(t.Requester), opts),
			secret("renewers", fmt.Sprintf("%q", t.Renewers), opts),
			secret("issueTimestamp", strconv.FormatInt(t.IssueTimestamp, 10), opts),
			secret("maxTimestamp", strconv.FormatInt(t.MaxTimestamp, 10), opts),
			secret("expirationTimestamp", strconv.FormatInt(t.ExpirationTimestamp, 10), opts),
		}
	}
	return m
}
