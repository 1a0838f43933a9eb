package io.perfpin.cpu;

import io.perfpin.jvm.ProcText;
import io.perfpin.nativeio.FileStat;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Which files are locked, and by which process where the kernel says, from its table in {@code /proc/locks}. Reading it
 * disturbs nobody, where probing with {@code tryLock} would hold the lock for a moment and make a concurrent
 * reservation fail.
 *
 * <p>Lines: {@code 1: OFDLCK ADVISORY  WRITE -1 fd:00:9978210 0 EOF} for a lock of an open file description (perfpin's,
 * {@link io.perfpin.nativeio.FileCalls#tryLockWhole}), whose fifth field names no process, and {@code 2: POSIX ADVISORY
 * WRITE 4242 fd:00:9978211 0 EOF} for a process's record lock (an older perfpin's, or this one's on a kernel without
 * open-file locks), whose fifth field is the owner's pid in our pid namespace, or -1 where it has none here. The sixth
 * is the file as major:minor:inode, both device numbers in hex. Waiters are listed with {@code ->} before the type and
 * are not owners.
 */
final class KernelFileLocks {
    /** What {@link #owner} says of a file nobody locks. */
    static final long NOT_LOCKED = -1;
    /** What {@link #owner} says of a file locked by an open file description: the kernel names no process. */
    static final long NO_PID = 0;

    private static final String PROC_LOCKS = "/proc/locks";

    private final Map<String, Long> ownerByFile = new HashMap<>();

    private KernelFileLocks() {}

    static KernelFileLocks read() throws IOException {
        // a stream, not a channel: a placement reads it on an application's thread, which may carry an interrupt
        return parse(ProcText.read(PROC_LOCKS));
    }

    /** The table {@code text}, as {@code /proc/locks} writes it. */
    static KernelFileLocks parse(String text) {
        KernelFileLocks locks = new KernelFileLocks();
        for (String line : text.split("\n")) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 6 && fields[1].equals("POSIX")) {
                long pid = Long.parseLong(fields[4]);
                locks.ownerByFile.put(fields[5], pid > 0 ? pid : NO_PID);
            } else if (fields.length >= 6 && fields[1].equals("OFDLCK")) {
                locks.ownerByFile.put(fields[5], NO_PID);
            }
        }
        return locks;
    }

    /**
     * The pid holding a POSIX lock on the file {@code status} describes; {@link #NO_PID} where a lock holds it whose
     * owner the kernel names no pid of here (an open file description's); else {@link #NOT_LOCKED}.
     */
    long owner(FileStat status) {
        // statx's device: major in the high 32 bits, minor in the low
        String key =
                String.format("%02x:%02x:%d", status.device() >>> 32, status.device() & 0xFFFF_FFFFL, status.inode());
        return ownerByFile.getOrDefault(key, NOT_LOCKED);
    }
}
