package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.perfpin.PerfpinDirectory;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.report.JsonReader;
import io.perfpin.report.Recording;
import io.perfpin.report.ThreadReport;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The output contract (docs/outputs.md): every command that writes CSV or JSON (top, attach, run, stat, report),
 * run on real JVMs, writes JSON lines that the schema in docs/schema validates, and CSV whose header is the columns
 * the schema derives from the selected events (identity, then each event and its coverage in --events order, then
 * every metric they give, then the rest) and whose every row has a value of the column's kind in each field.
 */
class OutputContractTest {
    private static final Path SCHEMA = Paths.get("..", "docs", "schema", "perfpin-records.schema.json");
    private static final String JAVA =
            Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    private static final String CLASS_PATH = ApplicationClassPath.withoutAgent(System.getProperty("java.class.path"));
    /** Counts are whole numbers; coverage and metrics plain decimals, or inf/-inf; either empty when absent. */
    private static final Pattern WHOLE = Pattern.compile("-?[0-9]+");

    private static final Pattern DECIMAL = Pattern.compile("(-?[0-9]+(\\.[0-9]+)?|inf|-inf)?");

    /** A run record as the agent writes it, its facts left out. */
    private static final String RUN =
            "{\"type\":\"run\",\"time\":1,\"pid\":2,\"machine\":{},\"run\":{}," + "\"events\":[\"task-clock\"]}";

    private static Schema schema;
    private static JsonNode defs;

    @TempDir
    Path dir;

    @BeforeAll
    static void readTheSchema() throws IOException {
        String text = Files.readString(SCHEMA);
        schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(text);
        defs = new ObjectMapper().readTree(text).get("$defs");
    }

    /** The schema says no to what the contract does not allow: a check that would pass anything checks nothing. */
    @Test
    void theSchemaRefusesRecordsOutsideTheContract() {
        String thread = "{\"type\":\"thread\",\"time\":1,\"name\":\"w\",\"tid\":7,\"javaId\":7,\"cpus\":\"0\","
                + "\"pin\":\"none\",\"wallNanos\":5,\"counters\":{\"task-clock\":5},\"coverage\":{\"task-clock\":1},"
                + "\"metrics\":{\"cpu-utilisation\":null},\"unsupported\":{}}";
        assertTrue(schema.validate(thread, InputFormat.JSON).isEmpty(), thread);
        assertTrue(schema.validate(RUN, InputFormat.JSON).isEmpty(), RUN);
        for (String bad : List.of(
                thread.replace("\"pin\":\"none\"", "\"pin\":\"maybe\""),
                thread.replace(",\"counters\":{\"task-clock\":5}", ""),
                thread.replace("\"task-clock\":5}", "\"task-clock\":5.5}"),
                thread.replace("\"unsupported\":{}", "\"unsupported\":{},\"extra\":1"),
                "{\"type\":\"end\",\"time\":1,\"complete\":false}",
                RUN.replace(",\"events\":[\"task-clock\"]", ""),
                RUN.replace("[\"task-clock\"]", "[1]"),
                "{\"type\":\"samples\",\"time\":1}")) {
            assertFalse(schema.validate(bad, InputFormat.JSON).isEmpty(), "refused: " + bad);
        }
    }

    /**
     * attach with --events in an order of its own, as CSV: a column per event from the header on, though the header
     * is written before the agent has enrolled a thread, and the counts under them. Then attach, top and stat in
     * every format, with the default events.
     */
    @Test
    void attachTopAndStatWriteTheContractsRecordsAndColumns() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            try {
                CliRun attachCsv = CliRun.capture(() -> Perfpin.run(
                        "attach",
                        pid,
                        "--threads",
                        "worker-.*",
                        "--events",
                        "page-faults,task-clock",
                        "--interval",
                        "100ms",
                        "--duration",
                        "1s",
                        "--format",
                        "csv",
                        "--detach-on-exit"));
                assertEquals(ExitCode.OK, attachCsv.code, attachCsv.err);
                List<List<String>> rows = assertThreadCsv(attachCsv.out, List.of("page-faults", "task-clock"), false);
                assertTrue(
                        rows.stream()
                                .anyMatch(r -> WHOLE.matcher(r.get(5)).matches()
                                        && !r.get(7).isEmpty()),
                        "counts of page-faults and task-clock under their columns:\n" + attachCsv.out);

                CliRun attachJson = CliRun.capture(() -> Perfpin.run(
                        "attach",
                        pid,
                        "--threads",
                        "worker-.*",
                        "--interval",
                        "100ms",
                        "--duration",
                        "1s",
                        "--format",
                        "json"));
                assertEquals(ExitCode.OK, attachJson.code, attachJson.err);
                assertTypes(Set.of("sample", "thread"), assertRecords(attachJson.out));

                // top watches the agent attach left running, with its default events.
                CliRun topCsv = CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "500ms", "--format", "csv"));
                assertEquals(ExitCode.OK, topCsv.code, topCsv.err);
                assertThreadCsv(topCsv.out, defaultEvents(), false);
                CliRun topJson =
                        CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "500ms", "--format", "json"));
                assertEquals(ExitCode.OK, topJson.code, topJson.err);
                assertTypes(Set.of("sample", "thread"), assertRecords(topJson.out));
                CliRun detach = CliRun.capture(() -> Perfpin.run("detach", pid));
                assertEquals(ExitCode.OK, detach.code, detach.err);
            } finally {
                // Where an assertion failed first, the agent ends with the JVM as the try-with-resources closes it.
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }

            // stat: rows of each interval under one header, then the totals; and without intervals.
            for (List<String> interval : List.of(List.of("--interval", "200ms"), List.<String>of())) {
                CliRun csv = stat(pid, "csv", interval);
                assertThreadCsv(csv.out, defaultEvents(), false);
                CliRun json = stat(pid, "json", interval);
                assertTypes(
                        interval.isEmpty() ? Set.of("thread") : Set.of("sample", "thread"), assertRecords(json.out));
            }
        }
    }

    /**
     * run in CSV and JSON, with a @Counted method; its recordings, as written; report of one of them and of both
     * joined, in CSV and JSON.
     */
    @Test
    void runItsRecordingsAndReportWriteTheContractsRecordsAndColumns() throws Exception {
        Path csvRecording = dir.resolve("csv.jsonl");
        Path jsonRecording = dir.resolve("json.jsonl");
        Path csvOut = dir.resolve("run.csv");
        Path jsonOut = dir.resolve("run.json");
        run(csvRecording, "csv", csvOut);
        run(jsonRecording, "json", jsonOut);

        List<String> csv = Files.readAllLines(csvOut);
        assertThreadCsv(String.join("\n", csv), defaultEvents(), false);
        assertMethodCsv(csv, false);
        assertTypes(Set.of("thread", "method"), assertRecords(Files.readString(jsonOut)));
        for (Path recording : List.of(csvRecording, jsonRecording)) {
            assertTypes(Set.of("run", "sample", "thread", "method", "end"), assertRecords(Files.readString(recording)));
        }

        CliRun reportJson = CliRun.capture(() -> Perfpin.run("report", csvRecording.toString(), "--format", "json"));
        assertEquals(ExitCode.OK, reportJson.code, reportJson.err);
        assertTypes(Set.of("thread", "method"), assertRecords(reportJson.out));
        CliRun reportCsv = CliRun.capture(() -> Perfpin.run("report", csvRecording.toString(), "--format", "csv"));
        assertEquals(ExitCode.OK, reportCsv.code, reportCsv.err);
        assertThreadCsv(reportCsv.out, defaultEvents(), false);
        assertMethodCsv(reportCsv.out.lines().collect(Collectors.toList()), false);

        CliRun joinedJson = CliRun.capture(
                () -> Perfpin.run("report", csvRecording.toString(), jsonRecording.toString(), "--format", "json"));
        assertEquals(ExitCode.OK, joinedJson.code, joinedJson.err);
        assertTypes(Set.of("thread", "method"), assertRecords(joinedJson.out));
        assertTrue(
                joinedJson
                        .out
                        .lines()
                        .filter(l -> !l.isBlank())
                        .map(l -> ((Map<?, ?>) JsonReader.parse(l)).get("recording"))
                        .allMatch(Set.of(csvRecording.toString(), jsonRecording.toString())::contains),
                "each record says its file:\n" + joinedJson.out);
        CliRun joinedCsv = CliRun.capture(
                () -> Perfpin.run("report", csvRecording.toString(), jsonRecording.toString(), "--format", "csv"));
        assertEquals(ExitCode.OK, joinedCsv.code, joinedCsv.err);
        List<List<String>> rows = assertThreadCsv(joinedCsv.out, defaultEvents(), true);
        assertEquals(
                Set.of(csvRecording.toString(), jsonRecording.toString()),
                rows.stream().map(r -> r.get(0)).collect(Collectors.toSet()),
                joinedCsv.out);
        assertMethodCsv(joinedCsv.out.lines().collect(Collectors.toList()), true);
    }

    /**
     * run in JSON and CSV on standard output, of an application that prints there: its lines go to perfpin's standard
     * error, and standard output is the data alone, as the schema has it.
     */
    @Test
    void runsDataOnStandardOutputIsTheContractsWhateverTheApplicationPrints() throws Exception {
        for (String format : List.of("json", "csv")) {
            try (TestJvm cli = TestJvm.main(Perfpin.class)
                    .args(
                            "run",
                            "--threads",
                            "main",
                            "--record",
                            dir.resolve(format + ".jsonl").toString(),
                            "--format",
                            format,
                            "--",
                            JAVA,
                            "-cp",
                            CLASS_PATH,
                            "io.perfpin.apps.PageToucher",
                            "1")
                    .start()) {
                assertEquals(ExitCode.OK, cli.awaitExit(), cli.describe("perfpin run"));
                if (format.equals("json")) {
                    assertTypes(Set.of("thread"), assertRecords(cli.output()));
                } else {
                    assertThreadCsv(cli.output(), defaultEvents(), false);
                }
                assertTrue(cli.stderr().contains("touched 256 pages"), cli.describe("the application's line"));
            }
        }
    }

    /**
     * report F of a run whose JVM forks (JMH, two forks): its JSON is the family's, every record the schema's, and each
     * says in recording the file it was read from, spelt as F was given (here with a ./ that the file system would not
     * keep): F's own, then each fork's after its jvm record, whose named says the file its options named. Naming a
     * fork's file beside F shows that fork once.
     */
    @Test
    void reportOfAForkingRunsFamilySaysWhereEachRecordWasReadSpeltAsTheFileWasGiven() throws Exception {
        Path record = dir.resolve("jmh.jsonl");
        CliRun run = RunForkingJmhTest.runForkingJmh(record);
        assertEquals(ExitCode.OK, run.code, run.out + run.err);
        String named = dir + "/./jmh.jsonl";
        CliRun report = CliRun.capture(() -> Perfpin.run("report", named, "--format", "json"));
        assertEquals(ExitCode.OK, report.code, report.err);
        assertTypes(Set.of("jvm", "thread"), assertRecords(report.out));

        String readFrom = named;
        List<String> forks = new ArrayList<>();
        for (String line : report.out.lines().filter(l -> !l.isBlank()).toList()) {
            Map<?, ?> json = (Map<?, ?>) JsonReader.parse(line);
            if ("jvm".equals(json.get("type"))) {
                readFrom = Path.of(named)
                        .resolveSibling("jmh." + json.get("pid") + ".jsonl")
                        .toString();
                forks.add(readFrom);
                assertEquals(record.toString(), json.get("named"), "the file its options named: " + line);
            }
            assertEquals(readFrom, json.get("recording"), "the file it was read from: " + line);
        }
        assertEquals(2, forks.size(), "a jvm record before each fork's records:\n" + report.out);

        CliRun again = CliRun.capture(() -> Perfpin.run("report", named, forks.get(1), "--format", "json"));
        assertEquals(ExitCode.OK, again.code, again.err);
        assertEquals(report.out, again.out, "the fork named beside F is shown once, in F's family");
    }

    /**
     * A recording names the events selected in its run record, in --events order, and report's CSV of it has their
     * columns in that order, each whether or not a thread counted it: cycles, which a machine without a PMU (a
     * virtual machine without a virtual one) does not count, between two software events that every machine counts.
     */
    @Test
    void reportsCsvOfARecordingHasAColumnForEachOfItsEventsInTheirOrderCountedOrNot() throws Exception {
        List<String> events = List.of("page-faults", "cycles", "task-clock");
        Path recording = dir.resolve("events.jsonl");
        run(recording, "json", dir.resolve("events.json"), "--events", String.join(",", events));
        assertTypes(Set.of("run"), assertRecords(Files.readString(recording)));
        assertEquals(events, Recording.read(recording).events(), "the run record's events, in --events order");
        CliRun report = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--format", "csv"));
        assertEquals(ExitCode.OK, report.code, report.err);
        assertThreadCsv(report.out, events, false);
    }

    /**
     * docs/outputs.md's CSV example, made by a real attach: its header is the one the schema derives from the events
     * its command names, and each row has a value of the column's kind in each field, as attach writes today.
     */
    @Test
    void theCsvExampleOfTheOutputsPageIsTheContracts() throws IOException {
        String page = Files.readString(SCHEMA.resolveSibling("../outputs.md"));
        String example = page.substring(page.indexOf("## Example"));
        Matcher events = Pattern.compile("--events (\\S+)").matcher(example);
        assertTrue(events.find(), "the example's command names its events");
        int block = example.indexOf("```csv\n") + "```csv\n".length();
        String csv = example.substring(block, example.indexOf("```", block));
        assertThreadCsv(csv, List.of(events.group(1).split(",")), false);
    }

    /** {@code perfpin run} of CountedChild, its main thread recorded and written as {@code format}. */
    private void run(Path recording, String format, Path output, String... options) {
        List<String> args = new ArrayList<>(List.of(
                "run",
                "--threads",
                "main",
                "--record",
                recording.toString(),
                "--interval",
                "100ms",
                "--format",
                format,
                "--output",
                output.toString()));
        args.addAll(List.of(options));
        args.addAll(List.of("--", JAVA, "-cp", CLASS_PATH, CountedChild.class.getName(), "200"));
        CliRun run = CliRun.capture(() -> Perfpin.run(args.toArray(new String[0])));
        assertEquals(ExitCode.OK, run.code, run.err);
    }

    private static CliRun stat(String pid, String format, List<String> interval) {
        List<String> args = new ArrayList<>(
                List.of("stat", "--pid", pid, "--threads", "worker-.*", "--duration", "1s", "--format", format));
        args.addAll(interval);
        CliRun stat = CliRun.capture(() -> Perfpin.run(args.toArray(new String[0])));
        assertEquals(ExitCode.OK, stat.code, stat.err);
        return stat;
    }

    /** The events of --events' default, as the CLI and the agent expand it. */
    private static List<String> defaultEvents() {
        return EventList.parse(EventsOption.DEFAULT, new EventParser()).names();
    }

    /** Validates each line against the schema; returns the types seen. */
    private static Set<String> assertRecords(String jsonLines) {
        Set<String> types = new HashSet<>();
        List<String> lines = jsonLines.lines().filter(l -> !l.isBlank()).collect(Collectors.toList());
        assertFalse(lines.isEmpty(), "no JSON lines");
        for (String line : lines) {
            List<Error> errors = schema.validate(line, InputFormat.JSON);
            assertTrue(errors.isEmpty(), errors + "\nin: " + line);
            types.add(new ObjectMapper().readTree(line).get("type").asString());
        }
        return types;
    }

    private static void assertTypes(Set<String> expected, Set<String> seen) {
        assertTrue(seen.containsAll(expected), "records of types " + expected + " expected, seen " + seen);
    }

    /**
     * The threads' CSV, up to its first blank line: its header is the one the schema's {@code x-csv} derives from
     * {@code events}, and each row has as many fields, each of its column's kind. Returns the rows' fields.
     */
    private static List<List<String>> assertThreadCsv(String csv, List<String> events, boolean joined) {
        JsonNode thread = defs.get("thread");
        JsonNode columns = thread.get("x-csv");
        List<String> header = new ArrayList<>();
        List<JsonNode> kinds = new ArrayList<>();
        if (joined) {
            header.add(columns.get("joined").asString());
            kinds.add(property(thread, columns.get("joined").asString()));
        }
        for (JsonNode identity : columns.get("identity")) {
            header.add(identity.asString());
            kinds.add(property(thread, identity.asString()));
        }
        for (String event : events) {
            for (var perEvent : columns.get("perEvent").properties()) {
                header.add(perEvent.getValue().asString().replace("{event}", event));
                kinds.add(property(thread, perEvent.getKey()));
            }
        }
        for (String metric : ThreadReport.metricNames(events)) {
            header.add(metric);
            kinds.add(property(thread, columns.get("perMetric").asString()));
        }
        for (JsonNode rest : columns.get("rest")) {
            header.add(rest.asString());
            kinds.add(property(thread, rest.asString()));
        }

        List<String> lines = csv.lines().takeWhile(l -> !l.isEmpty()).collect(Collectors.toList());
        assertEquals(header, fields(lines.get(0)), "the header derived from the schema:\n" + csv);
        assertTrue(lines.size() > 1, "rows under the header:\n" + csv);
        List<List<String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            List<String> row = fields(line);
            assertEquals(header.size(), row.size(), "a field per column: " + line);
            for (int i = 0; i < row.size(); i++) {
                assertTrue(
                        holds(kinds.get(i), row.get(i), required(thread, header.get(i))),
                        header.get(i) + " cannot be '" + row.get(i) + "' (" + kinds.get(i) + "): " + line);
            }
            rows.add(row);
        }
        return rows;
    }

    /** The methods' CSV, after the threads' and a blank line: the schema's columns, a field per column each row. */
    private static void assertMethodCsv(List<String> lines, boolean joined) {
        JsonNode columns = defs.get("method").get("x-csv");
        List<String> header = new ArrayList<>();
        if (joined) {
            header.add(columns.get("joined").asString());
        }
        columns.get("columns").forEach(c -> header.add(c.asString()));
        int blank = lines.indexOf("");
        assertTrue(blank > 0 && blank + 2 < lines.size(), "a block of methods after the threads:\n" + lines);
        assertEquals(header, fields(lines.get(blank + 1)), "the methods' header from the schema");
        for (String line : lines.subList(blank + 2, lines.size())) {
            List<String> row = fields(line);
            assertEquals(header.size(), row.size(), "a field per column: " + line);
            int calls = header.indexOf("calls");
            assertTrue(
                    WHOLE.matcher(row.get(calls)).matches()
                            && WHOLE.matcher(row.get(calls + 2)).matches()
                            && DECIMAL.matcher(row.get(calls + 3)).matches(),
                    line);
        }
    }

    /** A property's schema, {@code $ref}s into {@code $defs} followed. */
    private static JsonNode property(JsonNode record, String name) {
        JsonNode property = record.get("properties").get(name);
        assertTrue(property != null, "the schema's " + name);
        while (property.has("$ref")) {
            property = defs.get(property.get("$ref").asString().replace("#/$defs/", ""));
        }
        return property;
    }

    private static boolean required(JsonNode record, String column) {
        for (JsonNode name : record.get("required")) {
            if (name.asString().equals(column)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a CSV field holds a value the property allows: one of its enum, a whole number for an integer, a count
     * or a decimal in a map of them (one column per key); a string otherwise. Empty where the value may be absent.
     */
    private static boolean holds(JsonNode property, String value, boolean required) {
        if (property.has("enum")) {
            for (JsonNode allowed : property.get("enum")) {
                if (allowed.asString().equals(value)) {
                    return true;
                }
            }
            return value.isEmpty() && !required;
        }
        JsonNode type = property.get("type");
        if (type != null && type.isString() && type.asString().equals("integer")) {
            return WHOLE.matcher(value).matches();
        }
        JsonNode values = property.get("additionalProperties");
        if (values != null
                && values.get("type").isString()
                && values.get("type").asString().equals("integer")) {
            return value.isEmpty() || WHOLE.matcher(value).matches();
        }
        if (values != null && values.get("type").isArray()) {
            return DECIMAL.matcher(value).matches();
        }
        return true;
    }

    /** One CSV record's fields (RFC 4180: quoted where it holds a comma or quote, quotes doubled). */
    static List<String> fields(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted && c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                field.append('"');
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        fields.add(field.toString());
        return fields;
    }
}
