// hash4j 0.22.0's XXH3 64-bit (the hash Kafka 4.4's group coordinator uses):
// seeded random inputs of every length from 0 to 320 and some longer ones,
// with seed 0 (Hashing.xxh3_64()) and a random seed, one-shot and streamed in
// random pieces. Writes broker-xxh3.jsonl.gz.
package kmetaoracle;

import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

public final class BrokerXXH3 {
    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random("BrokerXXH3");
        List<Integer> lengths = new ArrayList<>();
        for (int n = 0; n <= 320; n++) lengths.add(n);
        for (int n : new int[] {511, 512, 1023, 1024, 1025, 2047, 2048, 4095, 4096, 4097, 8191, 10000}) lengths.add(n);
        for (int i = 0; i < 12; i++) lengths.add(321 + rnd.nextInt(4000));
        try (Common.Out out = new Common.Out(args, "broker-xxh3")) {
            for (int n : lengths) {
                byte[] b = new byte[n];
                rnd.nextBytes(b);
                long seed = rnd.nextInt(4) == 0 ? rnd.nextInt(1000) : rnd.nextLong();
                HashStream64 s = Hashing.xxh3_64().hashStream();
                int off = 0;
                while (off < n) {
                    int k = Math.min(n - off, 1 + rnd.nextInt(300));
                    s.putBytes(b, off, k);
                    off += k;
                }
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("data", b);
                v.put("hash", Hashing.xxh3_64().hashBytesToLong(b));
                v.put("streamed", s.getAsLong());
                v.put("seed", seed);
                v.put("seededHash", Hashing.xxh3_64(seed).hashBytesToLong(b));
                out.line(v);
            }
        }
    }
}
