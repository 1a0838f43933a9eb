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
    /** Set while JMH has begun a line that it has not ended: a note then starts a line of its own. */
    private static boolean midLine;
    /** Set once a note was said mid-line, and so is the line JMH's output goes on. */
    private static boolean saidMidLine;

    private Notes() {}

    static void say(String text) {
        say(AgentNotice.info(text));
    }

    private static synchronized void say(AgentNotice notice) {
        AgentNotice now = SAID.toSay(notice);
        if (now != null) {
            String line = TerminalText.escape("# " + ProfilerOptions.NAME + ": " + now.text());
            if (midLine) {
                System.out.print(System.lineSeparator() + line);
                saidMidLine = true;
            } else {
                System.out.println(line);
            }
            System.out.flush();
        }
    }

    /**
     * Runs {@code sayings} where JMH has begun a line: each note goes on a line of its own, and JMH's output goes on
     * as if none had been said, with no blank line either way.
     *
     * @param jmhEndsIt whether JMH ends that line with a newline ({@code # Preparing profilers: perfpin }), which
     *                  then ends the last note's line; where it goes on with text instead (an iteration's line
     *                  {@code Iteration   1: }, whose result JMH prints after the hooks, forked or not, since a
     *                  fork's output is passed on as it comes), the last note ends its line itself, so that the
     *                  result starts a line of its own rather than follow the note
     */
    static synchronized void midLine(boolean jmhEndsIt, Runnable sayings) {
        midLine = true;
        saidMidLine = false;
        try {
            sayings.run();
        } finally {
            if (saidMidLine && !jmhEndsIt) {
                System.out.println();
                System.out.flush();
            }
            midLine = false;
            saidMidLine = false;
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
