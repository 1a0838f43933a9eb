package io.perfpin.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * The effective user id of this process: the owner of everything perfpin creates, and the only owner besides
 * root that perfpin trusts on the way to its files. Read from {@code /proc/self/status}, which needs nothing
 * beyond java.base and no native library (the JNI library is itself extracted with these checks).
 */
public final class EffectiveUser {
    private static volatile int uid = -1;

    private EffectiveUser() {
    }

    public static int uid() {
        int known = uid;
        if (known < 0) {
            known = read();
            uid = known;
        }
        return known;
    }

    /** The {@code Uid:} line holds the real, effective, saved and filesystem uids, in that order. */
    private static int read() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/self/status for this process's user id", e);
        }
        throw new IllegalStateException("/proc/self/status has no Uid line");
    }
}
