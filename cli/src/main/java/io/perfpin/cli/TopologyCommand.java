package io.perfpin.cli;

import io.perfpin.cpu.CpuReservations;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.report.TerminalText;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Packages, cores, SMT siblings, NUMA nodes, isolated CPUs, the allowed set and who holds which CPU. */
@Command(
        name = "topology",
        mixinStandardHelpOptions = true,
        description = "Show the CPUs: packages, cores, SMT siblings, NUMA nodes, isolated and nohz_full CPUs,"
                + " the allowed set, and the current reservations.")
final class TopologyCommand implements Callable<Integer> {
    @Option(
            names = "--root",
            paramLabel = "DIR",
            hidden = true,
            description = "Read sys/ and proc/ under DIR instead of / (for machine dumps).")
    Path root;

    @Override
    public Integer call() throws Exception {
        CpuTopology topology = root == null ? CpuTopology.live() : CpuTopology.read(root);
        System.out.println("online      " + orNone(topology.online()));
        System.out.println("allowed     " + orNone(topology.allowed()) + "  (affinity " + orNone(topology.affinity())
                + ", cgroup cpuset " + orNone(topology.cgroupCpus()) + ")");
        System.out.println("isolated    " + orNone(topology.isolated()));
        System.out.println("nohz_full   " + orNone(topology.nohzFull()));
        List<CpuSet> packages = topology.packages();
        for (int p = 0; p < packages.size(); p++) {
            CpuSet pkg = packages.get(p);
            System.out.println("package " + p + "   cpus " + pkg);
            for (CpuSet core : topology.cores()) {
                if (pkg.containsAll(core)) {
                    int first = core.first();
                    String type = topology.isHybrid()
                            ? "  " + topology.coreType(first).name().toLowerCase()
                            : "";
                    System.out.println("  core " + topology.coreId(first) + "   cpus " + core
                            + (core.size() > 1 ? "  (SMT siblings)" : "") + type);
                }
            }
        }
        for (Map.Entry<Integer, CpuSet> node : topology.numaNodes().entrySet()) {
            System.out.println("numa node " + node.getKey() + "   cpus " + orNone(node.getValue()));
        }
        if (root == null) {
            List<CpuReservations.Holder> holders = CpuReservations.openDefault().list();
            System.out.println("reservations" + (holders.isEmpty() ? "  (none)" : ""));
            for (CpuReservations.Holder h : holders) {
                System.out.println("  cpu " + h.cpu() + "   " + holder(h));
            }
        }
        return ExitCode.OK;
    }

    /** Who holds a CPU, as far as its lock file names it ({@link CpuReservations.Holder}). */
    private static String holder(CpuReservations.Holder h) {
        if (h.pid() < 0) {
            return "held by " + CpuReservations.Holder.UNNAMED;
        }
        if (h.tid() < 0) {
            return "pid " + h.pid();
        }
        return "pid " + h.pid() + "  tid " + h.tid() + "  thread \"" + TerminalText.escape(h.threadName()) + "\"";
    }

    private static String orNone(CpuSet cpus) {
        return cpus.isEmpty() ? "(none)" : cpus.toString();
    }
}
