package io.perfpin.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.Native;
import io.perfpin.PerfpinDirectory;
import io.perfpin.files.EffectiveUser;
import io.perfpin.files.PackagedCopy;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.testkit.Interrupter;
import io.perfpin.testkit.SystemProperty;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CpuReservationsTest {
    private static final long PID = ProcessHandle.current().pid();
    /** This process's pid namespace, which a holder writes under its line. */
    private static final String PID_NAMESPACE = pidNamespace();
    /** An owner that is not this process's: root may give a link to any uid, whether a user has it or not. */
    private static final int OTHER_UID = 4242;

    @TempDir
    Path temp;

    @Test
    void reservesAllOrNothingAndListsTheHolder() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp.resolve("cpus"));
        assertEquals(
                PosixFilePermissions.fromString("rwx------"), Files.getPosixFilePermissions(reservations.directory()));

        CpuReservation one =
                reservations.tryReserve(CpuSet.of(1), 101, "worker-1").orElseThrow();
        assertEquals(List.of(new CpuReservations.Holder(1, PID, 101, "worker-1")), reservations.list());
        Path file = reservations.directory().resolve("cpu-1.lock");
        assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(file));

        assertEquals(Optional.empty(), reservations.tryReserve(CpuSet.of(1), 102, "worker-2"));
        assertEquals(Optional.empty(), reservations.tryReserve(CpuSet.of(0, 1), 102, "worker-2"));
        assertEquals(CpuSet.of(1), reservations.reserved(), "the refused pair left CPU 0 free");

        try (CpuReservation zero =
                reservations.tryReserve(CpuSet.of(0), 102, "worker-2").orElseThrow()) {
            assertEquals(CpuSet.of(0, 1), reservations.reserved());
            assertEquals(CpuSet.of(0), zero.cpus());
        }
        one.close();
        one.close();
        assertTrue(reservations.list().isEmpty());
        assertEquals("", Files.readString(file), "a released file says nothing");
    }

    /** An application's thread may be interrupted as it is pinned and unpinned: neither fails, and it stays so. */
    @Test
    void anInterruptedThreadReservesAndReleasesAndKeepsItsInterrupt() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp.resolve("cpus"));
        Path file = reservations.directory().resolve("cpu-2.lock");
        Thread.currentThread().interrupt();
        boolean keptInterrupt;
        try {
            CpuReservation held =
                    reservations.tryReserve(CpuSet.of(2), 7, "cancelled").orElseThrow();
            assertEquals(PID + " 7 cancelled\n" + PID_NAMESPACE + "\n", Files.readString(file));
            held.close();
        } finally {
            keptInterrupt = Thread.interrupted();
        }
        assertTrue(keptInterrupt, "the thread's interrupt is its own");
        assertEquals("", Files.readString(file), "released");
        assertTrue(reservations.list().isEmpty());
    }

    /**
     * Interrupts that come while the thread is inside the reservation's own calls, as often as another thread can send
     * them: every reservation is taken, written and released all the same, since no channel closes under them.
     */
    @Test
    void interruptsDuringReservationsLoseNoLock() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp.resolve("cpus"));
        Path file = reservations.directory().resolve("cpu-3.lock");
        try (Interrupter interrupter = Interrupter.ofThisThread()) {
            for (int i = 0; i < 500; i++) {
                CpuReservation held =
                        reservations.tryReserve(CpuSet.of(3), i, "cancelled").orElseThrow();
                held.close();
            }
        }
        assertEquals("", Files.readString(file), "released");
        assertTrue(reservations.list().isEmpty());
    }

    @Test
    void aFileNobodyLocksIsNoReservation() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp);
        Path stale = reservations.directory().resolve("cpu-7.lock");
        Files.writeString(stale, "999999 1000000 ghost\n");
        // a name like a lock file's whose number no CPU has is passed over, not a NumberFormatException
        Files.writeString(reservations.directory().resolve("cpu-99999999999.lock"), "");
        assertTrue(reservations.list().isEmpty());
        try (CpuReservation taken =
                reservations.tryReserve(CpuSet.of(7), 5, "new").orElseThrow()) {
            assertEquals(PID + " 5 new\n" + PID_NAMESPACE + "\n", Files.readString(stale));
        }
    }

    @Test
    void twoSpellingsOfOneDirectoryShareTheReservations() throws Exception {
        CpuReservations first = CpuReservations.open(temp.resolve("real"));
        // perfpin's directory itself is never a link, but a link above it is resolved
        CpuReservations second = CpuReservations.open(
                Files.createSymbolicLink(temp.resolve("alias"), temp).resolve("real"));
        try (CpuReservation held = first.tryReserve(CpuSet.of(3), 1, "a").orElseThrow()) {
            assertEquals(Optional.empty(), second.tryReserve(CpuSet.of(3), 2, "b"));
            assertEquals(1, second.list().size());
        }
        assertTrue(second.tryReserve(CpuSet.of(3), 2, "b").isPresent());
    }

    @Test
    void anotherUsersLinkInPlaceOfPerfpinsDirectoryLeadsNowhere() throws Exception {
        assumeTrue(EffectiveUser.uid() == 0, "only root can give a link to another user here");
        Path sticky = Files.createDirectory(temp.resolve("tmp"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path roots = Files.createDirectory(temp.resolve("roots"));
        Files.setPosixFilePermissions(roots, PosixFilePermissions.fromString("rwx------"));
        Path link = Files.createSymbolicLink(sticky.resolve("perfpin-root"), roots);
        Files.setAttribute(link, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);

        IOException below = assertThrows(IOException.class, () -> CpuReservations.open(link.resolve("cpus")));
        assertEquals(
                link + " is a symbolic link of uid " + OTHER_UID + " in a directory of uid 0; perfpin follows"
                        + " links only where root or you (uid 0) own both",
                below.getMessage());
        try (SystemProperty asDefault = SystemProperty.set(PerfpinDirectory.PROPERTY, link.toString())) {
            IOException refused = assertThrows(IOException.class, CpuReservations::openDefault);
            assertTrue(refused.getMessage().startsWith(link + " is a symbolic link"), refused.getMessage());
        }
        try (Stream<Path> created = Files.list(roots)) {
            assertEquals(List.of(), created.toList(), "nothing is created where the link points");
        }
    }

    @Test
    void aLinkOrAFifoInPlaceOfALockFileIsNeitherFollowedNorWaitedOn() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp.resolve("cpus"));
        Path victim = Files.writeString(temp.resolve("victim"), "precious");
        Path link = Files.createSymbolicLink(reservations.directory().resolve("cpu-4.lock"), victim);
        IOException refused = assertThrows(IOException.class, () -> reservations.tryReserve(CpuSet.of(4), 1, "a"));
        assertEquals(link + " is a symbolic link, not a lock file that perfpin made: remove it", refused.getMessage());
        assertEquals("precious", Files.readString(victim));

        Path fifo = reservations.directory().resolve("cpu-5.lock");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        IOException fifoRefused = assertTimeoutPreemptively(
                Duration.ofSeconds(60),
                () -> assertThrows(IOException.class, () -> reservations.tryReserve(CpuSet.of(5), 1, "a")));
        assertEquals(fifo + " is a FIFO, not a lock file that perfpin made: remove it", fifoRefused.getMessage());
        IOException listed = assertTimeoutPreemptively(
                Duration.ofSeconds(60), () -> assertThrows(IOException.class, reservations::list));
        // list meets the link or the FIFO first, as the directory orders them, and refuses it as tryReserve did
        assertTrue(
                List.of(refused.getMessage(), fifoRefused.getMessage()).contains(listed.getMessage()),
                listed.getMessage());
    }

    @Test
    void anotherProcessHoldsACpuUntilItDies() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp);
        try (TestJvm holder = TestJvm.main(ReserveCpuMain.class)
                .args(reservations.directory().toString(), "2")
                .start()) {
            String[] said = holder.await(Pattern.compile("reserved \\d+ \\d+|refused"))
                    .group()
                    .split(" ");
            assertEquals("reserved", said[0]);
            assertEquals(holder.pid(), Long.parseLong(said[1]));
            assertEquals(
                    List.of(new CpuReservations.Holder(2, holder.pid(), Integer.parseInt(said[2]), "holder of 2")),
                    reservations.list());
            assertEquals(Optional.empty(), reservations.tryReserve(CpuSet.of(2), 1, "here"));
            assertEquals(Optional.empty(), reservations.tryReserve(CpuSet.range(1, 3), 1, "here"));
            holder.kill();
        }
        // killed with SIGKILL: no code of its ran, the kernel dropped its lock
        assertTrue(reservations.list().isEmpty());
        try (CpuReservation mine =
                reservations.tryReserve(CpuSet.of(2), 1, "here").orElseThrow()) {
            assertEquals(List.of(new CpuReservations.Holder(2, PID, 1, "here")), reservations.list());
        }
    }

    /**
     * A second copy of perfpin's classes in this JVM (its own class loader, its own map of what it holds, its own copy
     * of the JNI library, which a class loader cannot share) is refused a CPU this copy holds, and its opening and
     * closing of the lock file, to try it and to list who holds it, leaves the lock on: another process is still
     * refused.
     */
    @Test
    void aSecondCopyInThisJvmIsRefusedAHeldCpuAndDropsNoLock() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp.resolve("cpus"));
        String dir = reservations.directory().toString();
        // where the second copy writes its library: the first copy's is loaded, by another class loader
        try (SystemProperty extracted = SystemProperty.set(
                        PackagedCopy.EXTRACT_DIR_PROPERTY,
                        Files.createDirectory(temp.resolve("second-copy")).toString());
                URLClassLoader second = new URLClassLoader(
                        Stream.of(CpuReservations.class, FileCalls.class, SecondCopy.class, Native.class)
                                .map(CpuReservationsTest::location)
                                .toArray(URL[]::new),
                        ClassLoader.getPlatformClassLoader())) {
            Class<?> copy = second.loadClass(SecondCopy.class.getName());
            assertTrue(copy != SecondCopy.class, "a copy of its own");
            Method tryReserve = copy.getMethod("tryReserve", String.class, int.class);
            Method list = copy.getMethod("list", String.class);
            try (CpuReservation held =
                    reservations.tryReserve(CpuSet.of(3), 31, "first copy").orElseThrow()) {
                assertEquals("refused", tryReserve.invoke(null, dir, 3));
                assertEquals(
                        List.of(new CpuReservations.Holder(3, PID, 31, "first copy"))
                                .toString(),
                        list.invoke(null, dir));
                try (TestJvm other =
                        TestJvm.main(ReserveCpuMain.class).args(dir, "3").start()) {
                    assertEquals(
                            "refused",
                            other.await(Pattern.compile("reserved \\d+ \\d+|refused"))
                                    .group(),
                            "the second copy's closes dropped the first copy's lock");
                }
            }
            assertEquals("reserved", tryReserve.invoke(null, dir, 3), "free once the first copy released it");
        }
    }

    /**
     * An open file's lock names no process, so a holder is named by the line it wrote, and only where that names a
     * live process of this pid namespace: a line left by one that died, one written in another pid namespace, and
     * numbers too long for a pid name nobody, and the holder is listed all the same.
     */
    @Test
    void aHolderIsNamedOnlyByALineOfALiveProcessOfThisPidNamespace() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp.resolve("cpus"));
        Path file = reservations.directory().resolve("cpu-2.lock");
        try (TestJvm holder = TestJvm.main(ReserveCpuMain.class)
                .args(reservations.directory().toString(), "2")
                .start()) {
            assertEquals(
                    "reserved",
                    holder.await(Pattern.compile("reserved \\d+ \\d+|refused"))
                            .group()
                            .split(" ")[0]);
            CpuReservations.Holder unnamed = new CpuReservations.Holder(2, -1, -1, "");
            // written over by this process, which holds no lock on the file: the holder's stays
            for (String line : List.of(
                    "4194305 1 died\n" + PID_NAMESPACE, // above the kernel's largest pid
                    holder.pid() + " 1 elsewhere\npid:[1]",
                    holder.pid() + " 1 unsaid",
                    "99999999999999999999 1 too long\n" + PID_NAMESPACE,
                    "")) {
                Files.writeString(file, line + "\n");
                assertEquals(List.of(unnamed), reservations.list(), line);
            }
            Files.writeString(file, holder.pid() + " 5 named\n" + PID_NAMESPACE + "\n");
            assertEquals(List.of(new CpuReservations.Holder(2, holder.pid(), 5, "named")), reservations.list());
        }
    }

    /** A thread's name is kept to 1,000 chars in its file, so that a reader's one read of 4 KiB takes both lines. */
    @Test
    void aLongNameIsCutSoThatTheFileIsReadWhole() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp.resolve("cpus"));
        String name = "\u20ac".repeat(5000); // 3 bytes each in UTF-8
        try (CpuReservation held =
                reservations.tryReserve(CpuSet.of(1), 9, name).orElseThrow()) {
            byte[] file = Files.readAllBytes(reservations.directory().resolve("cpu-1.lock"));
            assertEquals(
                    PID + " 9 " + name.substring(0, 1000) + "\n" + PID_NAMESPACE + "\n",
                    new String(file, StandardCharsets.UTF_8));
            assertTrue(file.length <= 4096, file.length + " bytes");
            assertEquals(List.of(new CpuReservations.Holder(1, PID, 9, name.substring(0, 1000))), reservations.list());
        }
    }

    /** A holder named by no line of this pid namespace is said to be one. */
    @Test
    void aHolderIsNamedByWhatItWrote() {
        assertEquals("CPU 3 held by pid 42 thread 7 \"w\"", new CpuReservations.Holder(3, 42, 7, "w").toString());
        assertEquals("CPU 3 held by pid 42", new CpuReservations.Holder(3, 42, -1, "").toString());
        assertEquals(
                "CPU 3 held by a process that has not named itself in this pid namespace",
                new CpuReservations.Holder(3, -1, -1, "").toString());
    }

    private static String pidNamespace() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static URL location(Class<?> type) {
        try {
            return type.getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI()
                    .toURL();
        } catch (URISyntaxException | MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void defaultDirectoryIsPerUser() {
        Path dir = CpuReservations.defaultDirectory();
        assertEquals("cpus", dir.getFileName().toString());
        assertEquals(
                "perfpin-" + System.getProperty("user.name"),
                dir.getParent().getFileName().toString());
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        assertEquals(
                runtime == null || runtime.isEmpty() ? Path.of("/tmp") : Path.of(runtime),
                dir.getParent().getParent());
        assertFalse(dir.toString().contains("null"));
    }
}
