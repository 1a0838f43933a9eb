package io.perfpin.cpu;

import io.perfpin.PerfpinDirectory;
import io.perfpin.files.EffectiveUser;
import io.perfpin.files.OwnedDirectory;
import io.perfpin.files.PathWalk;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.nativeio.FileStat;
import io.perfpin.nativeio.NativeBuffer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CPUs reserved for single threads, shared by every process of the user: one lock file per CPU, {@code cpu-<n>.lock},
 * locked for as long as the reservation lives. The kernel drops a lock when the last descriptor of its open closes, a
 * dead process's among them, so a crash frees its CPUs without any cleanup (a child forked without exec holds them
 * while it keeps the descriptors: perfpin's watchdog closes them before perfpin goes on); a file whose lock nobody
 * holds is no reservation, whatever it says. Lock files are never deleted: a process that had opened one before it
 * vanished would lock a file nobody else sees.
 *
 * <p>A held file contains two lines, {@code <pid> <tid> <thread name>} and the pid namespace those numbers are of
 * ({@code /proc/self/ns/pid}'s link, {@code pid:[4026531836]}), so that {@link #list()} and people can tell who holds a
 * CPU. A thread name's control characters are written as {@code ?}, so the first line holds the name (its first 1,000
 * chars).
 *
 * <p>The locks are an open file description's ({@link FileCalls#tryLockWhole}), not the process's POSIX record locks
 * that {@code FileChannel.tryLock()} takes: a process's lock is its own to take again, and goes when it closes any
 * descriptor of the file, so a second copy of perfpin's classes in the JVM (an application's own beside the agent's)
 * would take a CPU this copy holds, and drop this copy's lock as it read the file. An open file's lock refuses every
 * other open, ours included, and closing another descriptor drops nothing. Within a copy, files it holds are known from
 * a map and never opened again, under one monitor. {@code /proc/locks} names no process for such a lock: who holds a
 * CPU is the line its holder wrote, where the holder is alive and numbered in this pid namespace.
 *
 * <p>The directory is an {@link OwnedDirectory} and every lock file is opened relative to its descriptor with {@code
 * O_NOFOLLOW}, checked with {@code fstat} to be a regular file of this user's before it is locked, written or read: a
 * link or a FIFO planted there is never followed nor waited on.
 */
public final class CpuReservations {
    /** A CPU's lock file: no more digits than a CPU number takes, so that a stray name parses or is passed over. */
    private static final Pattern LOCK_FILE = Pattern.compile("cpu-(\\d{1,9})\\.lock");

    private static final int LOOK = FileCalls.O_PATH | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC;
    private static final int CREATE = FileCalls.O_RDWR
            | FileCalls.O_CREAT
            | FileCalls.O_EXCL
            | FileCalls.O_NOFOLLOW
            | FileCalls.O_NONBLOCK
            | FileCalls.O_NOCTTY
            | FileCalls.O_CLOEXEC;
    private static final int PRIVATE_FILE = 0600;
    /** A held file's two lines, a pid, a tid, a thread name cut short and a namespace: far shorter. */
    private static final int MAX_LINE_BYTES = 4096;
    /** The chars of a thread's name that a held file keeps: at 3 bytes each, both lines fit the bytes read. */
    private static final int MAX_NAME_CHARS = 1000;
    /** A pid and a tid as a holder writes them: few enough digits to parse as a long and an int, whatever they are. */
    private static final Pattern PID = Pattern.compile("\\d{1,18}");

    private static final Pattern TID = Pattern.compile("\\d{1,9}");
    /** This process's pid namespace, as its holders write it and its readers compare it. */
    private static final String PID_NAMESPACE = pidNamespace();
    /**
     * Lock files this JVM holds, by device and inode (two spellings of one directory meet here); also the monitor
     * every lock file is opened under.
     */
    private static final Map<LockFileId, CpuReservation> HELD = new HashMap<>();

    private final OwnedDirectory directory;
    private final FileCalls calls;

    private CpuReservations(OwnedDirectory directory, FileCalls calls) {
        this.directory = directory;
        this.calls = calls;
    }

    /** A lock file's identity. */
    record LockFileId(long device, long inode) {
        static LockFileId of(FileStat status) {
            return new LockFileId(status.device(), status.inode());
        }
    }

    /** Who holds a CPU: a process and one of its threads. */
    public record Holder(int cpu, long pid, int tid, String threadName) {
        /** What is said of a holder with no pid here ({@code pid} -1): its line is not yet written, or not ours. */
        public static final String UNNAMED = "a process that has not named itself in this pid namespace";

        @Override
        public String toString() {
            return "CPU " + cpu + " held by "
                    + (pid < 0
                            ? UNNAMED
                            : "pid " + pid + (tid < 0 ? "" : " thread " + tid + " \"" + threadName + "\""));
        }
    }

    /** {@code $XDG_RUNTIME_DIR/perfpin-<user>/cpus}, or under {@code /tmp} where that variable is unset. */
    public static Path defaultDirectory() {
        return PerfpinDirectory.cpus();
    }

    /** Reservations kept in {@code directory}, an {@link OwnedDirectory} (private, created if missing). */
    public static CpuReservations open(Path directory) throws IOException {
        return new CpuReservations(OwnedDirectory.open(directory), FileCalls.ofProcess());
    }

    /** This user's reservations, in {@link PerfpinDirectory#CPUS}, opened as every part of that directory is. */
    public static CpuReservations openDefault() throws IOException {
        return new CpuReservations(PerfpinDirectory.open(PerfpinDirectory.CPUS), FileCalls.ofProcess());
    }

    public Path directory() {
        return directory.path();
    }

    /**
     * Reserves every CPU of {@code cpus} for thread {@code tid}, or none of them: empty when any is held,
     * by this process or another.
     */
    public Optional<CpuReservation> tryReserve(CpuSet cpus, int tid, String threadName) throws IOException {
        if (cpus.isEmpty()) {
            throw new IllegalArgumentException("cannot reserve an empty set of CPUs");
        }
        String name = kept(threadName.replaceAll("\\p{Cntrl}", "?"));
        byte[] record = (ProcessHandle.current().pid() + " " + tid + " " + name + "\n" + PID_NAMESPACE + "\n")
                .getBytes(StandardCharsets.UTF_8);
        synchronized (HELD) {
            List<CpuReservation.LockedFile> locked = new ArrayList<>();
            int dir = directory.descriptor(calls);
            try {
                for (int cpu = cpus.first(); cpu >= 0; cpu = cpus.next(cpu + 1)) {
                    Optional<CpuReservation.LockedFile> lock = tryLock(dir, lockFile(cpu), record);
                    if (lock.isEmpty()) {
                        CpuReservation.unlock(locked);
                        return Optional.empty();
                    }
                    locked.add(lock.get());
                }
            } catch (IOException | RuntimeException | Error e) {
                // an Error too (no direct memory for a write's buffer): each lock taken so far is given back
                try {
                    CpuReservation.unlock(locked);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            } finally {
                calls.close(dir); // O_PATH: closing it drops no lock
            }
            CpuReservation reservation = new CpuReservation(cpus, tid, name, locked);
            locked.forEach(lock -> HELD.put(lock.file, reservation));
            return Optional.of(reservation);
        }
    }

    /** Every held CPU of this directory, this process's included, by CPU number. */
    public List<Holder> list() throws IOException {
        List<Holder> holders = new ArrayList<>();
        synchronized (HELD) {
            KernelFileLocks locks = KernelFileLocks.read();
            int dir = directory.descriptor(calls);
            try {
                for (String file : directory.names(LOCK_FILE.asMatchPredicate())) {
                    Matcher name = LOCK_FILE.matcher(file);
                    if (name.matches()) {
                        holder(Integer.parseInt(name.group(1)), dir, file, locks)
                                .ifPresent(holders::add);
                    }
                }
            } finally {
                calls.close(dir);
            }
        }
        holders.sort(Comparator.comparingInt(Holder::cpu));
        return holders;
    }

    /** The CPUs held by anyone now. */
    public CpuSet reserved() throws IOException {
        return CpuSet.of(list().stream().mapToInt(Holder::cpu).toArray());
    }

    @Override
    public String toString() {
        return "CPU reservations in " + directory;
    }

    static void release(CpuReservation reservation) {
        synchronized (HELD) {
            if (reservation.markClosed()) {
                reservation.locks().forEach(lock -> HELD.remove(lock.file));
                CpuReservation.unlock(reservation.locks());
            }
        }
    }

    private static String lockFile(int cpu) {
        return "cpu-" + cpu + ".lock";
    }

    /**
     * Called under HELD. The lock file is opened, locked, emptied and written through its descriptor, not a channel,
     * since a channel closes itself when its thread is interrupted, and its lock goes with it: this runs on the
     * application's thread, whose task may be cancelled meanwhile.
     */
    private Optional<CpuReservation.LockedFile> tryLock(int dir, String file, byte[] record) throws IOException {
        int fd = -1;
        LockFileId id = null;
        while (fd < 0) {
            int located = calls.openat(dir, file, LOOK, 0);
            if (located == -Errno.ENOENT) {
                int created = calls.openat(dir, file, CREATE, PRIVATE_FILE);
                if (created == -Errno.EEXIST) {
                    continue; // made meanwhile by another process: looked at as any other
                }
                if (created < 0) {
                    throw PathWalk.failure(shown(file), created);
                }
                try {
                    id = LockFileId.of(calls.fstat(created));
                } catch (RuntimeException e) {
                    calls.close(created); // a file made now: no lock of ours on it to drop
                    throw e;
                }
                fd = created;
            } else if (located < 0) {
                throw PathWalk.failure(shown(file), located);
            } else {
                try {
                    // held by this copy already: looked at, never opened twice
                    id = LockFileId.of(checked(file, calls.fstat(located)));
                    if (HELD.containsKey(id)) {
                        return Optional.empty();
                    }
                    fd = PathWalk.reopen(calls, located, FileCalls.O_RDWR, shown(file));
                } finally {
                    calls.close(located);
                }
            }
        }
        fd = aboveStandard(fd, file);
        try {
            int locked = calls.tryLockWhole(fd);
            if (locked == -Errno.EAGAIN || locked == -Errno.EACCES) {
                // we hold no lock on this file, so closing our descriptor drops nobody's
                calls.close(fd);
                return Optional.empty();
            }
            written(file, "lock", locked);
            written(file, "empty", calls.ftruncate(fd, 0));
            // at offset 0: the descriptor was opened now
            written(file, "write", calls.writeAll(fd, record));
            return Optional.of(new CpuReservation.LockedFile(id, fd));
        } catch (IOException | RuntimeException | Error e) {
            calls.close(fd);
            throw e;
        }
    }

    /**
     * {@code fd}, or a duplicate above the standard descriptors where it took one that the JVM had closed: a forked pin
     * watchdog keeps descriptor 2 as perfpin's standard error, and would keep a lock there. Closes {@code fd} when it
     * throws.
     */
    private int aboveStandard(int fd, String file) throws IOException {
        if (fd > 2) {
            return fd;
        }
        int moved;
        try {
            moved = calls.dupAtLeast(fd, 3);
        } finally {
            calls.close(fd); // not yet locked: nothing to drop
        }
        if (moved < 0) {
            throw new IOException("cannot move " + shown(file) + " off a standard descriptor: " + Errno.words(moved));
        }
        return moved;
    }

    /** {@code name}, cut to {@link #MAX_NAME_CHARS} without parting a surrogate pair. */
    private static String kept(String name) {
        if (name.length() <= MAX_NAME_CHARS) {
            return name;
        }
        int end = Character.isHighSurrogate(name.charAt(MAX_NAME_CHARS - 1)) ? MAX_NAME_CHARS - 1 : MAX_NAME_CHARS;
        return name.substring(0, end);
    }

    private void written(String file, String what, long result) throws IOException {
        if (result < 0) {
            throw new IOException("cannot " + what + " " + shown(file) + ": " + Errno.words(result));
        }
    }

    /** A lock file is a regular file of this user's: anything else in its place is never locked, written or read. */
    private FileStat checked(String file, FileStat status) throws IOException {
        if (!status.isRegularFile()) {
            throw new IOException(
                    shown(file) + " is " + status.kind() + ", not a lock file that perfpin made:" + " remove it");
        }
        if (status.uid() != EffectiveUser.uid()) {
            throw new IOException(shown(file) + " belongs to uid " + status.uid() + ", not to this user (uid "
                    + EffectiveUser.uid() + "): remove it");
        }
        return status;
    }

    private String shown(String file) {
        return directory.path().resolve(file).toString();
    }

    /**
     * Called under HELD, which tells this copy's files from others'. Another's is read through a descriptor of its
     * own, whose close drops no lock: not even a second copy's in this JVM.
     */
    private Optional<Holder> holder(int cpu, int dir, String file, KernelFileLocks locks) throws IOException {
        int located = calls.openat(dir, file, LOOK, 0);
        if (located == -Errno.ENOENT) {
            return Optional.empty(); // removed by hand
        }
        if (located < 0) {
            throw PathWalk.failure(shown(file), located);
        }
        String content;
        long owner;
        try {
            FileStat status = checked(file, calls.fstat(located));
            CpuReservation ours = HELD.get(LockFileId.of(status));
            if (ours != null) {
                return Optional.of(new Holder(cpu, ProcessHandle.current().pid(), ours.tid(), ours.threadName()));
            }
            owner = locks.owner(status);
            if (owner == KernelFileLocks.NOT_LOCKED) {
                return Optional.empty();
            }
            content = written(located, file);
        } finally {
            calls.close(located);
        }
        String[] lines = content.split("\n");
        String[] fields = lines[0].split(" ", 3);
        boolean wellFormed = fields.length == 3
                && PID.matcher(fields[0]).matches()
                && TID.matcher(fields[1]).matches();
        long pid = wellFormed ? Long.parseLong(fields[0]) : -1;
        // An open file's lock names no process: the line is taken where it is of this pid namespace and its process
        // lives (one that died holding the file left its line, which the next holder replaces only after it locks).
        // A POSIX lock's pid is the kernel's (an older perfpin, or this one on a kernel without open-file locks).
        boolean named = owner == KernelFileLocks.NO_PID
                ? wellFormed
                        && lines.length > 1
                        && lines[1].equals(PID_NAMESPACE)
                        && ProcessHandle.of(pid).isPresent()
                : wellFormed && pid == owner;
        // a holder that has locked but not yet written its line is still the holder
        return Optional.of(
                named
                        ? new Holder(cpu, pid, Integer.parseInt(fields[1]), fields[2])
                        : new Holder(cpu, owner == KernelFileLocks.NO_PID ? -1 : owner, -1, ""));
    }

    /** {@code pid:[<inode>]}, or empty where /proc does not say. */
    private static String pidNamespace() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /**
     * What its holder wrote in the lock file {@code located} names, read through a descriptor, not a channel: a
     * reservation's placement may ask on an application's interrupted thread.
     */
    private String written(int located, String file) throws IOException {
        int opened = PathWalk.reopen(calls, located, FileCalls.O_RDONLY, shown(file));
        try {
            NativeBuffer bytes = NativeBuffer.allocate(calls.syscalls(), MAX_LINE_BYTES);
            long read = calls.read(opened, bytes);
            if (read < 0) {
                throw new IOException("cannot read " + shown(file) + ": " + Errno.words(read));
            }
            byte[] line = new byte[(int) read];
            bytes.buffer().get(0, line);
            return new String(line, StandardCharsets.UTF_8).strip();
        } finally {
            calls.close(opened);
        }
    }
}
