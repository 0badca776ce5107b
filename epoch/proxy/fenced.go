package proxy

import (
	"log"

	"github.com/kmeta-go/kmeta/image"
)

// allFenced reports whether img names brokers and every one of them is
// fenced (BrokerRegistration.fenced), as in an image of a stopped cluster:
// Kafka's MetadataCache then answers Metadata with no brokers and every
// partition LEADER_NOT_AVAILABLE.
func allFenced(img *image.Image) bool {
	n := 0
	for b := range img.Cluster().Brokers() {
		if !b.Fenced() {
			return false
		}
		n++
	}
	return n > 0
}

// logFenced logs, when img's brokers are all fenced and the server does
// not answer them as alive, the reason clients see no broker and the flag
// that serves such an image.
func (s *Server) logFenced(img *image.Image) {
	if s.serveFenced || !allFenced(img) {
		return
	}
	log.Printf("proxy: all %d brokers are fenced (a stopped cluster): clients see no broker and LEADER_NOT_AVAILABLE; use -serve-fenced (SetServeFenced) to answer them as alive", img.Cluster().NumBrokers())
}
