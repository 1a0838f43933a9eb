package io.perfpin.jvm;

import io.perfpin.files.PathWalk;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.nativeio.FileStat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * This machine's names for uids, from its own {@code /etc/passwd} (root's, checked so before it is read): the JDK
 * looks names up only the other way. Never a target's file: a container's users are its own, and its files are
 * whatever its users made them. A user known only to a network directory (LDAP, say) has no name here.
 */
final class HostUsers {
    /** Far more than any local user database; what is past it is not read. */
    private static final int MAX_BYTES = 8 << 20;

    private HostUsers() {}

    static Optional<String> name(FileCalls calls, int uid) {
        try {
            int located = PathWalk.onHost(calls).locate("/etc/passwd");
            try {
                FileStat status = calls.fstat(located);
                if (status.uid() != 0 || (status.permissions() & 0022) != 0) {
                    return Optional.empty();
                }
                int fd = PathWalk.reopen(calls, located, FileCalls.O_RDONLY, "/etc/passwd");
                try (InputStream in = Files.newInputStream(Path.of("/proc/self/fd/" + fd))) {
                    String text = new String(in.readNBytes(MAX_BYTES), StandardCharsets.UTF_8);
                    for (String line : text.split("\n")) {
                        String[] fields = line.split(":", -1);
                        if (fields.length > 2 && fields[2].equals(Integer.toString(uid))) {
                            return Optional.of(fields[0]);
                        }
                    }
                    return Optional.empty();
                } finally {
                    calls.close(fd);
                }
            } finally {
                calls.close(located);
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
