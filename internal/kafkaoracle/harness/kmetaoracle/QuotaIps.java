// kmeta's oracle harness, quotas: random spellings of an IP address that InetAddress.getByName reads as a
// literal (never a host name, so nothing is looked up), for the ip entities of the quota images.
package kmetaoracle;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Random;

final class QuotaIps {
    private QuotaIps() { }

    /** The address's bytes (a literal of QuotaImages.ADDRS). */
    static byte[] bytes(String literal) {
        try {
            return InetAddress.getByName(literal).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A random spelling of literal that getByName reads as the same address. */
    static String spelling(Random rnd, String literal) {
        byte[] b = bytes(literal);
        return b.length == 4 ? spell4(rnd, b) : spell6(rnd, b);
    }

    private static int u(byte x) { return x & 0xff; }

    private static String zeros(Random rnd, int v) {
        return (rnd.nextInt(3) == 0 ? "0".repeat(1 + rnd.nextInt(2)) : "") + v;
    }

    private static String spell4(Random rnd, byte[] b) {
        long all = ((long) u(b[0]) << 24) | (u(b[1]) << 16) | (u(b[2]) << 8) | u(b[3]);
        switch (rnd.nextInt(8)) {
            case 0: return u(b[0]) + "." + u(b[1]) + "." + ((u(b[2]) << 8) | u(b[3]));
            case 1: return u(b[0]) + "." + (((long) u(b[1]) << 16) | (u(b[2]) << 8) | u(b[3]));
            case 2: return Long.toString(all);
            case 3: return "::ffff:" + u(b[0]) + "." + u(b[1]) + "." + u(b[2]) + "." + u(b[3]);
            case 4: return "::ffff:" + Integer.toHexString((u(b[0]) << 8) | u(b[1])) + ":" + Integer.toHexString((u(b[2]) << 8) | u(b[3]));
            case 5: { // leading zeros, within the 15 characters a literal may have (IPAddressUtil)
                String z = zeros(rnd, u(b[0])) + "." + zeros(rnd, u(b[1])) + "." + zeros(rnd, u(b[2])) + "." + zeros(rnd, u(b[3]));
                if (z.length() <= 15) return z;
                return u(b[0]) + "." + u(b[1]) + "." + u(b[2]) + "." + u(b[3]);
            }
            default: return u(b[0]) + "." + u(b[1]) + "." + u(b[2]) + "." + u(b[3]);
        }
    }

    private static String spell6(Random rnd, byte[] b) {
        String[] g = new String[8];
        for (int i = 0; i < 8; i++) g[i] = Integer.toHexString((u(b[2 * i]) << 8) | u(b[2 * i + 1]));
        String s;
        switch (rnd.nextInt(6)) {
            case 0: s = String.join(":", g); break;
            case 1: { // leading zeros in every group
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < 8; i++) sb.append(i > 0 ? ":" : "").append("0".repeat(4 - g[i].length())).append(g[i]);
                s = sb.toString();
                break;
            }
            case 2: s = compress(g).toUpperCase(); break;
            case 3: s = "[" + compress(g) + "]"; break;
            case 4: s = compress(g) + "%" + rnd.nextInt(3); break;
            default: s = compress(g); break;
        }
        return s;
    }

    /** The groups with the longest run of zero groups (two or more) written "::". */
    private static String compress(String[] g) {
        int best = -1, bestLen = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && g[j].equals("0")) j++;
            if (j - i > bestLen) { best = i; bestLen = j - i; }
            i = j == i ? i + 1 : j;
        }
        if (best < 0) return String.join(":", g);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < best; i++) sb.append(i > 0 ? ":" : "").append(g[i]);
        sb.append("::");
        for (int i = best + bestLen; i < 8; i++) sb.append(i > best + bestLen ? ":" : "").append(g[i]);
        return sb.toString();
    }
}
