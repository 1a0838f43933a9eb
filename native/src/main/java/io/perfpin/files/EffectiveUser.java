package io.perfpin.files;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The effective user id of this process: the owner of everything perfpin creates, and the only owner besides
 * root that perfpin trusts on the way to its files. Read from {@code /proc/self/status}, which needs nothing
 * beyond java.base and no native library (the JNI library is itself extracted with these checks).
 */
public final class EffectiveUser {
    private static volatile int uid = -1;

    private EffectiveUser() {}

    /**
     * Whether perfpin trusts a directory or link of {@code uid} on the way to its files: root's, this user's, and,
     * in a user namespace (a container's, or {@code unshare -U}), the overflow uid the kernel shows for files whose
     * owner has no uid there (the host's root in practice, whose files no one in the namespace can change), unless
     * that uid is a user of the namespace's own.
     */
    public static boolean trusts(int uid) {
        return uid == 0 || uid == uid() || uid == unmappedOwner();
    }

    private static volatile Integer unmapped;

    /** The kernel's overflow uid in a user namespace below the host's; -1 in the host's own. */
    private static int unmappedOwner() {
        Integer known = unmapped;
        if (known == null) {
            known = -1;
            try {
                String map = text("/proc/self/uid_map");
                int overflow = Integer.parseInt(text("/proc/sys/kernel/overflowuid"));
                if (!map.matches("0\\s+0\\s+4294967295") && !mapped(map, overflow)) {
                    known = overflow;
                }
            } catch (IOException | RuntimeException e) {
                // no such files: no user namespaces either
            }
            unmapped = known;
        }
        return known;
    }

    /**
     * Whether {@code uid} is a uid of this namespace's own in {@code uid_map} ("inside outside count" lines): then
     * it is a user there (a remapped container's nobody), not the mark of an owner from outside.
     */
    private static boolean mapped(String map, long uid) {
        for (String line : map.split("\n")) {
            String[] fields = line.strip().split("\\s+");
            if (fields.length == 3) {
                long inside = Long.parseLong(fields[0]);
                if (uid >= inside && uid < inside + Long.parseLong(fields[2])) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Read as a stream, from the start: /proc's files report no size, and its sysctls read at an offset wrong. */
    private static String text(String file) throws IOException {
        try (InputStream in = new FileInputStream(file)) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip();
        }
    }

    public static int uid() {
        int known = uid;
        if (known < 0) {
            known = read();
            uid = known;
        }
        return known;
    }

    /**
     * The {@code Uid:} line holds the real, effective, saved and filesystem uids, in that order. Scanned as bytes:
     * this runs as the agent starts, where a regex or a charset decoder would load classes the application waits
     * for (12 ms here).
     */
    private static int read() {
        byte[] status;
        try (InputStream in = new FileInputStream("/proc/self/status")) {
            status = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/self/status for this process's user id", e);
        }
        byte[] key = {'\n', 'U', 'i', 'd', ':'};
        for (int at = 0; at + key.length < status.length; at++) {
            if (Arrays.equals(status, at, at + key.length, key, 0, key.length)) {
                int field = at + key.length;
                for (int skip = 0; skip < 2; skip++) { // the real uid, then to the effective one
                    while (field < status.length && (status[field] == '\t' || status[field] == ' ')) {
                        field++;
                    }
                    while (skip == 0 && field < status.length && status[field] >= '0' && status[field] <= '9') {
                        field++;
                    }
                }
                int uid = 0;
                while (field < status.length && status[field] >= '0' && status[field] <= '9') {
                    uid = uid * 10 + status[field++] - '0';
                }
                return uid;
            }
        }
        throw new IllegalStateException("/proc/self/status has no Uid line");
    }
}
