package io.perfpin.cpu;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The CPUs a process's cpuset cgroup lets it run on, which no affinity call can widen.
 *
 * <p>The cpuset controller lives in one of three places, tried in this order: a cgroup v2 hierarchy whose
 * {@code cgroup.controllers} lists {@code cpuset}; a cgroup v1 hierarchy mounted with the {@code cpuset}
 * option; the legacy {@code cpuset} filesystem. The mount point comes from {@code /proc/self/mounts} (or
 * {@code /proc/mounts}), the process's path inside it from {@code /proc/<process>/cgroup} ({@code 0::/path} on
 * v2, the line naming {@code cpuset} on v1), else from {@code /proc/<process>/cpuset}. The mounts are always this
 * process's: the kernel writes another process's cgroup paths relative to the reader's cgroup namespace, so they
 * lie below the mounts the reader sees.
 */
final class CgroupCpuset {
    /** Effective sets first: on v2 an empty {@code cpuset.cpus} means "inherit", not "none". */
    private static final List<String> CPU_FILES =
            Arrays.asList("cpuset.cpus.effective", "cpuset.effective_cpus", "cpuset.cpus", "cpus");

    private enum Hierarchy {
        V2,
        V1,
        LEGACY
    }

    private CgroupCpuset() {}

    /**
     * The effective CPUs of the cpuset cgroup of {@code process} ({@code self}, or a pid) under {@code root},
     * empty when there is no cpuset controller.
     */
    static Optional<CpuSet> read(Path root, String process) {
        List<String[]> mounts = mounts(root);
        for (Hierarchy hierarchy : Hierarchy.values()) {
            for (String[] mount : mounts) {
                Path mountDir = under(root, unescape(mount[1]));
                if (holdsCpuset(hierarchy, mount, mountDir)) {
                    return effectiveCpus(mountDir, processPath(root, process, hierarchy));
                }
            }
        }
        return Optional.empty();
    }

    private static boolean holdsCpuset(Hierarchy hierarchy, String[] mount, Path mountDir) {
        String type = mount[2];
        return switch (hierarchy) {
            case V2 ->
                type.equals("cgroup2")
                        && SysfsText.read(mountDir.resolve("cgroup.controllers"))
                                .map(controllers ->
                                        Arrays.asList(controllers.split("\\s+")).contains("cpuset"))
                                .orElse(false);
            case V1 ->
                type.equals("cgroup") && Arrays.asList(mount[3].split(",")).contains("cpuset");
            default -> type.equals("cpuset");
        };
    }

    /**
     * The nearest directory from the process's cgroup up to the mount point that has a CPU file: a v2
     * cgroup without the controller enabled runs on its parent's CPUs, and a container that sees its own
     * cgroup as the mount's root has a path that does not exist below it.
     */
    private static Optional<CpuSet> effectiveCpus(Path mountDir, String cgroupPath) {
        for (Path dir = under(mountDir, cgroupPath); dir != null && dir.startsWith(mountDir); dir = dir.getParent()) {
            for (String name : CPU_FILES) {
                Optional<CpuSet> cpus = SysfsText.readList(dir.resolve(name));
                if (cpus.isPresent()) {
                    return cpus;
                }
            }
        }
        return Optional.empty();
    }

    private static String processPath(Path root, String process, Hierarchy hierarchy) {
        Path proc = root.resolve("proc").resolve(process);
        if (hierarchy != Hierarchy.LEGACY) {
            for (String line : SysfsText.read(proc.resolve("cgroup")).orElse("").split("\n")) {
                String[] fields = line.split(":", 3);
                if (fields.length == 3
                        && (hierarchy == Hierarchy.V2
                                ? fields[0].equals("0") && fields[1].isEmpty()
                                : Arrays.asList(fields[1].split(",")).contains("cpuset"))) {
                    return fields[2];
                }
            }
        }
        return SysfsText.read(proc.resolve("cpuset")).orElse("/");
    }

    private static List<String[]> mounts(Path root) {
        Optional<String> table = SysfsText.read(root.resolve("proc/self/mounts"));
        List<String[]> mounts = new ArrayList<>();
        for (String line : table.or(() -> SysfsText.read(root.resolve("proc/mounts")))
                .orElse("")
                .split("\n")) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 4) {
                mounts.add(fields);
            }
        }
        return mounts;
    }

    private static Path under(Path root, String absolute) {
        String relative = absolute.replaceFirst("^/+", "");
        return relative.isEmpty() ? root : root.resolve(relative);
    }

    /** Mount tables write blanks and backslashes in paths as octal escapes ({@code \040}). */
    private static String unescape(String field) {
        StringBuilder text = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\'
                    && i + 3 < field.length()
                    && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                text.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                text.append(c);
            }
        }
        return text.toString();
    }
}
