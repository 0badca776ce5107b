package proxy

import "github.com/twmb/franz-go/pkg/kmsg"

// flexibleTable holds, per API key, the first flexible version of its
// request; -1 for a key kmsg does not define.
type flexibleTable [256]int16

// flexibleFrom is, per API key kmsg knows, the first flexible version of
// its request (the messages' "flexibleVersions"; 32767 for none), computed
// once so that per-request header handling allocates no kmsg request. An
// array (a value), not a slice: read-only package state.
var flexibleFrom flexibleTable = func() (out flexibleTable) {
	for key := range out {
		out[key] = -1 // no such key
		req := kmsg.RequestForKey(int16(key))
		if req == nil {
			continue
		}
		from := int16(32767)
		for v := int16(0); v <= req.MaxVersion(); v++ {
			req.SetVersion(v)
			if req.IsFlexible() {
				from = v
				break
			}
		}
		out[key] = from
	}
	return out
}()

// IsFlexible reports whether version of the API key is a flexible version
// (tagged fields, compact strings and arrays; request header v2, response
// header v1 except ApiVersions'); known is false for a key Kafka does not
// define. A version above every version kmsg knows is flexible when the
// API has flexible versions at all (Kafka never goes back to rigid ones).
func IsFlexible(key, version int16) (flexible, known bool) {
	if key < 0 || int(key) >= len(flexibleFrom) || flexibleFrom[key] < 0 {
		return false, false
	}
	return version >= flexibleFrom[key], true
}
