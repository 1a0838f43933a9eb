package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.cpu.CpuTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * --output FILE is checked before a command measures, and made only when the command has something to write: one
 * that fails before (its pid gone, a pin it cannot have) leaves a file already there as it was, and one that would
 * write its report over a file it reads is refused.
 */
class OutputKeptTest {
    private static final String KEPT = "kept\n";

    @TempDir
    Path dir;

    @Test
    void aCommandThatFailsBeforeItWritesLeavesTheFileAsItWas() throws Exception {
        Path keep = kept("keep.txt");
        Object inode = Files.getAttribute(keep, "unix:ino");
        Path none = dir.resolve("none.txt");
        long gone = ProcessHandle.current().pid() + 4_000_000; // past the kernel's largest pid
        for (Path output : List.of(keep, none)) {
            CliRun top = CliRun.capture(() -> Perfpin.run("top", Long.toString(gone), "--output", output.toString()));
            assertEquals(ExitCode.NO_SUCH_PROCESS, top.code, top.err);
        }
        assertEquals(KEPT, Files.readString(keep));
        assertEquals(inode, Files.getAttribute(keep, "unix:ino"));
        assertFalse(Files.exists(none), "nothing made where nothing was");

        CpuTopology machine = CpuTopology.live();
        assumeTrue(machine.isolated().union(machine.nohzFull()).isEmpty(), "needs a machine without isolated CPUs");
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            CliRun stat = CliRun.capture(() -> Perfpin.run(
                    "stat",
                    Long.toString(service.pid()),
                    "--pin",
                    "worker-0@isolated",
                    "--duration",
                    "1s",
                    "--output",
                    keep.toString()));
            assertEquals(ExitCode.FAILURE, stat.code, stat.out + stat.err);
        }
        assertEquals(KEPT, Files.readString(keep));
        assertEquals(inode, Files.getAttribute(keep, "unix:ino"));
    }

    /** report over the recording it reads, however spelt, and run over its own --record file, are usage errors. */
    @Test
    void anOutputThatIsAFileTheCommandReadsIsRefused() throws Exception {
        Path recording = Files.writeString(
                dir.resolve("same.jsonl"),
                "{\"type\":\"thread\",\"time\":1700000000000,\"name\":\"main\",\"tid\":7,\"javaId\":1,\"cpus\":\"0-1\","
                        + "\"pin\":\"none\",\"wallNanos\":50000000,\"counters\":{\"task-clock\":5000000},"
                        + "\"coverage\":{\"task-clock\":1.0},\"metrics\":{},\"unsupported\":{}}\n");
        String content = Files.readString(recording);
        Path link = Files.createLink(dir.resolve("other-name.jsonl"), recording);
        for (Path output : List.of(recording, link)) {
            CliRun report = CliRun.capture(() ->
                    Perfpin.run("report", recording.toString(), "--format", "json", "--output", output.toString()));
            assertEquals(ExitCode.USAGE, report.code, report.err);
            assertEquals(
                    "perfpin report: --output " + output + ": the same file as " + recording
                            + ", which this command reads; write the report to another file\n",
                    report.err);
        }
        assertEquals(content, Files.readString(recording));

        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Path record = kept("run.jsonl");
        CliRun run = CliRun.capture(() -> Perfpin.run(
                "run",
                "--record",
                record.toString(),
                "--output",
                dir.resolve(".").resolve("run.jsonl").toString(),
                "--",
                java,
                "-version"));
        assertEquals(ExitCode.USAGE, run.code, run.err);
        assertEquals(KEPT, Files.readString(record));

        // A recording yet to be made, named through a linked directory: the summary would replace it.
        Path real = Files.createDirectory(dir.resolve("real"));
        Path linked = Files.createSymbolicLink(dir.resolve("linked"), real);
        CliRun throughLink = CliRun.capture(() -> Perfpin.run(
                "run",
                "--record",
                real.resolve("new.jsonl").toString(),
                "--output",
                linked.resolve("new.jsonl").toString(),
                "--",
                java,
                "-version"));
        assertEquals(ExitCode.USAGE, throughLink.code, throughLink.err);
        assertFalse(Files.exists(real.resolve("new.jsonl")), "nothing is made for a refused run");
    }

    private Path kept(String name) throws Exception {
        return Files.writeString(dir.resolve(name), KEPT);
    }
}
