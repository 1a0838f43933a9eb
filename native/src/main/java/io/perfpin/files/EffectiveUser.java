package io.perfpin.files;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

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
