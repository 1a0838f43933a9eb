package io.perfpin.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The topology read from real machines' sysfs dumps agrees with what hwloc found in the same dumps. */
class CpuTopologyFixtureTest {
    @TempDir(factory = Fixtures.InMemory.class)
    static Path scratch;

    @ParameterizedTest
    @ValueSource(
            strings = {
                "16em64t-4s2c2t", "16em64t-4s2c2t-offlines", "20em64t-hybrid-1p6c2t+2ca4co1t", "256ppc-8n8s4t",
                "offline-cpu0-node0", "32amd64-4s2n4c-cgroup2", "16amd64-8n2c-cpusets", "128arm-2pa2n8cluster4co",
                "32intel64-2p8co2t+8ve", "8em64t-2s2ca2c", "96em64t-4no4pa3ca2co"
            })
    void agreesWithHwloc(String fixture) throws Exception {
        CpuTopology topology = read(fixture);
        HwlocOracle oracle = HwlocOracle.load(fixture);
        CpuSet allowed = topology.allowed();

        assertEquals(oracle.pus(), allowed, fixture + ": PUs hwloc shows are the allowed CPUs");
        assertSameGroups(oracle.groups("Core"), topology.cores(), allowed, fixture + ": cores");
        assertSameGroups(oracle.groups("Package"), topology.packages(), allowed, fixture + ": packages");
        Set<Integer> oracleNodes =
                oracle.all("NUMANode").stream().map(n -> n.osIndex).collect(Collectors.toSet());
        allowed.forEach(pu -> {
            Optional<Integer> expected = oracle.numaNode(pu);
            int node = topology.numaNode(pu);
            if (expected.isPresent()) {
                assertEquals(expected.get(), node, fixture + ": NUMA node of CPU " + pu);
            } else {
                // hwloc hides nodes outside the cgroup's memory nodes; ours may name one of those, or none
                assertFalse(oracleNodes.contains(node), fixture + ": CPU " + pu + " in node " + node);
            }
        });
        if (oracle.cpuKinds.size() > 1) {
            assertEquals(2, oracle.cpuKinds.size(), fixture + ": CPU kinds");
            allowed.forEach(pu -> assertEquals(
                    oracle.cpuKinds.lastEntry().getValue().contains(pu) ? CoreType.PERFORMANCE : CoreType.EFFICIENCY,
                    topology.coreType(pu),
                    fixture + ": core type of CPU " + pu));
        } else {
            assertFalse(topology.isHybrid(), fixture + " has one kind of core");
        }
    }

    @Test
    void fourSocketsOfTwoCoresOfTwoThreads() throws Exception {
        CpuTopology topology = read("16em64t-4s2c2t");
        assertEquals(CpuSet.range(0, 15), topology.online());
        assertEquals(4, topology.packages().size());
        assertEquals(8, topology.cores().size());
        assertEquals(CpuSet.of(0, 8), topology.siblings(8));
        assertEquals(CpuSet.of(3, 7, 11, 15), topology.packageCpus(7));
        assertEquals(3, topology.packageId(11));
        assertEquals(1, topology.coreId(12));
        assertEquals(Set.of(0), topology.numaNodes().keySet(), "one node, from its cpumap");
        assertTrue(topology.isolated().isEmpty());
    }

    @Test
    void offlineCpusHaveNoTopology() throws Exception {
        // no "online" file: the cpuN/online files say which are off
        CpuTopology topology = read("16em64t-4s2c2t-offlines");
        assertEquals(CpuSet.parseList("0-1,3-4,6-12,15"), topology.online());
        assertEquals(CpuSet.of(6), topology.siblings(6), "its sibling 14 is offline");
        assertEquals(CpuSet.of(6, 10), topology.packageCpus(10));
        IllegalArgumentException offline = assertThrows(IllegalArgumentException.class, () -> topology.coreId(13));
        assertEquals("CPU 13 is not online (online CPUs: 0-1,3-4,6-12,15)", offline.getMessage());
    }

    @Test
    void offlineNodeLeavesItsCpusWithoutNode() throws Exception {
        CpuTopology topology = read("offline-cpu0-node0");
        assertEquals(CpuSet.range(4, 20), topology.online());
        assertEquals(Set.of(1), topology.numaNodes().keySet());
        assertEquals(
                CpuSet.parseList("5,7,9,11,13,15,17,19"), topology.numaNodes().get(1));
        assertEquals(-1, topology.numaNode(4), "cpu4/node0 links to a node that is offline");
        // isolated is a bare newline, nohz_full a NUL and a newline: both mean none
        assertTrue(topology.isolated().isEmpty());
        assertTrue(topology.nohzFull().isEmpty());
    }

    @Test
    void cgroupV2CpusetLimitsTheAllowedSet() throws Exception {
        CpuTopology topology = read("32amd64-4s2n4c-cgroup2");
        HwlocOracle oracle = HwlocOracle.load("32amd64-4s2n4c-cgroup2");
        HwlocOracle.HwlocObject machine = oracle.machine;
        assertEquals(CpuSet.range(0, 5), topology.cgroupCpus(), "cgroup/unified/uid_2008/job_15389/step_0");
        assertEquals(HwlocOracle.hwlocBitmap(machine.attributes.get("complete_cpuset")), topology.online());
        assertEquals(HwlocOracle.hwlocBitmap(machine.attributes.get("allowed_cpuset")), topology.allowed());
        // the XML also keeps the full CPU sets of packages and nodes that the cgroup hides
        for (HwlocOracle.HwlocObject pkg : oracle.all("Package")) {
            CpuSet complete = HwlocOracle.hwlocBitmap(pkg.attributes.get("complete_cpuset"));
            assertEquals(complete, topology.packageCpus(complete.first()), "package " + pkg.osIndex);
        }
        for (HwlocOracle.HwlocObject node : oracle.all("NUMANode")) {
            assertEquals(
                    HwlocOracle.hwlocBitmap(node.attributes.get("complete_cpuset")),
                    topology.numaNodes().get(node.osIndex),
                    "node " + node.osIndex);
        }
        assertEquals(8, topology.numaNodes().size(), "hwloc shows 6: two are outside the cgroup's memory nodes");
    }

    @Test
    void legacyCpusetFilesystemLimitsTheAllowedSet() throws Exception {
        CpuTopology topology = read("16amd64-8n2c-cpusets");
        assertEquals(CpuSet.parseList("0-6,12-15"), topology.cgroupCpus(), "/dev/cpuset/dummy/cpus");
        assertEquals(CpuSet.parseList("0-3,5-6,12-15"), topology.allowed(), "CPU 4 is offline");
    }

    @Test
    void givenAffinityNarrowsTheAllowedSet() throws Exception {
        Path root = Fixtures.root("32amd64-4s2n4c-cgroup2", scratch);
        assertEquals(
                CpuSet.of(1, 3),
                CpuTopology.read(root, CpuSet.parseList("1,3,8-9")).allowed());
    }

    @Test
    void twoHundredFiftySixCpusWithoutPackageIds() throws Exception {
        CpuTopology topology = read("256ppc-8n8s4t");
        assertEquals(CpuSet.range(0, 255), topology.online());
        assertEquals(64, topology.packages().size());
        assertEquals(64, topology.cores().size());
        assertTrue(topology.cores().stream().allMatch(core -> core.size() == 4));
        assertEquals(CpuSet.range(252, 255), topology.siblings(255));
        assertTrue(topology.online().stream().allMatch(cpu -> topology.packageId(cpu) == -1));
        assertEquals(Set.of(0, 1, 4, 5, 8, 9, 12, 13), topology.numaNodes().keySet());
        assertEquals(CpuSet.range(32, 63), topology.numaNodes().get(1), "from a 256-bit cpumap");
    }

    @Test
    void hybridCoresFromBaseFrequency() throws Exception {
        CpuTopology topology = read("20em64t-hybrid-1p6c2t+2ca4co1t");
        assertTrue(topology.isHybrid());
        assertEquals(CoreType.PERFORMANCE, topology.coreType(11));
        assertEquals(CoreType.EFFICIENCY, topology.coreType(12));
        assertEquals(CpuSet.of(10, 11), topology.siblings(10));
        assertEquals(CpuSet.of(12), topology.siblings(12));
        assertEquals(14, topology.cores().size());
    }

    @Test
    void nodesFromCpuLinksWhereTheNodeDirectoryIsMissing() throws Exception {
        Path root = Fixtures.unpack("128arm-2pa2n8cluster4co", scratch.resolve("without-node-dir"));
        CpuTopology withNodeDir = CpuTopology.read(root);
        try (Stream<Path> files = Files.walk(root.resolve("sys/devices/system/node"))) {
            for (Path file : files.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.delete(file);
            }
        }
        CpuTopology withLinks = CpuTopology.read(root);
        assertEquals(withNodeDir.numaNodes(), withLinks.numaNodes());
        withNodeDir.online().forEach(cpu -> assertEquals(withNodeDir.numaNode(cpu), withLinks.numaNode(cpu)));
        assertEquals(4, withLinks.numaNodes().size());
    }

    private static CpuTopology read(String fixture) throws Exception {
        return CpuTopology.read(Fixtures.root(fixture, scratch));
    }

    private static void assertSameGroups(List<CpuSet> expected, List<CpuSet> ours, CpuSet allowed, String what) {
        Set<CpuSet> restricted = new HashSet<>();
        for (CpuSet group : ours) {
            if (group.intersects(allowed)) {
                restricted.add(group.intersect(allowed));
            }
        }
        assertEquals(expected.size(), restricted.size(), what + ": count");
        assertEquals(new HashSet<>(expected), restricted, what);
    }
}
