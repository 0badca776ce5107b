package credential

import (
	"sync"

	"github.com/kmeta-go/kmeta/image"
)

// TokenCache keeps the SCRAM credentials derived for delegation tokens, so
// that each token's PBKDF2 is paid once, as Kafka's DelegationTokenCache
// pays it once per token update, rather than on every login. A credential
// is a function of the mechanism, the token id and the secret key (and of
// the salt drawn the first time), so an entry never goes stale; a token
// removed from the image no longer logs in, whatever the cache holds,
// because ScramServer looks the token up in the image first. The cache
// holds at most its bound of entries and empties itself when full. It is
// safe for concurrent use; share one among the ScramServers of a listener
// through Config.TokenCache.
type TokenCache struct {
	mu  sync.Mutex
	max int
	m   map[tokenCacheKey]image.ScramCredential
}

type tokenCacheKey struct {
	mech         Mechanism
	tokenID, key string
}

// NewTokenCache returns a cache of at most maxEntries credentials (at
// least 1).
func NewTokenCache(maxEntries int) *TokenCache {
	return &TokenCache{max: max(maxEntries, 1), m: map[tokenCacheKey]image.ScramCredential{}}
}

// Len is the number of credentials held.
func (c *TokenCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// credential returns the cached credential or derives one with derive and
// keeps it.
func (c *TokenCache) credential(m Mechanism, tokenID, key string, derive func() (image.ScramCredential, error)) (image.ScramCredential, error) {
	k := tokenCacheKey{m, tokenID, key}
	c.mu.Lock()
	cred, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return cred, nil
	}
	cred, err := derive()
	if err != nil {
		return cred, err
	}
	c.mu.Lock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = cred
	c.mu.Unlock()
	return cred, nil
}
