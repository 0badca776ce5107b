// The harness's own check: Kafka's classes load and a seeded draw is the
// same on every run. Writes smoke.jsonl.gz.
package kmetaoracle;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.server.common.MetadataVersion;

public final class Smoke {
    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random("Smoke");
        try (Common.Out out = new Common.Out(args, "smoke")) {
            for (MetadataVersion mv : MetadataVersion.VERSIONS) {
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("version", mv.version());
                v.put("level", mv.featureLevel());
                v.put("draw", rnd.nextInt(1000));
                out.line(v);
            }
        }
    }
}
