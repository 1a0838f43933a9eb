package io.perfpin.cpu;

import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuReservationsTest {
    private static final long PID = ProcessHandle.current().pid();

    @TempDir
    Path temp;

    @Test
    void reservesAllOrNothingAndListsTheHolder() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp.resolve("cpus"));
        assertEquals(PosixFilePermissions.fromString("rwx------"), Files.getPosixFilePermissions(reservations.directory()));

        CpuReservation one = reservations.tryReserve(CpuSet.of(1), 101, "worker-1").orElseThrow();
        assertEquals(List.of(new CpuReservations.Holder(1, PID, 101, "worker-1")), reservations.list());
        Path file = reservations.directory().resolve("cpu-1.lock");
        assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(file));

        assertEquals(Optional.empty(), reservations.tryReserve(CpuSet.of(1), 102, "worker-2"));
        assertEquals(Optional.empty(), reservations.tryReserve(CpuSet.of(0, 1), 102, "worker-2"));
        assertEquals(CpuSet.of(1), reservations.reserved(), "the refused pair left CPU 0 free");

        try (CpuReservation zero = reservations.tryReserve(CpuSet.of(0), 102, "worker-2").orElseThrow()) {
            assertEquals(CpuSet.of(0, 1), reservations.reserved());
            assertEquals(CpuSet.of(0), zero.cpus());
        }
        one.close();
        one.close();
        assertTrue(reservations.list().isEmpty());
        assertEquals("", Files.readString(file), "a released file says nothing");
    }

    @Test
    void aFileNobodyLocksIsNoReservation() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp);
        Path stale = reservations.directory().resolve("cpu-7.lock");
        Files.writeString(stale, "999999 1000000 ghost\n");
        assertTrue(reservations.list().isEmpty());
        try (CpuReservation taken = reservations.tryReserve(CpuSet.of(7), 5, "new").orElseThrow()) {
            assertEquals(PID + " 5 new\n", Files.readString(stale));
        }
    }

    @Test
    void twoSpellingsOfOneDirectoryShareTheReservations() throws Exception {
        CpuReservations first = CpuReservations.open(temp.resolve("real"));
        // perfpin's directory itself is never a link, but a link above it is resolved
        CpuReservations second = CpuReservations.open(Files.createSymbolicLink(temp.resolve("alias"), temp)
                .resolve("real"));
        try (CpuReservation held = first.tryReserve(CpuSet.of(3), 1, "a").orElseThrow()) {
            assertEquals(Optional.empty(), second.tryReserve(CpuSet.of(3), 2, "b"));
            assertEquals(1, second.list().size());
        }
        assertTrue(second.tryReserve(CpuSet.of(3), 2, "b").isPresent());
    }

    @Test
    void anotherProcessHoldsACpuUntilItDies() throws Exception {
        CpuReservations reservations = CpuReservations.open(temp);
        Process holder = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                "-cp", System.getProperty("java.class.path"), ReserveCpuMain.class.getName(),
                reservations.directory().toString(), "2")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            String[] said = out.readLine().split(" ");
            assertEquals("reserved", said[0]);
            assertEquals(holder.pid(), Long.parseLong(said[1]));
            assertEquals(List.of(new CpuReservations.Holder(2, holder.pid(), Integer.parseInt(said[2]), "holder of 2")),
                    reservations.list());
            assertEquals(Optional.empty(), reservations.tryReserve(CpuSet.of(2), 1, "here"));
            assertEquals(Optional.empty(), reservations.tryReserve(CpuSet.range(1, 3), 1, "here"));
        } finally {
            holder.destroyForcibly();
            assertTrue(holder.waitFor(30, TimeUnit.SECONDS));
        }
        // killed with SIGKILL: no code of its ran, the kernel dropped its lock
        assertTrue(reservations.list().isEmpty());
        try (CpuReservation mine = reservations.tryReserve(CpuSet.of(2), 1, "here").orElseThrow()) {
            assertEquals(List.of(new CpuReservations.Holder(2, PID, 1, "here")), reservations.list());
        }
    }

    @Test
    void defaultDirectoryIsPerUser() {
        Path dir = CpuReservations.defaultDirectory();
        assertEquals("cpus", dir.getFileName().toString());
        assertEquals("perfpin-" + System.getProperty("user.name"), dir.getParent().getFileName().toString());
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        assertEquals(runtime == null || runtime.isEmpty() ? Path.of("/tmp") : Path.of(runtime), dir.getParent().getParent());
        assertFalse(dir.toString().contains("null"));
    }
}
