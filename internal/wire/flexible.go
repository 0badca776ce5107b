package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// flexibleFrom is, per API key kmsg knows, the first flexible version of
// its request (the messages' "flexibleVersions"; 32767 for none), computed
// once so that per-request header handling allocates no kmsg request.
var flexibleFrom = func() []int16 {
	var out []int16
	for key := int16(0); ; key++ {
		req := kmsg.RequestForKey(key)
		if req == nil {
			if key > 100 {
				return out
			}
			out = append(out, -1) // no such key
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
		out = append(out, from)
	}
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
