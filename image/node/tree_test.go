package node_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-go/kmeta/image/node"
	"github.com/kmeta-go/kmeta/image/redact"
)

func mustImage(t *testing.T, c redact.Criteria) node.Node {
	t.Helper()
	img, err := smallImage()
	if err != nil {
		t.Fatal(err)
	}
	return node.Image(img, c)
}

// leafAt follows path from root and returns the leaf's text.
func leafAt(t *testing.T, root node.Node, path string) string {
	t.Helper()
	n := root
	for _, c := range strings.Split(path, "/") {
		if n = n.Child(c); n == nil {
			t.Fatalf("%s: no child %q", path, c)
		}
	}
	if n.IsDir() {
		t.Fatalf("%s is a directory", path)
	}
	return n.Text()
}

// TestMetadataImageNodeChildren: MetadataImageNode's children, and those of
// the directories under it, as Kafka's node classes name them.
func TestMetadataImageNodeChildren(t *testing.T) {
	root := mustImage(t, redact.Disabled)
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"", []string{"acls", "clientQuotas", "cluster", "configs", "delegationToken", "features", "producerIds", "provenance", "scram", "topics"}},
		{"acls", []string{"byId"}},
		{"cluster", []string{"brokers", "controllers"}},
		{"cluster/controllers", []string{"3000"}},
		{"configs", []string{"BROKER", "TOPIC:orders"}},
		{"features", []string{"metadataVersion"}},
		{"scram", []string{"SCRAM-SHA-256", "SCRAM-SHA-512"}}, // ScramImageNode lists every mechanism
		{"scram/SCRAM-SHA-512", nil},
		{"topics", []string{"byId", "byName"}},
		{"topics/byName/orders", []string{"0", "1", "id", "name"}},
		{"topics/byId/AAAAAAAAAAAAAAAAAAAAAQ", []string{"0", "1", "id", "name"}},
	} {
		n := root
		if tc.path != "" {
			for _, c := range strings.Split(tc.path, "/") {
				n = n.Child(c)
			}
		}
		if n == nil || !n.IsDir() {
			t.Fatalf("%q: not a directory", tc.path)
		}
		if got := n.ChildNames(); !slices.Equal(got, tc.want) {
			t.Errorf("%q: children %q, want %q", tc.path, got, tc.want)
		}
	}
	for _, missing := range []string{"topics/byName/nope", "topics/byId/nope", "topics/byName/orders/7", "topics/byName/orders/x",
		"cluster/brokers/x", "cluster/brokers/9", "scram/SCRAM-SHA-1", "configs/TOPIC:nope", "acls/byId/nope", "delegationToken/nope",
		"features/finalized_nope/x", "provenance/x"} {
		n := root
		for _, c := range strings.Split(missing, "/") {
			if n == nil {
				break
			}
			n = n.Child(c)
		}
		if n != nil {
			t.Errorf("%s: got a node, want none", missing)
		}
	}
}

// TestImageNodeLeaves: what the leaves print (ProvenanceNode,
// TopicImageNode, ControllerRegistration.toString, StandardAcl,
// ClientQuotaImageNode, ProducerIdsImageNode), with nothing redacted.
func TestImageNodeLeaves(t *testing.T) {
	root := mustImage(t, redact.Disabled)
	for path, want := range map[string]string{
		"provenance":                                  "offset 41, epoch 2, time 2023-11-14T22:13:20.25Z[UTC]",
		"features/metadataVersion":                    "3.9-IV0",
		"producerIds/nextProducerId":                  "-1",
		"topics/byName/orders/name":                   "orders",
		"topics/byName/orders/id":                     "AAAAAAAAAAAAAAAAAAAAAQ",
		"topics/byId/AAAAAAAAAAAAAAAAAAAAAQ/name":     "orders",
		"topics/byName/orders/1":                      "PartitionRegistration(replicas=[1], directories=[AAAAAAAAAAAAAAAAAAAAAA], isr=[1], removingReplicas=[], addingReplicas=[], elr=[], lastKnownElr=[], leader=1, leaderRecoveryState=RECOVERED, leaderEpoch=-1, partitionEpoch=-1)",
		"cluster/controllers/3000":                    "ControllerRegistration(id=3000, incarnationId=AAAAAAAAAAAAAAAAAAAAAg, zkMigrationReady=false, listeners=[Endpoint(listenerName='CONTROLLER', securityProtocol=SSL, host='ctl', port=9093)], supportedFeatures={})",
		"acls/byId/AAAAAAAAAAAAAAAAAAAAAw":            "StandardAcl[resourceType=TOPIC, resourceName=orders, patternType=LITERAL, principal=User:alice, host=*, operation=READ, permissionType=ALLOW]",
		"clientQuotas/user(alice)/producer_byte_rate": "1024.0",
		"configs/TOPIC:orders/retention.ms":           "86400000",
		"configs/BROKER/ssl.keystore.password":        "hunter2",
		"scram/SCRAM-SHA-256/alice":                   "ScramCredentialData(salt=0102, storedKey=03, serverKey=04, iterations=4096)",
		"delegationToken/t1":                          "DelegationTokenDatatokenId=t1(owner=User:alice(tokenRequester=User:alice(renewers=User:bob, issueTimestamp=1, maxTimestamp=3), expiryTimestamp=2",
	} {
		if got := leafAt(t, root, path); got != want {
			t.Errorf("%s:\n got %s\nwant %s", path, got, want)
		}
	}
	if !strings.HasPrefix(leafAt(t, root, "cluster/brokers/1"), "BrokerRegistration(id=1, epoch=7, ") {
		t.Errorf("cluster/brokers/1: %s", leafAt(t, root, "cluster/brokers/1"))
	}
}

// TestMetadataNodeRedactionCriteria: the criteria decide what prints as
// [redacted]: Strict (also nil) every config value, Normal the sensitive
// and unknown ones, both all SCRAM and token data; Disabled nothing.
func TestMetadataNodeRedactionCriteria(t *testing.T) {
	const r = "[redacted]"
	scramHidden := "ScramCredentialData(salt=[redacted], storedKey=[redacted], serverKey=[redacted], iterations=[redacted])"
	tokenHidden := "DelegationTokenDatatokenId=[redacted](owner=[redacted](tokenRequester=[redacted](renewers=[redacted], issueTimestamp=[redacted], maxTimestamp=[redacted]), expiryTimestamp=[redacted]"
	for _, tc := range []struct {
		name          string
		c             redact.Criteria
		topic, broker string
		scram, token  string
	}{
		{"nil", nil, r, r, scramHidden, tokenHidden},
		{"strict", redact.Strict, r, r, scramHidden, tokenHidden},
		{"normal", redact.Normal(nil), "86400000", r, scramHidden, tokenHidden},
	} {
		root := mustImage(t, tc.c)
		for path, want := range map[string]string{
			"configs/TOPIC:orders/retention.ms":    tc.topic,
			"configs/BROKER/ssl.keystore.password": tc.broker,
			"scram/SCRAM-SHA-256/alice":            tc.scram,
			"delegationToken/t1":                   tc.token,
		} {
			if got := leafAt(t, root, path); got != want {
				t.Errorf("%s %s: got %s, want %s", tc.name, path, got, want)
			}
		}
	}
}

// TestPrintTree: Print walks as MetadataNode.print does: sorted children,
// EnterNode and LeaveNode around each, Output for a leaf.
func TestPrintTree(t *testing.T) {
	root := mustImage(t, redact.Disabled)
	var b strings.Builder
	node.Print(root.Child("topics").Child("byName"), &node.TreePrinter{W: &b})
	part := "PartitionRegistration(replicas=[1], directories=[AAAAAAAAAAAAAAAAAAAAAA], isr=[1], removingReplicas=[], addingReplicas=[], elr=[], lastKnownElr=[], leader=1, leaderRecoveryState=RECOVERED, leaderEpoch=-1, partitionEpoch=-1)"
	want := "orders:\n  0:\n    " + part + "\n  1:\n    " + part + "\n  id:\n    AAAAAAAAAAAAAAAAAAAAAQ\n  name:\n    orders\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	node.Print(node.Leaf("x"), &node.TreePrinter{W: &b})
	if b.String() != "x\n" {
		t.Errorf("leaf printed %q", b.String())
	}
}

// TestPrintNilChild: a child Get does not make is entered and left, with
// nothing printed for it (MetadataNode.print skips a null child).
func TestPrintNilChild(t *testing.T) {
	d := node.Dir{Names: func() []string { return []string{"b", "a"} }, Get: func(string) node.Node { return nil }}
	var b strings.Builder
	node.Print(d, &node.TreePrinter{W: &b})
	if b.String() != "a:\nb:\n" {
		t.Errorf("got %q", b.String())
	}
}

// TestZeroDir: a Dir with no functions is an empty directory, not a panic.
func TestZeroDir(t *testing.T) {
	var d node.Dir
	if !d.IsDir() || d.ChildNames() != nil || d.Child("x") != nil || d.Text() != "" {
		t.Error("zero Dir is not an empty directory")
	}
	if node.Visit(d, nil, "/x", func([]string, node.Node) {}) {
		t.Error("Visit found a child of an empty directory")
	}
}
