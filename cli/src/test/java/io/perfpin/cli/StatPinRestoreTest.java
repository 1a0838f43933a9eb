package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.ThreadAffinity;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code perfpin stat --pin} as its own process, pinning threads of a service JVM: however stat ends (its
 * duration, Ctrl-C, SIGKILL), the pinned threads get their CPUs back and its watchdog is gone afterwards.
 */
class StatPinRestoreTest {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final String WATCHDOG = "perfpin-pins";
    private static final Pattern WORKER = Pattern.compile("thread (worker-\\d+) tid (\\d+)");
    private static final Pattern PINNED = Pattern.compile("perfpin stat: pinned '(\\S+)' \\(tid (\\d+)\\) to CPU 0 .*");

    @Test
    void aSigkilledStatStillGivesThePinnedThreadItsCpusBack() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            int tid = workers(service).get("worker-0");
            Map<Integer, String> before = cpusBefore(service, tid);

            try (ChildJvm stat = stat(List.of(), service, "worker-0@0")) {
                awaitPinned(stat, Map.of("worker-0", tid));
                long watchdog = watchdogOf(stat);
                stat.kill();

                awaitThat(() -> asBefore(before, service), () -> notAsBefore(before, service));
                awaitExited(watchdog);
            }
        }
    }

    @Test
    void aThreadThatEndedBeforeTheKillIsSkippedAndTheOthersRestored() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            Map<String, Integer> workers = workers(service);
            int tid = workers.get("worker-0");
            int ending = workers.get("worker-1");
            Map<Integer, String> before = cpusBefore(service, tid);

            try (ChildJvm stat = stat(List.of(), service, "worker-.*@0")) {
                awaitPinned(stat, Map.of("worker-0", tid, "worker-1", ending));
                long watchdog = watchdogOf(stat);
                service.send("end worker-1");
                service.await(Pattern.compile("ended worker-1"));
                awaitThat(
                        () -> !ProcFiles.cpusAllowedOfEachThread(service.pid()).containsKey(ending),
                        () -> "worker-1 still runs");
                stat.kill();

                awaitThat(() -> asBefore(before, service), () -> notAsBefore(before, service));
                awaitExited(watchdog);
            }
        }
    }

    @Test
    void ctrlCStillGivesTheCpusBackAndTheWatchdogExits() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            int tid = workers(service).get("worker-0");
            Map<Integer, String> before = cpusBefore(service, tid);

            try (ChildJvm stat = stat(List.of(), service, "worker-0@0")) {
                awaitPinned(stat, Map.of("worker-0", tid));
                long watchdog = watchdogOf(stat);
                assumeFalse(
                        ProcFiles.ignores(stat.pid(), ProcFiles.SIGINT),
                        "SIGINT is ignored in this process tree, as in a job a script started in the background");
                signal(stat, "-INT");

                stat.awaitExit();
                assertTrue(
                        stat.lines().stream().anyMatch(l -> l.matches("worker-0 +" + tid + " +0 .*")),
                        "the counts, worker-0 shown on CPU 0:\n" + String.join("\n", stat.lines()));
                assertTrue(asBefore(before, service), () -> notAsBefore(before, service));
                awaitExited(watchdog);
            }
        }
    }

    @Test
    void aThreadThatSomeoneElsePinnedMeanwhileIsLeftWhereTheyPutIt() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            int tid = workers(service).get("worker-0");
            String before = ProcFiles.cpusAllowed(service.pid(), tid);
            assumeTrue(before.equals("0-1"), "needs CPUs 0-1: " + before);

            try (ChildJvm stat = stat(List.of(), service, "worker-0@0")) {
                awaitPinned(stat, Map.of("worker-0", tid));
                ThreadAffinity.system().set(tid, CpuSet.of(1));
                signal(stat, "-TERM");

                stat.awaitExit();
                assertTrue(
                        stat.lines()
                                .contains("perfpin: left thread 'worker-0' (tid " + tid + ") on CPU 1: its"
                                        + " affinity was changed while perfpin had it on CPU 0 (before: CPUs 0-1)"),
                        String.join("\n", stat.lines()));
                assertEquals("1", ProcFiles.cpusAllowed(service.pid(), tid));
            }
        }
    }

    @Test
    void withoutTheJniLibraryPinsStillHoldWhileCountingAndItSaysOnceThatASigkillWouldKeepThem() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            int tid = workers(service).get("worker-0");
            Map<Integer, String> before = cpusBefore(service, tid);

            try (ChildJvm stat = stat(List.of("-Dperfpin.backend=jna"), service, "worker-.*@0", "--duration", "1s")) {
                assertEquals(0, stat.awaitExit(), String.join("\n", stat.lines()));
                List<String> said =
                        stat.lines().stream().filter(l -> l.contains("SIGKILL")).toList();
                assertEquals(
                        List.of("perfpin: pins will not survive a SIGKILL of perfpin: the jna backend cannot"
                                + " start the watchdog that would restore them (only perfpin's JNI library can fork"
                                + " a JVM safely); they are still undone when perfpin ends, Ctrl-C included"),
                        said);
                assertTrue(
                        stat.lines().stream().anyMatch(l -> l.matches("worker-0 +" + tid + " +0 .*")),
                        "worker-0 counted on CPU 0:\n" + String.join("\n", stat.lines()));
                assertTrue(asBefore(before, service), () -> notAsBefore(before, service));
            }
        }
    }

    private static void signal(ChildJvm stat, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(stat.pid())).start();
        assertTrue(kill.waitFor(30, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill " + signal);
    }

    /** perfpin stat as its own JVM, from this test's class path. */
    private static ChildJvm stat(List<String> jvmOptions, ChildJvm service, String pin, String... more)
            throws IOException {
        List<String> args = new ArrayList<>(
                List.of("stat", "--pid", Long.toString(service.pid()), "--threads", "worker-.*", "--pin", pin));
        args.addAll(more.length > 0 ? List.of(more) : List.of("--duration", "60s"));
        return ChildJvm.startWith(jvmOptions, "io.perfpin.cli.Perfpin", args.toArray(new String[0]));
    }

    /** The TID of each of the service's two workers, which say so in the order they start; then it is ready. */
    private static Map<String, Integer> workers(ChildJvm service) throws IOException {
        Map<String, Integer> tids = new HashMap<>();
        while (tids.size() < 2) {
            Matcher worker = service.await(WORKER);
            tids.put(worker.group(1), Integer.parseInt(worker.group(2)));
        }
        service.await(Pattern.compile("ready"));
        return tids;
    }

    /** stat says so once each thread runs on CPU 0, in the order of the JVM's thread dump. */
    private static void awaitPinned(ChildJvm stat, Map<String, Integer> tids) throws IOException {
        Map<String, Integer> pinned = new HashMap<>();
        while (!pinned.keySet().containsAll(tids.keySet())) {
            Matcher line = stat.await(PINNED);
            pinned.put(line.group(1), Integer.parseInt(line.group(2)));
        }
        assertEquals(tids, pinned);
    }

    /**
     * Each thread that ran before stat and still runs has the CPUs it had then. The JVM starts threads of its
     * own meanwhile (the attach listener that answered stat's thread dump, compiler threads), and ends some.
     */
    private static boolean asBefore(Map<Integer, String> before, ChildJvm service) {
        Map<Integer, String> now = ProcFiles.cpusAllowedOfEachThread(service.pid());
        return now.entrySet().stream()
                .allMatch(t -> !before.containsKey(t.getKey())
                        || before.get(t.getKey()).equals(t.getValue()));
    }

    /** Each thread's CPUs before stat pins worker-0 to CPU 0, which must leave it others to come back to. */
    private static Map<Integer, String> cpusBefore(ChildJvm service, int tid) {
        Map<Integer, String> before = ProcFiles.cpusAllowedOfEachThread(service.pid());
        assumeTrue(before.get(tid).matches("0[-,].*"), "needs CPU 0 and another: " + before.get(tid));
        return before;
    }

    private static String notAsBefore(Map<Integer, String> before, ChildJvm service) {
        return "not every thread has its CPUs of before " + before + ": "
                + ProcFiles.cpusAllowedOfEachThread(service.pid());
    }

    /** stat's child that the watchdog names itself as, once it has. */
    static long watchdogOf(ChildJvm stat) throws InterruptedException {
        long[] found = new long[1];
        awaitThat(
                () -> {
                    found[0] = ProcessHandle.of(stat.pid()).stream()
                            .flatMap(ProcessHandle::children)
                            .mapToLong(ProcessHandle::pid)
                            .filter(pid -> WATCHDOG.equals(ProcFiles.command(pid)))
                            .findFirst()
                            .orElse(-1);
                    return found[0] > 0;
                },
                () -> "no child of perfpin stat (pid " + stat.pid() + ") is named " + WATCHDOG);
        return found[0];
    }

    /**
     * Gone, or a zombie: it has exited, and only waits for init to reap it (a killed stat's orphans are
     * init's, and some inits reap late). A process that took its pid since has another name.
     */
    private static void awaitExited(long watchdog) throws InterruptedException {
        awaitThat(
                () -> {
                    List<String> stat = ProcFiles.statFields(watchdog);
                    return stat.isEmpty() || stat.get(0).equals("Z") || !WATCHDOG.equals(ProcFiles.command(watchdog));
                },
                () -> "the watchdog (pid " + watchdog + ") still runs: " + ProcFiles.statFields(watchdog));
    }

    private static void awaitThat(BooleanSupplier condition, Supplier<String> failure) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, failure);
            Thread.sleep(10);
        }
    }
}
