// Placeholders for the classes that Kafka's CLASS-typed config defaults name
// but that the Kafka build does not hold (they need a newer Jackson than the
// build's). ConfigDef loads a default class by name when the definition is
// made; nothing in the harness instantiates these. Written for kmeta.
package org.apache.kafka.common.security.oauthbearer;

final class DefaultJwtRetriever {
    private DefaultJwtRetriever() { }
}

final class DefaultJwtValidator {
    private DefaultJwtValidator() { }
}
