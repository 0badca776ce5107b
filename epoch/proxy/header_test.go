package proxy

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestParseHeaderReusesLastClientID: parseHeader hands back the last
// client id itself (the same bytes, no allocation) when the frame's id is
// the same, and reads every other header as ParseHeader does: another id,
// an empty one, a null one (Kafka's RequestHeader.parse reads it as "")
// and one cut short.
func TestParseHeaderReusesLastClientID(t *testing.T) {
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	frame := appendRequest(nil, req, 7, "bench")[4:]
	want, err := ParseHeader(frame)
	require.NoError(t, err)
	last := "bench"
	h, err := parseHeader(frame, last)
	require.NoError(t, err)
	require.Equal(t, want, h)
	require.Same(t, unsafe.StringData(last), unsafe.StringData(h.ClientID), "the last id itself")
	if !raceEnabled {
		require.Zero(t, testing.AllocsPerRun(100, func() { h, _ = parseHeader(frame, last) }))
	}

	for _, c := range []struct {
		name, last string
		frame      []byte
	}{
		{"another id", "bench", appendRequest(nil, req, 7, "other")[4:]},
		{"a longer last id", "bench2", frame},
		{"empty id", "bench", appendRequest(nil, req, 7, "")[4:]},
		{"null id", "bench", mustHex(t, "0003 000c 00000001 ffff 00")},
		{"id cut short", "bench", mustHex(t, "0003 000c 00000001 0005 6265")},
		{"no last id", "", frame},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, wantErr := ParseHeader(c.frame)
			got, err := parseHeader(c.frame, c.last)
			require.Equal(t, wantErr, err)
			require.Equal(t, want, got)
		})
	}
}
