package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
)

// diffImages lists what changed from image a to image b, one line each:
// "+ " added, "- " removed, "~ " changed with the fields that changed.
// Sensitive config values print as [redacted]. Topics the two images share
// (the same *Topic, as a delta leaves unchanged topics) are skipped without
// looking at their partitions, so a diff of two nearby images costs about the
// number of topics.
//
// It is the timeline's and the shell's adapter over the image comparison;
// it covers features, brokers, controllers, topics and partitions, configs,
// client quotas, ACLs, SCRAM users and delegation tokens.
//
// At most limit lines are formatted (limit < 0: all); total counts every
// change.
func diffImages(a, b *image.Image, limit int) (out []string, total int) {
	d := &imageDiff{limit: limit}
	d.features(a.Features(), b.Features())
	if a.Cluster() != b.Cluster() {
		d.brokers(a.Cluster(), b.Cluster())
		d.controllers(a.Cluster(), b.Cluster())
	}
	if a.Topics() != b.Topics() {
		d.topics(a.Topics(), b.Topics())
	}
	if a.Configs() != b.Configs() {
		d.configs(a.Configs(), b.Configs())
	}
	d.keyed(a, b)
	if a.NextProducerID() != b.NextProducerID() {
		d.add("~ producer ids: next %d -> %d", a.NextProducerID(), b.NextProducerID())
	}
	return d.out, d.total
}

// imageDiff collects diffImages' lines: at most limit formatted (limit < 0:
// all), total counting every change.
type imageDiff struct {
	out   []string
	total int
	limit int
}

func (d *imageDiff) add(format string, args ...any) {
	d.total++
	if d.limit < 0 || len(d.out) < d.limit {
		d.out = append(d.out, fmt.Sprintf(format, args...))
	}
}

// full is whether no more lines are formatted.
func (d *imageDiff) full() bool { return d.limit >= 0 && len(d.out) >= d.limit }

// features diffs the metadata version and the finalized features
// (FeaturesDelta).
func (d *imageDiff) features(a, b *image.Features) {
	amv, aok := a.MetadataVersion()
	bmv, bok := b.MetadataVersion()
	if amv != bmv || aok != bok {
		d.add("~ feature metadata.version: %s -> %s", mvString(amv, aok), mvString(bmv, bok))
	}
	af, bf := map[string]int16{}, map[string]int16{}
	for _, f := range a.Finalized() {
		af[f.Name] = f.Level
	}
	for _, f := range b.Finalized() {
		bf[f.Name] = f.Level
	}
	for _, n := range sortedKeys(af, bf) {
		x, xok := af[n]
		y, yok := bf[n]
		switch {
		case !xok:
			d.add("+ feature %s: %d", n, y)
		case !yok:
			d.add("- feature %s: %d", n, x)
		case x != y:
			d.add("~ feature %s: %d -> %d", n, x, y)
		}
	}
}

// brokers diffs the broker registrations (ClusterDelta).
func (d *imageDiff) brokers(a, b *image.Cluster) {
	ids := map[int32]bool{}
	for br := range a.Brokers() {
		ids[br.ID()] = true
	}
	for br := range b.Brokers() {
		ids[br.ID()] = true
	}
	for _, id := range sortedIDs(ids) {
		x, xok := a.Broker(id)
		y, yok := b.Broker(id)
		switch {
		case !xok:
			d.add("+ broker %d: epoch %d%s", id, y.Epoch(), brokerFlags(y))
		case !yok:
			d.add("- broker %d: epoch %d", id, x.Epoch())
		case !x.Equal(y):
			d.add("~ broker %d: %s", id, brokerChanges(x, y))
		}
	}
}

// brokerChanges names the fields in which two registrations of a broker
// differ.
func brokerChanges(x, y *image.Broker) string {
	var ch []string
	if x.Epoch() != y.Epoch() {
		ch = append(ch, fmt.Sprintf("epoch %d -> %d", x.Epoch(), y.Epoch()))
	}
	if x.IncarnationID() != y.IncarnationID() {
		ch = append(ch, "incarnationId "+x.IncarnationID().String()+" -> "+y.IncarnationID().String())
	}
	if x.Fenced() != y.Fenced() {
		ch = append(ch, fmt.Sprintf("fenced %t -> %t", x.Fenced(), y.Fenced()))
	}
	if x.InControlledShutdown() != y.InControlledShutdown() {
		ch = append(ch, fmt.Sprintf("inControlledShutdown %t -> %t", x.InControlledShutdown(), y.InControlledShutdown()))
	}
	if !slices.Equal(x.Listeners(), y.Listeners()) {
		ch = append(ch, "listeners")
	}
	xr, _ := x.Rack()
	yr, _ := y.Rack()
	if xr != yr {
		ch = append(ch, fmt.Sprintf("rack %q -> %q", xr, yr))
	}
	if !slices.Equal(x.Directories(), y.Directories()) {
		ch = append(ch, "directories")
	}
	if len(ch) == 0 {
		ch = append(ch, "registration")
	}
	return joinStr(ch)
}

// controllers diffs the controller registrations (ClusterDelta).
func (d *imageDiff) controllers(a, b *image.Cluster) {
	cids := map[int32]bool{}
	for c := range a.Controllers() {
		cids[c.ID()] = true
	}
	for c := range b.Controllers() {
		cids[c.ID()] = true
	}
	for _, id := range sortedIDs(cids) {
		x, xok := a.Controller(id)
		y, yok := b.Controller(id)
		switch {
		case !xok:
			d.add("+ controller %d", id)
		case !yok:
			d.add("- controller %d", id)
		case x.IncarnationID() != y.IncarnationID() || !slices.Equal(x.Listeners(), y.Listeners()):
			d.add("~ controller %d: registration", id)
		}
	}
}

// topics diffs topics and partitions (TopicsDelta), skipping a topic both
// images share.
func (d *imageDiff) topics(a, b *image.Topics) {
	for _, t := range b.Sorted() {
		old, ok := a.ByID(t.ID())
		if !ok {
			d.add("+ topic %s (%s): %d partitions", t.Name(), t.ID(), t.NumPartitions())
			continue
		}
		if old == t {
			continue
		}
		for p := range t.Partitions() {
			op, ok := old.Partition(p.ID())
			if !ok {
				if d.full() {
					d.total++
					continue
				}
				d.add("+ partition %s-%d: leader %d, replicas %v, isr %v", t.Name(), p.ID(), p.Leader(), p.Replicas(), p.ISR())
				continue
			}
			if op.Equal(p) {
				continue
			}
			if d.full() {
				d.total++
				continue
			}
			d.add("~ partition %s-%d: %s", t.Name(), p.ID(), partitionChanges(op, p))
		}
	}
	for _, t := range a.Sorted() {
		if _, ok := b.ByID(t.ID()); !ok {
			d.add("- topic %s (%s): %d partitions", t.Name(), t.ID(), t.NumPartitions())
		}
	}
}

// configs diffs config entries (ConfigurationsDelta) by resource type,
// resource name and config name, a sensitive value redacted.
func (d *imageDiff) configs(a, b *image.Configs) {
	type key struct {
		res  image.ConfigResource
		name string
	}
	av, bv := map[key]string{}, map[key]string{}
	var keys []key
	for res, es := range a.Resources() {
		for _, e := range es {
			k := key{res, e.Name}
			av[k] = e.Value
			keys = append(keys, k)
		}
	}
	for res, es := range b.Resources() {
		for _, e := range es {
			k := key{res, e.Name}
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
			bv[k] = e.Value
		}
	}
	slices.SortFunc(keys, func(x, y key) int {
		if x.res.Type != y.res.Type {
			return int(x.res.Type) - int(y.res.Type)
		}
		if x.res.Name != y.res.Name {
			return cmpStr(x.res.Name, y.res.Name)
		}
		return cmpStr(x.name, y.name)
	})
	for _, k := range keys {
		x, xok := av[k]
		y, yok := bv[k]
		if redact.IsSensitive(k.res.Type, k.name) {
			x, y = image.Redacted, image.Redacted
		}
		what := configResourceName(k.res)
		switch {
		case !xok:
			d.add("+ config %s %s=%s", what, k.name, y)
		case !yok:
			d.add("- config %s %s", what, k.name)
		case av[k] != bv[k]:
			d.add("~ config %s %s: %s -> %s", what, k.name, x, y)
		}
	}
}

// keyed diffs client quotas, ACLs, SCRAM credentials and delegation tokens
// by key, the secrets by key only.
func (d *imageDiff) keyed(a, b *image.Image) {
	if a.ClientQuotas() != b.ClientQuotas() {
		ak, bk := map[string]string{}, map[string]string{}
		for k, e := range a.ClientQuotas().Entities() {
			ak[k] = fmt.Sprint(e.Values())
		}
		for k, e := range b.ClientQuotas().Entities() {
			bk[k] = fmt.Sprint(e.Values())
		}
		diffKeyed(d.add, "client quota", ak, bk)
	}
	if a.ACLs() != b.ACLs() {
		ak, bk := map[string]string{}, map[string]string{}
		for acl := range a.ACLs().All() {
			ak[acl.ID.String()] = aclString(acl)
		}
		for acl := range b.ACLs().All() {
			bk[acl.ID.String()] = aclString(acl)
		}
		diffKeyed(d.add, "acl", ak, bk)
	}
	if a.Scram() != b.Scram() {
		ak, bk := map[string]string{}, map[string]string{}
		for k := range a.Scram().Keys() {
			c, _ := a.Scram().Get(k)
			ak[image.ScramMechanismName(k.Mechanism)+" "+k.User] = fmt.Sprint(c)
		}
		for k := range b.Scram().Keys() {
			c, _ := b.Scram().Get(k)
			bk[image.ScramMechanismName(k.Mechanism)+" "+k.User] = fmt.Sprint(c)
		}
		diffKeyedHidden(d.add, "scram credential", ak, bk)
	}
	if a.Tokens() != b.Tokens() {
		ak, bk := map[string]string{}, map[string]string{}
		for t := range a.Tokens().All() {
			ak[t.TokenID] = fmt.Sprint(t)
		}
		for t := range b.Tokens().All() {
			bk[t.TokenID] = fmt.Sprint(t)
		}
		diffKeyedHidden(d.add, "delegation token", ak, bk)
	}
}

func partitionChanges(a, b *image.Partition) string {
	var ch []string
	if a.Leader() != b.Leader() {
		ch = append(ch, fmt.Sprintf("leader %s -> %s", leaderName(a.Leader()), leaderName(b.Leader())))
	}
	if a.LeaderEpoch() != b.LeaderEpoch() {
		ch = append(ch, fmt.Sprintf("leaderEpoch %d -> %d", a.LeaderEpoch(), b.LeaderEpoch()))
	}
	if x, y := a.ISR(), b.ISR(); !slices.Equal(x, y) {
		ch = append(ch, fmt.Sprintf("isr %v -> %v", x, y))
	}
	if x, y := a.ELR(), b.ELR(); !slices.Equal(x, y) {
		ch = append(ch, fmt.Sprintf("elr %v -> %v", x, y))
	}
	if x, y := a.LastKnownELR(), b.LastKnownELR(); !slices.Equal(x, y) {
		ch = append(ch, fmt.Sprintf("lastKnownElr %v -> %v", x, y))
	}
	if x, y := a.Replicas(), b.Replicas(); !slices.Equal(x, y) {
		ch = append(ch, fmt.Sprintf("replicas %v -> %v", x, y))
	}
	if x, y := a.AddingReplicas(), b.AddingReplicas(); !slices.Equal(x, y) {
		ch = append(ch, fmt.Sprintf("adding %v -> %v", x, y))
	}
	if x, y := a.RemovingReplicas(), b.RemovingReplicas(); !slices.Equal(x, y) {
		ch = append(ch, fmt.Sprintf("removing %v -> %v", x, y))
	}
	if a.LeaderRecoveryState() != b.LeaderRecoveryState() {
		ch = append(ch, fmt.Sprintf("leaderRecoveryState %d -> %d", a.LeaderRecoveryState(), b.LeaderRecoveryState()))
	}
	if !slices.Equal(a.Directories(), b.Directories()) {
		ch = append(ch, "directories")
	}
	if a.PartitionEpoch() != b.PartitionEpoch() {
		ch = append(ch, fmt.Sprintf("partitionEpoch %d -> %d", a.PartitionEpoch(), b.PartitionEpoch()))
	}
	return joinStr(ch)
}

func leaderName(id int32) string {
	if id == image.NoLeader {
		return "none"
	}
	return fmt.Sprint(id)
}

func brokerFlags(b *image.Broker) string {
	s := ""
	if b.Fenced() {
		s += ", fenced"
	}
	if b.InControlledShutdown() {
		s += ", in controlled shutdown"
	}
	return s
}

func mvString(mv image.MetadataVersion, ok bool) string {
	if !ok {
		return "none"
	}
	return mv.String()
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

func diffKeyed(add func(string, ...any), what string, a, b map[string]string) {
	for _, k := range sortedKeys(a, b) {
		x, xok := a[k]
		y, yok := b[k]
		switch {
		case !xok:
			add("+ %s %s: %s", what, k, y)
		case !yok:
			add("- %s %s: %s", what, k, x)
		case x != y:
			add("~ %s %s: %s -> %s", what, k, x, y)
		}
	}
}

// diffKeyedHidden is diffKeyed for secrets: keys only.
func diffKeyedHidden(add func(string, ...any), what string, a, b map[string]string) {
	for _, k := range sortedKeys(a, b) {
		x, xok := a[k]
		y, yok := b[k]
		switch {
		case !xok:
			add("+ %s %s", what, k)
		case !yok:
			add("- %s %s", what, k)
		case x != y:
			add("~ %s %s: %s", what, k, image.Redacted)
		}
	}
}

func sortedKeys[V any](a, b map[string]V) []string {
	var ks []string
	for k := range a {
		ks = append(ks, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

func sortedIDs(m map[int32]bool) []int32 {
	ids := make([]int32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func joinStr(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so a reader never sees half a report.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".metadump-*")
	if err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
