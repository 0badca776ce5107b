// Package quota computes the client and IP quotas a Kafka 4.4 broker
// applies, from an image, exactly as the broker's quota managers compute
// them, and answers DescribeClientQuotas.
//
// A broker's ClientQuotaMetadataManager routes each quota of the image to
// a quota manager: producer_byte_rate to the produce manager,
// consumer_byte_rate to fetch, request_percentage to request,
// controller_mutation_rate to controller mutation (the four Types), and
// connection_creation_rate of ip entities to ConnectionQuotas. Each
// ClientQuotaManager's default callback then gives a client two things:
// the metric tags of the sensor it is counted in (Tags: clients with equal
// tags share one quota bucket) and that sensor's bound (Limit), both
// depending on which entity levels hold quotas of that type at all. Index
// holds an image's quotas in that form; Of returns it, built once per set
// of quotas and shared by every image that has them:
//
//	img := cache.Load()
//	user := quota.Sanitize(principal.Name) // once per connection, as Session does
//	lim := quota.Of(img).Client(quota.Produce, user, clientID)
//	if lim.OK { /* throttle the bucket lim.Tags at lim.Bound bytes/s */ }
//	rate, throttled := quota.Of(img).IP(peer.Addr())
//
// Lookups allocate nothing. The first Of of an image whose quotas changed
// builds the index (about 170 ms of CPU for 100 000 entities); a broker
// that wants no request to pay it calls Of from the publisher that
// receives each new image. IP entity names are read as Java reads address
// literals (ParseIP); names that are host names, which Kafka resolves
// through DNS, are reported by Index.Ignored and hold no quota.
//
// DescribeClientQuotas answers the request of that name as
// ClientQuotasImage.describe does, validation errors included.
//
// Everything is checked against Kafka's own ClientQuotaManager, the
// harness's transcription of ClientQuotaMetadataManager and
// ConnectionQuotas, and ClientQuotasImage.describe on seeded random images
// (internal/kafkaoracle).
package quota
