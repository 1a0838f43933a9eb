package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.event.GenericEvents;
import io.perfpin.jvm.ProcText;
import io.perfpin.jvm.TaskStat;
import io.perfpin.nativeio.PerfEventAttr;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the scheduler counts for every thread anyway, as {@code /proc/<pid>/task/<tid>} shows it to the thread's
 * user: the same quantities as the {@code sched} preset's software events, counted by the kernel from the
 * thread's start, exactly and at no cost to it. Reading them takes no privilege beyond reading the thread's
 * files, where perf_event_open of a software event, which counts kernel side too, needs
 * {@code perf_event_paranoid} 1 or less.
 */
enum SchedulerCounts {
    /** {@code schedstat}, first field: ns on a CPU ({@code se.sum_exec_runtime}), as task-clock counts them. */
    TASK_CLOCK(GenericEvents.SW_TASK_CLOCK, "schedstat"),
    /** {@code status}: {@code voluntary_ctxt_switches} plus {@code nonvoluntary_ctxt_switches}. */
    CONTEXT_SWITCHES(GenericEvents.SW_CONTEXT_SWITCHES, "status"),
    /** {@code sched}: {@code se.nr_migrations}, there only in a kernel built with CONFIG_SCHED_DEBUG. */
    CPU_MIGRATIONS(GenericEvents.SW_CPU_MIGRATIONS, "sched"),
    /** {@code stat}, fields 10 ({@code minflt}) plus 12 ({@code majflt}). */
    PAGE_FAULTS(GenericEvents.SW_PAGE_FAULTS, "stat"),
    /** {@code stat}, field 10. */
    MINOR_FAULTS(GenericEvents.SW_PAGE_FAULTS_MIN, "stat"),
    /** {@code stat}, field 12. */
    MAJOR_FAULTS(GenericEvents.SW_PAGE_FAULTS_MAJ, "stat");

    private static final int MINFLT = 10;
    private static final int MAJFLT = 12;

    private final long config;
    private final String file;

    SchedulerCounts(long config, String file) {
        this.config = config;
        this.file = file;
    }

    /**
     * The count that stands for {@code event}: a software event of these kinds that counts every privilege
     * level, as /proc does; an event with {@code :u} or {@code :k} has none.
     */
    static Optional<SchedulerCounts> of(EventSpec event) {
        if (event.type() != PerfEventAttr.TYPE_SOFTWARE || event.excludeUser() || event.excludeKernel()) {
            return Optional.empty();
        }
        for (SchedulerCounts count : values()) {
            if (count.config == event.config()) {
                return Optional.of(count);
            }
        }
        return Optional.empty();
    }

    /** The file it is read from. */
    String file(long pid, int tid) {
        return "/proc/" + pid + "/task/" + tid + "/" + file;
    }

    /**
     * The file's name in the thread's directory, for a reason that is the same for every thread: one naming each
     * thread's own file would be a notice per thread.
     */
    String fileName() {
        return file;
    }

    /**
     * The thread's files as read at one moment: each read once, however many counts come out of it, so that
     * counts of one file agree with each other.
     */
    static final class Reading {
        private final long pid;
        private final int tid;
        /** By file name: counts from one file come from one read of it. */
        private final Map<String, String> texts = new HashMap<>(4);

        Reading(long pid, int tid) {
            this.pid = pid;
            this.tid = tid;
        }

        /** Empty when the thread is gone, or its file cannot be read or lacks the count. */
        OptionalLong count(SchedulerCounts count) {
            String text = texts.computeIfAbsent(count.file, f -> read(count.file(pid, tid)));
            if (text == null) {
                return OptionalLong.empty();
            }
            try {
                return switch (count) {
                    case TASK_CLOCK ->
                        OptionalLong.of(Long.parseLong(text.strip().split(" ")[0]));
                    case CONTEXT_SWITCHES -> {
                        OptionalLong voluntary = field(text, "voluntary_ctxt_switches");
                        OptionalLong involuntary = field(text, "nonvoluntary_ctxt_switches");
                        yield voluntary.isPresent() && involuntary.isPresent()
                                ? OptionalLong.of(voluntary.getAsLong() + involuntary.getAsLong())
                                : OptionalLong.empty();
                    }
                    case CPU_MIGRATIONS -> field(text, "se.nr_migrations");
                    case PAGE_FAULTS -> OptionalLong.of(statField(text, MINFLT) + statField(text, MAJFLT));
                    case MINOR_FAULTS -> OptionalLong.of(statField(text, MINFLT));
                    default -> OptionalLong.of(statField(text, MAJFLT));
                };
            } catch (RuntimeException malformed) {
                return OptionalLong.empty();
            }
        }

        /**
         * A line {@code NAME: value} or {@code NAME   :   value}. Searched for, not split into lines: the sampler
         * reads these files for every such thread at every tick.
         */
        private static OptionalLong field(String text, String name) {
            for (int at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
                int colon = at + name.length();
                while (colon < text.length() && text.charAt(colon) == ' ') {
                    colon++;
                }
                int end = text.indexOf('\n', colon);
                if ((at == 0 || text.charAt(at - 1) == '\n') && colon < text.length() && text.charAt(colon) == ':') {
                    return OptionalLong.of(Long.parseLong(text.substring(colon + 1, end < 0 ? text.length() : end)
                            .strip()));
                }
            }
            return OptionalLong.empty();
        }

        private static long statField(String text, int number) {
            return Long.parseLong(TaskStat.field(text, number).orElseThrow());
        }

        /** Null when unreadable. */
        private static String read(String file) {
            try {
                return ProcText.read(file);
            } catch (IOException e) {
                return null;
            }
        }
    }
}
