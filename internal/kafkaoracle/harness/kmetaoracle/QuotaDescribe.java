// Generator QuotaDescribe: DescribeClientQuotas answers. Seeded random quota images (QuotaImages, Kafka's
// ClientQuotasImage built by ClientQuotasDelta) and seeded random requests (exact, default and specified
// matches of user, client-id, ip and other types, strict or not, malformed components) answered by
// ClientQuotasImage.describe as KafkaApis.handleDescribeClientQuotasRequest does: a thrown error becomes
// DescribeClientQuotasRequest.getErrorResponse(0, e), as KafkaApis.handle's handleError makes it. Writes
// quota-describe.jsonl.gz, one image a line:
//
//   {"name", "entities": [...as QuotaClients...],
//    "cases": [{"request": {"0": hex, "1": hex}, "response": {"0": hex, "1": hex}}]}
//
// Requests and responses are the message bodies at each version (no header). Kafka lists entries, entity parts
// and values in the order of its HashMaps; the harness sorts them (entries by kmeta's entity key, parts by type,
// values by key, all by UTF-8 bytes) before encoding, the order kmeta answers in. The last case of each line is
// the CLUSTER_AUTHORIZATION_FAILED answer (request "unauthorized").
package kmetaoracle;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;
import org.apache.kafka.image.ClientQuotasImage;

public final class QuotaDescribe {
    static final String[] TYPES = {"user", "client-id", "ip", "user", "client-id", "", "group"};

    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random("QuotaDescribe");
        try (Common.Out out = new Common.Out(args, "quota-describe")) {
            for (int i = 0; i < 60; i++) {
                List<QuotaImages.Entity> entities = QuotaImages.random(rnd, i < 20 ? 5 : 25);
                ClientQuotasImage image = QuotaImages.delta(entities).apply();
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("name", "seed " + args.seed + " image " + i);
                v.put("entities", QuotaImages.json(entities));
                List<Object> cases = new ArrayList<>();
                for (int j = 0; j < 40; j++) cases.add(answer(image, request(rnd, entities)));
                cases.add(unauthorized());
                v.put("cases", cases);
                out.line(v);
            }
            System.err.println("quota-describe: " + out.lines() + " images");
        }
    }

    /** A random request: zero to three components, mostly well-formed, matches drawn from the image's names. */
    static DescribeClientQuotasRequestData request(Random rnd, List<QuotaImages.Entity> entities) {
        DescribeClientQuotasRequestData req = new DescribeClientQuotasRequestData().setStrict(rnd.nextBoolean());
        int n = rnd.nextInt(4);
        for (int i = 0; i < n; i++) {
            DescribeClientQuotasRequestData.ComponentData c = new DescribeClientQuotasRequestData.ComponentData();
            c.setEntityType(rnd.nextInt(20) == 0 ? QuotaImages.pick(rnd, TYPES) : QuotaImages.pick(rnd, new String[] {"user", "client-id", "ip"}));
            int m = rnd.nextInt(32);
            byte matchType = m < 14 ? DescribeClientQuotasRequest.MATCH_TYPE_EXACT : m < 21 ? DescribeClientQuotasRequest.MATCH_TYPE_DEFAULT
                : m < 31 ? DescribeClientQuotasRequest.MATCH_TYPE_SPECIFIED : (byte) (rnd.nextBoolean() ? 3 : -1);
            c.setMatchType(matchType);
            String name = nameOf(rnd, entities, c.entityType());
            boolean wantMatch = matchType == DescribeClientQuotasRequest.MATCH_TYPE_EXACT;
            if (rnd.nextInt(20) == 0) wantMatch = !wantMatch; // malformed: a match where none belongs, or none
            c.setMatch(wantMatch ? name : null);
            req.components().add(c);
        }
        return req;
    }

    private static String nameOf(Random rnd, List<QuotaImages.Entity> entities, String type) {
        List<String> names = new ArrayList<>();
        for (QuotaImages.Entity e : entities) {
            String s = e.parts.get(type);
            if (s != null) names.add(s);
        }
        if (names.isEmpty() || rnd.nextInt(5) == 0) {
            return type.equals("user") ? QuotaImages.pick(rnd, QuotaImages.USERS) : QuotaImages.pick(rnd, QuotaImages.CLIENTS);
        }
        return names.get(rnd.nextInt(names.size()));
    }

    /** The request and Kafka's answer to it at every version. */
    static Map<String, Object> answer(ClientQuotasImage image, DescribeClientQuotasRequestData req) {
        DescribeClientQuotasResponseData resp;
        try {
            resp = image.describe(req);
            resp.setThrottleTimeMs(0);
            canonical(resp);
        } catch (Exception e) {
            resp = new DescribeClientQuotasRequest(req, (short) 1).getErrorResponse(0, e).data();
        }
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("request", versions(req));
        c.put("response", versions(resp));
        return c;
    }

    static Map<String, Object> unauthorized() {
        DescribeClientQuotasRequestData req = new DescribeClientQuotasRequestData();
        DescribeClientQuotasResponseData resp = new DescribeClientQuotasRequest(req, (short) 1)
            .getErrorResponse(0, Errors.CLUSTER_AUTHORIZATION_FAILED.exception()).data();
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("request", "unauthorized");
        c.put("response", versions(resp));
        return c;
    }

    /** Sorts entries by kmeta's entity key, each entry's parts by type and values by key (UTF-8 byte order). */
    static void canonical(DescribeClientQuotasResponseData resp) {
        for (DescribeClientQuotasResponseData.EntryData e : resp.entries()) {
            e.entity().sort(Comparator.comparing(DescribeClientQuotasResponseData.EntityData::entityType, QuotaImages.UTF8));
            e.values().sort(Comparator.comparing(DescribeClientQuotasResponseData.ValueData::key, QuotaImages.UTF8));
        }
        resp.entries().sort(Comparator.comparing(QuotaDescribe::key, QuotaImages.UTF8));
    }

    private static String key(DescribeClientQuotasResponseData.EntryData e) {
        StringBuilder b = new StringBuilder();
        for (DescribeClientQuotasResponseData.EntityData p : e.entity()) {
            if (b.length() > 0) b.append('\0');
            b.append(p.entityType());
            if (p.entityName() != null) b.append('=').append(p.entityName());
        }
        return b.toString();
    }

    static Map<String, String> versions(Message m) {
        Map<String, String> out = new LinkedHashMap<>();
        for (short v = 0; v <= 1; v++) {
            ByteBuffer b = MessageUtil.toByteBufferAccessor(m, v).buffer();
            StringBuilder sb = new StringBuilder();
            while (b.hasRemaining()) sb.append(String.format("%02x", b.get() & 0xff));
            out.put(Short.toString(v), sb.toString());
        }
        return out;
    }
}
