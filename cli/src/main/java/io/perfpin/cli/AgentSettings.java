package io.perfpin.cli;

import io.perfpin.cpu.CpuTopology;
import io.perfpin.options.AgentOptionText;
import io.perfpin.options.DescriptorShare;
import io.perfpin.options.Durations;
import io.perfpin.options.PinRule;
import io.perfpin.options.ThreadPattern;
import io.perfpin.stats.OptionsText;
import io.perfpin.stats.StatsLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What {@code run} and {@code attach} ask of the agent, with the same flags as every command, turned into the
 * agent's options ({@code threads=...;virtual=...;pin=...;events=...;interval=...;out=...;log=...}, and the exports'
 * {@link ExportOptions}).
 */
final class AgentSettings {
    @Mixin
    ThreadsOption threads;

    @Mixin
    PinOptions pins;

    @Mixin
    EventsOption events;

    @Mixin
    IntervalOption interval;

    @Mixin
    ExportOptions exports;

    @Option(
            names = "--class",
            paramLabel = "REGEX",
            converter = ThreadsOption.Regex.class,
            description = "Also count threads whose class (a Thread subclass) matches REGEX, whatever their name.")
    ThreadPattern threadClass;

    @Option(
            names = "--virtual",
            paramLabel = "REGEX",
            converter = ThreadsOption.Regex.class,
            description = "Count the virtual threads whose name matches REGEX over the time they are mounted (the"
                    + " agent's virtual=; JDK 21 and later): a final record each in the recording, which perfpin"
                    + " report shows by group; the live view shows them by group too, those that ended and those"
                    + " running (their counts so far).")
    ThreadPattern virtual;

    @Option(
            names = "--virtual-max",
            paramLabel = "N",
            converter = VirtualMaxParser.class,
            description = "The most counted virtual threads alive at once (the agent's virtual-max=; default 250000):"
                    + " one that --virtual selects beyond them is not counted, and that is said.")
    Integer virtualMax;

    @Option(
            names = "--fds",
            paramLabel = "SHARE",
            converter = DescriptorShareParser.class,
            description = "The file descriptors the agent may hold (its fds=): a share of those the JVM has free when"
                    + " the agent starts (default 25%%), or a number; threads beyond it are not counted, and say why.")
    DescriptorShare fds;

    @Option(
            names = "--record",
            paramLabel = "FILE",
            description = "The agent records JSON lines there (its out=): samples, a final record per thread,"
                    + " @Counted methods; perfpin report FILE summarises it.")
    Path record;

    @Option(
            names = "--log",
            paramLabel = "FILE",
            description = "The agent writes every notice there with its time, and every failure with its stack"
                    + " trace, each time it happens (its log=): what to send with a report of a problem.")
    Path log;

    /**
     * Settings made in code rather than parsed, as {@code demo} runs its experiments: {@code --events},
     * {@code --threads}, {@code --pin} for each of {@code pins} and {@code --interval}, the rest as when not given.
     */
    static AgentSettings of(EventsOption.Selection events, String threads, List<String> pins, Duration interval) {
        AgentSettings settings = new AgentSettings();
        settings.threads = new ThreadsOption();
        settings.threads.regex = new ThreadsOption.Regex().convert(threads);
        settings.pins = new PinOptions();
        settings.pins.rules(pins.stream().map(PinRule::parse).collect(Collectors.toList()));
        settings.events = new EventsOption();
        settings.events.events = events;
        settings.interval = new IntervalOption();
        settings.interval.interval = interval;
        settings.exports = new ExportOptions();
        return settings;
    }

    /** Whether the user asked anything of the agent, beyond the defaults. */
    boolean asksAnything() {
        return !asked().isEmpty();
    }

    /**
     * Whether an agent that runs with {@code running} counts and pins what these flags ask: the same value for each
     * key they set (an agent started with {@code -javaagent:} may set more, such as {@code fds=} or
     * {@code stats=}). {@code --interval} is left out: given to a second attach it sets how often the view
     * refreshes. A text the file kept cut, or one that reads a {@code config=} file, is compared whole.
     */
    boolean runsAsAsked(OptionsText running) {
        Map<String, List<String>> runs = AgentOptionText.settings(running.shown());
        if (!running.whole() || runs.containsKey("config")) {
            return running.sameAs(agentOptions());
        }
        for (Map.Entry<String, List<String>> setting : asked().entrySet()) {
            if (!setting.getValue().equals(runs.getOrDefault(setting.getKey(), List.of()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code --record} names the file an agent that runs with {@code running} records to: a --restart
     * would have the agent detached write its final records there, and the new one replace them. A relative
     * {@code out=} (given to {@code -javaagent:}) is the JVM's, resolved against its working directory {@code cwd}
     * (null where it cannot be read: then only an absolute one is compared).
     */
    boolean recordsWhere(OptionsText running, Path cwd) {
        if (record == null) {
            return false;
        }
        Path asked = record.toAbsolutePath().normalize();
        for (String out : AgentOptionText.settings(running.shown()).getOrDefault("out", List.of())) {
            Path runs = Path.of(out);
            if (!runs.isAbsolute() && cwd != null) {
                runs = cwd.resolve(runs);
            }
            if (runs.isAbsolute() && runs.normalize().equals(asked)) {
                return true;
            }
        }
        return false;
    }

    /** Each key these flags set that says what is counted, pinned or recorded, with its values as written. */
    private Map<String, List<String>> asked() {
        Map<String, List<String>> asked = new LinkedHashMap<>();
        if (threads.regex != null) {
            asked.put("threads", List.of(threads.regex.toString()));
        }
        if (threadClass != null) {
            asked.put("class", List.of(threadClass.toString()));
        }
        if (virtual != null) {
            asked.put("virtual", List.of(virtual.toString()));
        }
        if (virtualMax != null) {
            asked.put("virtual-max", List.of(virtualMax.toString()));
        }
        if (!pins.rules().isEmpty()) {
            asked.put("pin", pins.rules().stream().map(PinRule::toString).collect(Collectors.toList()));
        }
        if (events.given()) {
            asked.put("events", List.of(events.text()));
        }
        if (record != null) {
            asked.put("out", List.of(record.toAbsolutePath().toString()));
        }
        if (fds != null) {
            asked.put("fds", List.of(fds.toString()));
        }
        exports.agentOptions().forEach((key, value) -> asked.put(key, List.of(value)));
        return asked;
    }

    /**
     * Checks, before the agent is loaded into the JVM {@code pid} (and before --restart detaches the one there), what
     * can be known from outside it: each {@code --pin}'s placement against the CPUs that JVM may use, as the agent
     * in it would check it (a CPU list's CPUs; isolated CPUs, or a whole core, to be had at all).
     *
     * @throws IllegalArgumentException naming the CPUs and the allowed set
     * @throws IllegalStateException    when there is no isolated CPU or whole core for the JVM
     */
    void checkFor(long pid) {
        if (!pins.rules().isEmpty()) {
            CpuTopology topology = CpuTopology.ofProcess(pid);
            pins.rules().forEach(rule -> rule.placement().check(topology));
        }
    }

    /**
     * The agent's options, built by the codec the agent reads them with. They include {@code quiet}: the agent then
     * says what it could not do in the stats file, which the live view shows in perfpin's own output, and not on
     * the application's stderr.
     *
     * @throws IllegalArgumentException when a regex holds {@code ;}, which separates the agent's options, or the
     *                                  options are longer than the agent takes
     */
    String agentOptions() {
        AgentOptionText.Builder options = new AgentOptionText.Builder();
        if (threads.regex != null) {
            options.option("threads", threads.regex.toString(), "--threads");
        }
        if (threadClass != null) {
            options.option("class", threadClass.toString(), "--class");
        }
        if (virtual != null) {
            options.option("virtual", virtual.toString(), "--virtual");
        }
        if (virtualMax != null) {
            options.option("virtual-max", virtualMax.toString(), "--virtual-max");
        }
        for (PinRule rule : pins.rules()) {
            options.option("pin", rule.toString(), "--pin");
        }
        options.option("events", events.text(), "--events");
        if (interval.interval != null) {
            long nanos = interval.interval.toNanos();
            if (nanos < StatsLayout.MIN_INTERVAL_NANOS || nanos > StatsLayout.MAX_INTERVAL_NANOS) {
                // the live view reads the agent's stats file, which takes no other: the agent would start without it
                throw new IllegalArgumentException("--interval " + Durations.text(interval.interval)
                        + ": the agent's stats file, which this command's live view reads, takes 1ms to 60m");
            }
            options.interval(interval.interval);
        }
        if (record != null) {
            options.option("out", record.toAbsolutePath().toString(), "--record");
        }
        if (fds != null) {
            options.option("fds", fds.toString(), "--fds");
        }
        exports.agentOptions().forEach((key, value) -> options.option(key, value, "--" + key));
        if (log != null) {
            // not compared by runsAsAsked: where an agent logs changes nothing it counts
            options.option("log", log.toAbsolutePath().toString(), "--log");
        }
        return options.flag("quiet").text();
    }
}
