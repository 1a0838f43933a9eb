package io.perfpin.jvm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's pid, read where the kernel keeps it: the link {@code /proc/self}. {@code ProcessHandle.current()}
 * says the same, but first initialises the JDK's process handling (its reaper's executor among it), which took
 * 14 ms of an application's start-up when the agent asked it in premain.
 */
public final class ThisProcess {
    private static final long PID = read();
    /** {@link #namespacePid}, once read: a process keeps its pid in its namespace for its life. */
    private static volatile long namespacePid;

    private ThisProcess() {}

    public static long pid() {
        return PID;
    }

    /** The inode of this process's pid namespace ({@link PidNamespace}); 0 when no {@code /proc} says. */
    public static long pidNamespace() {
        return PidNamespace.ofThisProcess();
    }

    /** When this process started: clock ticks from boot ({@link ThreadStartTime}); 0 when no {@code /proc} says. */
    public static long startTicks() {
        return ThreadStartTime.of(PID, (int) PID).orElse(0);
    }

    /**
     * The pid this process has in its own pid namespace, as {@code getpid()} gives it and as a viewer reads it (the
     * last of {@code NSpid}): {@link #pid()} is that of the {@code /proc} mounted here, which is the parent namespace's
     * where the process went into a new one without mounting a {@code /proc} for it. Read from {@code /proc}, not
     * asked of {@link ProcessHandle}, for the reason this class gives; {@link #pid()} where no {@code /proc} says.
     */
    public static long namespacePid() {
        long known = namespacePid;
        if (known == 0) {
            try {
                known = ProcStatus.ofProcess(PID).namespacePid();
            } catch (IOException | RuntimeException e) {
                known = PID;
            }
            namespacePid = known;
        }
        return known;
    }

    /**
     * Whether the {@code /proc} mounted here is of this process's own pid namespace, so that {@code /proc/PID} names
     * the process of this namespace's pid PID: not where the process went into a new pid namespace without mounting
     * a {@code /proc} for it ({@code unshare -p} without {@code --mount-proc}), whose pids are of the parent's.
     */
    public static boolean procIsOwnNamespace() {
        try {
            return !ProcStatus.ofProcess(PID).nestedPidSpace();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static long read() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/self")).toString());
        } catch (IOException | RuntimeException e) {
            return ProcessHandle.current().pid(); // no /proc mounted: the JDK knows by getpid()
        }
    }
}
