// Package metaprops reads a Kafka log directory's meta.properties file: the
// cluster id, node id, directory id and file version a broker or controller
// checks when it starts (org.apache.kafka.metadata.properties.MetaProperties
// and MetaPropertiesEnsemble). The cluster id is not in the metadata log, so
// an embedder that answers Metadata or DescribeCluster reads it here
// (answer.Config.ClusterID).
//
// Kafka keeps meta.properties in every log directory, beside the
// __cluster_metadata-0 partition directory, not inside it. FindFor looks in
// both places for a given metadata directory:
//
//	p, err := metaprops.FindFor("/var/lib/kafka/data/__cluster_metadata-0")
//	if err != nil {
//	    return err // a *metaprops.Error naming the file and the field
//	}
//	clusterID := p.ClusterID
//
// The file is a java.util.Properties text file, read as Properties.load
// reads one (comments, "=", ":" or blank separators, backslash escapes and
// continuation lines). Validation is Kafka's: version 0 (no version line)
// may lack cluster.id and keeps the node id as broker.id; version 1 needs
// both cluster.id and node.id; directory.id, when present, is a Uuid.
// Verify checks several directories' files against each other as
// MetaPropertiesEnsemble.verify does: one cluster id, one node id, no
// reserved and no duplicated directory id.
//
// Every failure is an *Error naming the file and the field, and wrapping one
// of ErrNotFound (the file), ErrMissing, ErrInvalid, ErrMismatch, ErrReserved
// or ErrDuplicate, so that callers test them with errors.Is.
package metaprops
