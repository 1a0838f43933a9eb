package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.PerfEventAttr;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Turns a perf_event_open errno into a reason a user can act on. The kernel reuses a few errnos for many
 * causes, so the event's type and the machine's settings pick the likely one.
 */
public final class PerfOpenErrors {
    private static final Path PARANOID = Paths.get("/proc/sys/kernel/perf_event_paranoid");

    private PerfOpenErrors() {}

    /** The failure of the event at {@code index} of a request, opened for {@code tid}. */
    public static EventFailure failure(EventSpec event, int index, int tid, int errno) {
        return new EventFailure(event, index, errno, explain(event, tid, errno));
    }

    static String explain(EventSpec event, int tid, int errno) {
        boolean software = event.type() == PerfEventAttr.TYPE_SOFTWARE;
        return switch (errno) {
            case Errno.ENOENT -> {
                if (software) {
                    yield "this kernel has no such software event";
                }
                if (event.type() == PerfEventAttr.TYPE_HARDWARE || event.type() == PerfEventAttr.TYPE_HW_CACHE) {
                    yield "no hardware PMU counts this here: likely a virtual machine without a virtual PMU"
                            + " (KVM: -cpu host,pmu=on; cloud: a bare-metal or PMU-enabled instance)";
                }
                yield "the PMU does not know this encoding: check the event for this CPU model"
                        + " (perfpin events --pmu MODEL NAME)";
            }
            case Errno.EOPNOTSUPP ->
                "the PMU cannot count this event for one thread, or cannot exclude the privilege level asked"
                        + " (try without :u/:k)";
            case Errno.EACCES, Errno.EPERM ->
                "not permitted at perf_event_paranoid=" + paranoidLevel()
                        + ": run 'sysctl kernel.perf_event_paranoid=1' (kernel-side counts need <=1, user-space"
                        + " counts of your own threads <=2), or give java CAP_PERFMON"
                        + " ('setcap cap_perfmon+ep <path to java>')";
            case Errno.EMFILE ->
                "this process is out of file descriptors (one per event per thread): raise 'ulimit -n',"
                        + " or count fewer events or threads";
            case Errno.ENFILE -> "the system is out of file descriptors: raise fs.file-max";
            case Errno.ESRCH -> "thread " + tid + " has exited";
            case Errno.EBUSY ->
                "the counter is held exclusively by another user (a pinned perf session, or the NMI watchdog:"
                        + " 'sysctl kernel.nmi_watchdog=0')";
            case Errno.EINVAL ->
                "the kernel rejected this encoding for this PMU (bad config bits, or a modifier it cannot honour)";
            case Errno.E2BIG -> "the kernel is older than this perf_event_attr layout";
            case Errno.ENOSPC -> "more events than this PMU has counters, even alone";
            case Errno.ENODEV -> "this CPU has no PMU feature this event needs";
            default -> "perf_event_open failed with " + Errno.name(errno);
        };
    }

    private static String paranoidLevel() {
        try {
            // Line by line: procfs files report size 0, and a whole-file read here returns one byte.
            return String.join("", Files.readAllLines(PARANOID)).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
