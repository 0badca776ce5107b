// Package node presents a metadata image as a tree of named nodes, as Apache
// Kafka's org.apache.kafka.image.node classes do for kafka-metadata-shell:
// directories with sorted children, and leaves that print one line of text.
//
// # The tree
//
// Image builds MetadataImageNode over an *image.Image. Its children, and what
// their leaves print, follow Kafka's node classes:
//
//	provenance                       ProvenanceNode: "offset N, epoch E, time T"
//	features/metadataVersion         FeaturesImageNode
//	features/finalized_<name>        the finalized level
//	cluster/brokers/<id>             BrokerRegistration.toString
//	cluster/controllers/<id>         ControllerRegistration.toString
//	topics/byName/<name>/...         TopicImageNode: name, id, <partition>
//	topics/byId/<uuid>/...           the same topic, found by id
//	configs/<TYPE[:name]>/<key>      ConfigurationImageNode: the value
//	clientQuotas/<entity>/<key>      ClientQuotaImageNode: the value as a Java double
//	producerIds/nextProducerId       ProducerIdsImageNode
//	acls/byId/<uuid>                 StandardAcl's toString
//	scram/<mechanism>/<user>         ScramCredentialDataNode
//	delegationToken/<id>             DelegationTokenDataNode
//
// A redact.Criteria (Kafka's MetadataNodeRedactionCriteria) decides which
// config values, SCRAM credentials and delegation tokens print as
// "[redacted]"; a nil Criteria is redact.Strict, the default of Kafka's
// NodeStringifier. Kafka hands the criteria to the printer
// (MetadataNodePrinter.redactionCriteria); here the tree is built with them,
// so that a leaf's Text is final.
//
// Nodes are made on demand from the image: building the tree costs nothing
// until it is browsed, and a node reads the image it was built from, which
// does not change.
//
// # Browsing
//
// Resolve turns a path, absolute or relative to a working directory, into
// components (Kafka's CommandUtils.splitPath and stripDotPathComponents).
// Visit calls a function for every node a glob matches (the shell's
// GlobVisitor and GlobComponent: ?, *, {a,b} and \ escapes). Print walks a
// node as MetadataNode.print does, calling a Printer's EnterNode, Output and
// LeaveNode.
//
// The text a leaf prints comes from the log unchanged: a tool writing it to
// a terminal escapes control characters itself.
package node
