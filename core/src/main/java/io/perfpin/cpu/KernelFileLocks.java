package io.perfpin.cpu;

import io.perfpin.jvm.ProcText;
import io.perfpin.nativeio.FileStat;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Which process holds a POSIX lock on which file, from the kernel's table in {@code /proc/locks}. Reading it
 * disturbs nobody, where probing with {@code tryLock} would hold the lock for a moment and make a concurrent
 * reservation fail.
 *
 * <p>A line: {@code 1: POSIX  ADVISORY  WRITE 4242 fd:00:9978210 0 EOF}, the fifth field the owner's pid in
 * our pid namespace and the sixth the file as major:minor:inode, both device numbers in hex. Waiters are
 * listed with {@code ->} before the type and are not owners.
 */
final class KernelFileLocks {
    private static final String PROC_LOCKS = "/proc/locks";

    private final Map<String, Long> ownerByFile = new HashMap<>();

    private KernelFileLocks() {}

    static KernelFileLocks read() throws IOException {
        KernelFileLocks locks = new KernelFileLocks();
        // a stream, not a channel: a placement reads it on an application's thread, which may carry an interrupt
        for (String line : ProcText.read(PROC_LOCKS).split("\n")) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 6 && fields[1].equals("POSIX")) {
                locks.ownerByFile.put(fields[5], Long.parseLong(fields[4]));
            }
        }
        return locks;
    }

    /** The pid holding a POSIX lock on the file {@code status} describes, or -1. */
    long owner(FileStat status) {
        // statx's device: major in the high 32 bits, minor in the low
        String key =
                String.format("%02x:%02x:%d", status.device() >>> 32, status.device() & 0xFFFF_FFFFL, status.inode());
        return ownerByFile.getOrDefault(key, -1L);
    }
}
