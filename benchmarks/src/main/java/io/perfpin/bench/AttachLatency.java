package io.perfpin.bench;

import io.perfpin.apps.Service;
import io.perfpin.jvm.AgentLoader;
import io.perfpin.jvm.AttachException;
import io.perfpin.jvm.ThreadDump;
import io.perfpin.stats.StatsFileReader;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark 4: from the moment {@link AgentLoader#load} is called (what {@code perfpin attach} does) until the
 * agent's first sample is published in the stats file, that is its heartbeat is set. The target is a fresh
 * {@link Service} JVM per run, with two workers, that never had an agent. To tell the attach mechanism from
 * the agent's own start, each run also times a thread dump over the attach socket of another fresh one: the
 * same handshake, with no agent.
 */
final class AttachLatency {
    private static final double TARGET_MILLIS = 1000;
    private static final Duration ATTACH_TIMEOUT = Duration.ofSeconds(10);
    private static final long SAMPLE_TIMEOUT_NANOS = 10_000_000_000L;

    private AttachLatency() {
    }

    /** What is timed on a fresh target, in milliseconds from a start this measurement takes itself. */
    private interface Measurement {
        double[] on(long pid) throws IOException, InterruptedException, AttachException;
    }

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        List<Double> loaded = new ArrayList<>();
        List<Double> firstSample = new ArrayList<>();
        List<Double> dumped = new ArrayList<>();
        for (int i = 1; i <= workspace.runs(); i++) {
            Path statsFile = workspace.scratch("attach-" + i + ".stats");
            double[] attach = onFreshService(workspace, pid -> attach(workspace, pid, statsFile));
            loaded.add(attach[0]);
            firstSample.add(attach[1]);
            dumped.add(onFreshService(workspace, AttachLatency::threadDump)[0]);
        }
        Summary load = Summary.of(loaded);
        Summary sample = Summary.of(firstSample);
        Summary handshake = Summary.of(dumped);
        MarkdownTable table = new MarkdownTable("from the call to", "ms: median (min–max)")
                .row("`AgentLoader.load` returning (the agent's agentmain has run)", load.format(1))
                .row("the first published sample (stats file heartbeat set)", sample.format(1))
                .row("`ThreadDump.of` returning, on a fresh JVM without agent (the attach handshake alone)",
                        handshake.format(1));
        Headline headline = new Headline("attach: `AgentLoader.load` called → first published sample",
                sample.format(1) + " ms", "", "", "≤ " + (int) TARGET_MILLIS + " ms",
                Verdict.atMost(sample, TARGET_MILLIS, v -> Summary.number(v, 1) + " ms",
                        "`AgentLoader.load` took " + load.format(1) + " ms of it, while the attach handshake alone"
                                + " (a thread dump over the same socket) takes " + handshake.format(1) + " ms"));
        return new Section("4. Attach", List.of(headline), List.of(table), List.of(
                workspace.runs() + " runs, each on a fresh `io.perfpin.apps.Service 2` JVM (JDK of this run) once it"
                        + " printed `ready`; the agent with its defaults (interval 500 ms) and `stats=` a file in the"
                        + " benchmark's private scratch directory, polled every millisecond."));
    }

    /** Milliseconds until the load returned, and until the first sample. */
    private static double[] attach(Workspace workspace, long pid, Path statsFile)
            throws IOException, InterruptedException, AttachException {
        long start = System.nanoTime();
        AgentLoader.load(pid, workspace.agentJar(), "stats=" + statsFile, ATTACH_TIMEOUT);
        long loaded = System.nanoTime();
        awaitFirstSample(statsFile, start);
        return new double[] {(loaded - start) / 1e6, (System.nanoTime() - start) / 1e6};
    }

    private static double[] threadDump(long pid) throws AttachException {
        long start = System.nanoTime();
        ThreadDump.of(pid, ATTACH_TIMEOUT);
        return new double[] {(System.nanoTime() - start) / 1e6};
    }

    /** Starts a Service JVM, measures on it once it is ready, and ends it. */
    private static double[] onFreshService(Workspace workspace, Measurement measurement)
            throws IOException, InterruptedException {
        Path stderr = workspace.scratch("service.err");
        Process target = new ProcessBuilder(workspace.app(Service.class, "2", "60").command())
                .redirectError(stderr.toFile()).start();
        try {
            awaitReady(target);
            return measurement.on(target.pid());
        } catch (AttachException e) {
            throw new IOException("attach failed: " + e.getMessage() + "; target stderr: "
                    + Files.readString(stderr).strip(), e);
        } finally {
            target.getOutputStream().close(); // Service exits when its standard input closes
            if (!target.waitFor(10, TimeUnit.SECONDS)) {
                target.destroyForcibly().waitFor();
            }
            Files.deleteIfExists(stderr);
        }
    }

    private static void awaitReady(Process target) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(target.getInputStream(),
                StandardCharsets.UTF_8));
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            if (line.equals("ready")) {
                return;
            }
        }
        throw new IOException("the Service JVM ended before it was ready");
    }

    /** Polls until the file exists, is mapped, and has a heartbeat. */
    private static void awaitFirstSample(Path statsFile, long start) throws IOException, InterruptedException {
        StatsFileReader reader = null;
        try {
            while (System.nanoTime() - start < SAMPLE_TIMEOUT_NANOS) {
                if (reader == null) {
                    reader = openIfReady(statsFile);
                }
                if (reader != null && reader.heartbeatEpochMillis() > 0) {
                    return;
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
