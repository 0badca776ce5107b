package delta

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/imagetest"
)

// kafkaImageJSON is the node tree Kafka's image printer wrote beside each
// scenario file (*.image.json).
type kafkaImageJSON struct {
	ACLs    json.RawMessage `json:"acls"`
	Cluster struct {
		Brokers     map[string]string `json:"brokers"`
		Controllers map[string]string `json:"controllers"`
	} `json:"cluster"`
	Configs     map[string]map[string]string `json:"configs"`
	Tokens      map[string]string            `json:"delegationToken"`
	Features    map[string]string            `json:"features"`
	ProducerIDs map[string]string            `json:"producerIds"`
	Scram       map[string]map[string]string `json:"scram"`
	Topics      struct {
		ByID map[string]map[string]string `json:"byId"`
	} `json:"topics"`
	QuotasRaw []struct {
		Entity map[string]*string `json:"entity"`
		Quotas map[string]float64 `json:"quotas"`
	} `json:"_clientQuotasRaw"`
}

var (
	aclResource   = []string{"UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"}
	aclPattern    = []string{"UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"}
	aclOperation  = []string{"UNKNOWN", "ANY", "ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "CREATE_TOKENS", "DESCRIBE_TOKENS"}
	aclPermission = []string{"UNKNOWN", "ANY", "DENY", "ALLOW"}
	configTypes   = map[int8]string{0: "UNKNOWN", 2: "TOPIC", 4: "BROKER", 8: "BROKER_LOGGER", 16: "CLIENT_METRICS", 32: "GROUP"}
)

// kafkaACLs reads the "acls" node: a map by id, which Kafka 4.4's
// AclsImageNode nests under "byId".
func kafkaACLs(t *testing.T, raw json.RawMessage) map[string]string {
	var nested struct {
		ByID map[string]string `json:"byId"`
	}
	if json.Unmarshal(raw, &nested) == nil && nested.ByID != nil {
		return nested.ByID
	}
	var flat map[string]string
	require.NoError(t, json.Unmarshal(raw, &flat))
	return flat
}

// TestVectorImageJSON checks our image against Kafka's printed image node
// tree: every broker, controller and partition (their Java toString),
// config, client quota, ACL, SCRAM credential, delegation token, feature and
// producer id. The scenarios of vectors/snapshots were printed by a Kafka
// trunk of 2024, before Kafka 4.3 added cordonedDirectories to
// BrokerRegistration.toString; those of snapshots-4.4 by Kafka 4.4, whose
// StandardAcl is a Java record (printed with brackets) and whose features
// node prints the metadata.version as an Optional.
func TestVectorImageJSON(t *testing.T) {
	for _, dir := range scenarios(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			snap, _ := dirFiles(t, filepath.Join(dir, "__cluster_metadata-0"))
			img := loadSnapshotFile(t, image.Empty(), snap)
			data, err := os.ReadFile(snap + ".image.json")
			require.NoError(t, err)
			var k kafkaImageJSON
			require.NoError(t, json.Unmarshal(data, &k))
			for _, check := range []func(*testing.T, *image.Image, *kafkaImageJSON){
				checkClusterJSON, checkTopicsJSON, checkConfigsJSON, checkQuotasJSON, checkACLsJSON, checkScramJSON, checkTokensAndFeaturesJSON,
			} {
				check(t, img, &k)
			}
		})
	}
}

// checkClusterJSON: every broker and controller (BrokerRegistration and
// ControllerRegistration toString).
func checkClusterJSON(t *testing.T, img *image.Image, k *kafkaImageJSON) {
	require.Equal(t, len(k.Cluster.Brokers), img.Cluster().NumBrokers())
	for id, s := range k.Cluster.Brokers {
		n, _ := strconv.Atoi(id)
		b, ok := img.Cluster().Broker(int32(n))
		require.True(t, ok)
		got := b.String()
		if !strings.Contains(s, "cordonedDirectories=") {
			got = strings.TrimSuffix(got, ", cordonedDirectories=null)") + ")"
		}
		require.Equal(t, sortJavaMap(s), sortJavaMap(got))
	}
	require.Equal(t, len(k.Cluster.Controllers), img.Cluster().NumControllers())
	for id, s := range k.Cluster.Controllers {
		n, _ := strconv.Atoi(id)
		c, ok := img.Cluster().Controller(int32(n))
		require.True(t, ok, "controller %s", id)
		require.Equal(t, sortJavaMap(s), sortJavaMap(c.String()))
	}
}

// checkTopicsJSON: every topic and partition (PartitionRegistration.toString).
func checkTopicsJSON(t *testing.T, img *image.Image, k *kafkaImageJSON) {
	nparts := 0
	for id, parts := range k.Topics.ByID {
		tp, ok := img.TopicByID(mustUUID(t, id))
		require.True(t, ok, id)
		require.Equal(t, parts["name"], tp.Name())
		require.Equal(t, parts["id"], tp.ID().String())
		require.Equal(t, len(parts)-2, tp.NumPartitions())
		for pid, s := range parts {
			if pid == "name" || pid == "id" {
				continue
			}
			n, _ := strconv.Atoi(pid)
			p, ok := tp.Partition(int32(n))
			require.True(t, ok)
			require.Equal(t, s, p.String())
			nparts++
		}
	}
	require.Equal(t, len(k.Topics.ByID), img.Topics().Len())
}

// checkConfigsJSON: every config of every resource.
func checkConfigsJSON(t *testing.T, img *image.Image, k *kafkaImageJSON) {
	nconf := 0
	for res, es := range img.Configs().Resources() {
		key := configTypes[int8(res.Type)]
		if res.Name != "" {
			key += ":" + res.Name
		}
		want := k.Configs[key]
		require.Equal(t, len(want), len(es), key)
		for _, e := range es {
			require.Equal(t, want[e.Name], e.Value, key)
		}
		nconf++
	}
	require.Equal(t, len(k.Configs), nconf)
}

// checkQuotasJSON: every client quota entity and value.
func checkQuotasJSON(t *testing.T, img *image.Image, k *kafkaImageJSON) {
	require.Equal(t, len(k.QuotasRaw), img.ClientQuotas().Len())
	for _, q := range k.QuotasRaw {
		var parts []image.QuotaEntityPart
		for typ, name := range q.Entity {
			parts = append(parts, image.QuotaEntityPart{Type: typ, Name: name})
		}
		e, ok := img.ClientQuotas().Entity(image.QuotaEntityKey(parts))
		require.True(t, ok)
		require.Equal(t, len(q.Quotas), len(e.Values()))
		for key, v := range q.Quotas {
			got, _ := e.Get(key)
			require.Equal(t, v, got)
		}
	}
}

// checkACLsJSON: every ACL (StandardAcl.toString, a Java record in 4.4).
func checkACLsJSON(t *testing.T, img *image.Image, k *kafkaImageJSON) {
	acls := kafkaACLs(t, k.ACLs)
	require.Equal(t, len(acls), img.ACLs().Len())
	for id, s := range acls {
		a, ok := img.ACLs().Get(mustUUID(t, id))
		require.True(t, ok)
		open, end := "(", ")"
		if strings.HasPrefix(s, "StandardAcl[") {
			open, end = "[", "]"
		}
		require.Equal(t, s, fmt.Sprintf("StandardAcl%sresourceType=%s, resourceName=%s, patternType=%s, principal=%s, host=%s, operation=%s, permissionType=%s%s",
			open, aclResource[a.ResourceType], a.ResourceName, aclPattern[a.PatternType], a.Principal, a.Host, aclOperation[a.Operation], aclPermission[a.PermissionType], end))
	}
}

// checkScramJSON: every SCRAM credential (ScramCredentialData.toString).
func checkScramJSON(t *testing.T, img *image.Image, k *kafkaImageJSON) {
	nscram := 0
	for mech, users := range k.Scram {
		for user, s := range users {
			m := image.ScramSHA256
			if mech == "SCRAM-SHA-512" {
				m = image.ScramSHA512
			}
			c, ok := img.Scram().Get(image.ScramKey{Mechanism: m, User: user})
			require.True(t, ok)
			require.Equal(t, s, fmt.Sprintf("ScramCredentialData(salt=%s, storedKey=%s, serverKey=%s, iterations=%d)",
				hex.EncodeToString(c.Salt), hex.EncodeToString(c.StoredKey), hex.EncodeToString(c.ServerKey), c.Iterations))
			nscram++
		}
	}
	require.Equal(t, nscram, img.Scram().Len())
}

// checkTokensAndFeaturesJSON: every delegation token
// (DelegationTokenData.toString), the features and the next producer id.
func checkTokensAndFeaturesJSON(t *testing.T, img *image.Image, k *kafkaImageJSON) {
	require.Equal(t, len(k.Tokens), img.Tokens().Len())
	for id, s := range k.Tokens {
		tk, ok := img.Tokens().Get(id)
		require.True(t, ok)
		require.Equal(t, s, fmt.Sprintf("DelegationTokenDatatokenId=%s(owner=%s(tokenRequester=%s(renewers=%s, issueTimestamp=%d, maxTimestamp=%d), expiryTimestamp=%d",
			tk.TokenID, tk.Owner, tk.Requester, strings.Join(tk.Renewers, ","), tk.IssueTimestamp, tk.MaxTimestamp, tk.ExpirationTimestamp))
	}
	mv, _ := img.Features().MetadataVersion()
	wantMV := k.Features["metadataVersion"]
	if strings.HasPrefix(wantMV, "Optional[") {
		wantMV = strings.TrimSuffix(strings.TrimPrefix(wantMV, "Optional["), "]")
	}
	require.Equal(t, wantMV, mv.String())
	for _, f := range img.Features().Finalized() {
		require.Equal(t, k.Features["finalized_"+f.Name], strconv.Itoa(int(f.Level)))
	}
	require.Equal(t, k.ProducerIDs["nextProducerId"], strconv.FormatInt(img.NextProducerID(), 10))
}

// sortJavaMap sorts the entries of the "supportedFeatures={...}" map in a
// BrokerRegistration string: Java prints it in HashMap order.
func sortJavaMap(s string) string {
	i := strings.Index(s, "supportedFeatures={")
	if i < 0 {
		return s
	}
	j := strings.Index(s[i:], "}")
	inner := s[i+len("supportedFeatures={") : i+j]
	parts := strings.Split(inner, ", ")
	for a := 1; a < len(parts); a++ {
		for b := a; b > 0 && parts[b] < parts[b-1]; b-- {
			parts[b], parts[b-1] = parts[b-1], parts[b]
		}
	}
	return s[:i] + "supportedFeatures={" + strings.Join(parts, ", ") + s[i+j:]
}

// TestWriteJSONRedacts: the dump's JSON is deterministic and redacts
// secrets by default.
func TestWriteJSONRedacts(t *testing.T) {
	dir := scenarios(t)[0]
	img := loadSnapshotFile(t, image.Empty(), func() string { s, _ := dirFiles(t, filepath.Join(dir, "__cluster_metadata-0")); return s }())
	sensitive := func(rt image.ConfigType, name string) bool { return name == "log.retention.hours" }
	var a, b, clear bytes.Buffer
	require.NoError(t, image.WriteJSON(&a, img, image.WriteJSONOptions{Sensitive: sensitive}))
	require.NoError(t, image.WriteJSON(&b, img, image.WriteJSONOptions{Sensitive: sensitive}))
	require.Equal(t, a.String(), b.String())
	require.NoError(t, image.WriteJSON(&clear, img, image.WriteJSONOptions{Unredacted: true}))
	c, _ := img.Scram().Get(image.ScramKey{Mechanism: image.ScramSHA256, User: "alice"})
	salt, _ := json.Marshal(c.Salt)
	require.NotContains(t, a.String(), strings.Trim(string(salt), `"`))
	require.Contains(t, clear.String(), strings.Trim(string(salt), `"`))
	require.Contains(t, a.String(), `"log.retention.hours":"[redacted]"`)
	require.NotContains(t, a.String(), "token-0001")
	require.Contains(t, clear.String(), "token-0001")
	var lines bytes.Buffer
	require.NoError(t, image.WriteRecordsJSONL(&lines, img, image.WriteOptions{}))
	imagetest.CompareImage(t, img, strings.Split(strings.TrimSpace(lines.String()), "\n"))
}
