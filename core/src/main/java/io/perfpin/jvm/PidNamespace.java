package io.perfpin.jvm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The pid namespace a process is in, named by the inode its {@code /proc/PID/ns/pid} link gives ({@code
 * pid:[4026531836]}): the same number for every process of the namespace, whichever namespace looks, while a pid is
 * only unique within one namespace (two containers' JVMs are both pid 1).
 */
public final class PidNamespace {
    /** The initial pid namespace's inode ({@code PROC_PID_INIT_INO}, fixed since Linux 3.8): the host's. */
    public static final long INITIAL = 0xEFFFFFFCL;

    private PidNamespace() {}

    /** Of process {@code pid}; 0 when its link cannot be read (gone, or not this user's to inspect). */
    public static long of(long pid) {
        return read("/proc/" + pid + "/ns/pid");
    }

    /** Of this process; 0 when no {@code /proc} says. */
    static long ofThisProcess() {
        return read("/proc/self/ns/pid");
    }

    private static long read(String link) {
        try {
            String target = Files.readSymbolicLink(Path.of(link)).toString();
            if (target.startsWith("pid:[") && target.endsWith("]")) {
                return Long.parseLong(target.substring("pid:[".length(), target.length() - 1));
            }
        } catch (IOException | RuntimeException e) {
            // no /proc, or not ours to inspect: unknown
        }
        return 0;
    }
}
