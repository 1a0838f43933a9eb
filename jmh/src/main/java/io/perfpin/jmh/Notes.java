package io.perfpin.jmh;

import io.perfpin.counter.EventFailure;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.event.EventList;
import io.perfpin.event.UnsupportedEvent;
import io.perfpin.report.TerminalText;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.SaidOnce;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the profiler says in JMH's output, each thing once per JVM ({@link SaidOnce}, the rule the agent says its
 * notices by), as {@code # perfpin: ...} lines: JMH prints a fork's output as it comes, and JMH's own notes start
 * with {@code #}. An event that is not counted is said here,
 * with its reason, and has no result at all: never a 0.
 */
final class Notes {
    private static final SaidOnce SAID = new SaidOnce();
    /** Set while JMH's line {@code # Preparing profilers: perfpin } waits for the newline JMH ends it with. */
    private static boolean afterOpenLine;

    private Notes() {
    }

    static void say(String text) {
        say(AgentNotice.info(text));
    }

    private static void say(AgentNotice notice) {
        if (SAID.first(notice)) {
            String line = TerminalText.escape("# " + ProfilerOptions.NAME + ": " + notice.text());
            if (afterOpenLine) {
                System.out.print(System.lineSeparator() + line);
            } else {
                System.out.println(line);
            }
            System.out.flush();
        }
    }

    /** Runs {@code sayings} where JMH has begun a line that it ends itself: each note goes on a line of its own. */
    static synchronized void afterOpenLine(Runnable sayings) {
        afterOpenLine = true;
        try {
            sayings.run();
        } finally {
            afterOpenLine = false;
        }
    }

    /**
     * Which events of {@code events} are not counted, as opening {@code counters} found, grouped by reason; and which
     * come from /proc instead of perf_event_open.
     */
    static void sayWhatIsCounted(EventList events, ThreadCounters counters) {
        Map<String, String> notCounted = new LinkedHashMap<>();
        for (UnsupportedEvent event : events.unsupported()) {
            notCounted.merge(event.reason(), event.event(), (a, b) -> a + ", " + b);
        }
        for (EventFailure failure : counters.unsupported()) {
            notCounted.merge(failure.reason(), failure.event().name(), (a, b) -> a + ", " + b);
        }
        notCounted.forEach((reason, names) -> say("not counting " + names + ": " + reason
                + "; no result is reported for " + (names.contains(",") ? "them" : "it")));
        if (counters.notCounted() != null) {
            say("not counting: " + counters.notCounted());
        }
        if (!counters.sources().isEmpty()) {
            say("counting " + String.join(", ", counters.sources().keySet()) + " from /proc: "
                    + ThreadCounters.PROC_EXPLAINED);
        }
    }

    /** What went wrong, once however often, so the benchmark goes on without perfpin's results rather than fail. */
    static void failed(String what, Throwable e) {
        say(AgentNotice.failure(what, e));
    }
}
