package io.perfpin.files;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The effective user id of this process: the owner of everything perfpin creates, and the only owner besides
 * root that perfpin trusts on the way to its files (in a user namespace, with the exception of
 * {@link #trustsDirectory}). Read from {@code /proc/self/status}, which needs nothing
 * beyond java.base and no native library (the JNI library is itself extracted with these checks).
 */
public final class EffectiveUser {
    private static volatile int uid = -1;

    private EffectiveUser() {}

    /**
     * Whether perfpin trusts a link of {@code uid}, or a directory of it whose mode and place are not looked at: root's
     * and this user's. Never the overflow uid of a user namespace ({@link #isForeign}), which every owner outside the
     * namespace shows as, another user of the host as much as the host's root.
     */
    public static boolean trusts(int uid) {
        return uid == 0 || uid == uid();
    }

    /**
     * Whether perfpin trusts a directory on the way to its files: root's or this user's; or, in a user namespace, one
     * of the overflow uid ({@link #isForeign}) that is a directory on the way from {@code /} to {@code $HOME} or
     * {@code $XDG_RUNTIME_DIR} (this user's own ground: whoever owns those owns the user's account anyway) and that no
     * one but its owner may write, sticky or not. Every other directory of an owner outside the namespace may be any
     * user's of the host ({@code /home/alice}), who could rename what perfpin keeps below it.
     */
    static boolean trustsDirectory(int uid, int mode, long device, long inode) {
        return trusts(uid)
                || (isForeign(uid) && (mode & 0022) == 0 && ownGround().contains(new DirectoryId(device, inode)));
    }

    /** Whether files of {@code uid} belong to an owner outside this user namespace, whom perfpin cannot name. */
    public static boolean isForeign(int uid) {
        return uid >= 0 && uid == unmappedOwner();
    }

    /** What a refusal of a directory of {@code uid} says of its owner: the overflow uid is not one user. */
    static String owner(int uid) {
        return isForeign(uid)
                ? "uid " + uid + " (an owner outside this user namespace, who may be any user of the host)"
                : "uid " + uid;
    }

    /** A directory by its device (major in the high 32 bits, as statx gives it) and inode. */
    private record DirectoryId(long device, long inode) {}

    private static volatile Set<DirectoryId> ownGround;

    /**
     * The directories from {@code /} down to the parents of {@code $HOME}, {@code $XDG_RUNTIME_DIR} and
     * {@code user.home}, by name as written, up to the first that is not a directory (a link leads elsewhere: what is
     * below it is not on the way by that name).
     */
    private static Set<DirectoryId> ownGround() {
        Set<DirectoryId> known = ownGround;
        if (known == null) {
            known = new HashSet<>();
            for (String anchor : new String[] {
                System.getenv("HOME"), System.getenv("XDG_RUNTIME_DIR"), System.getProperty("user.home")
            }) {
                if (anchor == null || !anchor.startsWith("/")) {
                    continue;
                }
                Path dir = Path.of("/");
                Path normal = Path.of(anchor).normalize();
                for (int i = 0; ; i++) {
                    try {
                        FileStatus status = FileStatus.of(dir);
                        if (!status.isDirectory()) {
                            break;
                        }
                        known.add(new DirectoryId(status.device(), status.inode));
                    } catch (IOException | RuntimeException e) {
                        break;
                    }
                    if (i >= normal.getNameCount() - 1) {
                        break;
                    }
                    dir = dir.resolve(normal.getName(i));
                }
            }
            ownGround = known;
        }
        return known;
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
                if (!mapped(map, overflow)) { // the host's own map, 0 0 4294967295, maps every uid
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
            long[] fields = numbers(line);
            if (fields.length == 3 && uid >= fields[0] && uid < fields[0] + fields[2]) {
                return true;
            }
        }
        return false;
    }

    /**
     * The numbers of a line, split at spaces and tabs by hand: a regex loads two dozen classes as the agent starts,
     * which the application waits for.
     */
    private static long[] numbers(String line) {
        long[] found = new long[4];
        int count = 0;
        for (int at = 0; at < line.length() && count < found.length; ) {
            char c = line.charAt(at);
            if (c == ' ' || c == '\t') {
                at++;
                continue;
            }
            int end = at;
            while (end < line.length() && line.charAt(end) != ' ' && line.charAt(end) != '\t') {
                end++;
            }
            found[count++] = Long.parseLong(line.substring(at, end));
            at = end;
        }
        return Arrays.copyOf(found, count);
    }

    /** Read as a stream, from the start: /proc's files report no size, and its sysctls read at an offset wrong. */
    private static String text(String file) throws IOException {
        try (InputStream in = new FileInputStream(file)) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip();
        }
    }

    /**
     * The name perfpin's per-user directories carry ({@code perfpin-<name>}): {@code user.name}, or this uid where the
     * JDK found no name for it ({@code ?}, a uid with no passwd entry: {@code docker run --user N}, OpenShift).
     */
    public static String name() {
        String name = System.getProperty("user.name");
        boolean usable = name != null
                && !name.isEmpty()
                && !name.equals("?")
                && !name.equals(".")
                && !name.equals("..")
                && name.indexOf('/') < 0
                && name.indexOf('\0') < 0;
        return usable ? name : Integer.toString(uid());
    }

    /**
     * This user's home directory: {@code user.home} where it is absolute, else {@code $HOME} where that is; empty
     * where neither is (the JDK says {@code ?} for a uid with no passwd entry), never a relative path, which would be
     * below whatever directory the process happens to run in.
     */
    public static Optional<Path> home() {
        String home = System.getProperty("user.home");
        if (home == null || !home.startsWith("/")) {
            home = System.getenv("HOME"); // only then: the environment's first read loads classes as the agent starts
        }
        return home != null && home.startsWith("/") ? Optional.of(Path.of(home)) : Optional.empty();
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
