package deltatest

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// Config resource types for AlterConfigs (ConfigResource.Type).
const (
	TopicResource  = configTopic
	BrokerResource = configBroker
)

// AlterConfigs is IncrementalAlterConfigs for one resource
// (ConfigurationControlManager.incrementalAlterConfigs): each
// change sets a key (non-nil value) or deletes it (nil). A ConfigRecord is
// written for every key whose value changes, and for every key of a BROKER
// resource (KAFKA-14136), in Java HashMap order of the keys; with ELR on, a
// ClearElrRecord follows for a changed min.insync.replicas. A BROKER name
// "" is the cluster default. With Config.ValidateBrokerConfigs, a BROKER
// change is first checked as the broker forwarding the request checks it
// (non-dynamic configs refused, see checkBrokerConfigs).
func (s *Simulator) AlterConfigs(resourceType int8, name string, changes map[string]*string) error {
	switch resourceType {
	case configTopic:
		if _, ok := s.byName[name]; !ok {
			return fmt.Errorf("%w: topic %q", ErrUnknownTopic, name)
		}
	case configBroker:
		if name != "" {
			if _, err := strconv.Atoi(name); err != nil {
				return fmt.Errorf("%w: broker resource name %q", ErrInvalidRequest, name)
			}
		}
		if s.cfg.ValidateBrokerConfigs {
			if err := checkBrokerConfigs(name, changes); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: resource type %d", ErrInvalidRequest, resourceType)
	}
	keys := make([]string, 0, len(changes))
	for k, v := range changes {
		if v != nil && len(*v) > 32767 {
			return fmt.Errorf("%w: value of %s is too long", ErrInvalidConfig, k)
		}
		if s.elrEnabled() && k == "min.insync.replicas" && resourceType == configBroker {
			if name != "" {
				return fmt.Errorf("%w: min.insync.replicas cannot be set on a single broker while ELR is enabled", ErrInvalidConfig)
			}
			if v == nil {
				return fmt.Errorf("%w: the cluster-level min.insync.replicas cannot be deleted while ELR is enabled", ErrInvalidConfig)
			}
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	keys = hashOrder(keys, javaStringHash, 16)
	cur := s.configs[configKey{resourceType, name}]
	var recs []image.VersionedRecord
	clearELR := false
	for _, k := range keys {
		v := changes[k]
		old, had := cur[k]
		if resourceType != configBroker && ((v == nil && !had) || (v != nil && had && old == *v)) {
			continue
		}
		recs = append(recs, vr(configRecord(resourceType, name, k, v), 0))
		if k == "min.insync.replicas" {
			clearELR = true
		}
	}
	if clearELR && s.elrEnabled() {
		r := record.NewClearElrRecord()
		if resourceType == configTopic {
			r.TopicName = name
		}
		recs = append(recs, vr(r, 0))
	}
	return s.commit(recs, true)
}

// SetTopicConfig sets one topic config.
func (s *Simulator) SetTopicConfig(topicName, key, value string) error {
	return s.AlterConfigs(configTopic, topicName, map[string]*string{key: &value})
}

// DeleteTopicConfig deletes one topic config.
func (s *Simulator) DeleteTopicConfig(topicName, key string) error {
	return s.AlterConfigs(configTopic, topicName, map[string]*string{key: nil})
}

// quotaEntityOrder is the HashMap order of the entity types in a
// ClientQuotaRecord: client-id, then user, then ip.
// It is -1 for any other type.
func quotaEntityOrder(typ string) int {
	switch typ {
	case "client-id":
		return 0
	case "user":
		return 1
	case "ip":
		return 2
	}
	return -1
}

// AlterClientQuota is AlterClientQuotas for one entity and key
// (ClientQuotaControlManager.alterClientQuotas): value nil
// removes the key (a record only if it exists); otherwise a record only if
// the value changes. A part with a nil Name is the default entity.
func (s *Simulator) AlterClientQuota(entity []image.QuotaEntityPart, key string, value *float64) error {
	if len(entity) == 0 {
		return fmt.Errorf("%w: empty quota entity", ErrInvalidRequest)
	}
	parts := slices.Clone(entity)
	seen := map[string]bool{}
	for _, p := range parts {
		if quotaEntityOrder(p.Type) < 0 || seen[p.Type] {
			return fmt.Errorf("%w: quota entity type %q", ErrInvalidRequest, p.Type)
		}
		if p.Name != nil && *p.Name == "" {
			return fmt.Errorf("%w: empty quota entity name", ErrInvalidRequest)
		}
		seen[p.Type] = true
	}
	if seen["ip"] && len(parts) > 1 {
		return fmt.Errorf("%w: an ip quota entity cannot be combined with others", ErrInvalidRequest)
	}
	if value != nil && *value <= 0 {
		return fmt.Errorf("%w: quota %s must be positive", ErrInvalidRequest, key)
	}
	slices.SortStableFunc(parts, func(a, b image.QuotaEntityPart) int { return quotaEntityOrder(a.Type) - quotaEntityOrder(b.Type) })
	var cur *float64
	if e, ok := s.Image().ClientQuotas().Entity(image.QuotaEntityKey(parts)); ok {
		if v, ok := e.Get(key); ok {
			cur = &v
		}
	}
	r := record.NewClientQuotaRecord()
	for _, p := range parts {
		r.Entity = append(r.Entity, record.EntityData{EntityType: p.Type, EntityName: p.Name})
	}
	r.Key = key
	switch {
	case value == nil && cur == nil, value != nil && cur != nil && *cur == *value:
		s.last = nil
		return nil
	case value == nil:
		r.Remove = true
	default:
		r.Value = *value
	}
	return s.commit([]image.VersionedRecord{vr(r, 0)}, true)
}

// CreateACL is CreateAcls for one binding (AclControlManager.createAcls):
// an AccessControlEntryRecord with a fresh random id, or
// nothing when an identical ACL exists. It returns the id (of the existing
// ACL when there is one). acl.ID is ignored.
func (s *Simulator) CreateACL(acl image.ACL) (record.UUID, error) {
	switch {
	case acl.ResourceType <= 1, acl.PatternType != 3 && acl.PatternType != 4, acl.Operation <= 1,
		acl.PermissionType != 2 && acl.PermissionType != 3, acl.ResourceName == "", !strings.Contains(acl.Principal, ":"):
		return record.UUID{}, fmt.Errorf("%w: invalid ACL binding %+v", ErrInvalidRequest, acl)
	}
	existing := s.Image().ACLs()
	for a := range existing.All() {
		b := a
		b.ID = acl.ID
		if b == acl {
			s.last = nil
			return a.ID, nil
		}
	}
	for {
		acl.ID = randomUUID(s.idRnd)
		if _, used := existing.Get(acl.ID); !used {
			break
		}
	}
	return acl.ID, s.commit([]image.VersionedRecord{vr(acl.Record(), 0)}, true)
}

// DeleteACL removes one ACL by id (a RemoveAccessControlEntryRecord).
func (s *Simulator) DeleteACL(id record.UUID) error {
	if _, ok := s.Image().ACLs().Get(id); !ok {
		return fmt.Errorf("%w: ACL %s", ErrResourceNotFound, id)
	}
	r := record.NewRemoveAccessControlEntryRecord()
	r.ID = id
	return s.commit([]image.VersionedRecord{vr(r, 0)}, true)
}

// SCRAM mechanisms (ScramMechanism).
const (
	ScramSHA256 int8 = 1
	ScramSHA512 int8 = 2
)

// UpsertScramCredential is AlterUserScramCredentials with one upsertion
// (ScramControlManager, MV >= 3.5-IV2): a
// UserScramCredentialRecord with a random salt, StoredKey =
// H(HMAC(SaltedPassword, "Client Key")) and ServerKey =
// HMAC(SaltedPassword, "Server Key") (RFC 5802).
func (s *Simulator) UpsertScramCredential(user string, mechanism int8, iterations int32, password string) error {
	if !s.mv.ScramSupported() {
		return fmt.Errorf("%w: SCRAM needs metadata.version 3.5-IV2", ErrUnsupportedVersion)
	}
	var h func() hash.Hash
	switch mechanism {
	case ScramSHA256:
		h = sha256.New
	case ScramSHA512:
		h = sha512.New
	default:
		return fmt.Errorf("%w: unknown SCRAM mechanism %d", ErrInvalidRequest, mechanism)
	}
	if user == "" || iterations < 4096 || iterations > 16384 {
		return fmt.Errorf("%w: user %q, %d iterations", ErrInvalidRequest, user, iterations)
	}
	salt := make([]byte, 32)
	for i := range salt {
		salt[i] = byte(s.idRnd.next(8))
	}
	salted, err := pbkdf2.Key(h, password, salt, int(iterations), h().Size())
	if err != nil {
		return err
	}
	mac := func(key []byte, msg string) []byte {
		m := hmac.New(h, key)
		m.Write([]byte(msg))
		return m.Sum(nil)
	}
	hh := h()
	hh.Write(mac(salted, "Client Key"))
	r := record.NewUserScramCredentialRecord()
	r.Name, r.Mechanism, r.Salt, r.Iterations = user, mechanism, salt, iterations
	r.StoredKey, r.ServerKey = hh.Sum(nil), mac(salted, "Server Key")
	return s.commit([]image.VersionedRecord{vr(r, 0)}, true)
}

// DeleteScramCredential removes a user's credential for one mechanism.
func (s *Simulator) DeleteScramCredential(user string, mechanism int8) error {
	if _, ok := s.Image().Scram().Get(image.ScramKey{User: user, Mechanism: mechanism}); !ok {
		return fmt.Errorf("%w: SCRAM credential of %q", ErrResourceNotFound, user)
	}
	r := record.NewRemoveUserScramCredentialRecord()
	r.Name, r.Mechanism = user, mechanism
	return s.commit([]image.VersionedRecord{vr(r, 0)}, true)
}

// Delegation token defaults (delegation.token.max.lifetime.ms,
// delegation.token.expiry.time.ms).
const (
	tokenMaxLifetime = 7 * 24 * time.Hour
	tokenExpiry      = 24 * time.Hour
)

// CreateDelegationToken is CreateDelegationToken
// (DelegationTokenControlManager, MV >= 3.6-IV2): owner and
// renewers are principals ("User:alice"); maxLifetime 0 means 7 days. It
// returns the token id.
func (s *Simulator) CreateDelegationToken(owner string, renewers []string, maxLifetime time.Duration) (string, error) {
	if !s.mv.DelegationTokensSupported() {
		return "", fmt.Errorf("%w: delegation tokens need metadata.version 3.6-IV2", ErrUnsupportedVersion)
	}
	for _, r := range renewers {
		if !strings.HasPrefix(r, "User:") {
			return "", fmt.Errorf("%w: renewer %q is not a User principal", ErrInvalidRequest, r)
		}
	}
	life := tokenMaxLifetime
	if maxLifetime > 0 && maxLifetime < life {
		life = maxLifetime
	}
	r := record.NewDelegationTokenRecord()
	r.Owner, r.Requester, r.Renewers = owner, owner, slices.Clone(renewers)
	if r.Renewers == nil {
		r.Renewers = []string{}
	}
	r.IssueTimestamp = s.now
	r.MaxTimestamp = s.now + life.Milliseconds()
	r.ExpirationTimestamp = min(r.MaxTimestamp, s.now+tokenExpiry.Milliseconds())
	r.TokenID = uuidString(randomUUID(s.idRnd))
	return r.TokenID, s.commit([]image.VersionedRecord{vr(r, 0)}, true)
}

// RenewDelegationToken moves a token's expiry to min(max, now + period)
// (period 0: 24 h).
func (s *Simulator) RenewDelegationToken(id string, period time.Duration) error {
	t, ok := s.Image().Tokens().Get(id)
	if !ok || t.ExpirationTimestamp < s.now {
		return fmt.Errorf("%w: token %s not found or expired", ErrDelegationTokenState, id)
	}
	if period <= 0 {
		period = tokenExpiry
	}
	t.ExpirationTimestamp = min(t.MaxTimestamp, s.now+period.Milliseconds())
	return s.commit([]image.VersionedRecord{vr(t.Record(), 0)}, true)
}

// ExpireDelegationToken expires a token now (period < 0: a
// RemoveDelegationTokenRecord) or sets its expiry to min(max, now + period).
func (s *Simulator) ExpireDelegationToken(id string, period time.Duration) error {
	t, ok := s.Image().Tokens().Get(id)
	if !ok || t.ExpirationTimestamp < s.now {
		return fmt.Errorf("%w: token %s not found or expired", ErrDelegationTokenState, id)
	}
	if period < 0 {
		r := record.NewRemoveDelegationTokenRecord()
		r.TokenID = id
		return s.commit([]image.VersionedRecord{vr(r, 0)}, true)
	}
	t.ExpirationTimestamp = min(t.MaxTimestamp, s.now+period.Milliseconds())
	return s.commit([]image.VersionedRecord{vr(t.Record(), 0)}, true)
}

func uuidString(u record.UUID) string { return u.String() }

// AllocateProducerIDs is AllocateProducerIds from broker
// (ProducerIdControlManager.generateNextProducerId): the block
// [next, next+1000) and a ProducerIdsRecord pointing past it. It returns
// the first id of the block.
func (s *Simulator) AllocateProducerIDs(broker int32) (int64, error) {
	b, err := s.registered(broker)
	if err != nil {
		return 0, err
	}
	first := s.producerID
	r := record.NewProducerIdsRecord()
	r.BrokerID, r.BrokerEpoch, r.NextProducerID = broker, b.reg.Epoch(), first+1000
	return first, s.commit([]image.VersionedRecord{vr(r, 0)}, false)
}

// SetFeature is UpdateFeatures for one feature (FeatureControlManager
// .updateFeatures): a FeatureLevelRecord (level 0 removes the
// feature). metadata.version may only be raised. Enabling
// eligible.leader.replicas.version (4.x) is prefixed by the ELR safety
// records: the cluster min.insync.replicas if none is set and deletions of
// node-level ones.
func (s *Simulator) SetFeature(name string, level int16) error {
	if level < 0 {
		return fmt.Errorf("%w: feature level %d", ErrInvalidRequest, level)
	}
	var recs []image.VersionedRecord
	if name == "metadata.version" {
		if !s.mv.FeatureLevelRecordSupported() {
			return fmt.Errorf("%w: metadata.version cannot change below 3.3-IV0", ErrUnsupportedVersion)
		}
		if _, err := image.ParseMetadataVersionLevel(level); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidRequest, err)
		}
		if level < int16(s.mv) {
			return fmt.Errorf("%w: the simulator does not downgrade metadata.version", ErrUnsupportedVersion)
		}
	}
	if name == elrFeature && level > 0 {
		if !s.mv.ELRSupported() {
			return fmt.Errorf("%w: %s needs metadata.version 4.0-IV1", ErrInvalidRequest, elrFeature)
		}
		if _, ok := s.configs[configKey{configBroker, ""}]["min.insync.replicas"]; !ok {
			recs = append(recs, vr(configRecord(configBroker, "", "min.insync.replicas", ptr(strconv.Itoa(s.staticMinISR()))), 0))
		}
		var nodes []string
		for k, m := range s.configs {
			if _, ok := m["min.insync.replicas"]; ok && k.typ == configBroker && k.name != "" {
				nodes = append(nodes, k.name)
			}
		}
		slices.Sort(nodes)
		for _, n := range nodes {
			recs = append(recs, vr(configRecord(configBroker, n, "min.insync.replicas", nil), 0))
		}
	}
	r := record.NewFeatureLevelRecord()
	r.Name, r.FeatureLevel = name, level
	recs = append(recs, vr(r, 0))
	return s.commit(recs, true)
}
