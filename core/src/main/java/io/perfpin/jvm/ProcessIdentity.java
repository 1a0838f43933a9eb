package io.perfpin.jvm;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * The process a pid names, as perfpin checked it: when it started (the kernel reuses pids), the program it runs
 * and the users it runs as. perfpin, often root, checks a process once (a JVM of some user) and acts on it later,
 * after a thread dump that the process itself answers: meanwhile the process may have exited and its pid gone to
 * another user's process, or it may have exec'd a setuid program, which keeps its pid, its TIDs, its threads'
 * start times (the thread that exec's takes its leader's) and their affinity, but runs as root. So before each
 * action perfpin checks that the pid still names the process it checked ({@link #check}), and leaves one that no
 * longer does alone.
 *
 * @param pid       the process's id
 * @param command   its name when it was checked ({@code Name:} in its status file), for messages
 * @param startTime field 22 of {@code /proc/<pid>/stat}: clock ticks from boot to its start
 * @param uids      real, effective, saved and filesystem uid ({@code Uid:} in its status file)
 * @param gids      the same four gids ({@code Gid:})
 * @param exe       device and inode of the program {@code /proc/<pid>/exe} leads to; null when perfpin may not
 *                  follow that link (another user's process, perfpin not being root)
 */
public record ProcessIdentity(
        long pid, String command, long startTime, List<Integer> uids, List<Integer> gids, Program exe) {
    /** A program file: an exec replaces it, and a copy of the same program is another file. */
    public record Program(long device, long inode) {
        // Written out: a record's own equals and hashCode are made at their first call (ObjectMethods' bootstrap),
        // which cost perfpin stat a few ms of CPU at its first check, for two longs.
        @Override
        public boolean equals(Object other) {
            return other instanceof Program program && program.device == device && program.inode == inode;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(device) * 31 + Long.hashCode(inode);
        }
    }

    public ProcessIdentity {
        uids = List.copyOf(uids);
        gids = List.copyOf(gids);
    }

    /**
     * Process {@code pid} as it is now.
     *
     * @throws ProcessChangedException exited, when no process has that pid (or it is a zombie)
     * @throws IOException             when its status file cannot be read for another reason
     */
    public static ProcessIdentity of(long pid) throws IOException {
        ProcStatus status;
        try {
            status = ProcStatus.ofProcess(pid);
        } catch (NoSuchFileException e) {
            throw new ProcessChangedException(true, "no process with pid " + pid);
        } catch (FileSystemException e) {
            throw e; // the open failed (hidepid=, a denied access): the process may well live
        } catch (IOException e) {
            // A process that exits while its status file is read fails the read (ESRCH), not the open.
            if (ThreadStartTime.of(pid, (int) pid).isEmpty()) {
                throw new ProcessChangedException(true, "no process with pid " + pid);
            }
            throw e;
        }
        // Read last: a pid taken by another process while the others were read shows here as another start time.
        OptionalLong started = ThreadStartTime.of(pid, (int) pid);
        if (status.zombie() || started.isEmpty()) {
            throw new ProcessChangedException(true, "no process with pid " + pid); // as the attach says it
        }
        return new ProcessIdentity(
                pid, status.command(), started.getAsLong(), status.uids(), status.gids(), program(pid));
    }

    /**
     * Whether {@link #pid} still names this process, running the same program as the same users.
     *
     * @throws ProcessChangedException saying how it changed: it exited (and perhaps its pid names another process
     *                                 now), or it exec'd another program, or runs as other users
     */
    public void check() throws ProcessChangedException {
        String process = "process " + pid + " (" + command + ")";
        ProcessIdentity now;
        try {
            now = of(pid);
        } catch (ProcessChangedException e) {
            throw exited(process);
        } catch (IOException e) {
            throw new ProcessChangedException(
                    false, "cannot tell whether pid " + pid + " still names " + process + ": " + e.getMessage());
        }
        if (now.startTime != startTime) {
            throw new ProcessChangedException(
                    false,
                    process + " exited, and pid " + pid + " names another" + " process now (" + now.command + ")");
        }
        // The program first: an exec of a setuid program changes both, and the exec is what happened.
        if (exe != null && !exe.equals(now.exe)) {
            throw new ProcessChangedException(
                    false,
                    process + " runs another program now (" + exePath(pid) + "): it exec'd since perfpin checked it");
        }
        if (!now.uids.equals(uids) || !now.gids.equals(gids)) {
            throw new ProcessChangedException(
                    false, process + " runs as other users now (" + ids(now) + "; when checked: " + ids(this) + ")");
        }
    }

    /**
     * What the watchdog checks of it ({@code PinWatchdog.Program}): its program (inode 0 when not known), then its ids.
     */
    public long exeDevice() {
        return exe == null ? 0 : exe.device();
    }

    public long exeInode() {
        return exe == null ? 0 : exe.inode();
    }

    /** Its four uids, then its four gids. */
    public int[] credentials() {
        return Stream.concat(uids.stream(), gids.stream())
                .mapToInt(Integer::intValue)
                .toArray();
    }

    private static ProcessChangedException exited(String process) {
        return new ProcessChangedException(true, process + " exited");
    }

    /** Null when perfpin may not follow the link: it needs the right to ptrace-read the process. */
    private static Program program(long pid) {
        try {
            Map<String, Object> file = Files.readAttributes(Path.of("/proc/" + pid + "/exe"), "unix:dev,ino");
            return new Program((Long) file.get("dev"), (Long) file.get("ino"));
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    private static String exePath(long pid) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe")).toString();
        } catch (IOException e) {
            return "a program perfpin may not name";
        }
    }

    private static String ids(ProcessIdentity p) {
        return "uids " + join(p.uids) + ", gids " + join(p.gids);
    }

    private static String join(List<Integer> ids) {
        return String.join(" ", ids.stream().map(String::valueOf).toList());
    }
}
