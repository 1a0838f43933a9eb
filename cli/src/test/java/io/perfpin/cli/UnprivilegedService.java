package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.counter.ThreadCounters;
import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The test app {@code Service} run by a second user without privilege, at {@code perf_event_paranoid} 2, where
 * the kernel refuses that user the {@code sched} events (they count kernel side); and perfpin run by the same
 * user, from a copy of the class path it can read. Root at paranoid 2 still counts through perf events, so only a
 * second user shows what an unprivileged one gets.
 */
final class UnprivilegedService implements AutoCloseable {
    /** The events whose values then come from /proc, in the order of {@link ProcCounts#of}. */
    static final List<String> FROM_PROC = List.of("task-clock", "context-switches", "page-faults");

    private static final Pattern WORKER = Pattern.compile("thread (worker-\\d+) tid (\\d+)");

    final ChildJvm service;
    /** Worker name to TID. */
    final Map<String, Integer> tids = new LinkedHashMap<>();
    /** A directory of the user's, for what perfpin writes. */
    final Path dir;

    private final Adversary user;
    private final Path copy;
    private final String classPath;

    private UnprivilegedService(Adversary user, Path copy, Path dir, ChildJvm service, String classPath) {
        this.user = user;
        this.copy = copy;
        this.dir = dir;
        this.service = service;
        this.classPath = classPath;
    }

    /** Skipped, with the reason, where the kernel lets any user count or no second user can be had. */
    static UnprivilegedService start(int workers) throws Exception {
        assumeTrue(ProcCounts.paranoid() >= 2, "perf_event_paranoid is below 2 here: the kernel lets any user count");
        Adversary user = Adversary.create();
        Path copy = Files.createTempDirectory("perfpin-classpath");
        Path dir = user.newDirectory();
        String appClassPath =
                Adversary.readableCopy(ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")), copy);
        String classPath = Adversary.readableCopy(
                System.getProperty("java.class.path"), Files.createDirectories(copy.resolve("cli")));
        ChildJvm service = ChildJvm.startUnder(
                user.launcher(), appClassPath, List.of(), "io.perfpin.apps.Service", Integer.toString(workers), "120");
        UnprivilegedService started = new UnprivilegedService(user, copy, dir, service, classPath);
        try {
            for (int i = 0; i < workers; i++) {
                Matcher worker = service.await(WORKER);
                started.tids.put(worker.group(1), Integer.parseInt(worker.group(2)));
            }
            service.await(Pattern.compile("ready"));
            return started;
        } catch (RuntimeException | Error e) {
            started.close();
            throw e;
        }
    }

    String pid() {
        return Long.toString(service.pid());
    }

    /** Starts perfpin as the user. */
    ChildJvm startPerfpin(String... args) throws IOException {
        return ChildJvm.startUnder(user.launcher(), classPath, List.of(), "io.perfpin.cli.Perfpin", args);
    }

    /** Runs perfpin as the user, with a deadline; returns what it printed, once it exited 0. */
    List<String> perfpin(String... args) throws Exception {
        try (ChildJvm cli = startPerfpin(args)) {
            int code = cli.exitWithin(Duration.ofSeconds(60));
            List<String> said = cli.rest();
            assertEquals(0, code, String.join(" ", args) + ":\n" + String.join("\n", said));
            return said;
        }
    }

    /** What /proc says of each worker now, by name. */
    Map<String, long[]> procCounts() {
        Map<String, long[]> counts = new LinkedHashMap<>();
        tids.forEach((name, tid) -> counts.put(name, ProcCounts.of(service.pid(), tid)));
        return counts;
    }

    /** What /proc counted for each worker since {@code earlier}. */
    Map<String, long[]> procCountsSince(Map<String, long[]> earlier) {
        Map<String, long[]> counts = procCounts();
        counts.replaceAll((name, now) -> ProcCounts.minus(now, earlier.get(name)));
        return counts;
    }

    /**
     * Checks every final thread record among {@code lines}: each event of {@link #FROM_PROC} comes from /proc and
     * lies between what /proc counted over a window inside perfpin's counting and over one around it; only
     * migrations may be missing (a kernel without CONFIG_SCHED_DEBUG), and then say why. Returns how many records.
     */
    static int checkRecords(List<String> lines, Map<String, long[]> inside, Map<String, long[]> around) {
        int checked = 0;
        for (String line : lines) {
            if (!line.startsWith("{\"type\":\"thread\"")) {
                continue;
            }
            ThreadReport r =
                    ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(line)).report();
            for (int e = 0; e < FROM_PROC.size(); e++) {
                String event = FROM_PROC.get(e);
                assertEquals(ThreadCounters.PROC, r.sources().get(event), line);
                long value = r.counters().get(event);
                long least = inside.get(r.name())[e];
                long most = around.get(r.name())[e];
                assertTrue(
                        least <= value && value <= most,
                        event + " of " + r.name() + ": " + value + " is not between " + least + " and " + most);
            }
            assertTrue(inside.get(r.name())[1] > 0, "the worker naps each millisecond, so it is switched out");
            assertTrue(
                    r.unsupported().isEmpty()
                            || r.unsupported().keySet().equals(Set.of("cpu-migrations"))
                                    && r.unsupported().get("cpu-migrations").contains("se.nr_migrations"),
                    line);
            checked++;
        }
        return checked;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            service.close();
        } finally {
            Adversary.removeAll(copy);
            Adversary.removeAll(dir);
        }
    }
}
