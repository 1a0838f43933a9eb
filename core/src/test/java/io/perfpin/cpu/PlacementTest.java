package io.perfpin.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlacementTest {
    private static final long PID = ProcessHandle.current().pid();

    @TempDir(factory = Fixtures.InMemory.class)
    static Path scratch;

    @TempDir
    Path reservationDir;

    @Test
    void parsesEveryForm() {
        assertEquals(Placement.cpus(CpuSet.range(2, 3)), Placement.parse("2-3"));
        assertEquals(CpuSet.of(0, 4), Placement.parse(" 0,4 ").cpus());
        assertEquals(Placement.ISOLATED, Placement.parse("isolated"));
        assertEquals(Placement.CORE, Placement.parse("Core"));
        assertEquals(Placement.ANY, Placement.parse("any\n"));
        for (String text : new String[] {"2-3,8", "isolated", "core", "any"}) {
            assertEquals(text, Placement.parse(text).toString());
        }
    }

    @Test
    void badPlacementNamesTokenFormsAndNearestKeyword() {
        assertEquals(
                "bad placement 'cores': expected a CPU list like 2-3 or 0,4, or one of isolated, core, any;"
                        + " did you mean 'core'?",
                parseError("cores"));
        assertEquals(
                "bad placement 'isolate': expected a CPU list like 2-3 or 0,4, or one of isolated, core, any;"
                        + " did you mean 'isolated'?",
                parseError("isolate"));
        assertEquals(
                "bad placement 'elsewhere': expected a CPU list like 2-3 or 0,4, or one of isolated, core," + " any",
                parseError("elsewhere"));
        assertEquals(
                "bad placement '': expected a CPU list like 2-3 or 0,4, or one of isolated, core, any", parseError(""));
        assertEquals(
                "bad placement '2-x': bad CPU list token '2-x' in \"2-x\": expected CPU numbers and ranges"
                        + " separated by commas, like 0-3,8,10-11",
                parseError("2-x"));
    }

    @Test
    void explicitCpusMustBeOnlineAndAllowed() throws Exception {
        CpuTopology topology = fixture("32amd64-4s2n4c-cgroup2");
        CpuReservations reservations = CpuReservations.open(reservationDir);
        CpuAssignment assignment = Placement.parse("2-3").assign(topology, reservations, 1, "t");
        assertEquals(CpuSet.range(2, 3), assignment.cpus());
        assertFalse(assignment.reservation().isPresent(), "a CPU list is shared, not reserved");
        assertEquals(
                "placement 6-7: CPUs 6-7 are outside the CPUs this process may use, 0-5 (affinity 0-31,"
                        + " cgroup cpuset 0-5)",
                assignError(IllegalArgumentException.class, "6-7", topology, reservations));
        assertEquals(
                "placement 5,40: CPU 40 is not online (online CPUs: 0-31)",
                assignError(IllegalArgumentException.class, "5,40", topology, reservations));
    }

    @Test
    void anyIsTheAllowedSet() throws Exception {
        CpuTopology topology = fixture("16amd64-8n2c-cpusets");
        CpuAssignment assignment = Placement.ANY.assign(topology, CpuReservations.open(reservationDir), 1, "t");
        assertEquals(CpuSet.parseList("0-3,5-6,12-15"), assignment.cpus());
        assertFalse(assignment.reservation().isPresent());
    }

    @Test
    void coreReservesWholeCoresInTurn() throws Exception {
        CpuTopology topology = fixture("16em64t-4s2c2t");
        CpuReservations reservations = CpuReservations.open(reservationDir);
        List<CpuAssignment> assignments = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            assignments.add(Placement.CORE.assign(topology, reservations, 100 + i, "worker-" + i));
        }
        assertEquals(CpuSet.of(0, 8), assignments.get(0).cpus());
        assertEquals(CpuSet.of(1, 9), assignments.get(1).cpus());
        assertEquals(CpuSet.range(0, 15), reservations.reserved());
        String full = assignError(IllegalStateException.class, "core", topology, reservations);
        assertTrue(
                full.startsWith("placement core: every core within the CPUs this process may use (0-15) has a"
                        + " reserved CPU: CPU 0 held by pid " + PID + " thread 100 \"worker-0\"; "),
                full);

        assignments.get(1).close();
        assertEquals(
                CpuSet.of(1, 9),
                Placement.CORE.assign(topology, reservations, 200, "again").cpus());
        assignments.forEach(CpuAssignment::close);
    }

    @Test
    void coreSkipsCoresWithAReservedSibling() throws Exception {
        CpuTopology topology = fixture("16em64t-4s2c2t");
        CpuReservations reservations = CpuReservations.open(reservationDir);
        try (CpuReservation sibling =
                        reservations.tryReserve(CpuSet.of(8), 1, "on-8").orElseThrow();
                CpuAssignment core = Placement.CORE.assign(topology, reservations, 2, "core")) {
            assertEquals(CpuSet.of(1, 9), core.cpus(), "CPU 0 is free but its sibling 8 is not");
        }
    }

    @Test
    void coreNeedsAWholeCoreInTheAllowedSet() throws Exception {
        CpuTopology topology = CpuTopology.read(Fixtures.root("16em64t-4s2c2t", scratch), CpuSet.range(0, 7));
        assertEquals(
                "placement core: no whole core lies within the CPUs this process may use, 0-7 (affinity 0-7,"
                        + " cgroup cpuset 0-15)",
                assignError(IllegalStateException.class, "core", topology, CpuReservations.open(reservationDir)));
    }

    @Test
    void isolatedWithoutIsolatedCpusSaysHowToIsolate() throws Exception {
        assertEquals(
                "placement isolated: this machine has no isolated CPUs; isolate some with the kernel"
                        + " parameters isolcpus=<cpus> nohz_full=<cpus> and reboot, or use core or a CPU list",
                assignError(
                        IllegalStateException.class,
                        "isolated",
                        fixture("offline-cpu0-node0"),
                        CpuReservations.open(reservationDir)));
    }

    /** No dump has isolated CPUs: one gets the files a kernel booted with isolcpus=2,10 nohz_full=3,11 writes. */
    @Test
    void isolatedTakesOneFreeIsolatedCpuEach() throws Exception {
        Path root = Fixtures.unpack("16em64t-4s2c2t", reservationDir.resolve("dump"));
        Files.writeString(root.resolve("sys/devices/system/cpu/isolated"), "2,10\n");
        Files.writeString(root.resolve("sys/devices/system/cpu/nohz_full"), "3,11\n");
        CpuTopology topology = CpuTopology.read(root);
        CpuReservations reservations = CpuReservations.open(reservationDir.resolve("cpus"));
        List<CpuAssignment> taken = new ArrayList<>();
        for (int expected : new int[] {2, 3, 10, 11}) {
            CpuAssignment assignment = Placement.ISOLATED.assign(topology, reservations, expected, "iso-" + expected);
            assertEquals(CpuSet.of(expected), assignment.cpus());
            assertEquals(
                    CpuSet.of(expected), assignment.reservation().orElseThrow().cpus());
            taken.add(assignment);
        }
        assertEquals(
                "placement isolated: every isolated CPU this process may use (2-3,10-11) is reserved:"
                        + " CPU 2 held by pid " + PID + " thread 2 \"iso-2\"; CPU 3 held by pid " + PID
                        + " thread 3 \"iso-3\";"
                        + " CPU 10 held by pid " + PID + " thread 10 \"iso-10\"; CPU 11 held by pid " + PID
                        + " thread 11 \"iso-11\"",
                assignError(IllegalStateException.class, "isolated", topology, reservations));
        taken.forEach(CpuAssignment::close);

        CpuTopology narrowed = CpuTopology.read(root, CpuSet.of(0, 1));
        assertEquals(
                "placement isolated: the isolated CPUs 2-3,10-11 are outside the CPUs this process may use,"
                        + " 0-1 (affinity 0-1, cgroup cpuset 0-15); start it with taskset -c covering them, or widen"
                        + " its cgroup's cpuset",
                assignError(IllegalStateException.class, "isolated", narrowed, reservations));
    }

    @Test
    void liveCoreAssignmentPinsTheThread() throws Exception {
        ThreadAffinity affinity = ThreadAffinity.system();
        int tid = affinity.currentTid();
        CpuSet original = affinity.get(tid);
        try (CpuAssignment core = Placement.CORE.assign(
                CpuTopology.live(),
                CpuReservations.open(reservationDir),
                tid,
                Thread.currentThread().getName())) {
            affinity.set(tid, core.cpus());
            assertEquals(core.cpus(), affinity.get(tid));
            assertTrue(core.cpus().contains(affinity.currentCpu()));
        } finally {
            affinity.set(tid, original);
        }
    }

    private static CpuTopology fixture(String name) throws Exception {
        return CpuTopology.read(Fixtures.root(name, scratch));
    }

    private static String parseError(String text) {
        return assertThrows(IllegalArgumentException.class, () -> Placement.parse(text))
                .getMessage();
    }

    private static String assignError(
            Class<? extends RuntimeException> type,
            String placement,
            CpuTopology topology,
            CpuReservations reservations) {
        return assertThrows(type, () -> Placement.parse(placement).assign(topology, reservations, 9, "t"))
                .getMessage();
    }
}
