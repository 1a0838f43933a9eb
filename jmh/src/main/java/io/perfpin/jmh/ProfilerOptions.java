package io.perfpin.jmh;

import io.perfpin.cpu.CpuTopology;
import io.perfpin.cpu.Placement;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.options.ThreadPattern;
import io.perfpin.options.ThreadPatterns;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import joptsimple.OptionException;
import joptsimple.OptionParser;
import joptsimple.OptionSet;
import joptsimple.OptionSpec;
import org.openjdk.jmh.profile.ProfilerException;

/**
 * What {@code -prof perfpin:KEY=VALUE;KEY=VALUE} asks, parsed as JMH parses its own profilers' options (jopt-simple,
 * {@code ;} between options, {@code help} for the list). Each value is then checked by the parser the agent and the
 * CLI use for the same word, so a bad event, regex or placement reads the same everywhere: one line naming the
 * token and what is allowed, then the help.
 */
final class ProfilerOptions {
    static final String NAME = "perfpin";
    /** JMH names its worker threads {@code <benchmark>-jmh-worker-<n>}. */
    static final String WORKERS = ".*-jmh-worker-\\d+";

    static final String ALL = "all";
    private static final List<String> KEYS = List.of("events", "threads", "pin", "perThread", "agent", "help");
    private static final String DEFAULT_EVENTS = "ipc,sched";

    private final EventList events;
    /** Null for every thread of the JVM ({@code threads=all}). */
    private final ThreadPattern threads;
    /** Null when the workers are not pinned. */
    private final Placement pin;

    private final boolean perThread;
    private final boolean agent;

    private ProfilerOptions(EventList events, ThreadPattern threads, Placement pin, boolean perThread, boolean agent) {
        this.events = events;
        this.threads = threads;
        this.pin = pin;
        this.perThread = perThread;
        this.agent = agent;
    }

    /**
     * @throws ProfilerException with the help, when asked for it, or with one line naming the bad token and then
     *                           the help; JMH prints it and stops
     */
    static ProfilerOptions parse(String initLine) throws ProfilerException {
        OptionParser parser = new OptionParser();
        parser.formatHelpWith(new HelpLayout(NAME));
        OptionSpec<String> events = parser.accepts(
                        "events",
                        "Events and presets to count, comma-separated, as"
                                + " perfpin names them (perfpin events lists them): perf's names (cycles, instructions,"
                                + " cache-misses, ...), software events (task-clock, context-switches, page-faults,"
                                + " ...), presets (ipc, cache, tlb, branch, sched), raw and PMU events. Each is"
                                + " reported per operation; a preset's ratios (ipc, cpi, miss ratios) too.")
                .withRequiredArg()
                .ofType(String.class)
                .describedAs("list")
                .defaultsTo(DEFAULT_EVENTS);
        OptionSpec<String> threads = parser.accepts(
                        "threads",
                        "Threads to count, by the regex their whole Java"
                                + " name matches (RE2 syntax), or all for every thread of the benchmark's JVM (JIT,"
                                + " GC and JMH's own threads too, as perfnorm counts). Default: JMH's worker threads, "
                                + WORKERS + ".")
                .withRequiredArg()
                .ofType(String.class)
                .describedAs("regex|all");
        OptionSpec<String> pin = parser.accepts(
                        "pin",
                        "Pin each worker thread, from the last warm-up iteration to"
                                + " the end of the measurement: core (a whole physical core of its own), isolated"
                                + " (an isolated CPU of its own), or a CPU list (2-3) that all workers share. Each"
                                + " gets its CPUs back after the last measurement iteration. Default: not pinned.")
                .withRequiredArg()
                .ofType(String.class)
                .describedAs("core|isolated|cpus");
        OptionSpec<String> perThread = parser.accepts(
                        "perThread",
                        "Also report each counted thread's share of"
                                + " every count per operation, labelled by thread (·page-faults:worker-1).")
                .withRequiredArg()
                .ofType(String.class)
                .describedAs("bool")
                .defaultsTo("false");
        OptionSpec<String> agent = parser.accepts(
                        "agent",
                        "Add the perfpin agent to the forked JVM, so that"
                                + " perfpin top and perfpin list show its threads live (the agent counts software"
                                + " events only, leaving the PMU to the profiler). Not added when the fork gets one"
                                + " already (under perfpin run).")
                .withRequiredArg()
                .ofType(String.class)
                .describedAs("bool")
                .defaultsTo("true");
        parser.accepts("help", "Display help.");
        OptionSpec<String> rest = parser.nonOptions();

        OptionSet set;
        try {
            set = parser.parse(tokens(parser, initLine));
        } catch (OptionException e) {
            throw failure(parser, e.getMessage());
        }
        if (set.has("help")) {
            throw new ProfilerException(help(parser));
        }
        if (!set.valuesOf(rest).isEmpty()) {
            throw failure(parser, "unexpected '" + String.join(" ", set.valuesOf(rest)) + "' in '" + initLine + "'");
        }
        String token = "";
        try {
            token = "events=" + set.valueOf(events);
            EventList eventList = EventList.parse(set.valueOf(events), new EventParser());
            String regex = set.has(threads) ? set.valueOf(threads) : WORKERS;
            token = "threads=" + regex;
            ThreadPattern selected = regex.equals(ALL) ? null : ThreadPatterns.compile("threads option", token, regex);
            Placement placement = null;
            if (set.has(pin)) {
                token = "pin=" + set.valueOf(pin);
                placement = Placement.parse(set.valueOf(pin));
                if (placement.kind() == Placement.Kind.CPUS) {
                    // A list names CPUs this JVM may use or it is a mistake, said now rather than in each fork.
                    placement.assign(CpuTopology.live(), null, 0, "worker").close();
                }
            }
            token = "perThread=" + set.valueOf(perThread);
            boolean each = bool(set.valueOf(perThread));
            token = "agent=" + set.valueOf(agent);
            return new ProfilerOptions(eventList, selected, placement, each, bool(set.valueOf(agent)));
        } catch (IllegalArgumentException | IOException e) {
            String message = e.getMessage();
            throw failure(
                    parser, message.contains("'" + token + "'") ? message : "bad option '" + token + "': " + message);
        }
    }

    /** jopt-simple would take any word but true for false. */
    private static boolean bool(String value) {
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException("expected true or false");
        }
        return Boolean.parseBoolean(value);
    }

    /**
     * The init line as jopt-simple takes it, as JMH's profilers split theirs: {@code ;} between options, each a long
     * option. A key that is none of this profiler's is said by name here: jopt-simple would read an unknown
     * {@code -bogus=1} as the short options {@code -b -o ...}.
     */
    private static String[] tokens(OptionParser parser, String initLine) throws ProfilerException {
        List<String> tokens = new ArrayList<>();
        for (String option : initLine.split(";")) {
            if (option.isEmpty()) {
                continue;
            }
            String key = option.contains("=") ? option.substring(0, option.indexOf('=')) : option;
            if (!KEYS.contains(key)) {
                throw failure(
                        parser,
                        "bad option '" + option + "': unknown key '" + key + "'; allowed: " + String.join(", ", KEYS));
            }
            tokens.add("--" + option);
        }
        return tokens.toArray(new String[0]);
    }

    private static ProfilerException failure(OptionParser parser, String message) {
        return new ProfilerException(NAME + ": " + message + System.lineSeparator() + help(parser));
    }

    private static String help(OptionParser parser) {
        StringWriter help = new StringWriter();
        try {
            parser.printHelpOn(help);
        } catch (IOException e) {
            throw new IllegalStateException("a StringWriter does not fail", e);
        }
        return help.toString();
    }

    EventList events() {
        return events;
    }

    /** Null for every thread ({@code threads=all}). */
    ThreadPattern threads() {
        return threads;
    }

    /** Null when the workers are not pinned. */
    Placement pin() {
        return pin;
    }

    boolean perThread() {
        return perThread;
    }

    boolean agent() {
        return agent;
    }
}
