// BrokerFeatures (server module, Java in 4.4): defaultSupportedFeatures with
// and without unstable versions, and incompatibleFeatures of seeded
// finalized feature maps against those and against seeded supported
// ranges. Writes broker-features.jsonl.gz.
package kmetaoracle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.feature.Features;
import org.apache.kafka.common.feature.SupportedVersionRange;
import org.apache.kafka.server.BrokerFeatures;

public final class BrokerFeatureChecks {
    static final String[] NAMES = {"metadata.version", "kraft.version", "transaction.version", "group.version",
        "eligible.leader.replicas.version", "share.version", "streams.version", "test.feature.version", "unknown.feature"};

    static Map<String, Object> ranges(Features<SupportedVersionRange> f) {
        Map<String, Object> m = new TreeMap<>();
        f.features().forEach((k, r) -> m.put(k, List.of(r.min(), r.max())));
        return m;
    }

    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random("BrokerFeatureChecks");
        try (Common.Out out = new Common.Out(args, "broker-features")) {
            for (boolean unstable : new boolean[] {false, true}) {
                BrokerFeatures bf = BrokerFeatures.createDefault(unstable);
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("kind", "default");
                v.put("unstable", unstable);
                v.put("supported", ranges(bf.supportedFeatures()));
                v.put("defaultFinalized", new TreeMap<>(bf.defaultFinalizedFeatures()));
                out.line(v);
            }
            for (int i = 0; i < 400; i++) {
                Map<String, Short> finalized = new HashMap<>();
                int n = rnd.nextInt(6);
                for (int j = 0; j < n; j++) {
                    finalized.put(NAMES[rnd.nextInt(NAMES.length)], (short) (rnd.nextInt(40) - 2));
                }
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("kind", "incompatible");
                v.put("finalized", new TreeMap<>(finalized));
                Features<SupportedVersionRange> supported;
                if (rnd.nextInt(3) == 0) {
                    Map<String, SupportedVersionRange> s = new HashMap<>();
                    int m = rnd.nextInt(5);
                    for (int j = 0; j < m; j++) {
                        short lo = (short) rnd.nextInt(10);
                        s.put(NAMES[rnd.nextInt(NAMES.length)], new SupportedVersionRange(lo, (short) (lo + rnd.nextInt(30))));
                    }
                    supported = Features.supportedFeatures(s);
                    v.put("supported", ranges(supported));
                    v.put("incompatible", BrokerFeatures.hasIncompatibleFeatures(supported, finalized));
                } else {
                    boolean unstable = rnd.nextBoolean();
                    v.put("unstable", unstable);
                    v.put("incompatible", new TreeMap<>(BrokerFeatures.createDefault(unstable).incompatibleFeatures(finalized)));
                }
                out.line(v);
            }
        }
    }
}
