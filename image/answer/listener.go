package answer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta-go/kmeta/image"
)

// DefaultInterBrokerListener is the listener a Kafka broker uses between
// brokers when inter.broker.listener.name is unset: the one named after
// security.inter.broker.protocol, whose default is PLAINTEXT
// (AbstractKafkaConfig.interBrokerListenerName,
// ListenerName.forSecurityProtocol).
const DefaultInterBrokerListener = "PLAINTEXT"

// ListenerError is a listener name no registered broker has, or a cluster
// with no broker listener at all. Known lists the names the registrations
// carry, sorted.
type ListenerError struct {
	Name  string
	Known []string
}

// Error names the listener and the known ones.
func (e *ListenerError) Error() string {
	if len(e.Known) == 0 {
		return "no registered broker has a listener"
	}
	if e.Name == "" {
		return fmt.Sprintf("no default listener among the registered ones (%s)", strings.Join(e.Known, ", "))
	}
	return fmt.Sprintf("listener %s is not registered by any broker; registered: %s", e.Name, strings.Join(e.Known, ", "))
}

// InterBrokerListener chooses the listener an embedder answers on when it
// is not itself one of the cluster's brokers (a proxy, a sidecar, a
// read-only metadata service): the listener a Kafka broker uses to reach the
// others, which every broker of a valid configuration advertises
// (KafkaConfig.validateValues requires inter.broker.listener.name to be an
// advertised listener).
//
// name is inter.broker.listener.name; it is normalised as
// ListenerName.normalised does (upper case) and must be registered by at
// least one broker, fenced brokers included. When name is "", the choice is
// Kafka's default, DefaultInterBrokerListener, when a broker registered it,
// and otherwise the first listener (in name order) of the lowest broker id.
// Registrations are read whether or not the broker is fenced, so that a
// stopped cluster (every broker fenced) still gives the listener its
// brokers will come back on; the answers themselves leave fenced brokers
// out, as Kafka's do. The error is a *ListenerError.
func InterBrokerListener(c *image.Cluster, name string) (string, error) {
	name = strings.ToUpper(name)
	var known []string
	first, lowest := "", int32(-1)
	for b := range c.Brokers() {
		for i := range b.NumListeners() {
			ln := b.ListenerAt(i).Name
			if !slices.Contains(known, ln) {
				known = append(known, ln)
			}
		}
		if b.NumListeners() > 0 && (lowest < 0 || b.ID() < lowest) {
			first, lowest = b.ListenerAt(0).Name, b.ID()
		}
	}
	slices.Sort(known)
	switch {
	case len(known) == 0:
		return "", &ListenerError{Name: name}
	case name != "":
		if slices.Contains(known, name) {
			return name, nil
		}
		return "", &ListenerError{Name: name, Known: known}
	case slices.Contains(known, DefaultInterBrokerListener):
		return DefaultInterBrokerListener, nil
	default:
		return first, nil
	}
}
