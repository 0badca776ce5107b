// SCRAM logins as a Kafka 4.4 broker runs them: Kafka's ScramSaslClient and
// ScramSaslServer (with ScramServerCallbackHandler over a CredentialCache
// and a DelegationTokenCache filled by DelegationTokenManager) talk to each
// other on seeded random users, passwords, salts and nonces; the harness
// then damages their messages in the ways a client can (wrong nonce, proof,
// grammar, authorization id, extensions, lengths). Every line records the
// credentials as the image holds them, the random bytes each side drew,
// every message and each step's answer or exception. Writes
// cred_scram.jsonl.gz. Written for kmeta; no Kafka source is copied here.
package kmetaoracle;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.authenticator.CredentialCache;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.apache.kafka.common.security.scram.internals.ScramSaslServer;
import org.apache.kafka.common.security.scram.internals.ScramServerCallbackHandler;
import org.apache.kafka.common.security.token.delegation.TokenInformation;
import org.apache.kafka.common.security.token.delegation.internals.DelegationTokenCache;
import org.apache.kafka.security.DelegationTokenManager;
import org.apache.kafka.server.config.DelegationTokenManagerConfigs;

public final class CredScram {
    static final Base64.Encoder B64 = Base64.getEncoder();
    static final String NAME = "CredScram";

    /** A SecureRandom that draws from a seeded Random and remembers what it gave. */
    static final class Recording extends SecureRandom {
        private final Random r;
        final ByteArrayOutputStream given = new ByteArrayOutputStream();
        Recording(long seed) { r = new Random(seed); }
        @Override public void nextBytes(byte[] b) { r.nextBytes(b); given.write(b, 0, b.length); }
    }

    static void seed(Object owner, Class<?> cls, String field, Object value) throws Exception {
        Field f = cls.getDeclaredField(field);
        f.setAccessible(true);
        f.set(owner, value);
    }

    /** The formatter inside a ScramSaslServer or ScramSaslClient gets rnd as its SecureRandom. */
    static void seedFormatter(Object sasl, Class<?> cls, SecureRandom rnd) throws Exception {
        Field f = cls.getDeclaredField("formatter");
        f.setAccessible(true);
        seed(f.get(sasl), ScramFormatter.class, "random", rnd);
    }

    static String b64(byte[] b) { return b == null ? null : B64.encodeToString(b); }

    static final String NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@=,+ ";

    static String randomName(Random rnd, int max) {
        int n = 1 + rnd.nextInt(max);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int pick = rnd.nextInt(10) == 0 ? rnd.nextInt(NAME_CHARS.length()) : rnd.nextInt(36);
            b.append(NAME_CHARS.charAt(pick));
        }
        return b.toString();
    }

    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random(NAME);
        try (Common.Out out = new Common.Out(args, "cred_scram")) {
            out.line(unknownMechanism("SCRAM-SHA-1"));
            out.line(unknownMechanism("scram-sha-256"));
            for (int i = 0; i < 420; i++) {
                out.line(new Case(rnd, i).run());
            }
        }
    }

    static Map<String, Object> unknownMechanism(String mech) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("kind", "mechanism");
        v.put("mechanism", mech);
        try {
            new ScramSaslServer.ScramSaslServerFactory().createSaslServer(mech, "kafka", null, Map.of(), null);
            v.put("error", null);
        } catch (Exception e) {
            v.put("error", error(e));
        }
        return v;
    }

    static Map<String, Object> error(Throwable e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("class", e.getClass().getSimpleName());
        m.put("message", e.getMessage());
        return m;
    }

    /** One login: the image's credentials, both sides' random draws, the messages and answers. */
    static final class Case {
        final Random rnd;
        final int n;
        final Map<String, Object> v = new LinkedHashMap<>();

        Case(Random rnd, int n) { this.rnd = rnd; this.n = n; }

        Map<String, Object> run() throws Exception {
            ScramMechanism mech = rnd.nextBoolean() ? ScramMechanism.SCRAM_SHA_256 : ScramMechanism.SCRAM_SHA_512;
            ScramFormatter f = new ScramFormatter(mech);
            String scenario = pick(new String[]{"ok", "ok", "ok", "wrongPassword", "unknownUser", "otherMechanism",
                "lowIterations", "token", "token", "tokenWrongPassword", "tokenUnknown", "tokenDisabled", "tokenExpired",
                "first", "first", "first", "final", "final", "final", "afterEnd"});
            v.put("kind", "login");
            v.put("scenario", scenario);
            v.put("mechanism", mech.mechanismName());
            String user = randomName(rnd, 12);
            String password = randomName(rnd, 16);
            int[] iterChoices = scenario.equals("lowIterations") ? new int[]{1, 4095, 1000} : new int[]{4096, 4096, 4097, 5000};
            int iterations = iterChoices[rnd.nextInt(iterChoices.length)];
            byte[] salt = new byte[rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextInt(32)];
            rnd.nextBytes(salt);
            byte[] salted = f.saltedPassword(password, salt, iterations);
            ScramCredential cred = f.generateCredential(salt, salted, iterations);
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("user", user);
            c.put("mechanism", mech.mechanismName());
            c.put("password", password);
            c.put("salt", b64(salt));
            c.put("iterations", iterations);
            c.put("saltedPassword", b64(salted));
            c.put("storedKey", b64(cred.storedKey()));
            c.put("serverKey", b64(cred.serverKey()));
            List<Object> creds = new ArrayList<>();
            creds.add(c);
            v.put("credentials", creds);

            CredentialCache credentialCache = new CredentialCache();
            for (String m : ScramMechanism.mechanismNames()) credentialCache.createCache(m, ScramCredential.class);
            String storedUnder = scenario.equals("unknownUser") ? user + "x" : user;
            ScramMechanism storedMech = scenario.equals("otherMechanism")
                ? (mech == ScramMechanism.SCRAM_SHA_256 ? ScramMechanism.SCRAM_SHA_512 : ScramMechanism.SCRAM_SHA_256) : mech;
            c.put("user", storedUnder);
            c.put("storedMechanism", storedMech.mechanismName());
            credentialCache.cache(storedMech.mechanismName(), ScramCredential.class).put(storedUnder, cred);

            // Delegation tokens: DelegationTokenManager over the secret key (none when disabled).
            boolean token = scenario.startsWith("token");
            String secret = scenario.equals("tokenDisabled") ? "" : randomName(rnd, 20);
            v.put("secretKey", secret);
            DelegationTokenCache tokenCache = new DelegationTokenCache(ScramMechanism.mechanismNames());
            String tokenId = randomName(rnd, 10).replace('=', 'e').replace(',', 'c');
            String ownerName = randomName(rnd, 8);
            String ownerType = rnd.nextInt(5) == 0 ? "Group" : "User";
            long now = 1_700_000_000_000L;
            long expiry = scenario.equals("tokenExpired") ? now - 1 - rnd.nextInt(100000) : now + 1 + rnd.nextInt(100000000);
            v.put("nowMs", now);
            List<Object> tokens = new ArrayList<>();
            v.put("tokens", tokens);
            String tokenPassword = null;
            if (token) {
                Map<String, Object> t = new LinkedHashMap<>();
                t.put("tokenId", tokenId);
                t.put("owner", ownerType + ":" + ownerName);
                t.put("expiry", expiry);
                tokens.add(t);
                Map<String, Object> props = new HashMap<>();
                props.put(DelegationTokenManagerConfigs.DELEGATION_TOKEN_SECRET_KEY_CONFIG, secret);
                DelegationTokenManager mgr = new DelegationTokenManager(
                    new DelegationTokenManagerConfigs(new AbstractConfig(DelegationTokenManagerConfigs.CONFIG_DEF, props)), tokenCache);
                TokenInformation ti = TokenInformation.fromRecord(tokenId, new KafkaPrincipal(ownerType, ownerName),
                    new KafkaPrincipal(ownerType, ownerName), List.of(), now - 1000, now + 1_000_000_000L, expiry);
                try {
                    // DelegationTokenPublisher.onMetadataUpdate: a token whose HMAC cannot be made is not cached.
                    var dt = mgr.getDelegationToken(ti);
                    mgr.updateToken(dt);
                    t.put("hmac", b64(dt.hmac()));
                    tokenPassword = dt.hmacAsBase64String();
                    ScramCredential tc = tokenCache.credential(mech.mechanismName(), tokenId);
                    t.put("derivedSalt", new String(tc.salt(), StandardCharsets.UTF_8));
                    t.put("derivedStoredKey", b64(tc.storedKey()));
                    t.put("derivedServerKey", b64(tc.serverKey()));
                    t.put("derivedIterations", tc.iterations());
                } catch (RuntimeException e) {
                    t.put("hmacError", error(e));
                    tokenPassword = "no-hmac";
                }
            }
            String loginUser = token ? (scenario.equals("tokenUnknown") ? tokenId + "u" : tokenId) : user;
            String loginPassword = token ? tokenPassword : password;
            if (scenario.equals("wrongPassword")) loginPassword = password + "!";
            if (scenario.equals("tokenWrongPassword")) loginPassword = "A" + tokenPassword.substring(1);
            Map<String, String> exts = new LinkedHashMap<>();
            if (token) exts.put("tokenauth", "true");
            if (scenario.equals("first") || scenario.equals("ok")) maybeExtensions(exts);
            return exchange(mech, credentialCache, tokenCache, loginUser, loginPassword, exts, scenario);
        }

        void maybeExtensions(Map<String, String> exts) {
            switch (rnd.nextInt(6)) {
                case 0: exts.put("tokenauth", rnd.nextBoolean() ? "false" : "TRUE"); break;
                case 1: exts.put("x" + (char) ('a' + rnd.nextInt(26)), randomName(rnd, 5).replace(',', '.')); break;
                case 2: exts.put("ab", "1=2"); exts.put("cd", "3"); break;
                default: break;
            }
        }

        String pick(String[] xs) { return xs[rnd.nextInt(xs.length)]; }

        Map<String, Object> exchange(ScramMechanism mech, CredentialCache creds, DelegationTokenCache tokens, String user,
                                     String password, Map<String, String> exts, String scenario) throws Exception {
            Map<String, Object> v = this.v;
            Recording clientRandom = new Recording(rnd.nextLong());
            Recording serverRandom = new Recording(rnd.nextLong());
            CallbackHandler clientCallbacks = cbs -> {
                for (Callback cb : cbs) {
                    if (cb instanceof NameCallback) ((NameCallback) cb).setName(user);
                    else if (cb instanceof PasswordCallback) ((PasswordCallback) cb).setPassword(password.toCharArray());
                    else if (cb instanceof ScramExtensionsCallback) ((ScramExtensionsCallback) cb).extensions(exts);
                    else throw new UnsupportedCallbackException(cb);
                }
            };
            SaslClient client = new ScramSaslClient(mech, clientCallbacks);
            seedFormatter(client, ScramSaslClient.class, clientRandom);
            ScramServerCallbackHandler handler = new ScramServerCallbackHandler(
                creds.cache(mech.mechanismName(), ScramCredential.class), tokens);
            handler.configure(Map.of(), mech.mechanismName(), List.of());
            SaslServer server = new ScramSaslServer(mech, Map.of(), handler);
            seedFormatter(server, ScramSaslServer.class, serverRandom);
            v.put("loginUser", user);
            v.put("loginPassword", password);

            byte[] first = client.evaluateChallenge(new byte[0]);
            v.put("clientFirstIntact", b64(first));
            v.put("clientNonceBytes", b64(clientRandom.given.toByteArray()));
            String firstMutation = scenario.equals("first") ? mutateFirst(new String(first, StandardCharsets.UTF_8)) : null;
            if (firstMutation != null) first = firstMutation.getBytes(StandardCharsets.UTF_8);
            v.put("firstMutation", firstMutation == null ? null : mutationName);
            List<Object> steps = new ArrayList<>();
            v.put("steps", steps);
            byte[] serverFirst = step(server, first, steps);
            v.put("serverNonceBytes", b64(serverRandom.given.toByteArray()));
            if (serverFirst != null) {
                byte[] fin;
                try {
                    fin = client.evaluateChallenge(serverFirst);
                } catch (Exception e) {
                    v.put("clientError", error(e));
                    fin = ("c=biws,r=" + new String(serverFirst, StandardCharsets.UTF_8).split(",")[0].substring(2) + ",p=AAAA")
                        .getBytes(StandardCharsets.UTF_8);
                }
                v.put("clientFinalIntact", b64(fin));
                mutationName = null;
                if (scenario.equals("final")) fin = mutateFinal(new String(fin, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
                v.put("finalMutation", mutationName);
                byte[] serverFinal = step(server, fin, steps);
                if (serverFinal != null && firstMutation == null && mutationName == null) {
                    try {
                        client.evaluateChallenge(serverFinal);
                        v.put("clientComplete", client.isComplete());
                    } catch (Exception e) {
                        v.put("clientError", error(e));
                    }
                }
                if (scenario.equals("afterEnd")) step(server, fin, steps);
            }
            v.put("complete", server.isComplete());
            if (server.isComplete()) {
                v.put("authorizationId", server.getAuthorizationID());
                v.put("tokenauth", server.getNegotiatedProperty("tokenauth"));
                v.put("credentialLifetime", server.getNegotiatedProperty("CREDENTIAL.LIFETIME.MS"));
            }
            return v;
        }

        String mutationName;

        byte[] step(SaslServer server, byte[] msg, List<Object> steps) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("in", b64(msg));
            steps.add(s);
            try {
                byte[] outMsg = server.evaluateResponse(msg);
                s.put("out", b64(outMsg));
                return outMsg;
            } catch (Throwable e) {
                s.put("error", error(e));
                return null;
            }
        }

        String mutateFirst(String m) {
            // m is "n,," then n=<saslname>,r=<nonce>[,ext...]
            String bare = m.substring(3);
            String[] names = {"garbage", "noNonce", "badEscape", "authzSame", "authzOther", "reserved", "nonAscii",
                "gs2y", "emptyExtValue", "trailingComma", "authzEscaped", "extNoValue", "nul"};
            mutationName = names[rnd.nextInt(names.length)];
            String saslName = bare.substring(2, bare.indexOf(",r="));
            switch (mutationName) {
                case "garbage": return randomName(rnd, 30);
                case "noNonce": return "n,,n=" + saslName;
                case "badEscape": return "n,,n=" + saslName + "=41" + bare.substring(bare.indexOf(",r="));
                case "authzSame": return "n,a=" + saslName + "," + bare;
                case "authzOther": return "n,a=" + saslName + "z," + bare;
                case "reserved": return "n,,m=" + randomName(rnd, 6).replace(',', '.') + "," + bare;
                case "nonAscii": return "n,,n=" + saslName + "\u00e5" + bare.substring(bare.indexOf(",r="));
                case "gs2y": return "y,," + bare;
                case "emptyExtValue": return m + ",ext=";
                case "trailingComma": return m + ",";
                case "authzEscaped": return "n,a=" + saslName.replace("=3D", "=").replace("=2C", ",") + "x=2C," + bare;
                case "extNoValue": return m + ",ext";
                default: return "n,,n=" + saslName + "\u0000" + bare.substring(bare.indexOf(",r="));
            }
        }

        String mutateFinal(String m) {
            // m is c=<cb>,r=<nonce>,p=<proof>
            int p = m.indexOf(",p=");
            String head = m.substring(0, p);
            byte[] proof = Base64.getDecoder().decode(m.substring(p + 3));
            String[] names = {"wrongNonce", "shortNonce", "flipProof", "shortProof", "longProof", "emptyProof", "noProof",
                "channel", "extension", "garbage", "badBase64", "proofPadding"};
            mutationName = names[rnd.nextInt(names.length)];
            switch (mutationName) {
                case "wrongNonce": return head + "x,p=" + b64(proof);
                case "shortNonce": return head.substring(0, head.length() - 1) + ",p=" + b64(proof);
                case "flipProof": proof[rnd.nextInt(proof.length)] ^= (byte) (1 << rnd.nextInt(8)); return head + ",p=" + b64(proof);
                case "shortProof": return head + ",p=" + b64(java.util.Arrays.copyOf(proof, proof.length - 1 - rnd.nextInt(4)));
                case "longProof": return head + ",p=" + b64(java.util.Arrays.copyOf(proof, proof.length + 1));
                case "emptyProof": return head + ",p=";
                case "noProof": return head;
                case "channel": return "c=eSws" + head.substring(head.indexOf(",r=")) + ",p=" + b64(proof);
                case "extension": return head + ",abc=d=e,p=" + b64(proof);
                case "garbage": return randomName(rnd, 40);
                case "badBase64": return head + ",p=" + b64(proof).substring(1);
                default: {
                    // Non-canonical padding bits (the last character's low bit is padding for
                    // 32- and 64-byte proofs): Java's decoder ignores them.
                    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
                    String s = b64(proof);
                    int at = s.indexOf('=') - 1;
                    char odd = alphabet.charAt(alphabet.indexOf(s.charAt(at)) | 1);
                    return head + ",p=" + s.substring(0, at) + odd + s.substring(at + 1);
                }
            }
        }
    }
}
