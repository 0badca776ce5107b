package node

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/redact"
)

// configsNode is ConfigurationsImageNode: TYPE or TYPE:name, then
// ConfigurationImageNode with one leaf per key, printing "[redacted]" where
// c redacts the config.
func configsNode(cfg *image.Configs, c redact.Criteria) Node {
	return Dir{
		Names: func() []string {
			var out []string
			for res := range cfg.Resources() {
				out = append(out, configResourceName(res))
			}
			return out
		},
		Get: func(name string) Node {
			for res, entries := range cfg.Resources() {
				if configResourceName(res) != name {
					continue
				}
				es := slices.Clone(entries)
				return Dir{
					Names: func() []string {
						out := make([]string, len(es))
						for i, e := range es {
							out[i] = e.Name
						}
						return out
					},
					Get: func(key string) Node {
						for _, e := range es {
							if e.Name == key {
								if c.ShouldRedactConfig(res.Type, key) {
									return Leaf(image.Redacted)
								}
								return Leaf(e.Value)
							}
						}
						return nil
					},
				}
			}
			return nil
		},
	}
}

// quotasNode is ClientQuotasImageNode: entities named
// clientId(x)_ip(y)_user(z), each a ClientQuotaImageNode of quota keys whose
// leaves print the value as Java prints a Double.
func quotasNode(q *image.ClientQuotas) Node {
	return Dir{
		Names: func() []string {
			var out []string
			for _, e := range q.Entities() {
				out = append(out, quotaEntityName(e))
			}
			return out
		},
		Get: func(name string) Node {
			for _, e := range q.Entities() {
				if quotaEntityName(e) != name {
					continue
				}
				vals := e.Values()
				return Dir{
					Names: func() []string {
						out := make([]string, len(vals))
						for i, v := range vals {
							out[i] = v.Key
						}
						return out
					},
					Get: func(key string) Node {
						for _, v := range vals {
							if v.Key == key {
								return Leaf(javaDouble(v.Value))
							}
						}
						return nil
					},
				}
			}
			return nil
		},
	}
}

// scramNode is ScramImageNode: SCRAM-SHA-256 and SCRAM-SHA-512 always
// (ScramMechanismNode), then one leaf per user printing
// ScramCredentialDataNode's text, redacted where c redacts SCRAM data.
func scramNode(s *image.Scram, c redact.Criteria) Node {
	mechs := map[string]int8{}
	for _, m := range []int8{1, 2} {
		mechs[image.ScramMechanismName(m)] = m
	}
	return Dir{
		Names: func() []string { return []string{image.ScramMechanismName(1), image.ScramMechanismName(2)} },
		Get: func(name string) Node {
			m, ok := mechs[name]
			if !ok {
				return nil
			}
			return Dir{
				Names: func() []string {
					var out []string
					for k := range s.Keys() {
						if k.Mechanism == m {
							out = append(out, k.User)
						}
					}
					return out
				},
				Get: func(user string) Node {
					cred, ok := s.Get(image.ScramKey{Mechanism: m, User: user})
					if !ok {
						return nil
					}
					if c.ShouldRedactScram() {
						return Leaf("ScramCredentialData(salt=[redacted], storedKey=[redacted], serverKey=[redacted], iterations=[redacted])")
					}
					return leaff("ScramCredentialData(salt=%x, storedKey=%x, serverKey=%x, iterations=%d)", cred.Salt, cred.StoredKey, cred.ServerKey, cred.Iterations)
				},
			}
		},
	}
}

// tokensNode is DelegationTokenImageNode: one leaf per token id printing
// DelegationTokenDataNode's text, its fields redacted where c redacts token
// data.
func tokensNode(ts *image.Tokens, c redact.Criteria) Node {
	return Dir{
		Names: func() []string {
			var out []string
			for t := range ts.All() {
				out = append(out, t.TokenID)
			}
			return out
		},
		Get: func(id string) Node {
			t, ok := ts.Get(id)
			if !ok {
				return nil
			}
			hide := c.ShouldRedactDelegationToken()
			r := func(s string) string {
				if hide {
					return image.Redacted
				}
				return s
			}
			return leaff("DelegationTokenDatatokenId=%s(owner=%s(tokenRequester=%s(renewers=%s, issueTimestamp=%s, maxTimestamp=%s), expiryTimestamp=%s",
				r(t.TokenID), r(t.Owner), r(t.Requester), r(strings.Join(t.Renewers, " ")),
				r(strconv.FormatInt(t.IssueTimestamp, 10)), r(strconv.FormatInt(t.MaxTimestamp, 10)), r(strconv.FormatInt(t.ExpirationTimestamp, 10)))
		},
	}
}
