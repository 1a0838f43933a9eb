package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.StatsFileReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent can be diagnosed: with {@code log=FILE} every notice is in FILE with its time, and a failure with its
 * stack trace; without it, the failure's one {@code [perfpin]} line says that log= would keep it. A log that cannot
 * be created is one line, and the agent counts without it. The stats file's notices carry their kinds, and a notice
 * met many times is said once.
 */
class LogFileIT {
    /** Far below the stats file (its options text alone is 64 KiB), far above the log's few entries. */
    private static final long FILE_SIZE_LIMIT = 56 * 1024;
    /** A line of the log that starts an entry: its time, ISO-8601 to the millisecond with its offset, then its kind. */
    private static final Pattern ENTRY =
            Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d)"
                    + " (info|refused|not-counted|failure) .*");

    private static final String JAVA = AppJvm.javas().findFirst().orElseThrow();
    private static final String FAILED =
            "[perfpin] no live view (perfpin top, attach and run show nothing): cannot" + " write the stats file ";

    @TempDir
    Path dir;

    /**
     * A real failure: the JVM may write no file past 56 KiB, so the stats file the sampler makes cannot be written.
     * The log keeps it with its time and its stack trace, down to the write that failed; stderr says it once, with
     * where the trace is; the agent counts on.
     */
    @Test
    void aFailureIsInTheLogWithItsTimeAndStackTrace() throws Exception {
        Path log = dir.resolve("logs/agent.log");
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.withFileSizeLimit(
                FILE_SIZE_LIMIT,
                JAVA,
                "threads=worker-.*;events=task-clock;" + "interval=50ms;out=" + out + ";log=" + log,
                dir.resolve("perfpin"))) {
            app.await("ready");
            app.send("park 1 worker"); // a toucher's pages are a mapped file, which the limit forbids
            app.await("parked 1");
            awaitFailureSaid(app);
            assertEquals(0, app.finish());
            List<String> said = perfpinLines(app);
            assertEquals(1, said.size(), app.stderr().toString());
            assertTrue(
                    said.get(0).startsWith(FAILED)
                            && said.get(0)
                                    .contains("File too large; counting and recording"
                                            + " go on (the stack traces of failures: " + log + ")"),
                    said.get(0));
            assertOnlyPerfpinLines(app);
        }
        assertEquals(
                "rw-------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(log, LinkOption.NOFOLLOW_LINKS)));
        List<String> lines = Files.readAllLines(log);
        int failure = indexOf(
                lines,
                line -> ENTRY.matcher(line).matches()
                        && line.contains(
                                " failure no live view (perfpin top, attach and run show nothing): cannot write the"
                                        + " stats file ")
                        && line.endsWith("File too large; counting and recording go on"));
        assertTrue(failure >= 0, String.join("\n", lines));
        List<String> trace = lines.subList(failure + 1, lines.size());
        assertTrue(
                trace.get(0).matches("java\\.io\\.IOException: File too large|.*Exception.*File too large.*"),
                String.join("\n", lines));
        // a frame names its class loader's name first where it has one
        assertTrue(
                trace.stream()
                        .anyMatch(line ->
                                line.startsWith("    at ") && line.contains("io.perfpin.stats.StatsFile.create(")),
                String.join("\n", lines));
        // counting went on: the thread's final record
        assertEquals(1, Observed.records(out, "thread", "worker-0").size());
    }

    /** Without log=, the failure's line says once where its stack trace would be kept. */
    @Test
    void withoutALogTheFailureSaysWhereItsTraceWouldBe() throws Exception {
        try (AppJvm app = AppJvm.withFileSizeLimit(
                FILE_SIZE_LIMIT,
                JAVA,
                "threads=worker-.*;events=task-clock;" + "interval=50ms",
                dir.resolve("perfpin"))) {
            app.await("ready");
            app.send("park 1 worker"); // a toucher's pages are a mapped file, which the limit forbids
            app.await("parked 1");
            awaitFailureSaid(app);
            assertEquals(0, app.finish());
            List<String> said = perfpinLines(app);
            assertEquals(1, said.size(), app.stderr().toString());
            assertTrue(
                    said.get(0).startsWith(FAILED)
                            && said.get(0)
                                    .endsWith("File too large; counting and recording"
                                            + " go on (the agent option log=FILE keeps the stack traces of failures)"),
                    said.get(0));
            assertOnlyPerfpinLines(app);
        }
    }

    /**
     * log= at another user's link or at a FIFO is refused in one line, and neither is followed, opened or changed:
     * the application runs as it would, and the agent counts without a log.
     */
    @Test
    void aLogAtAnotherUsersLinkOrAFifoIsRefusedInOneLine() throws Exception {
        assumeTrue(isRoot(), "only root can give a link to another user here");
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Path link = Files.createSymbolicLink(dir.resolve("link.log"), victim);
        Files.setAttribute(link, "unix:uid", 4242, LinkOption.NOFOLLOW_LINKS);
        Path fifo = dir.resolve("fifo.log");
        Process mkfifo =
                new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        for (Path log : List.of(link, fifo)) {
            Path out = dir.resolve(log.getFileName() + ".jsonl");
            try (AppJvm app = AppJvm.start(
                    JAVA,
                    "threads=worker-.*;events=task-clock;stats=off;out=" + out + ";log=" + log,
                    dir.resolve("perfpin"))) {
                app.await("ready");
                app.send("start worker-1 16");
                app.touched("worker-1");
                assertEquals(0, app.finish());
                List<String> said = perfpinLines(app);
                assertEquals(1, said.size(), app.stderr().toString());
                assertTrue(
                        said.get(0).startsWith("[perfpin] cannot write the log: " + log + " is ")
                                && said.get(0)
                                        .endsWith(
                                                ", not a regular file: perfpin writes only a new file, or replaces one"
                                                        + " of yours; counting goes on without it"),
                        said.get(0));
                assertOnlyPerfpinLines(app);
            }
            assertEquals(1, Observed.records(out, "thread", "worker-1").size(), "counted without a log");
        }
        assertEquals("precious", Files.readString(victim));
        assertTrue(Files.isSymbolicLink(link));
        assertEquals(
                0010000,
                (int) Files.getAttribute(fifo, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 0170000,
                "still a FIFO");
    }

    /**
     * The same refusal met by five threads of one name is said once: on stderr, in the stats file (where it is of
     * kind refused, as the viewers read it) and in the log, each with its kind; then how many threads it met, at the
     * end.
     */
    @Test
    void aNoticeMetManyTimesIsSaidOnceWithItsKind() throws Exception {
        Path log = dir.resolve("agent.log");
        Path perfpin = dir.resolve("perfpin");
        try (AppJvm app = AppJvm.start(
                JAVA, "threads=worker-.*;pin=worker-.*@7;events=task-clock;interval=50ms;log=" + log, perfpin)) {
            app.await("ready");
            for (int i = 0; i < 5; i++) {
                app.send("start worker-1 16");
                app.touched("worker-1");
            }
            List<AgentNotice> notices = List.of();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (notices.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
                try (StatsFileReader reader = Observed.openStats(Observed.statsFile(perfpin, app.pid()))) {
                    notices = reader.snapshot().notices();
                }
            }
            assertEquals(1, notices.size(), notices.toString());
            assertEquals(AgentNotice.Kind.REFUSED, notices.get(0).kind(), notices.toString());
            assertTrue(notices.get(0).text().startsWith("cannot pin thread 'worker-1' (7): "), notices.toString());
            assertEquals(0, app.finish());
            List<String> said = perfpinLines(app);
            assertEquals(
                    List.of(
                            "[perfpin] " + notices.get(0).text(),
                            "[perfpin] 5 threads in all could not be pinned (7), for the reason said with the first,"
                                    + " 'worker-1'"),
                    said);
        }
        List<String> logged = Files.readAllLines(log).stream()
                .filter(line -> line.contains(" cannot pin thread "))
                .collect(Collectors.toList());
        assertEquals(1, logged.size(), logged.toString());
        assertTrue(
                ENTRY.matcher(logged.get(0)).matches() && logged.get(0).contains(" refused cannot pin thread"),
                logged.get(0));
    }

    /**
     * The sampler makes the stats file shortly after it starts, which a JVM that ends sooner never has: the failure is
     * waited for, within a deadline, before the application is let go.
     */
    private static void awaitFailureSaid(AppJvm app) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (perfpinLines(app).stream().noneMatch(line -> line.startsWith(FAILED))) {
            assertTrue(System.nanoTime() < deadline, "the failure said within 30 s: " + app.stderr());
            Thread.sleep(10);
        }
    }

    private static List<String> perfpinLines(AppJvm app) {
        return app.stderr().stream()
                .filter(line -> line.startsWith("[perfpin]"))
                .collect(Collectors.toList());
    }

    /** The application's own output carries nothing of perfpin's but its [perfpin] lines. */
    private static void assertOnlyPerfpinLines(AppJvm app) {
        List<String> other = app.stderr().stream()
                .filter(line -> !line.startsWith("[perfpin]") && !line.contains(AppJvm.CDS_WARNING))
                .collect(Collectors.toList());
        assertEquals(List.of(), other, app.stderr().toString());
        assertFalse(
                app.lines().stream().anyMatch(line -> line.contains("perfpin")),
                app.lines().toString());
    }

    private static int indexOf(List<String> lines, java.util.function.Predicate<String> which) {
        for (int i = 0; i < lines.size(); i++) {
            if (which.test(lines.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isRoot() throws IOException {
        return "0".equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid").toString());
    }
}
