package io.perfpin.bench;

import io.perfpin.apps.Service;
import io.perfpin.jvm.AgentLoader;
import io.perfpin.jvm.AttachException;
import io.perfpin.jvm.ThreadDump;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.StatsLayout;
import io.perfpin.stats.StatsSnapshot;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Benchmark 4: from the moment {@link AgentLoader#load} is called (what {@code perfpin attach} does) until the
 * agent's first sample is published in the stats file (its heartbeat is set), and until every thread the rules
 * select is live in it, on targets with 10, 1,000 and 5,000 parked threads, all selected ({@code threads=.*}).
 * agentmain returns before the threads that already run are enrolled (a thread of the agent's maps them to their
 * TIDs and enrols them), so the first sample may come before them. Each run is a fresh {@link Service} JVM that
 * never had an agent; the sizes take turns, so that drift on the machine falls on all of them alike. To tell the
 * attach mechanism from the agent's own start, each round also times a thread dump over the attach socket of
 * another fresh one with the fewest threads: the same handshake, with no agent.
 */
final class AttachLatency {
    private static final double TARGET_MILLIS = 1000;
    private static final List<Integer> PARKED = List.of(10, 1_000, 5_000);
    private static final int FEWEST = PARKED.get(0);
    private static final int MOST = PARKED.get(PARKED.size() - 1);
    private static final Duration ATTACH_TIMEOUT = Duration.ofSeconds(10);
    private static final long SAMPLE_TIMEOUT_NANOS = 10_000_000_000L;
    private static final long ALL_LIVE_TIMEOUT_NANOS = 120_000_000_000L;
    /** A snapshot copies every slot; polling it as often as the heartbeat would take a CPU from the target. */
    private static final long SNAPSHOT_PAUSE_MILLIS = 10;

    private AttachLatency() {}

    /** What is timed on a fresh target, from a start this measurement takes itself. */
    private interface Measurement<T> {
        T on(long pid) throws IOException, InterruptedException, AttachException;
    }

    /**
     * One attach, in milliseconds from the call: until it returned, until the first sample, and until every
     * parked thread was live in the stats file or among the threads the agent could not count for want of file
     * descriptors ({@code notCounted} of them: its {@code fds=} share, 25% of the free ones by default).
     */
    private record Attach(double loaded, double firstSample, double allLive, long notCounted) {}

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        Map<Integer, List<Attach>> attaches = new LinkedHashMap<>();
        List<Double> dumped = new ArrayList<>();
        for (int round = 1; round <= workspace.runs(); round++) {
            for (int parked : PARKED) {
                Path statsFile = workspace.scratch("attach-" + parked + "-" + round + ".stats");
                attaches.computeIfAbsent(parked, p -> new ArrayList<>())
                        .add(onFreshService(workspace, parked, pid -> attach(workspace, pid, parked, statsFile)));
                Files.deleteIfExists(statsFile);
            }
            dumped.add(onFreshService(workspace, FEWEST, AttachLatency::threadDump));
        }
        MarkdownTable table = new MarkdownTable(
                "parked threads (all selected)",
                "`AgentLoader.load` returning (agentmain has run), ms",
                "first published sample (heartbeat set), ms",
                "every parked thread live in the stats file or not counted, ms",
                "threads not counted (fds=)");
        for (Map.Entry<Integer, List<Attach>> size : attaches.entrySet()) {
            List<Attach> runs = size.getValue();
            table.row(
                    Summary.number(size.getKey(), 0),
                    summary(runs, Attach::loaded).format(1),
                    summary(runs, Attach::firstSample).format(1),
                    summary(runs, Attach::allLive).format(1),
                    summary(runs, Attach::notCounted).format(0));
        }
        Summary handshake = Summary.of(dumped);
        List<Attach> fewest = attaches.get(FEWEST);
        List<Attach> most = attaches.get(MOST);
        Summary sample = summary(fewest, Attach::firstSample);
        Summary sampleMost = summary(most, Attach::firstSample);
        String fewerThreads = Summary.number(MOST, 0) + " parked threads − " + FEWEST;
        String threads = "from " + FEWEST + " to " + Summary.number(MOST, 0) + " parked threads";
        MarkdownTable growth = new MarkdownTable(threads, "added, ms: median (min–max)");
        growth.row(
                "`AgentLoader.load` returning",
                Summary.difference(summary(most, Attach::loaded), summary(fewest, Attach::loaded))
                        .format(1));
        growth.row(
                "first published sample", Summary.difference(sampleMost, sample).format(1));
        List<Headline> headlines = List.of(
                Headline.alone(
                        "attach: `AgentLoader.load` called → first published sample, " + FEWEST + " parked threads",
                        "",
                        sample.format(1) + " ms",
                        handshake.format(1) + " ms (the attach" + " handshake alone)",
                        "≤ " + (int) TARGET_MILLIS + " ms",
                        Verdict.atMost(
                                sample,
                                TARGET_MILLIS,
                                v -> Summary.number(v, 1) + " ms",
                                "`AgentLoader.load` took "
                                        + summary(fewest, Attach::loaded).format(1) + " ms of it,"
                                        + " while the attach handshake alone (a thread dump over the same socket)"
                                        + " takes " + handshake.format(1) + " ms")),
                Headline.alone(
                        "attach → first published sample: " + fewerThreads,
                        sample.format(1) + " ms (" + FEWEST + " threads)",
                        Summary.difference(sampleMost, sample).format(1) + " ms",
                        "",
                        "",
                        Verdict.noTarget()));
        List<String> notes = new ArrayList<>();
        notes.add("Each run is a fresh `io.perfpin.apps.Service 0 60 N` JVM (JDK of this run, N parked threads named"
                + " `parked-<i>`, besides the JVM's own) once it printed `ready`; the agent with `threads=.*`, its"
                + " default interval (500 ms) and `stats=` a file in the benchmark's private scratch directory. The"
                + " heartbeat is polled every millisecond, then a snapshot of the whole file every "
                + SNAPSHOT_PAUSE_MILLIS + " ms. " + workspace.runs() + " rounds, in each one run of every size in"
                + " turn.");
        notes.add("A thread appears in the stats file at the sampler's first tick after its enrolment, so \"every"
                + " parked thread live\" moves in steps of the interval, 500 ms.");
        notes.add("Each counted thread holds one descriptor per `sched` event, six, out of the agent's share of the"
                + " JVM's free descriptors (`fds=`, 25% by default): the threads beyond it are enrolled without"
                + " counters, said in the stats file as not counted, and have no live slot.");
        notes.add("`ThreadDump.of` returning, on a fresh " + FEWEST + "-thread JVM without agent (the attach handshake"
                + " alone): " + handshake.format(1) + " ms.");
        return new Section("4. Attach", headlines, List.of(table, growth), notes);
    }

    private static Summary summary(List<Attach> runs, ToDoubleFunction<Attach> figure) {
        return Summary.of(runs.stream().mapToDouble(figure).toArray());
    }

    private static Attach attach(Workspace workspace, long pid, int parked, Path statsFile)
            throws IOException, InterruptedException, AttachException {
        long start = System.nanoTime();
        AgentLoader.load(pid, workspace.agentJar(), "threads=.*;stats=" + statsFile, ATTACH_TIMEOUT);
        long loaded = System.nanoTime();
        try (StatsFileReader reader = awaitFirstSample(statsFile, start)) {
            long firstSample = System.nanoTime();
            long notCounted = awaitAllLive(reader, parked, start);
            long allLive = System.nanoTime();
            return new Attach(millis(loaded - start), millis(firstSample - start), millis(allLive - start), notCounted);
        }
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    private static Double threadDump(long pid) throws AttachException {
        long start = System.nanoTime();
        ThreadDump.of(pid, ATTACH_TIMEOUT);
        return millis(System.nanoTime() - start);
    }

    /** Starts a Service JVM with {@code parked} parked threads, measures on it once it is ready, and ends it. */
    private static <T> T onFreshService(Workspace workspace, int parked, Measurement<T> measurement)
            throws IOException, InterruptedException {
        Path stderr = workspace.scratch("service.err");
        Process target = new ProcessBuilder(workspace
                        .app(Service.class, "0", "60", Integer.toString(parked))
                        .command())
                .redirectError(stderr.toFile())
                .start();
        try {
            awaitReady(target);
            return measurement.on(target.pid());
        } catch (AttachException e) {
            throw new IOException(
                    "attach failed: " + e.getMessage() + "; target stderr: "
                            + Files.readString(stderr).strip(),
                    e);
        } finally {
            target.getOutputStream().close(); // Service exits when its standard input closes
            if (!target.waitFor(30, TimeUnit.SECONDS)) {
                target.destroyForcibly().waitFor();
            }
            Files.deleteIfExists(stderr);
        }
    }

    /** Reads a Service JVM's output until it says {@code ready}. */
    static void awaitReady(Process target) throws IOException {
        BufferedReader lines =
                new BufferedReader(new InputStreamReader(target.getInputStream(), StandardCharsets.UTF_8));
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            if (line.equals("ready")) {
                return;
            }
        }
        throw new IOException("the Service JVM ended before it was ready");
    }

    /** Polls until the file exists, is mapped, and has a heartbeat; returns it open. */
    private static StatsFileReader awaitFirstSample(Path statsFile, long start)
            throws IOException, InterruptedException {
        StatsFileReader reader = null;
        try {
            while (System.nanoTime() - start < SAMPLE_TIMEOUT_NANOS) {
                if (reader == null) {
                    reader = openIfReady(statsFile);
                }
                if (reader != null && reader.heartbeatEpochMillis() > 0) {
                    StatsFileReader ready = reader;
                    reader = null;
                    return ready;
                }
                Thread.sleep(1);
            }
        } finally {
            if (reader != null) {
                reader.close();
            }
        }
        throw new IOException("no sample in " + statsFile + " within " + SAMPLE_TIMEOUT_NANOS / 1_000_000_000L + " s");
    }

    /**
     * Polls until every parked thread is live in the file or not counted (the agent shows no slot for a thread it
     * holds no counter for); returns how many threads were not counted.
     */
    private static long awaitAllLive(StatsFileReader reader, int parked, long start)
            throws IOException, InterruptedException {
        while (System.nanoTime() - start < ALL_LIVE_TIMEOUT_NANOS) {
            StatsSnapshot snapshot = reader.snapshot();
            long liveParked = snapshot.threads().stream()
                    .filter(t ->
                            t.state() == StatsLayout.STATE_RUNNING && t.name().startsWith("parked-"))
                    .count();
            if (liveParked + snapshot.threadsNotCounted() >= parked) {
                return snapshot.threadsNotCounted();
            }
            Thread.sleep(SNAPSHOT_PAUSE_MILLIS);
        }
        throw new IOException("the " + parked + " parked threads were not all live in the stats file within "
                + ALL_LIVE_TIMEOUT_NANOS / 1_000_000_000L + " s");
    }

    /** Null while the file is missing or its header is still being written. */
    private static StatsFileReader openIfReady(Path statsFile) {
        if (!Files.exists(statsFile)) {
            return null;
        }
        try {
            return StatsFileReader.open(statsFile);
        } catch (IOException e) {
            return null;
        }
    }
}
