// kmeta's oracle harness, quotas: a broker's quota managers fed from an image's client quotas. Kafka's own
// ClientQuotaManager, ClientRequestQuotaManager and ControllerMutationQuotaManager (server module, Java) do the
// work; the Scala between the image and them (ClientQuotaMetadataManager, the IP part of ConnectionQuotas) is
// transcribed below, each method citing its file and lines at Kafka 87943b2ff874f7186a7a091f7fad13d1ca62fc42.
package kmetaoracle;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Quota;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.Sanitizer;
import org.apache.kafka.image.ClientQuotaDelta;
import org.apache.kafka.image.ClientQuotasDelta;
import org.apache.kafka.network.ConnectionQuotaEntity;
import org.apache.kafka.server.config.ClientQuotaManagerConfig;
import org.apache.kafka.server.config.QuotaConfig;
import org.apache.kafka.server.quota.ClientQuotaManager;
import org.apache.kafka.server.quota.ClientRequestQuotaManager;
import org.apache.kafka.server.quota.ControllerMutationQuotaManager;
import org.apache.kafka.server.quota.QuotaType;

final class QuotaBroker implements AutoCloseable {
    final Metrics metrics = new Metrics();
    final ClientQuotaManager produce;
    final ClientQuotaManager fetch;
    final ClientQuotaManager request;
    final ClientQuotaManager controllerMutation;
    final IpRates ip = new IpRates();

    QuotaBroker() {
        ClientQuotaManagerConfig cfg = new ClientQuotaManagerConfig();
        Time time = Time.SYSTEM;
        produce = new ClientQuotaManager(cfg, metrics, QuotaType.PRODUCE, time, "kmeta-");
        fetch = new ClientQuotaManager(cfg, metrics, QuotaType.FETCH, time, "kmeta-");
        request = new ClientRequestQuotaManager(cfg, metrics, time, "kmeta-", Optional.empty());
        controllerMutation = new ControllerMutationQuotaManager(cfg, metrics, time, "kmeta-", Optional.empty());
    }

    /** The managers in kmeta's quota.Type order: Produce, Fetch, Request, ControllerMutation. */
    ClientQuotaManager[] managers() {
        return new ClientQuotaManager[] {produce, fetch, request, controllerMutation};
    }

    @Override public void close() {
        for (ClientQuotaManager m : managers()) m.shutdown();
        metrics.close();
    }

    /** ClientQuotaMetadataManager.accept, ClientQuotaMetadataManager.scala lines 57-61. */
    void accept(ClientQuotasDelta quotasDelta) {
        quotasDelta.changes().forEach(this::update);
    }

    /** ClientQuotaMetadataManager.update, ClientQuotaMetadataManager.scala lines 63-109. */
    private void update(ClientQuotaEntity entity, ClientQuotaDelta quotaDelta) {
        Map<String, String> e = entity.entries();
        if (e.containsKey(ClientQuotaEntity.IP)) {
            handleIpQuota(e.get(ClientQuotaEntity.IP), quotaDelta);
        } else if (e.containsKey(ClientQuotaEntity.USER) || e.containsKey(ClientQuotaEntity.CLIENT_ID)) {
            boolean hasUser = e.containsKey(ClientQuotaEntity.USER), hasClient = e.containsKey(ClientQuotaEntity.CLIENT_ID);
            String user = e.get(ClientQuotaEntity.USER), client = e.get(ClientQuotaEntity.CLIENT_ID);
            quotaDelta.changes().forEach((key, value) ->
                handleUserClientQuotaChange(hasUser, user, hasClient, client, key,
                    value.isPresent() ? Optional.of(value.getAsDouble()) : Optional.empty()));
        }
        // else: "Ignoring unsupported quota entity"
    }

    /** ClientQuotaMetadataManager.handleIpQuota, ClientQuotaMetadataManager.scala lines 111-137 (ip null: DefaultIpEntity). */
    private void handleIpQuota(String ipName, ClientQuotaDelta quotaDelta) {
        Optional<InetAddress> inetAddress;
        if (ipName == null) {
            inetAddress = Optional.empty();
        } else {
            try {
                inetAddress = Optional.of(InetAddress.getByName(ipName));
            } catch (UnknownHostException ex) {
                throw new IllegalArgumentException("Unable to resolve address " + ipName);
            }
        }
        quotaDelta.changes().forEach((key, value) -> {
            if (key.equals(QuotaConfig.IP_CONNECTION_RATE_OVERRIDE_CONFIG)) {
                ip.updateIpConnectionRateQuota(inetAddress,
                    value.isPresent() ? Optional.of((int) value.getAsDouble()) : Optional.empty());
            }
            // else: "Ignoring unexpected quota key"
        });
    }

    /**
     * ClientQuotaMetadataManager.handleUserClientQuotaChange with transferToClientQuotaEntity,
     * ClientQuotaMetadataManager.scala lines 139-163 and 168-188 (the entity's shape, lines 79-102, as the flags
     * and nulls of user and client).
     */
    private void handleUserClientQuotaChange(boolean hasUser, String user, boolean hasClient, String client,
                                             String key, Optional<Double> newValue) {
        ClientQuotaManager manager;
        switch (key) {
            case QuotaConfig.CONSUMER_BYTE_RATE_OVERRIDE_CONFIG: manager = fetch; break;
            case QuotaConfig.PRODUCER_BYTE_RATE_OVERRIDE_CONFIG: manager = produce; break;
            case QuotaConfig.REQUEST_PERCENTAGE_OVERRIDE_CONFIG: manager = request; break;
            case QuotaConfig.CONTROLLER_MUTATION_RATE_OVERRIDE_CONFIG: manager = controllerMutation; break;
            default: return; // "Ignoring unexpected quota key"
        }
        Optional<org.apache.kafka.server.quota.ClientQuotaEntity.ConfigEntity> userEntity = Optional.empty(), clientEntity = Optional.empty();
        if (hasUser) {
            userEntity = Optional.of(user == null ? ClientQuotaManager.DEFAULT_USER_ENTITY
                : new ClientQuotaManager.UserEntity(Sanitizer.sanitize(user)));
        }
        if (hasClient) {
            clientEntity = Optional.of(client == null ? ClientQuotaManager.DEFAULT_USER_CLIENT_ID
                : new ClientQuotaManager.ClientIdEntity(client));
        }
        Optional<Quota> quotaValue = newValue.map(v -> new Quota(v, true));
        manager.updateQuota(userEntity, clientEntity, quotaValue);
    }

    /** The IP connection-rate part of ConnectionQuotas (kafka/network/SocketServer.scala). */
    static final class IpRates {
        // SocketServer.scala lines 1265-1266: defaultConnectionRatePerIp, connectionRatePerIp
        private int defaultConnectionRatePerIp = QuotaConfig.IP_CONNECTION_RATE_DEFAULT;
        private final Map<InetAddress, Integer> connectionRatePerIp = new HashMap<>();

        /** ConnectionQuotas.updateIpConnectionRateQuota, SocketServer.scala lines 1317-1359 (no metrics yet). */
        void updateIpConnectionRateQuota(Optional<InetAddress> ip, Optional<Integer> maxConnectionRate) {
            if (ip.isPresent()) {
                if (maxConnectionRate.isPresent()) connectionRatePerIp.put(ip.get(), maxConnectionRate.get());
                else connectionRatePerIp.remove(ip.get());
            } else {
                defaultConnectionRatePerIp = maxConnectionRate.orElse(QuotaConfig.IP_CONNECTION_RATE_DEFAULT);
            }
        }

        /** ConnectionQuotas.connectionRateForIp, SocketServer.scala lines 1361-1363. */
        int connectionRateForIp(InetAddress ip) {
            return connectionRatePerIp.getOrDefault(ip, defaultConnectionRatePerIp);
        }

        /** recordIpConnectionMaybeThrottle's quotaEnabled, SocketServer.scala lines 1532-1533. */
        boolean quotaEnabled(InetAddress ip) {
            return connectionRateForIp(ip) != QuotaConfig.IP_CONNECTION_RATE_DEFAULT;
        }

        /** The ip tag of the address's connection-rate sensor (ConnectionQuotaEntity.ipQuotaEntity, Java). */
        static String tag(InetAddress ip) {
            return ConnectionQuotaEntity.ipQuotaEntity(ip).metricTags().get(ConnectionQuotaEntity.IP_METRIC_TAG);
        }
    }
}
