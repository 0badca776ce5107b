package proxy

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestRefreshDialsEachAddressOnce: a refresh against dead upstreams dials
// each distinct address once per attempt, even when a seed is listed twice.
func TestRefreshDialsEachAddressOnce(t *testing.T) {
	f := newForwarder([]string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:1"}, time.Second, nil)
	var mu sync.Mutex
	dials := map[string]int{}
	f.dial = func(_ context.Context, _, addr string) (net.Conn, error) {
		mu.Lock()
		defer mu.Unlock()
		dials[addr]++
		return nil, errors.New("refused")
	}
	_, _, err := f.fetchMetadata(context.Background(), kmsg.NewPtrMetadataRequest())
	require.Error(t, err)
	require.Equal(t, map[string]int{"127.0.0.1:1": 1, "127.0.0.1:2": 1}, dials)
}
