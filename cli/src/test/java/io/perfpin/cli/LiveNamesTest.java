package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import java.nio.file.Files;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Thread names as Java allows them, through the stats file to every format: a 200-character name, two that differ
 * only after their 63rd byte, and names with a tab, a newline and characters beyond ASCII. Tables with --wide show each
 * whole on one row (control characters escaped), CSV and JSON keep them as they are.
 */
class LiveNamesTest {
    private static final String LONG = "L" + "o".repeat(198) + "g";
    private static final String PREFIX = "org.openjdk.jmh.samples.JMHSample_22_FalseSharing.baseline-jmh-";
    private static final List<String> NAMES =
            List.of(LONG, PREFIX + "worker-1", PREFIX + "worker-2", "tab\there", "new\nline", "名前-ünï");

    @Test
    void namesAreWholeAndApartInTableCsvAndJson() throws Exception {
        assertTrue(PREFIX.length() >= 63, "the twins differ after byte 63");
        try (ChildJvm service = ChildJvm.withAgent(
                "threads=(?s).*;events=sched;interval=100ms", "io.perfpin.apps.Service", "0", "120")) {
            service.await(Pattern.compile("ready"));
            for (String name : NAMES) {
                service.send("spin " + name.replace("\t", "\\t").replace("\n", "\\n"));
                service.await(Pattern.compile(
                        "thread " + Pattern.quote(name.replace("\t", "\\t").replace("\n", "\\n")) + " tid \\d+"));
            }
            String pid = Long.toString(service.pid());
            // The agent creates its stats file as it starts; top refuses one still being created.
            AgentSession.awaitAgent(service.pid(), null);
            try {
                CliRun table = CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "500ms", "--wide"));
                assertEquals(0, table.code, table.err);
                for (String name : NAMES) {
                    String shown = name.replace("\t", "\\t").replace("\n", "\\n");
                    assertTrue(table.out.contains("\n" + shown + " "), "a row for '" + shown + "':\n" + table.out);
                }
                CliRun csv = CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "500ms", "--format", "csv"));
                assertEquals(0, csv.code, csv.err);
                for (String name : NAMES) {
                    String field = name.contains("\n") ? '"' + name + '"' : name;
                    assertTrue(csv.out.contains("\n" + field + ","), "a row for '" + name + "':\n" + csv.out);
                }
                CliRun json = CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "500ms", "--format", "json"));
                assertEquals(0, json.code, json.err);
                for (String name : NAMES) {
                    String quoted = "\"name\":\"" + name.replace("\t", "\\t").replace("\n", "\\n") + "\"";
                    assertTrue(json.out.contains(quoted), quoted + " in:\n" + json.out);
                }
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
    }
}
