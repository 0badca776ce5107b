// kmeta's oracle harness: what every generator shares. Written for kmeta; no
// Kafka source is copied here. Generators call Kafka's own classes and
// write what they return as JSON lines.
package kmetaoracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

final class Common {
    private Common() { }

    /** The arguments run.sh passes to every generator. */
    static final class Args {
        final long seed;
        final Path out;
        final Path shared;

        private Args(long seed, Path out, Path shared) {
            this.seed = seed;
            this.out = out;
            this.shared = shared;
        }

        static Args parse(String[] argv) {
            long seed = 1;
            Path out = Path.of(".");
            Path shared = Path.of("../shared");
            for (int i = 0; i + 1 < argv.length; i += 2) {
                switch (argv[i]) {
                    case "--seed": seed = Long.parseLong(argv[i + 1]); break;
                    case "--out": out = Path.of(argv[i + 1]); break;
                    case "--shared": shared = Path.of(argv[i + 1]); break;
                    default: throw new IllegalArgumentException("unknown argument " + argv[i]);
                }
            }
            return new Args(seed, out, shared);
        }

        /** A generator's own random source: the seed mixed with its name, so that generators draw independently. */
        Random random(String generator) {
            return new Random(seed * 1_000_003L + generator.hashCode());
        }
    }

    /** A gzip-compressed file of JSON lines, one vector a line, keys in sorted order. */
    static final class Out implements AutoCloseable {
        static final ObjectMapper JSON = new ObjectMapper()
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
        private final BufferedWriter w;
        private int lines;

        Out(Args args, String name) throws IOException {
            Files.createDirectories(args.out);
            GZIPOutputStream gz = new GZIPOutputStream(Files.newOutputStream(args.out.resolve(name + ".jsonl.gz")));
            w = new BufferedWriter(new OutputStreamWriter(gz, StandardCharsets.UTF_8));
        }

        /** Writes v (a Map, List, String, Number, Boolean or null, nested) as one line. */
        void line(Object v) throws IOException {
            w.write(JSON.writeValueAsString(v));
            w.write('\n');
            lines++;
        }

        int lines() { return lines; }

        @Override public void close() throws IOException { w.close(); }
    }
}
