package proxy

import (
	"errors"
	"net"
	"slices"

	"github.com/kmeta-go/kmeta/image"
)

// AdvertisePerBroker makes the server advertise one port per broker id on
// host: each broker's endpoint on the listener becomes its own proxy port
// (opened as the image first names the id, kept for the life of the
// process), so that a client sees as many brokers as the image has, at
// distinct addresses; the -listen port stays a bootstrap address answering
// the same.
func (s *Server) AdvertisePerBroker(host string, base int) {
	ports := newBrokerPorts(host, base, func(ln net.Listener, _ int32) {
		if err := s.acceptor().serve(ln, s.serveConn); !errors.Is(err, net.ErrClosed) {
			logAcceptFailure(err)
			s.fatal.report(err)
		}
	})
	s.ports = NewMap(ports)
	s.closePorts = ports.Close
}

// prepare is what OnUpdate serves instead of img: with -serve-fenced its
// fenced brokers alive; with per-broker ports each broker's endpoint on the
// listener at its own port; else with an advertise address every endpoint
// at that address.
func (s *Server) prepare(img *image.Image) (*image.Image, error) {
	var err error
	if s.serveFenced {
		if img, err = unfence(img); err != nil {
			return nil, err
		}
	}
	switch {
	case s.ports != nil:
		return rewritePerBroker(img, s.rq.Listener, s.ports)
	case s.advertise != "":
		return rewrite(img, s.rq.Listener, s.advertise)
	}
	return img, nil
}

// rewritePerBroker returns img with every broker's endpoint on listener
// moved to the endpoint m advertises for its id (allocated for a new id). A
// broker without an endpoint on the listener keeps its endpoints (it is
// not served on the listener either way).
func rewritePerBroker(img *image.Image, listener string, m *Map) (*image.Image, error) {
	changed := map[int32]*image.Broker{}
	for b := range img.Cluster().Brokers() {
		r := b.Record()
		for i := range r.EndPoints {
			ep := &r.EndPoints[i]
			if ep.Name != listener {
				continue
			}
			adv, err := m.Observe(b.ID(), Endpoint{Host: ep.Host, Port: int32(ep.Port)}, r.Rack)
			if err != nil {
				return nil, err
			}
			ep.Host, ep.Port = adv.Host, uint16(adv.Port)
		}
		nb, err := image.NewBroker(r)
		if err != nil {
			return nil, err
		}
		changed[b.ID()] = nb
	}
	b := image.NewBuilder(img)
	b.PutCluster(changed, nil)
	return b.Image(img.Provenance()), nil
}

// unfence returns img as the controller would make it if every broker came
// back: each fenced broker unfenced (Kafka's UnfenceBrokerRecord), and each
// partition without a leader given one as PartitionChangeBuilder.electLeader
// elects it once its replicas are active: the first replica, in replica
// order, that is in the ISR, else (KIP-966) the first in the eligible
// leader replicas; the leader epoch goes up by one. A partition with
// neither keeps no leader (an unclean election is never made). It is for
// answering an image of a stopped cluster, where every broker is fenced and
// no client could use the answers; the proxy says so in its output.
func unfence(img *image.Image) (*image.Image, error) {
	brokers := map[int32]*image.Broker{}
	for b := range img.Cluster().Brokers() {
		if !b.Fenced() && !b.InControlledShutdown() {
			continue
		}
		r := b.Record()
		r.Fenced, r.InControlledShutdown = false, false
		nb, err := image.NewBroker(r)
		if err != nil {
			return nil, err
		}
		brokers[b.ID()] = nb
	}
	var topics []image.Topic
	for t := range img.Topics().All() {
		var tb *image.TopicBuilder
		for i := range t.NumPartitions() {
			p := t.PartitionAt(i)
			if p.Leader() >= 0 {
				continue
			}
			leader := electLeader(p)
			if leader < 0 {
				continue
			}
			if tb == nil {
				tb = image.NewTopicBuilderFrom(t)
			}
			r := p.Record(t.ID(), true, true)
			r.Leader, r.LeaderEpoch = leader, p.LeaderEpoch()+1
			np, err := image.NewPartition(r)
			if err != nil {
				return nil, err
			}
			tb.Put(np)
		}
		if tb != nil {
			topics = append(topics, tb.Topic())
		}
	}
	b := image.NewBuilder(img)
	if len(brokers) > 0 {
		b.PutCluster(brokers, nil)
	}
	if len(topics) > 0 {
		if err := b.PutTopics(nil, topics); err != nil {
			return nil, err
		}
	}
	return b.Image(img.Provenance()), nil
}

// electLeader is PartitionChangeBuilder.electLeader with every replica
// active: the first replica in the ISR, else the first eligible leader
// replica (KIP-966), else -1.
func electLeader(p image.Partition) int32 {
	isr, elr := p.ISR(), p.ELR()
	for _, r := range p.Replicas() {
		if slices.Contains(isr, r) {
			return r
		}
	}
	for _, r := range p.Replicas() {
		if slices.Contains(elr, r) {
			return r
		}
	}
	return -1
}
