package node_test

import (
	"github.com/kmeta-go/kmeta/delta"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/record"
)

// smallImage replays one record of each kind the tree shows: a
// metadata.version, a broker, a controller, a topic of two partitions,
// configs, a client quota, a SCRAM credential, a delegation token and an
// ACL.
func smallImage() (*image.Image, error) {
	topic := record.UUID{15: 1}
	mv := record.NewFeatureLevelRecord()
	mv.Name, mv.FeatureLevel = "metadata.version", 21
	b := record.NewRegisterBrokerRecord()
	b.BrokerID, b.BrokerEpoch = 1, 7
	b.EndPoints = []record.BrokerEndpoint{{Name: "PLAINTEXT", Host: "broker-1", Port: 9092}}
	c := record.NewRegisterControllerRecord()
	c.ControllerID, c.IncarnationID = 3000, record.UUID{15: 2}
	c.EndPoints = []record.ControllerEndpoint{{Name: "CONTROLLER", Host: "ctl", Port: 9093, SecurityProtocol: 1}}
	t := record.NewTopicRecord()
	t.Name, t.TopicID = "orders", topic
	recs := []record.Record{mv, b, c, t}
	for i := int32(0); i < 2; i++ {
		p := record.NewPartitionRecord()
		p.TopicID, p.PartitionID, p.Replicas, p.ISR, p.Leader = topic, i, []int32{1}, []int32{1}, 1
		recs = append(recs, p)
	}
	recs = append(recs,
		config(2, "orders", "retention.ms", "86400000"),
		config(4, "", "ssl.keystore.password", "hunter2"),
		quota("user", "alice", "producer_byte_rate", 1024),
		scram("alice"),
		token("t1", "User:alice"),
		acl(record.UUID{15: 3}))
	d := delta.New(nil)
	for _, r := range recs {
		if err := d.Replay(r); err != nil {
			return nil, err
		}
	}
	return d.Apply(image.Provenance{LastContainedOffset: 41, LastContainedEpoch: 2, LastContainedLogTimeMs: 1_700_000_000_250})
}

func config(typ int8, name, key, value string) *record.ConfigRecord {
	r := record.NewConfigRecord()
	r.ResourceType, r.ResourceName, r.Name, r.Value = typ, name, key, &value
	return r
}

func quota(typ, name, key string, v float64) *record.ClientQuotaRecord {
	r := record.NewClientQuotaRecord()
	r.Entity = []record.EntityData{{EntityType: typ, EntityName: &name}}
	r.Key, r.Value = key, v
	return r
}

func scram(user string) *record.UserScramCredentialRecord {
	r := record.NewUserScramCredentialRecord()
	r.Name, r.Mechanism, r.Iterations = user, 1, 4096
	r.Salt, r.StoredKey, r.ServerKey = []byte{1, 2}, []byte{3}, []byte{4}
	return r
}

func token(id, owner string) *record.DelegationTokenRecord {
	r := record.NewDelegationTokenRecord()
	r.TokenID, r.Owner, r.Requester, r.Renewers = id, owner, owner, []string{"User:bob"}
	r.IssueTimestamp, r.MaxTimestamp, r.ExpirationTimestamp = 1, 3, 2
	return r
}

func acl(id record.UUID) *record.AccessControlEntryRecord {
	r := record.NewAccessControlEntryRecord()
	r.ID, r.ResourceType, r.ResourceName, r.PatternType = id, 2, "orders", 3
	r.Principal, r.Host, r.Operation, r.PermissionType = "User:alice", "*", 3, 3
	return r
}
