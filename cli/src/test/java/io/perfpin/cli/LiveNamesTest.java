package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.report.JsonReader;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import io.perfpin.stats.StatsLayout;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Thread names as Java allows them, through the stats file to every format: a 200-character name, two that differ
 * only after their 63rd byte, and names with a tab, a newline and characters beyond ASCII. Tables with --wide show each
 * whole on one row (control characters escaped), CSV and JSON keep them as they are. Then hostile names: NUL, half
 * characters, controls, a bidi override and a name of 64 Ki characters, which the stats file keeps exactly, up to its
 * size, and says where it cut.
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

    private static final String HUGE = "huge-" + "x".repeat(65_536 - 5);
    private static final List<String> HOSTILE = List.of(
            "nul\0byte",
            "lone\ud800surrogate",
            "lowsur\udc00x",
            "new\nline",
            "new\\nline",
            "cr\rret",
            "tab\there",
            "esc\u001b[31mred\u001b[0m",
            "rtl\u202eoverride",
            "ls\u2028ps\u2029",
            "del\u007fc1\u0085",
            "emoji\ud83d\ude00",
            "comma,name",
            "quote\"name",
            HUGE);

    @Test
    void hostileNamesReachJsonAndCsvExactlyAndACutOneSaysSo() throws Exception {
        try (ChildJvm service = ChildJvm.withAgent(
                "threads=(?s).*;events=sched;interval=100ms", "io.perfpin.apps.Service", "0", "120")) {
            service.await(Pattern.compile("ready"));
            for (String name : HOSTILE) {
                service.send("spin " + spelled(name));
                service.await(Pattern.compile("thread " + Pattern.quote(spelled(name)) + " tid \\d+"));
            }
            String pid = Long.toString(service.pid());
            AgentSession.awaitAgent(service.pid(), null);
            String cut = HUGE.substring(0, StatsLayout.NAME_SIZE - 2);
            try {
                CliRun json = CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "500ms", "--format", "json"));
                assertEquals(0, json.code, json.err);
                Map<String, Boolean> cutByName = new HashMap<>();
                for (String line : json.out.split("\n")) {
                    if (line.isBlank()) {
                        continue;
                    }
                    Map<?, ?> object = (Map<?, ?>) JsonReader.parse(line);
                    if ("sample".equals(object.get("type")) || "thread".equals(object.get("type"))) {
                        ThreadRecord record = ThreadRecord.fromJson(object);
                        cutByName.merge(record.report().name(), record.report().nameCut(), (a, b) -> a && b);
                    }
                }
                for (String name : HOSTILE.subList(0, HOSTILE.size() - 1)) {
                    assertEquals(
                            false,
                            cutByName.get(name),
                            () -> "whole and not cut: " + TerminalText.escape(name) + " in " + cutByName.keySet());
                }
                assertEquals(true, cutByName.get(cut), "the long name, cut and said so");
                assertTrue(!cutByName.containsKey(HUGE), "no name longer than the stats file keeps");

                CliRun csv = CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "500ms", "--format", "csv"));
                assertEquals(0, csv.code, csv.err);
                assertTrue(csv.out.startsWith("name,") && csv.out.contains(",pmu,nameCut\n"), csv.out);
                assertTrue(csv.out.contains("\nnul\0byte,"), "NUL kept:\n" + TerminalText.escape(csv.out));
                assertTrue(
                        csv.out.lines().anyMatch(l -> l.startsWith(cut + ",") && l.endsWith(",true")),
                        "the long name's rows say it is cut");
                assertTrue(csv.out.lines().anyMatch(l -> l.startsWith("tab\there,")), csv.out);
                assertTrue(
                        csv.out.lines().filter(l -> l.startsWith("tab\there,")).noneMatch(l -> l.endsWith(",true")),
                        "a whole name's rows do not");
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
    }

    /** {@code name} as Service's spin command reads it: one word, each other character as Java writes it. */
    private static String spelled(String name) {
        StringBuilder spelled = new StringBuilder();
        for (char c : name.toCharArray()) {
            if (c > ' ' && c < 0x7f && c != '\\') {
                spelled.append(c);
            } else {
                spelled.append(String.format("\\u%04x", (int) c));
            }
        }
        return spelled.toString();
    }
}
