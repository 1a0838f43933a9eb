package io.perfpin.agent.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.stats.AgentNotice;
import io.perfpin.testkit.Interrupter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log= file: its entries, and its bound. */
class AgentLogFileTest {
    private static final OffsetDateTime WHEN = OffsetDateTime.of(2025, 3, 4, 5, 6, 7, 80_000_000, ZoneOffset.UTC);

    @TempDir
    Path dir;

    @Test
    void anEntryHasItsTimeKindTextAndTrace() throws IOException {
        Path path = dir.resolve("agent.log");
        IOException cause = new IOException("File too large: http://user:secret@host/x\u001b[31m");
        try (AgentLogFile log = AgentLogFile.create(path)) {
            log.write(AgentNotice.refused("cannot pin thread 'w\n1' (7)"), WHEN);
            log.write(AgentNotice.failure("recording failed", cause), WHEN.plusNanos(1_000_000));
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
        List<String> lines = Files.readAllLines(path);
        assertEquals("2025-03-04T05:06:07.080Z refused cannot pin thread 'w\\n1' (7)", lines.get(0));
        assertTrue(
                lines.get(1)
                        .startsWith("2025-03-04T05:06:07.081Z failure recording failed: java.io.IOException:"
                                + " File too large: http://"),
                lines.get(1));
        assertTrue(lines.get(2).startsWith("java.io.IOException: File too large: http://"), lines.get(2));
        // the trace too masks credentials and escapes what a terminal would obey
        assertTrue(
                lines.stream().noneMatch(line -> line.contains("secret") || line.contains("\u001b")), lines.toString());
        assertTrue(lines.get(3).startsWith("    at io.perfpin.agent.impl.AgentLogFileTest."), lines.get(3));
    }

    /**
     * What an application's interrupted thread says (a cancelled task's) is written, the log stays open for what
     * comes after, and the thread keeps its interrupt.
     */
    @Test
    void anInterruptedThreadsEntryIsWrittenAndTheLogStaysOpen() throws IOException {
        Path path = dir.resolve("agent.log");
        boolean keptInterrupt;
        try (AgentLogFile log = AgentLogFile.create(path)) {
            Thread.currentThread().interrupt();
            try {
                log.write(AgentNotice.refused("cannot pin thread 'cancelled'"), WHEN);
            } finally {
                keptInterrupt = Thread.interrupted();
            }
            log.write(AgentNotice.info("after"), WHEN);
        }
        assertTrue(keptInterrupt, "the thread's interrupt is its own");
        assertEquals(
                List.of(
                        "2025-03-04T05:06:07.080Z refused cannot pin thread 'cancelled'",
                        "2025-03-04T05:06:07.080Z info after"),
                Files.readAllLines(path));
    }

    /**
     * Interrupts that come while the thread is in the write itself, as often as another thread can send them: every
     * entry is written all the same, since no channel closes under them.
     */
    @Test
    void interruptsDuringTheWritesLoseNoEntry() throws Exception {
        Path path = dir.resolve("agent.log");
        int entries = 2_000;
        try (AgentLogFile log = AgentLogFile.create(path);
                Interrupter interrupter = Interrupter.ofThisThread()) {
            for (int i = 0; i < entries; i++) {
                log.write(AgentNotice.info("entry " + i), WHEN);
            }
        }
        List<String> lines = Files.readAllLines(path);
        assertEquals(entries, lines.size());
        assertEquals("2025-03-04T05:06:07.080Z info entry " + (entries - 1), lines.get(entries - 1));
    }

    /** Full, it says so in one last line, and writes nothing more. */
    @Test
    void theLogStopsAtItsBoundWithOneLastLine() throws IOException {
        Path path = dir.resolve("agent.log");
        try (AgentLogFile log = AgentLogFile.create(path, 65536)) {
            for (int i = 0; i < 1000; i++) {
                log.write(AgentNotice.failure("sampling failed", new IOException("failure " + i)), WHEN);
            }
        }
        assertTrue(Files.size(path) <= 65536, Files.size(path) + " bytes");
        List<String> lines = Files.readAllLines(path);
        assertEquals(
                "2025-03-04T05:06:07.080Z info the log stopped here, at its bound of 65536 bytes: later notices"
                        + " are said on stderr and in the stats file only",
                lines.get(lines.size() - 1));
        assertTrue(lines.get(0).endsWith("failure sampling failed: java.io.IOException: failure 0"), lines.get(0));
    }
}
