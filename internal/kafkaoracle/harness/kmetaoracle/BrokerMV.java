// MetadataVersion (server-common) for every level Kafka 4.4 knows: each
// gate and each request or record version it dictates, and
// fromVersionString on seeded and listed names. Writes broker-mv.jsonl.gz.
package kmetaoracle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.server.common.MetadataVersion;

public final class BrokerMV {
    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random("BrokerMV");
        try (Common.Out out = new Common.Out(args, "broker-mv")) {
            for (MetadataVersion mv : MetadataVersion.VERSIONS) {
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("kind", "level");
                v.put("level", mv.featureLevel());
                v.put("version", mv.version());
                v.put("shortVersion", mv.shortVersion());
                v.put("isProduction", mv.isProduction());
                v.put("didMetadataChange", mv.didMetadataChange());
                v.put("isScramSupported", mv.isScramSupported());
                v.put("isLeaderEpochBumpRequiredOnIsrShrink", mv.isLeaderEpochBumpRequiredOnIsrShrink());
                v.put("isMetadataTransactionSupported", mv.isMetadataTransactionSupported());
                v.put("isDelegationTokenSupported", mv.isDelegationTokenSupported());
                v.put("isDirectoryAssignmentSupported", mv.isDirectoryAssignmentSupported());
                v.put("isElrSupported", mv.isElrSupported());
                v.put("isCidrAclSupported", mv.isCidrAclSupported());
                v.put("isMigrationSupported", mv.isMigrationSupported());
                v.put("isCordonedLogDirsSupported", mv.isCordonedLogDirsSupported());
                v.put("isControllerRegistrationSupported", mv.isControllerRegistrationSupported());
                v.put("isControllerUnregistrationSupported", mv.isControllerUnregistrationSupported());
                v.put("registerBrokerRecordVersion", mv.registerBrokerRecordVersion());
                Object rc;
                try {
                    rc = mv.registerControllerRecordVersion();
                } catch (RuntimeException e) {
                    rc = null;
                }
                v.put("registerControllerRecordVersion", rc);
                v.put("partitionChangeRecordVersion", mv.partitionChangeRecordVersion());
                v.put("partitionRecordVersion", mv.partitionRecordVersion());
                v.put("fetchRequestVersion", mv.fetchRequestVersion());
                v.put("listOffsetRequestVersion", mv.listOffsetRequestVersion());
                List<Object> changed = new ArrayList<>();
                for (MetadataVersion o : MetadataVersion.VERSIONS) {
                    changed.add(MetadataVersion.checkIfMetadataChanged(mv, o));
                }
                v.put("checkIfMetadataChanged", changed);
                out.line(v);
            }
            List<String> names = new ArrayList<>(List.of("3.3", "3.3-IV3", "3.3-IV2", "3.0-IV1", "4.4", "4.3", "4.4-IV0",
                "4.4-IV2", "4.3-IV0", "3.7", "3.7.1", "3.7-IV4", "4.0.0", "4.1.2-foo", "x", "", "3", "3.5-IV2.1", "5.0", "4.4-IV3",
                "3.6-IV1", "4.2.1", "3.9", "3.9-IV0", "3.8.0"));
            for (int i = 0; i < 40; i++) {
                MetadataVersion mv = MetadataVersion.VERSIONS[rnd.nextInt(MetadataVersion.VERSIONS.length)];
                String s = rnd.nextBoolean() ? mv.version() : mv.shortVersion();
                if (rnd.nextInt(3) == 0) s = s + "." + rnd.nextInt(4);
                if (rnd.nextInt(5) == 0) s = s + "-x" + rnd.nextInt(3);
                names.add(s);
            }
            for (String s : names) {
                for (boolean unstable : new boolean[] {false, true}) {
                    Map<String, Object> v = new LinkedHashMap<>();
                    v.put("kind", "fromVersionString");
                    v.put("name", s);
                    v.put("unstable", unstable);
                    try {
                        v.put("level", MetadataVersion.fromVersionString(s, unstable).featureLevel());
                    } catch (IllegalArgumentException e) {
                        v.put("level", null);
                        v.put("error", e.getMessage());
                    }
                    out.line(v);
                }
            }
        }
    }
}
