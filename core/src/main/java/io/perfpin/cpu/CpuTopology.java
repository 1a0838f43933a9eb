package io.perfpin.cpu;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The machine's CPUs as Linux describes them under {@code /sys} and {@code /proc}: which are online, how
 * they group into cores (SMT siblings) and packages, their NUMA nodes, which are isolated from the scheduler,
 * and which this process may run on.
 *
 * <p>Read from a root directory so that tests can point it at a dump of another machine. Offline CPUs are not
 * in {@link #online()} and have no topology: asking for it is an error.
 *
 * <p>Cores and packages are identified by their CPU sets ({@code core_cpus}/{@code thread_siblings},
 * {@code package_cpus}/{@code core_siblings}), as hwloc does: {@code core_id} repeats across packages and
 * {@code physical_package_id} is -1 on some platforms (POWER).
 */
public final class CpuTopology {
    private static final Pattern CPU_DIR = Pattern.compile("cpu(\\d+)");
    private static final Pattern NODE_DIR = Pattern.compile("node(\\d+)");
    private static final String SELF = "self";

    private final CpuSet online;
    private final CpuSet affinity;
    private final CpuSet cgroupCpus;
    private final CpuSet allowed;
    private final CpuSet isolated;
    private final CpuSet nohzFull;
    private final long[] coreIds;
    private final long[] packageIds;
    private final int[] nodes;
    private final CpuSet[] siblings;
    private final CpuSet[] packageCpus;
    private final CoreType[] coreTypes;
    private final SortedMap<Integer, CpuSet> nodeCpus;

    /** @param process whose affinity and cpuset make the allowed set: {@code self}, or a pid */
    private CpuTopology(Path root, String process, CpuSet givenAffinity) {
        Path cpuDir = root.resolve("sys/devices/system/cpu");
        online = SysfsText.readList(cpuDir.resolve("online")).orElseGet(() -> onlineFromCpuDirs(cpuDir));
        int length = online.last() + 1;
        coreIds = new long[length];
        packageIds = new long[length];
        siblings = new CpuSet[length];
        packageCpus = new CpuSet[length];
        for (int cpu = online.first(); cpu >= 0; cpu = online.next(cpu + 1)) {
            Path topology = cpuDir.resolve("cpu" + cpu).resolve("topology");
            coreIds[cpu] = SysfsText.readLong(topology.resolve("core_id")).orElse(-1L);
            packageIds[cpu] =
                    SysfsText.readLong(topology.resolve("physical_package_id")).orElse(-1L);
            siblings[cpu] = onlineGroup(cpu, topology, "core_cpus", "thread_siblings");
            packageCpus[cpu] = onlineGroup(cpu, topology, "package_cpus", "core_siblings");
        }
        nodes = new int[length];
        Arrays.fill(nodes, -1);
        nodeCpus = readNodes(root, cpuDir);
        coreTypes = readCoreTypes(root, cpuDir);
        isolated = SysfsText.readList(cpuDir.resolve("isolated")).orElse(CpuSet.EMPTY);
        nohzFull = SysfsText.readList(cpuDir.resolve("nohz_full")).orElse(CpuSet.EMPTY);
        affinity = givenAffinity != null
                ? givenAffinity
                : readAffinity(root, process).orElse(online);
        cgroupCpus = CgroupCpuset.read(root, process).orElse(online);
        allowed = online.intersect(affinity).intersect(cgroupCpus);
    }

    /** This machine, as this process sees it now. */
    public static CpuTopology live() {
        return read(Paths.get("/"));
    }

    /**
     * This machine, with the CPUs process {@code pid} may use as its allowed set: its affinity as
     * {@code /proc/<pid>/status} shows it (its first thread's) and its cpuset cgroup's.
     * Where perfpin pins threads of another process, their CPUs must be those it allows, not perfpin's own.
     */
    public static CpuTopology ofProcess(long pid) {
        return new CpuTopology(Paths.get("/"), Long.toString(pid), null);
    }

    /**
     * The machine whose {@code sys/} and {@code proc/} lie under {@code root}. The process's affinity comes
     * from {@code proc/self/status} ({@code Cpus_allowed_list}); where that file is absent, all online CPUs.
     */
    public static CpuTopology read(Path root) {
        return new CpuTopology(root, SELF, null);
    }

    /**
     * As {@link #read(Path)} with the given affinity: pass the mask the process started with when threads
     * may already have been pinned, since {@code /proc/self/status} shows the main thread's current mask.
     */
    public static CpuTopology read(Path root, CpuSet affinity) {
        return new CpuTopology(root, SELF, affinity);
    }

    public CpuSet online() {
        return online;
    }

    /** The CPUs this process may pin threads to: online, in its affinity mask and in its cpuset cgroup. */
    public CpuSet allowed() {
        return allowed;
    }

    /** The affinity mask the allowed set was computed from. */
    public CpuSet affinity() {
        return affinity;
    }

    /** The effective CPUs of the process's cpuset cgroup, all online CPUs where there is none. */
    public CpuSet cgroupCpus() {
        return cgroupCpus;
    }

    /** CPUs kept out of scheduler load balancing ({@code isolcpus=}); may include offline ones. */
    public CpuSet isolated() {
        return isolated;
    }

    /** CPUs running without the periodic tick when alone ({@code nohz_full=}); may include offline ones. */
    public CpuSet nohzFull() {
        return nohzFull;
    }

    /** The CPU's {@code core_id}: unique within a package only; -1 where the kernel does not say. */
    public long coreId(int cpu) {
        return coreIds[requireOnline(cpu)];
    }

    /** The CPU's {@code physical_package_id}; -1 where the kernel does not say (POWER, some VMs). */
    public long packageId(int cpu) {
        return packageIds[requireOnline(cpu)];
    }

    /** The online CPUs of the CPU's core (its SMT siblings, itself included). */
    public CpuSet siblings(int cpu) {
        return siblings[requireOnline(cpu)];
    }

    /** The online CPUs of the CPU's package. */
    public CpuSet packageCpus(int cpu) {
        return packageCpus[requireOnline(cpu)];
    }

    /** The CPU's NUMA node, or -1 where it has none online (its node is offline, or the kernel has no NUMA). */
    public int numaNode(int cpu) {
        return nodes[requireOnline(cpu)];
    }

    /** Online NUMA nodes and their online CPUs (empty for memory-only nodes). */
    public SortedMap<Integer, CpuSet> numaNodes() {
        return Collections.unmodifiableSortedMap(nodeCpus);
    }

    public CoreType coreType(int cpu) {
        return coreTypes[requireOnline(cpu)];
    }

    public boolean isHybrid() {
        return online.stream().anyMatch(cpu -> coreTypes[cpu] != CoreType.UNIFORM);
    }

    /** Every core's online CPUs, ordered by their lowest CPU. */
    public List<CpuSet> cores() {
        return groups(siblings);
    }

    /** Every package's online CPUs, ordered by their lowest CPU. */
    public List<CpuSet> packages() {
        return groups(packageCpus);
    }

    @Override
    public String toString() {
        return online.size() + " CPUs online (" + online + ") in " + cores().size() + " cores, "
                + packages().size() + " packages, " + nodeCpus.size() + " NUMA nodes; allowed " + allowed
                + (isolated.isEmpty() ? "" : "; isolated " + isolated)
                + (nohzFull.isEmpty() ? "" : "; nohz_full " + nohzFull);
    }

    private int requireOnline(int cpu) {
        if (!online.contains(cpu)) {
            throw new IllegalArgumentException("CPU " + cpu + " is not online (online CPUs: " + online + ")");
        }
        return cpu;
    }

    private List<CpuSet> groups(CpuSet[] byCpu) {
        List<CpuSet> groups = new ArrayList<>();
        for (int cpu = online.first(); cpu >= 0; cpu = online.next(cpu + 1)) {
            if (byCpu[cpu].first() == cpu) {
                groups.add(byCpu[cpu]);
            }
        }
        return Collections.unmodifiableList(groups);
    }

    /** A group of CPUs from {@code <name>_list}, its mask file, or the older name; the CPU alone if none. */
    private CpuSet onlineGroup(int cpu, Path topology, String name, String olderName) {
        Optional<CpuSet> group = SysfsText.readCpus(topology.resolve(name + "_list"), topology.resolve(name))
                .or(() -> SysfsText.readCpus(topology.resolve(olderName + "_list"), topology.resolve(olderName)));
        return group.orElse(CpuSet.EMPTY).intersect(online).union(CpuSet.of(cpu));
    }

    /**
     * Without an {@code online} file (old kernels) every {@code cpuN} directory is a CPU, offline when its
     * {@code online} says 0.
     */
    private static CpuSet onlineFromCpuDirs(Path cpuDir) {
        List<Integer> cpus = new ArrayList<>();
        for (Integer cpu : numberedEntries(cpuDir, CPU_DIR)) {
            if (!SysfsText.read(cpuDir.resolve("cpu" + cpu).resolve("online"))
                    .orElse("1")
                    .equals("0")) {
                cpus.add(cpu);
            }
        }
        return CpuSet.of(cpus.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * Nodes from {@code sys/devices/system/node/nodeN/cpulist} (or {@code cpumap}); only where that directory
     * is missing, from the {@code nodeN} links in each CPU's directory, since those can name an offline node.
     */
    private SortedMap<Integer, CpuSet> readNodes(Path root, Path cpuDir) {
        SortedMap<Integer, CpuSet> byNode = new TreeMap<>();
        Path nodeDir = root.resolve("sys/devices/system/node");
        if (Files.isDirectory(nodeDir)) {
            for (Integer node : numberedEntries(nodeDir, NODE_DIR)) {
                Path dir = nodeDir.resolve("node" + node);
                CpuSet cpus = SysfsText.readCpus(dir.resolve("cpulist"), dir.resolve("cpumap"))
                        .orElse(CpuSet.EMPTY);
                byNode.put(node, cpus.intersect(online));
            }
        } else {
            for (int cpu = online.first(); cpu >= 0; cpu = online.next(cpu + 1)) {
                for (Integer node : numberedEntries(cpuDir.resolve("cpu" + cpu), NODE_DIR)) {
                    byNode.merge(node, CpuSet.of(cpu), CpuSet::union);
                }
            }
        }
        byNode.forEach((node, cpus) -> cpus.forEach(cpu -> nodes[cpu] = node));
        return byNode;
    }

    /**
     * Hybrid core types from the kernel's two PMUs, {@code /sys/devices/cpu_core/cpus} and
     * {@code /sys/devices/cpu_atom/cpus}. Without them, as hwloc does, from intel_pstate's per-CPU
     * {@code base_frequency} when it takes exactly two values: P-cores have the higher one (the maximum
     * frequency would split P-cores too, as Turbo Boost Max 3.0 favours some of them).
     */
    private CoreType[] readCoreTypes(Path root, Path cpuDir) {
        CoreType[] types = new CoreType[online.last() + 1];
        Arrays.fill(types, CoreType.UNIFORM);
        Optional<CpuSet> performance = SysfsText.readList(root.resolve("sys/devices/cpu_core/cpus"));
        Optional<CpuSet> efficiency = SysfsText.readList(root.resolve("sys/devices/cpu_atom/cpus"));
        if (performance.isPresent() && efficiency.isPresent()) {
            performance.get().intersect(online).forEach(cpu -> types[cpu] = CoreType.PERFORMANCE);
            efficiency.get().intersect(online).forEach(cpu -> types[cpu] = CoreType.EFFICIENCY);
            return types;
        }
        long[] baseFrequency = new long[types.length];
        TreeSet<Long> distinct = new TreeSet<>();
        for (int cpu = online.first(); cpu >= 0; cpu = online.next(cpu + 1)) {
            Optional<Long> khz = SysfsText.readLong(cpuDir.resolve("cpu" + cpu).resolve("cpufreq/base_frequency"));
            if (khz.isEmpty()) {
                return types;
            }
            baseFrequency[cpu] = khz.get();
            distinct.add(khz.get());
        }
        if (distinct.size() == 2) {
            online.forEach(cpu ->
                    types[cpu] = baseFrequency[cpu] == distinct.last() ? CoreType.PERFORMANCE : CoreType.EFFICIENCY);
        }
        return types;
    }

    private static Optional<CpuSet> readAffinity(Path root, String process) {
        for (String line : SysfsText.read(root.resolve("proc").resolve(process).resolve("status"))
                .orElse("")
                .split("\n")) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return Optional.of(CpuSet.parseList(line.substring("Cpus_allowed_list:".length())));
            }
        }
        return Optional.empty();
    }

    private static List<Integer> numberedEntries(Path dir, Pattern name) {
        List<Integer> numbers = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return numbers;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                Matcher matcher = name.matcher(entry.getFileName().toString());
                if (matcher.matches()) {
                    numbers.add(Integer.parseInt(matcher.group(1)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("listing " + dir + ": " + e.getMessage(), e);
        }
        Collections.sort(numbers);
        return numbers;
    }
}
