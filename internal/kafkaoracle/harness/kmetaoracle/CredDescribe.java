// The describe answers of credentials as a Kafka 4.4 broker gives them, on
// seeded random images and requests: DescribeUserScramCredentials
// (ScramImage.describe over an image built by ScramDelta, behind
// KafkaApis.handleDescribeUserScramCredentialsRequest's cluster check),
// DescribeAcls (StandardAuthorizer.acls over DescribeAclsRequest's filter,
// DescribeAclsResponse.aclsResources, AclApis.handleDescribeAcls) and
// DescribeDelegationToken (DelegationTokenManager.getTokens with its
// filterToken, KafkaApis.handleDescribeTokensRequest and allowTokenRequests,
// transcribed). Each answer is written encoded at every version. Writes
// cred_describe.jsonl.gz. Written for kmeta; no Kafka source is copied here.
package kmetaoracle;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeDelegationTokenRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.metadata.RemoveUserScramCredentialRecord;
import org.apache.kafka.common.metadata.UserScramCredentialRecord;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;
import org.apache.kafka.common.requests.DescribeDelegationTokenRequest;
import org.apache.kafka.common.requests.DescribeDelegationTokenResponse;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.apache.kafka.common.security.token.delegation.TokenInformation;
import org.apache.kafka.common.security.token.delegation.internals.DelegationTokenCache;
import org.apache.kafka.image.ScramDelta;
import org.apache.kafka.image.ScramImage;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.security.DelegationTokenManager;
import org.apache.kafka.server.config.DelegationTokenManagerConfigs;

public final class CredDescribe {
    static final Base64.Encoder B64 = Base64.getEncoder();

    static String b64(byte[] b) { return b == null ? null : B64.encodeToString(b); }

    /** message encoded at version, without the version prefix. */
    static String encode(Message m, short version) {
        byte[] b = MessageUtil.toVersionPrefixedBytes(version, m);
        byte[] out = new byte[b.length - 2];
        System.arraycopy(b, 2, out, 0, out.length);
        return b64(out);
    }

    static final String[] USERS = {"alice", "bob", "carol", "dave", "Ève", "françois", "user-1", "user-2", "x", "", "a,b", "ü=1",
        "Aa", "BB", "AaAa", "BBBB", "AaBB", "BBAa"};

    static <T> T pick(Random rnd, T[] xs) { return xs[rnd.nextInt(xs.length)]; }

    public static void main(String[] argv) throws Exception {
        Common.Args args = Common.Args.parse(argv);
        Random rnd = args.random("CredDescribe");
        try (Common.Out out = new Common.Out(args, "cred_describe")) {
            for (int i = 0; i < 150; i++) out.line(scram(rnd, i));
            for (int i = 0; i < 150; i++) out.line(acls(rnd));
            for (int i = 0; i < 150; i++) out.line(tokens(rnd));
        }
    }

    // ---- DescribeUserScramCredentials ----

    static String userName(Random rnd, int i) {
        return rnd.nextInt(3) == 0 ? pick(rnd, USERS) : "u" + rnd.nextInt(Math.max(1, i * 3 + 5));
    }

    static Map<String, Object> scram(Random rnd, int n) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("kind", "scram");
        ScramDelta delta = new ScramDelta(ScramImage.EMPTY);
        List<Object> creds = new ArrayList<>();
        int count = n % 10 == 9 ? 200 + rnd.nextInt(200) : rnd.nextInt(12);
        Map<String, Map<String, Object>> live = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            ScramMechanism m = rnd.nextBoolean() ? ScramMechanism.SCRAM_SHA_256 : ScramMechanism.SCRAM_SHA_512;
            String user = userName(rnd, count);
            if (rnd.nextInt(6) == 0 && !live.isEmpty()) {
                // Removed again: ScramDelta.replay(RemoveUserScramCredentialRecord).
                String key = new ArrayList<>(live.keySet()).get(rnd.nextInt(live.size()));
                Map<String, Object> c = live.remove(key);
                delta.replay(new RemoveUserScramCredentialRecord().setName((String) c.get("user"))
                    .setMechanism((byte) (int) (Integer) c.get("mechanism")));
                continue;
            }
            int iterations = 4096 + rnd.nextInt(12289);
            byte[] salt = new byte[8];
            rnd.nextBytes(salt);
            delta.replay(new UserScramCredentialRecord().setName(user).setMechanism(m.type()).setIterations(iterations)
                .setSalt(salt).setStoredKey(salt).setServerKey(salt));
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("user", user);
            c.put("mechanism", (int) m.type());
            c.put("iterations", iterations);
            live.put(m.type() + "/" + user, c);
        }
        ScramImage image = delta.apply();
        // The image's credentials as ScramDelta.apply left them (it loses the users put after a
        // removal that emptied their mechanism's map in the same delta).
        for (var me : image.mechanisms().entrySet()) {
            for (var ue : me.getValue().entrySet()) {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("user", ue.getKey());
                c.put("mechanism", (int) me.getKey().type());
                c.put("iterations", ue.getValue().iterations());
                creds.add(c);
            }
        }
        v.put("credentials", creds);
        DescribeUserScramCredentialsRequestData req = new DescribeUserScramCredentialsRequestData();
        int shape = rnd.nextInt(5);
        List<Object> users = null;
        if (shape == 0) {
            req.setUsers(null);
        } else if (shape == 1) {
            req.setUsers(new ArrayList<>());
            users = new ArrayList<>();
        } else {
            users = new ArrayList<>();
            List<DescribeUserScramCredentialsRequestData.UserName> list = new ArrayList<>();
            int k = 1 + rnd.nextInt(shape == 4 ? 40 : 6);
            for (int i = 0; i < k; i++) {
                String u = rnd.nextInt(4) == 0 && !creds.isEmpty()
                    ? (String) ((Map<?, ?>) creds.get(rnd.nextInt(creds.size()))).get("user") : userName(rnd, count);
                list.add(new DescribeUserScramCredentialsRequestData.UserName().setName(u));
                users.add(u);
            }
            req.setUsers(list);
        }
        v.put("users", users);
        boolean authorized = rnd.nextInt(6) != 0;
        v.put("authorized", authorized);
        try {
            v.put("response", encode(describeScram(image, req, authorized), (short) 0));
        } catch (NullPointerException e) {
            v.put("response", null);
            v.put("exception", e.getClass().getSimpleName());
        }
        return v;
    }

    /** KafkaApis.scala 2513-2524 (handleDescribeUserScramCredentialsRequest) at the 4.4 commit. */
    static Message describeScram(ScramImage image, DescribeUserScramCredentialsRequestData req, boolean authorized) {
        if (!authorized) {
            DescribeUserScramCredentialsRequest r = new DescribeUserScramCredentialsRequest.Builder(req).build((short) 0);
            return r.getErrorResponse(0, Errors.CLUSTER_AUTHORIZATION_FAILED.exception()).data();
        }
        DescribeUserScramCredentialsResponseData d = image.describe(req);
        return d.setThrottleTimeMs(0);
    }

    // ---- DescribeAcls ----

    static final String[] NAMES = {"orders", "ord", "o", "*", "payments", "kafka-cluster", "grp", "grp-1", "tx", "tok", "User:alice", "Ö"};
    static final String[] PRINCIPALS = {"User:alice", "User:bob", "User:*", "Group:ops", "User:Ève"};
    static final String[] HOSTS = {"*", "10.0.0.1", "10.0.0.2", "::1"};
    static final ResourceType[] TYPES = {ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER,
        ResourceType.TRANSACTIONAL_ID, ResourceType.DELEGATION_TOKEN, ResourceType.USER};
    static final AclOperation[] OPS = {AclOperation.ALL, AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE,
        AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.CLUSTER_ACTION,
        AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE,
        AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS};

    static Map<String, Object> acls(Random rnd) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("kind", "acls");
        Map<Uuid, StandardAcl> acls = new LinkedHashMap<>();
        List<Object> list = new ArrayList<>();
        int count = rnd.nextInt(10) == 0 ? 300 : rnd.nextInt(25);
        Set<StandardAcl> seen = new java.util.HashSet<>();
        for (int i = 0; i < count; i++) {
            StandardAcl a = new StandardAcl(pick(rnd, TYPES), pick(rnd, NAMES),
                rnd.nextInt(3) == 0 ? PatternType.PREFIXED : PatternType.LITERAL, pick(rnd, PRINCIPALS), pick(rnd, HOSTS),
                pick(rnd, OPS), rnd.nextBoolean() ? AclPermissionType.ALLOW : AclPermissionType.DENY);
            if (!seen.add(a)) continue; // AclCache refuses an ACL equal to one it holds
            Uuid id = new Uuid(rnd.nextLong(), rnd.nextLong());
            acls.put(id, a);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", id.toString());
            m.put("resourceType", (int) a.resourceType().code());
            m.put("resourceName", a.resourceName());
            m.put("patternType", (int) a.patternType().code());
            m.put("principal", a.principal());
            m.put("host", a.host());
            m.put("operation", (int) a.operation().code());
            m.put("permissionType", (int) a.permissionType().code());
            list.add(m);
        }
        v.put("acls", list);
        StandardAuthorizer auth = new StandardAuthorizer();
        auth.configure(Map.of());
        auth.loadSnapshot(acls);
        auth.completeInitialLoad();
        DescribeAclsRequestData req = new DescribeAclsRequestData()
            .setResourceTypeFilter((byte) code(rnd, new int[]{1, 1, 2, 3, 4, 5, 6, 7}, new int[]{0, 99}))
            .setResourceNameFilter(rnd.nextInt(3) == 0 ? null : pick(rnd, NAMES))
            .setPatternTypeFilter((byte) code(rnd, new int[]{1, 2, 2, 3, 3, 4}, new int[]{0, 9}))
            .setPrincipalFilter(rnd.nextBoolean() ? null : pick(rnd, PRINCIPALS))
            .setHostFilter(rnd.nextBoolean() ? null : pick(rnd, HOSTS))
            .setOperation((byte) code(rnd, new int[]{1, 1, 1, 2, 3, 4, 8, 13, 14}, new int[]{0, 20}))
            .setPermissionType((byte) code(rnd, new int[]{1, 1, 2, 3}, new int[]{0, 7}));
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("resourceType", (int) req.resourceTypeFilter());
        r.put("resourceName", req.resourceNameFilter());
        r.put("patternType", (int) req.patternTypeFilter());
        r.put("principal", req.principalFilter());
        r.put("host", req.hostFilter());
        r.put("operation", (int) req.operation());
        r.put("permissionType", (int) req.permissionType());
        v.put("filter", r);
        int authorizer = rnd.nextInt(8);
        v.put("authorizer", authorizer != 0);
        v.put("authorized", authorizer != 1);
        Map<String, Object> answers = new LinkedHashMap<>();
        for (short ver = 1; ver <= 3; ver++) {
            answers.put(Short.toString(ver), describeAcls(auth, req.duplicate(), ver, authorizer != 0, authorizer != 1));
        }
        v.put("answers", answers);
        return v;
    }

    /** A code of good, or (one time in twelve) of bad: UNKNOWN or a code Kafka does not know. */
    static int code(Random rnd, int[] good, int[] bad) {
        return rnd.nextInt(12) == 0 ? bad[rnd.nextInt(bad.length)] : good[rnd.nextInt(good.length)];
    }

    /**
     * AclApis.scala 63-83 (handleDescribeAcls) at the 4.4 commit, after the request is parsed
     * (DescribeAclsRequest's constructor validates it). The cluster check's exception message
     * carries the request's toString, a runtime value: "RUNTIME" stands for it.
     */
    static Object describeAcls(StandardAuthorizer auth, DescribeAclsRequestData data, short ver, boolean hasAuthorizer,
                               boolean authorized) {
        DescribeAclsRequest req;
        try {
            // As a broker parses it off the wire (RequestContext.parseRequest).
            ByteBuffer wire = MessageUtil.toVersionPrefixedByteBuffer(ver, data);
            wire.getShort();
            req = DescribeAclsRequest.parse(new org.apache.kafka.common.protocol.ByteBufferAccessor(wire), ver);
        } catch (RuntimeException e) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("invalid", e.getClass().getSimpleName() + ": " + e.getMessage());
            return m;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        if (!authorized) {
            m.put("response", encode(((DescribeAclsResponse) req.getErrorResponse(0,
                new ClusterAuthorizationException("Request RUNTIME needs DESCRIBE permission."))).data(), ver));
            return m;
        }
        DescribeAclsResponseData resp;
        if (!hasAuthorizer) {
            resp = new DescribeAclsResponseData().setErrorCode(Errors.SECURITY_DISABLED.code())
                .setErrorMessage("No Authorizer is configured on the broker").setThrottleTimeMs(0);
        } else {
            AclBindingFilter filter = req.filter();
            resp = new DescribeAclsResponseData().setThrottleTimeMs(0)
                .setResources(DescribeAclsResponse.aclsResources(auth.acls(filter)));
        }
        m.put("response", encode(new DescribeAclsResponse(resp, ver).data(), ver));
        return m;
    }

    // ---- DescribeDelegationToken ----

    static final String[] OWNERS = {"User:alice", "User:bob", "User:carol", "Group:ops", "User:Ève", "User:"};

    static Map<String, Object> tokens(Random rnd) throws Exception {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("kind", "tokens");
        String secret = rnd.nextInt(8) == 0 ? "" : "key-" + rnd.nextInt(1000);
        v.put("secretKey", secret);
        Map<String, Object> props = new HashMap<>();
        props.put(DelegationTokenManagerConfigs.DELEGATION_TOKEN_SECRET_KEY_CONFIG, secret);
        DelegationTokenCache cache = new DelegationTokenCache(ScramMechanism.mechanismNames());
        DelegationTokenManager mgr = new DelegationTokenManager(
            new DelegationTokenManagerConfigs(new AbstractConfig(DelegationTokenManagerConfigs.CONFIG_DEF, props)), cache);
        List<Object> tokens = new ArrayList<>();
        int count = rnd.nextInt(10) == 0 ? 100 : rnd.nextInt(10);
        long now = 1_700_000_000_000L;
        for (int i = 0; i < count; i++) {
            String id = "tok-" + rnd.nextInt(1000);
            KafkaPrincipal owner = principal(pick(rnd, OWNERS));
            KafkaPrincipal requester = rnd.nextBoolean() ? owner : principal(pick(rnd, OWNERS));
            List<KafkaPrincipal> renewers = new ArrayList<>();
            for (int k = rnd.nextInt(3); k > 0; k--) renewers.add(principal(pick(rnd, OWNERS)));
            long issue = now - rnd.nextInt(1_000_000);
            long expiry = issue + rnd.nextInt(2_000_000) - 500_000;
            TokenInformation ti = TokenInformation.fromRecord(id, owner, requester, renewers, issue, issue + 5_000_000, expiry);
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("tokenId", id);
            t.put("owner", owner.toString());
            t.put("requester", requester.toString());
            List<String> rs = new ArrayList<>();
            for (KafkaPrincipal p : renewers) rs.add(p.toString());
            t.put("renewers", rs);
            t.put("issue", issue);
            t.put("max", issue + 5_000_000);
            t.put("expiry", expiry);
            tokens.removeIf(o -> ((Map<?, ?>) o).get("tokenId").equals(id));
            tokens.add(t);
            try {
                mgr.updateToken(mgr.getDelegationToken(ti));
            } catch (RuntimeException e) {
                // DelegationTokenPublisher's fault handler: the token is not cached (no secret key).
            }
        }
        v.put("tokens", tokens);
        DescribeDelegationTokenRequestData req = new DescribeDelegationTokenRequestData();
        List<Object> owners = null;
        int shape = rnd.nextInt(4);
        if (shape == 0) {
            req.setOwners(null);
        } else {
            owners = new ArrayList<>();
            List<DescribeDelegationTokenRequestData.DescribeDelegationTokenOwner> os = new ArrayList<>();
            for (int k = shape == 1 ? 0 : 1 + rnd.nextInt(3); k > 0; k--) {
                KafkaPrincipal p = principal(pick(rnd, OWNERS));
                os.add(new DescribeDelegationTokenRequestData.DescribeDelegationTokenOwner()
                    .setPrincipalType(p.getPrincipalType()).setPrincipalName(p.getName()));
                owners.add(p.toString());
            }
            req.setOwners(os);
        }
        v.put("owners", owners);
        String protocol = pick(rnd, new String[]{"SASL_SSL", "SASL_SSL", "SASL_PLAINTEXT", "SSL", "PLAINTEXT"});
        KafkaPrincipal requester = rnd.nextInt(6) == 0 ? KafkaPrincipal.ANONYMOUS : principal(pick(rnd, OWNERS));
        boolean tokenAuth = rnd.nextInt(6) == 0;
        v.put("protocol", protocol);
        v.put("principal", requester.toString());
        v.put("tokenAuthenticated", tokenAuth);
        Set<String> okTokens = new LinkedHashSet<>();
        Set<String> okOwners = new LinkedHashSet<>();
        for (Object o : tokens) {
            Map<?, ?> t = (Map<?, ?>) o;
            if (rnd.nextInt(4) == 0) okTokens.add((String) t.get("tokenId"));
            if (rnd.nextInt(4) == 0) okOwners.add((String) t.get("owner"));
        }
        v.put("describeTokenIds", new ArrayList<>(okTokens));
        v.put("describeTokensOwners", new ArrayList<>(okOwners));
        Map<String, Object> answers = new LinkedHashMap<>();
        for (short ver = 1; ver <= 3; ver++) {
            DescribeDelegationTokenRequest request = new DescribeDelegationTokenRequest(req, ver);
            answers.put(Short.toString(ver), encode(describeTokens(mgr, request, ver, protocol, requester, tokenAuth,
                okTokens, okOwners).data(), ver));
        }
        v.put("answers", answers);
        return v;
    }

    static KafkaPrincipal principal(String s) {
        int i = s.indexOf(':');
        return new KafkaPrincipal(s.substring(0, i), s.substring(i + 1));
    }

    /** KafkaApis.scala 2422-2431 (allowTokenRequests) at the 4.4 commit. */
    static boolean allowTokenRequests(String protocol, KafkaPrincipal principal, boolean tokenAuth) {
        return !(tokenAuth || protocol.equals("PLAINTEXT") || (protocol.equals("SSL") && principal.equals(KafkaPrincipal.ANONYMOUS)));
    }

    /** KafkaApis.scala 2386-2420 (handleDescribeTokensRequest) at the 4.4 commit. */
    static DescribeDelegationTokenResponse describeTokens(DelegationTokenManager mgr, DescribeDelegationTokenRequest req,
            short ver, String protocol, KafkaPrincipal principal, boolean tokenAuth, Set<String> okTokens, Set<String> okOwners) {
        if (!allowTokenRequests(protocol, principal, tokenAuth))
            return new DescribeDelegationTokenResponse(ver, 0, Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, List.of());
        if (!mgr.isEnabled())
            return new DescribeDelegationTokenResponse(ver, 0, Errors.DELEGATION_TOKEN_AUTH_DISABLED, List.of());
        if (req.ownersListEmpty())
            return new DescribeDelegationTokenResponse(ver, 0, Errors.NONE, List.of());
        Optional<List<KafkaPrincipal>> owners = req.data().owners() == null ? Optional.empty()
            : Optional.of(req.data().owners().stream().map(p -> new KafkaPrincipal(p.principalType(), p.principalName())).toList());
        List<DelegationToken> tokens = mgr.getTokens(t -> DelegationTokenManager.filterToken(principal, owners, t,
            okTokens::contains, o -> okOwners.contains(o.toString())));
        return new DescribeDelegationTokenResponse(ver, 0, Errors.NONE, tokens);
    }
}
