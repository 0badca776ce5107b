// ChangesDynamicConfigs: which broker configs a Kafka 4.4 broker refuses in an IncrementalAlterConfigs of a BROKER
// resource before forwarding it to the controller (ConfigAdminManager.validateBrokerConfigChange ->
// DynamicBrokerConfig.validateConfigs), by Kafka's own DynamicBrokerConfig: for every name of KafkaConfig's
// ConfigDef (AbstractKafkaConfig.CONFIG_DEF), every dynamic name (DynamicConfig.Broker) and a few listener-prefixed
// and unknown names, whether nonDynamicConfigs, securityConfigsWithoutListenerPrefix and perBrokerConfigs name it.
// Written for kmeta; no Kafka source is copied here.
package kmetaoracle;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.apache.kafka.server.config.AbstractKafkaConfig;
import org.apache.kafka.server.config.DynamicBrokerConfig;
import org.apache.kafka.server.config.DynamicConfig;

public final class ChangesDynamicConfigs {
    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        ClassStubs.install("org.apache.kafka.common.security.oauthbearer.DefaultJwtRetriever",
            "org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator");
        TreeSet<String> names = new TreeSet<>(AbstractKafkaConfig.CONFIG_DEF.names());
        names.addAll(DynamicConfig.Broker.names());
        for (String listener : List.of("internal", "")) {
            for (String base : List.of("ssl.keystore.password", "ssl.cipher.suites", "max.connections",
                    "max.connection.creation.rate", "num.network.threads", "plain.sasl.jaas.config", "")) {
                names.add("listener.name." + listener + "." + base);
            }
        }
        names.add("no.such.config");
        try (Common.Out out = new Common.Out(args, "changes-dynamic-configs")) {
            for (String name : names) {
                Properties p = new Properties();
                p.put(name, "1");
                Map<String, Object> line = new TreeMap<>();
                line.put("name", name);
                line.put("known", AbstractKafkaConfig.CONFIG_DEF.names().contains(name));
                line.put("nonDynamic", !DynamicBrokerConfig.nonDynamicConfigs(p).isEmpty());
                line.put("securityWithoutPrefix", !DynamicBrokerConfig.securityConfigsWithoutListenerPrefix(p).isEmpty());
                line.put("perBroker", !DynamicBrokerConfig.perBrokerConfigs(p).isEmpty());
                out.line(line);
            }
            System.err.println("changes-dynamic-configs: " + out.lines() + " names");
        }
    }

    /**
     * Empty classes for the names KafkaConfig's ConfigDef loads by name (ConfigDef.parseType, through the context
     * class loader) whose real classes need libraries the build lacks (jose4j); compiled in memory.
     */
    static final class ClassStubs extends ClassLoader {
        private final Map<String, byte[]> classes;

        private ClassStubs(Map<String, byte[]> classes, ClassLoader parent) {
            super(parent);
            this.classes = classes;
        }

        static void install(String... names) throws Exception {
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            Map<String, byte[]> classes = new TreeMap<>();
            List<JavaFileObject> sources = new java.util.ArrayList<>();
            for (String n : names) {
                int dot = n.lastIndexOf('.');
                String src = "package " + n.substring(0, dot) + "; public class " + n.substring(dot + 1) + " { }";
                sources.add(new SimpleJavaFileObject(URI.create("string:///" + n.replace('.', '/') + ".java"), JavaFileObject.Kind.SOURCE) {
                    @Override public CharSequence getCharContent(boolean ignore) { return src; }
                });
            }
            javax.tools.StandardJavaFileManager std = javac.getStandardFileManager(null, null, null);
            javax.tools.JavaFileManager fm = new javax.tools.ForwardingJavaFileManager<>(std) {
                @Override public JavaFileObject getJavaFileForOutput(Location l, String cls, JavaFileObject.Kind k, javax.tools.FileObject s) {
                    return new SimpleJavaFileObject(URI.create("mem:///" + cls.replace('.', '/') + ".class"), k) {
                        @Override public java.io.OutputStream openOutputStream() {
                            return new java.io.ByteArrayOutputStream() {
                                @Override public void close() { classes.put(cls, toByteArray()); }
                            };
                        }
                    };
                }
            };
            if (!javac.getTask(null, fm, null, List.of("-proc:none"), null, sources).call()) {
                throw new IllegalStateException("stub classes did not compile");
            }
            Thread.currentThread().setContextClassLoader(new ClassStubs(classes, Thread.currentThread().getContextClassLoader()));
        }

        @Override protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) throw new ClassNotFoundException(name);
            return defineClass(name, b, 0, b.length);
        }
    }

    private ChangesDynamicConfigs() { }
}
