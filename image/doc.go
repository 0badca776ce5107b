// Package image holds Kafka's broker-side metadata image: an immutable value
// describing the whole cluster at one offset of the metadata log (Kafka's
// MetadataImage and its parts).
//
// An *Image is made by package delta from records, and read by request
// handlers:
//
//	img := cache.Load() // the current image, e.g. behind an atomic.Pointer
//	if leader, epoch, ok := img.Leader("orders", 3); ok { ... }
//	node, lookup := img.LeaderEndpoint("orders", 3, "PLAINTEXT") // image.LeaderFound, ...
//	t, _ := img.Topic("orders")
//	for p := range t.Partitions() { _ = p.NumReplicas() }
//
// Images are values. Nothing reachable from an Image is ever modified, so an
// image can be read by any number of goroutines while the next one is built,
// and an old image stays exactly as it was. Nothing handed out aliases the
// image in a writable way: topics and partitions are handed out as Topic and
// Partition handles (one pointer wide, fields unexported: there is nothing
// to assign through) read through accessors (Replica(i), NumReplicas(),
// AppendReplicas(dst), Replicas() returns a copy), Partition.Registration
// copies a partition out as a PartitionRegistration value, brokers return
// copies of their listener lists, credentials and tokens are copied.
// Lookups by name, id, partition, leader and listener allocate nothing.
//
// Images are built, never changed. A Builder starts from a base image,
// takes the parts that change (features, registrations, topics, configs,
// quotas, producer ids, ACLs, credentials, tokens) and freezes into a new
// *Image; a TopicBuilder does the same for one topic's partitions. Both are
// single-use, like immutable.MapBuilder: once they have handed out what they
// built, every further call panics. Package delta holds them while it
// applies replayed records (MetadataDelta.apply); tests and tools may use
// them to make an image from its parts:
//
//	tb := image.NewTopicBuilder("orders", id)
//	tb.Put(p0) // PartitionRegistration values from image.NewPartition
//	b := image.NewBuilder(nil)
//	err := b.PutTopics(nil, []image.Topic{tb.Topic()})
//	img := b.Image(image.EmptyProvenance)
//
// Topics are kept in two persistent hash maps, by id and by name (each
// maps to the same topic, as Kafka's TopicsImage does), so an image that
// changes k topics shares all other topics with the previous image; the
// other parts are persistent maps from github.com/benbjohnson/immutable. A
// topic and its partitions are one compact, pointer-free block.
//
// The writer path (Image.Write, Image.Records) turns an image back into the
// records of a snapshot at its metadata.version, in Kafka's order, reporting
// what that version cannot carry; WriteJSON prints the image for the dump
// tool. An image with no metadata.version is read and written as 3.0-IV1, as
// Kafka 3.x did.
//
// MetadataVersion knows every level from 3.0-IV1 to 4.4-IV2 (level 33), with
// the gates of Kafka's MetadataVersion: at 4.3-IV0 a broker registration
// carries its cordoned log directories (KIP-1066; Broker.CordonedDirectories,
// null until the broker reports them, written back as RegisterBrokerRecord
// v4 and a loss below), 4.4-IV1 allows CIDR ACL hosts (KIP-1276) and 4.4-IV2
// controller unregistration (KIP-1312). A level above 4.4-IV2 is not one
// kmeta can read (ParseMetadataVersionLevel fails). The request versions a
// level dictates (FetchRequestVersion, ListOffsetRequestVersion) and its
// name parsing (ParseMetadataVersion, Kafka's fromVersionString) are Kafka
// 4.4's.
//
// # Kafka's MetadataCache, method by method
//
// Code ported from Kafka's broker reads org.apache.kafka.metadata.MetadataCache
// (KRaftMetadataCache, Kafka 4.3+). Each of its methods, on the image img
// current when the request is handled:
//
//	getTopicMetadata                  answer.Responder.Metadata (AppendMetadata)
//	getAllTopics                      img.Topics().All() (AllByName in name order)
//	hasAliveBroker                    img.Cluster().AliveBroker(id)
//	getAliveBrokerEpoch               img.Cluster().AliveBroker(id), then Broker.Epoch
//	isBrokerFenced                    img.Cluster().Broker(id), then Broker.Fenced
//	isBrokerShuttingDown              img.Cluster().Broker(id), then Broker.InControlledShutdown
//	getTopicId                        img.Topics().IDOf(name) (the zero UUID when absent)
//	getTopicName                      img.TopicByID(id), then Topic.Name
//	getAliveBrokerNode                img.Cluster().AliveBrokerNode(id, listener)
//	getAliveBrokerNodes               img.Cluster().AliveBrokers(), then Broker.Node(listener)
//	getBrokerNodes                    img.Cluster().Brokers(), then Broker.Node(listener)
//	getLeaderAndIsr                   img.Topic(name), Topic.Partition(p): Leader, LeaderEpoch,
//	                                  ISR, LeaderRecoveryState, PartitionEpoch
//	numPartitions                     img.Topic(name), then Topic.NumPartitions
//	topicIdsToNames, topicNamesToIds  img.Topics().All() (Topic.ID, Topic.Name); ByID, ByName
//	getPartitionLeaderEndpoint        img.LeaderEndpoint(name, p, listener): LeaderUnknown is
//	                                  Optional.empty(), LeaderListenerMissing Node.noNode()
//	getPartitionReplicaEndpoints      img.AppendReplicaEndpoints(dst, topic, p, listener)
//	contains(topic)                   img.Topic(name)
//	contains(topicPartition)          img.Topic(name), then Topic.Partition(p)
//	metadataVersion                   img.Features().MetadataVersion() (false where Kafka's
//	                                  metadataVersionOrThrow throws)
//	getRandomAliveBrokerId            img.Cluster().AliveBrokers() (the caller picks one)
//	features                          img.Features(): MetadataVersion, Finalized, Level;
//	                                  the epoch is img.Provenance().LastContainedOffset;
//	                                  kraft.version comes from the raft client, as in Kafka
//	describeClientQuotas              img.ClientQuotas() (the entities and their values)
//	describeScramCredentials          img.Scram() (the credentials by user and mechanism)
//	describeTopicResponse             answer.Responder.DescribeTopicPartitions
//	toCluster                         no counterpart (a clients-side Cluster); Cluster().Brokers,
//	                                  Topics().All and Topic.Partitions hold its parts
//	config, topicConfig, brokerConfig img.Configs().Entries(ConfigResource{Type, Name})
//	  (ConfigRepository)              and Configs().Get(resource, key)
//
// The group coordinator's view (computeTopicHash, computeGroupHash,
// partitionRacks) is package image/group's; the broker's own rules
// (BrokerRegistrationTracker, BrokerFeatures, stray replicas, the KIP-392
// preferred read replica, auto-created topics) are package broker's.
package image
