package image

import (
	"bytes"
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/benbjohnson/immutable"

	"github.com/kmeta-go/kmeta/record"
)

// Endpoint is one listener of a broker or controller (Kafka's Endpoint).
type Endpoint struct {
	Name             string // listener name, e.g. "PLAINTEXT"
	Host             string
	Port             uint16
	SecurityProtocol int16 // PLAINTEXT 0, SSL 1, SASL_PLAINTEXT 2, SASL_SSL 3
}

// VersionRange is a supported feature range of a broker or controller.
type VersionRange struct {
	Name string
	Min  int16
	Max  int16
}

// Broker is a broker registration, Kafka's BrokerRegistration. Its listeners
// and features are kept sorted by name; directories sorted ascending as
// Kafka sorts them; cordoned directories (KIP-1066) in the order given, and
// null (never reported) is not the same as an empty list. A *Broker held by
// an image is never modified.
type Broker struct {
	id                   int32
	epoch                int64
	incarnationID        record.UUID
	listeners            []Endpoint
	features             []VersionRange
	rack                 *string
	fenced               bool
	inControlledShutdown bool
	migratingZK          bool
	dirs                 []record.UUID
	cordonedSet          bool          // false: cordonedDirectories is null
	cordoned             []record.UUID // in the order given; nil when empty or null
}

// NewBroker builds a registration from a RegisterBrokerRecord
// (BrokerRegistration.fromRecord). The record is not retained.
func NewBroker(r *record.RegisterBrokerRecord) (*Broker, error) {
	b := &Broker{
		id:                   r.BrokerID,
		epoch:                r.BrokerEpoch,
		incarnationID:        r.IncarnationID,
		fenced:               r.Fenced,
		inControlledShutdown: r.InControlledShutdown,
		migratingZK:          r.IsMigratingZKBroker,
	}
	if r.Rack != nil {
		s := *r.Rack
		b.rack = &s
	}
	for _, e := range r.EndPoints {
		b.listeners = append(b.listeners, Endpoint{Name: e.Name, Host: e.Host, Port: e.Port, SecurityProtocol: e.SecurityProtocol})
	}
	slices.SortStableFunc(b.listeners, func(x, y Endpoint) int { return strings.Compare(x.Name, y.Name) })
	for i := 1; i < len(b.listeners); i++ {
		if b.listeners[i].Name == b.listeners[i-1].Name {
			return nil, fmt.Errorf("broker %d: listener %q registered twice", r.BrokerID, b.listeners[i].Name)
		}
	}
	for _, f := range r.Features {
		b.features = append(b.features, VersionRange{Name: f.Name, Min: f.MinSupportedVersion, Max: f.MaxSupportedVersion})
	}
	slices.SortStableFunc(b.features, func(x, y VersionRange) int { return strings.Compare(x.Name, y.Name) })
	b.dirs = sortedDirs(r.LogDirs)
	b.cordonedSet, b.cordoned = r.CordonedLogDirs != nil, cloneDirs(r.CordonedLogDirs)
	return b, nil
}

func cloneDirs(d []record.UUID) []record.UUID {
	if len(d) == 0 {
		return nil
	}
	return slices.Clone(d)
}

func sortedDirs(d []record.UUID) []record.UUID {
	if len(d) == 0 {
		return nil
	}
	out := slices.Clone(d)
	// Uuid.compareTo compares the two halves as signed longs.
	slices.SortFunc(out, compareUUID)
	return out
}

// compareUUID orders as Java's Uuid.compareTo (signed halves).
func compareUUID(a, b record.UUID) int {
	if c := cmp.Compare(a.MostSignificantBits(), b.MostSignificantBits()); c != 0 {
		return c
	}
	return cmp.Compare(a.LeastSignificantBits(), b.LeastSignificantBits())
}

// ID is the broker id.
func (b *Broker) ID() int32 { return b.id }

// Epoch is the broker epoch the controller assigned at registration.
func (b *Broker) Epoch() int64 { return b.epoch }

// IncarnationID identifies this run of the broker process.
func (b *Broker) IncarnationID() record.UUID { return b.incarnationID }

// Rack returns the rack and whether one is set.
func (b *Broker) Rack() (string, bool) {
	if b.rack == nil {
		return "", false
	}
	return *b.rack, true
}

// Fenced reports whether the broker is fenced.
func (b *Broker) Fenced() bool { return b.fenced }

// InControlledShutdown reports whether the broker is shutting down.
func (b *Broker) InControlledShutdown() bool { return b.inControlledShutdown }

// IsMigratingZKBroker reports a ZooKeeper broker under migration (3.4-3.9).
func (b *Broker) IsMigratingZKBroker() bool { return b.migratingZK }

// NumListeners is the number of listeners.
func (b *Broker) NumListeners() int { return len(b.listeners) }

// ListenerAt returns the i-th listener in name order.
func (b *Broker) ListenerAt(i int) Endpoint { return b.listeners[i] }

// Listener returns the endpoint of listener name (BrokerRegistration.node).
func (b *Broker) Listener(name string) (Endpoint, bool) {
	i, ok := slices.BinarySearchFunc(b.listeners, name, func(e Endpoint, n string) int { return strings.Compare(e.Name, n) })
	if !ok {
		return Endpoint{}, false
	}
	return b.listeners[i], true
}

// Listeners returns a copy of the listeners, sorted by name.
func (b *Broker) Listeners() []Endpoint { return slices.Clone(b.listeners) }

// SupportedFeatures returns a copy of the supported feature ranges, by name.
func (b *Broker) SupportedFeatures() []VersionRange { return slices.Clone(b.features) }

// SupportedFeature returns the supported range of feature name.
func (b *Broker) SupportedFeature(name string) (VersionRange, bool) {
	i, ok := slices.BinarySearchFunc(b.features, name, func(e VersionRange, n string) int { return strings.Compare(e.Name, n) })
	if !ok {
		return VersionRange{}, false
	}
	return b.features[i], true
}

// Directories returns a copy of the broker's online log directories, sorted.
func (b *Broker) Directories() []record.UUID { return slices.Clone(b.dirs) }

// NumDirectories is the number of registered log directories.
func (b *Broker) NumDirectories() int { return len(b.dirs) }

// HasOnlineDir is BrokerRegistration.hasOnlineDir: MIGRATING and UNASSIGNED
// are always online, LOST never; a broker with no registered directories
// (before 3.7-IV2) has every directory online.
func (b *Broker) HasOnlineDir(dir record.UUID) bool {
	switch dir {
	case record.DirectoryMigrating, record.DirectoryUnassigned:
		return true
	case record.DirectoryLost:
		return false
	}
	if len(b.dirs) == 0 {
		return true
	}
	_, ok := slices.BinarySearchFunc(b.dirs, dir, compareUUID)
	return ok
}

// CordonedDirectories returns a copy of the broker's cordoned log
// directories (KIP-1066) in the order the controller recorded them, and
// false when they are null: the broker has not reported them yet (a
// registration before metadata.version 4.3-IV0, or before its first
// heartbeat that carries them). An empty, non-null list means none is
// cordoned.
func (b *Broker) CordonedDirectories() ([]record.UUID, bool) {
	if !b.cordonedSet {
		return nil, false
	}
	return append([]record.UUID{}, b.cordoned...), true
}

// HasUncordonedDirs is BrokerRegistration.hasUncordonedDirs: true when the
// broker has no registered directories, has not reported its cordoned ones,
// or has a directory that is not cordoned. The controller places no new
// replicas on a broker for which it is false.
func (b *Broker) HasUncordonedDirs() bool {
	if len(b.dirs) == 0 || !b.cordonedSet {
		return true
	}
	for _, d := range b.dirs {
		if !slices.Contains(b.cordoned, d) {
			return true
		}
	}
	return false
}

// CordonedDirChanged is BrokerRegistration.cordonedDirChanged: true when the
// registration's cordoned directories are null or differ, as a set, from
// dirs (the list a heartbeat reports).
func (b *Broker) CordonedDirChanged(dirs []record.UUID) bool {
	if !b.cordonedSet {
		return true
	}
	return !sameDirSet(b.cordoned, dirs)
}

func sameDirSet(a, b []record.UUID) bool {
	for _, d := range a {
		if !slices.Contains(b, d) {
			return false
		}
	}
	for _, d := range b {
		if !slices.Contains(a, d) {
			return false
		}
	}
	return true
}

func (b *Broker) clone() *Broker { c := *b; return &c }

// WithFenced returns b with the fenced flag set to f.
func (b *Broker) WithFenced(f bool) *Broker { c := b.clone(); c.fenced = f; return c }

// WithInControlledShutdown returns b with the controlled-shutdown flag set.
func (b *Broker) WithInControlledShutdown(v bool) *Broker {
	c := b.clone()
	c.inControlledShutdown = v
	return c
}

// WithDirectories returns b with dirs as its log directories (sorted).
func (b *Broker) WithDirectories(dirs []record.UUID) *Broker {
	c := b.clone()
	c.dirs = sortedDirs(dirs)
	return c
}

// WithCordonedDirectories returns b with dirs as its cordoned log
// directories, kept in the given order (BrokerRegistration.cloneWith); nil
// or empty both mean a non-null empty list. Only a null field of a
// BrokerRegistrationChangeRecord leaves them unchanged, and no change record
// sets them back to null.
func (b *Broker) WithCordonedDirectories(dirs []record.UUID) *Broker {
	c := b.clone()
	c.cordonedSet, c.cordoned = true, cloneDirs(dirs)
	return c
}

// Equal reports whether two registrations are equal (BrokerRegistration.equals).
func (b *Broker) Equal(o *Broker) bool {
	if b.id != o.id || b.epoch != o.epoch || b.incarnationID != o.incarnationID || b.fenced != o.fenced ||
		b.inControlledShutdown != o.inControlledShutdown || b.migratingZK != o.migratingZK ||
		(b.rack == nil) != (o.rack == nil) || (b.rack != nil && *b.rack != *o.rack) {
		return false
	}
	return slices.Equal(b.listeners, o.listeners) && slices.Equal(b.features, o.features) && slices.Equal(b.dirs, o.dirs) &&
		b.cordonedSet == o.cordonedSet && slices.Equal(b.cordoned, o.cordoned)
}

// Record returns the RegisterBrokerRecord that writes b back.
func (b *Broker) Record() *record.RegisterBrokerRecord {
	r := record.NewRegisterBrokerRecord()
	r.BrokerID = b.id
	r.IsMigratingZKBroker = b.migratingZK
	r.IncarnationID = b.incarnationID
	r.BrokerEpoch = b.epoch
	r.EndPoints = []record.BrokerEndpoint{}
	for _, e := range b.listeners {
		r.EndPoints = append(r.EndPoints, record.BrokerEndpoint{Name: e.Name, Host: e.Host, Port: e.Port, SecurityProtocol: e.SecurityProtocol})
	}
	r.Features = []record.BrokerFeature{}
	for _, f := range b.features {
		r.Features = append(r.Features, record.BrokerFeature{Name: f.Name, MinSupportedVersion: f.Min, MaxSupportedVersion: f.Max})
	}
	r.Rack = nil // Kafka's default for Rack is "", but BrokerRegistration writes null
	if b.rack != nil {
		s := *b.rack
		r.Rack = &s
	}
	r.Fenced = b.fenced
	r.InControlledShutdown = b.inControlledShutdown
	r.LogDirs = slices.Clone(b.dirs)
	if r.LogDirs == nil {
		r.LogDirs = []record.UUID{}
	}
	r.CordonedLogDirs, _ = b.CordonedDirectories()
	return r
}

// String is Java's BrokerRegistration.toString as of Kafka 4.3 (which added
// cordonedDirectories after directories).
func (b *Broker) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "BrokerRegistration(id=%d, epoch=%d, incarnationId=%s, listeners=[", b.id, b.epoch, b.incarnationID)
	writeEndpoints(&s, b.listeners)
	s.WriteString("], supportedFeatures={")
	writeFeatures(&s, b.features)
	s.WriteString("}, rack=")
	if b.rack != nil {
		s.WriteString("Optional[" + *b.rack + "]")
	} else {
		s.WriteString("Optional.empty")
	}
	fmt.Fprintf(&s, ", fenced=%t, inControlledShutdown=%t, isMigratingZkBroker=%t, directories=[", b.fenced, b.inControlledShutdown, b.migratingZK)
	writeDirs(&s, b.dirs)
	s.WriteString("], cordonedDirectories=")
	if b.cordonedSet {
		s.WriteString("[")
		writeDirs(&s, b.cordoned)
		s.WriteString("]")
	} else {
		s.WriteString("null")
	}
	s.WriteString(")")
	return s.String()
}

func writeDirs(s *strings.Builder, dirs []record.UUID) {
	for i, d := range dirs {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(d.String())
	}
}

func writeEndpoints(s *strings.Builder, es []Endpoint) {
	for i, e := range es {
		if i > 0 {
			s.WriteString(", ")
		}
		fmt.Fprintf(s, "Endpoint(listenerName='%s', securityProtocol=%s, host='%s', port=%d)", e.Name, securityProtocolName(e.SecurityProtocol), e.Host, e.Port)
	}
}

func writeFeatures(s *strings.Builder, fs []VersionRange) {
	for i, f := range fs {
		if i > 0 {
			s.WriteString(", ")
		}
		fmt.Fprintf(s, "%s: %d-%d", f.Name, f.Min, f.Max)
	}
}

func securityProtocolName(p int16) string {
	switch p {
	case 0:
		return "PLAINTEXT"
	case 1:
		return "SSL"
	case 2:
		return "SASL_PLAINTEXT"
	case 3:
		return "SASL_SSL"
	}
	return strconv.Itoa(int(p))
}

// Controller is a controller registration (ControllerRegistration, KIP-919).
type Controller struct {
	id               int32
	incarnationID    record.UUID
	zkMigrationReady bool
	listeners        []Endpoint
	features         []VersionRange
}

// NewController builds a registration from a RegisterControllerRecord.
// A security protocol id Kafka does not know is an error, as in
// ControllerRegistration.Builder.
func NewController(r *record.RegisterControllerRecord) (*Controller, error) {
	c := &Controller{id: r.ControllerID, incarnationID: r.IncarnationID, zkMigrationReady: r.ZKMigrationReady}
	for _, e := range r.EndPoints {
		if e.SecurityProtocol < 0 || e.SecurityProtocol > 3 {
			return nil, fmt.Errorf("controller %d: listener %q has unknown security protocol %d", r.ControllerID, e.Name, e.SecurityProtocol)
		}
		c.listeners = append(c.listeners, Endpoint{Name: e.Name, Host: e.Host, Port: e.Port, SecurityProtocol: e.SecurityProtocol})
	}
	slices.SortStableFunc(c.listeners, func(x, y Endpoint) int { return strings.Compare(x.Name, y.Name) })
	for _, f := range r.Features {
		c.features = append(c.features, VersionRange{Name: f.Name, Min: f.MinSupportedVersion, Max: f.MaxSupportedVersion})
	}
	slices.SortStableFunc(c.features, func(x, y VersionRange) int { return strings.Compare(x.Name, y.Name) })
	return c, nil
}

// ID is the controller's node id.
func (c *Controller) ID() int32 { return c.id }

// IncarnationID identifies this run of the controller process.
func (c *Controller) IncarnationID() record.UUID { return c.incarnationID }

// ZKMigrationReady is the controller's ZK migration readiness flag.
func (c *Controller) ZKMigrationReady() bool { return c.zkMigrationReady }

// Listeners returns a copy of the listeners, sorted by name.
func (c *Controller) Listeners() []Endpoint { return slices.Clone(c.listeners) }

// SupportedFeatures returns a copy of the supported features, by name.
func (c *Controller) SupportedFeatures() []VersionRange { return slices.Clone(c.features) }

// String is Java's ControllerRegistration.toString (listeners by name,
// features by name).
func (c *Controller) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "ControllerRegistration(id=%d, incarnationId=%s, zkMigrationReady=%t, listeners=[", c.id, c.incarnationID, c.zkMigrationReady)
	writeEndpoints(&s, c.listeners)
	s.WriteString("], supportedFeatures={")
	writeFeatures(&s, c.features)
	s.WriteString("})")
	return s.String()
}

// Record returns the RegisterControllerRecord that writes c back.
func (c *Controller) Record() *record.RegisterControllerRecord {
	r := record.NewRegisterControllerRecord()
	r.ControllerID = c.id
	r.IncarnationID = c.incarnationID
	r.ZKMigrationReady = c.zkMigrationReady
	r.EndPoints = []record.ControllerEndpoint{}
	for _, e := range c.listeners {
		r.EndPoints = append(r.EndPoints, record.ControllerEndpoint{Name: e.Name, Host: e.Host, Port: e.Port, SecurityProtocol: e.SecurityProtocol})
	}
	r.Features = []record.ControllerFeature{}
	for _, f := range c.features {
		r.Features = append(r.Features, record.ControllerFeature{Name: f.Name, MinSupportedVersion: f.Min, MaxSupportedVersion: f.Max})
	}
	return r
}

type int32Comparer struct{}

func (int32Comparer) Compare(a, b int32) int { return cmp.Compare(a, b) }

type uuidComparer struct{}

func (uuidComparer) Compare(a, b record.UUID) int { return bytes.Compare(a[:], b[:]) }

type stringComparer struct{}

func (stringComparer) Compare(a, b string) int { return strings.Compare(a, b) }

// Cluster is the registered brokers and controllers, Kafka's ClusterImage.
type Cluster struct {
	brokers     *immutable.SortedMap[int32, *Broker]
	controllers *immutable.SortedMap[int32, *Controller]
}

var emptyCluster = &Cluster{
	brokers:     immutable.NewSortedMap[int32, *Broker](int32Comparer{}),
	controllers: immutable.NewSortedMap[int32, *Controller](int32Comparer{}),
}

// Broker returns the registration of broker id.
func (c *Cluster) Broker(id int32) (*Broker, bool) { return c.brokers.Get(id) }

// NumBrokers is the number of registered brokers.
func (c *Cluster) NumBrokers() int { return c.brokers.Len() }

// Brokers iterates over the brokers in id order.
func (c *Cluster) Brokers() iter.Seq[*Broker] {
	return func(yield func(*Broker) bool) {
		it := c.brokers.Iterator()
		for !it.Done() {
			_, b, _ := it.Next()
			if !yield(b) {
				return
			}
		}
	}
}

// AliveBrokers iterates over the unfenced brokers in id order
// (KRaftMetadataCache.getAliveBrokerNodes: alive = not fenced).
func (c *Cluster) AliveBrokers() iter.Seq[*Broker] {
	return func(yield func(*Broker) bool) {
		for b := range c.Brokers() {
			if !b.fenced && !yield(b) {
				return
			}
		}
	}
}

// BrokerEndpoint returns the endpoint of broker id on listener when the
// broker is alive: registered and not fenced, as
// KRaftMetadataCache.getAliveBrokerNode answers (AliveBrokerNode gives the
// whole Node). A partition's leader is looked up with Image.LeaderEndpoint,
// which ignores fencing as Kafka does.
func (c *Cluster) BrokerEndpoint(id int32, listener string) (Endpoint, bool) {
	b, ok := c.brokers.Get(id)
	if !ok || b.fenced {
		return Endpoint{}, false
	}
	return b.Listener(listener)
}

// AliveBroker returns the registration of broker id when it is alive:
// registered and not fenced (KRaftMetadataCache.hasAliveBroker; its Epoch
// is getAliveBrokerEpoch).
func (c *Cluster) AliveBroker(id int32) (*Broker, bool) {
	b, ok := c.brokers.Get(id)
	if !ok || b.fenced {
		return nil, false
	}
	return b, true
}

// AliveBrokerNode is KRaftMetadataCache.getAliveBrokerNode: the node of
// broker id on listener when the broker is registered, not fenced and has
// that listener.
func (c *Cluster) AliveBrokerNode(id int32, listener string) (Node, bool) {
	b, ok := c.brokers.Get(id)
	if !ok || b.fenced {
		return Node{}, false
	}
	return b.Node(listener)
}

// Controller returns the registration of controller id.
func (c *Cluster) Controller(id int32) (*Controller, bool) { return c.controllers.Get(id) }

// NumControllers is the number of registered controllers.
func (c *Cluster) NumControllers() int { return c.controllers.Len() }

// Controllers iterates over the controllers in id order.
func (c *Cluster) Controllers() iter.Seq[*Controller] {
	return func(yield func(*Controller) bool) {
		it := c.controllers.Iterator()
		for !it.Done() {
			_, v, _ := it.Next()
			if !yield(v) {
				return
			}
		}
	}
}

// updateCluster returns c with brokers and controllers put (non-nil) or
// removed (nil values).
func (c *Cluster) updateCluster(brokers map[int32]*Broker, controllers map[int32]*Controller) *Cluster {
	if len(brokers) == 0 && len(controllers) == 0 {
		return c
	}
	out := &Cluster{brokers: c.brokers, controllers: c.controllers}
	for id, b := range brokers {
		if b == nil {
			out.brokers = out.brokers.Delete(id)
		} else {
			out.brokers = out.brokers.Set(id, b)
		}
	}
	for id, v := range controllers {
		if v == nil {
			out.controllers = out.controllers.Delete(id)
		} else {
			out.controllers = out.controllers.Set(id, v)
		}
	}
	return out
}
