package io.perfpin.cpu;

import io.perfpin.PerfpinDirectory;

import io.perfpin.files.OwnedDirectory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CPUs reserved for single threads, shared by every process of the user: one lock file per CPU,
 * {@code cpu-<n>.lock}, locked for as long as the reservation lives. The kernel drops a dead process's locks,
 * so a crash frees its CPUs without any cleanup; a file whose lock nobody holds is no reservation, whatever
 * it says. Lock files are never deleted: a process that had opened one before it vanished would lock a file
 * nobody else sees.
 *
 * <p>A held file contains one line, {@code <pid> <tid> <thread name>}, so that {@link #list()} and people
 * can tell who holds a CPU.
 *
 * <p>The locks are POSIX record locks (what {@link FileChannel#tryLock()} takes on Linux), which belong to
 * the process and vanish when it closes any descriptor of the file. So within the JVM every lock file is
 * opened under one monitor, and files this process holds are known from a map and never opened twice.
 */
public final class CpuReservations {
    private static final Pattern LOCK_FILE = Pattern.compile("cpu-(\\d+)\\.lock");
    private static final Set<OpenOption> LOCK_FILE_OPTIONS = Set.of(StandardOpenOption.CREATE,
            StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    private static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");
    /** Lock files this JVM holds, by real path; also the monitor every lock file is opened under. */
    private static final Map<Path, CpuReservation> HELD = new HashMap<>();

    private final Path directory;

    private CpuReservations(Path directory) {
        this.directory = directory;
    }

    /** Who holds a CPU: a process and one of its threads. */
    public record Holder(int cpu, long pid, int tid, String threadName) {
        @Override
        public String toString() {
            return "CPU " + cpu + " held by pid " + pid + (tid < 0 ? "" : " thread " + tid + " \"" + threadName + "\"");
        }
    }

    /** {@code $XDG_RUNTIME_DIR/perfpin-<user>/cpus}, or under {@code /tmp} where that variable is unset. */
    public static Path defaultDirectory() {
        return PerfpinDirectory.cpus();
    }

    /** Reservations kept in {@code directory}, an {@link OwnedDirectory} (private, created if missing). */
    public static CpuReservations open(Path directory) throws IOException {
        // the real path: two spellings of one file must meet in HELD
        return new CpuReservations(OwnedDirectory.open(directory, OwnedDirectory.Access.PRIVATE).path().toRealPath());
    }

    public static CpuReservations openDefault() throws IOException {
        return open(defaultDirectory());
    }

    public Path directory() {
        return directory;
    }

    /**
     * Reserves every CPU of {@code cpus} for thread {@code tid}, or none of them: empty when any is held,
     * by this process or another.
     */
    public Optional<CpuReservation> tryReserve(CpuSet cpus, int tid, String threadName) throws IOException {
        if (cpus.isEmpty()) {
            throw new IllegalArgumentException("cannot reserve an empty set of CPUs");
        }
        String name = threadName.replaceAll("\\p{Cntrl}", "?");
        byte[] record = (ProcessHandle.current().pid() + " " + tid + " " + name + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (HELD) {
            List<CpuReservation.LockedFile> locked = new ArrayList<>();
            try {
                for (int cpu = cpus.first(); cpu >= 0; cpu = cpus.next(cpu + 1)) {
                    Optional<CpuReservation.LockedFile> lock = tryLock(lockFile(cpu), record);
                    if (lock.isEmpty()) {
                        CpuReservation.unlock(locked);
                        return Optional.empty();
                    }
                    locked.add(lock.get());
                }
            } catch (IOException | RuntimeException e) {
                try {
                    CpuReservation.unlock(locked);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
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
            try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "cpu-*.lock")) {
                for (Path file : files) {
                    Matcher name = LOCK_FILE.matcher(file.getFileName().toString());
                    if (name.matches()) {
                        holder(Integer.parseInt(name.group(1)), file, locks).ifPresent(holders::add);
                    }
                }
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

    private Path lockFile(int cpu) {
        return directory.resolve("cpu-" + cpu + ".lock");
    }

    /** Called under HELD. */
    private static Optional<CpuReservation.LockedFile> tryLock(Path file, byte[] record) throws IOException {
        if (HELD.containsKey(file)) {
            return Optional.empty();
        }
        FileChannel channel = FileChannel.open(file, LOCK_FILE_OPTIONS,
                PosixFilePermissions.asFileAttribute(PRIVATE_FILE));
        try {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException lockedElsewhereInThisJvm) {
                lock = null;
            }
            if (lock == null) {
                // we hold no lock on this file, so closing our descriptor drops nobody's
                channel.close();
                return Optional.empty();
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(record), 0);
            return Optional.of(new CpuReservation.LockedFile(file, channel));
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Called under HELD: reading another process's file opens and closes it, which must not race our own lock. */
    private static Optional<Holder> holder(int cpu, Path file, KernelFileLocks locks) throws IOException {
        CpuReservation ours = HELD.get(file);
        if (ours != null) {
            return Optional.of(new Holder(cpu, ProcessHandle.current().pid(), ours.tid(), ours.threadName()));
        }
        long owner;
        String content;
        try {
            owner = locks.owner(file);
            content = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException removedByHand) {
            return Optional.empty();
        }
        if (owner < 0) {
            return Optional.empty();
        }
        String[] fields = content.split(" ", 3);
        boolean written = fields.length == 3 && fields[0].equals(Long.toString(owner)) && fields[1].matches("\\d+");
        // a holder that has locked but not yet written its line is still the holder
        return Optional.of(written
                ? new Holder(cpu, owner, Integer.parseInt(fields[1]), fields[2])
                : new Holder(cpu, owner, -1, ""));
    }
}
