package io.perfpin.cli;

import io.perfpin.report.Json;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Thread reports as CSV (RFC 4180): a header row, then a row per thread with the columns {@code name, tid,
 * javaId, cpus}, then per event {@code <event>} and {@code <event>:coverage}, then each metric, then
 * {@code unsupported} ({@code event: reason} pairs joined by {@code "; "}), {@code source}, {@code type}
 * ({@code thread} for a final record, {@code sample} for a window), {@code time}, {@code wallNanos},
 * {@code state} ({@code running} or {@code ended}, empty when not known), {@code pmu} and {@code nameCut}
 * ({@code true} where the name is cut, a live view's from the agent's stats file). A value the thread does not
 * have is an empty field. Numbers are plain decimals, never in exponent form; one that is not finite, which a
 * recording may hold (JSON has no bound on a number: {@code 1e309} reads as infinite), is {@code inf} or
 * {@code -inf}, as C's printf and spreadsheets' and data frames' readers write and read it, and NaN, which is no
 * value, an empty field, as JSON's {@code null}. A report that joins several recordings has a first column
 * {@code recording}: the file each row was read from.
 */
final class ReportCsv {
    /** The first column of a report that joins several recordings: the file a row was read from. */
    static final String RECORDING = "recording";

    private ReportCsv() {}

    /**
     * A header row with the columns of {@code events} and of the events these records have ({@link Columns#of}), then
     * a row per record.
     */
    static List<String> render(List<ThreadRecord> records, List<String> events) {
        Columns columns = Columns.of(events, records);
        List<String> lines = new ArrayList<>();
        lines.add(row(columns.header()));
        lines.addAll(rows(records, columns));
        return lines;
    }

    /** A row per record, under {@code columns}: a value a record does not have is an empty field. */
    static List<String> rows(List<ThreadRecord> records, Columns columns) {
        List<String> lines = new ArrayList<>();
        for (ThreadRecord record : records) {
            ThreadReport r = record.report();
            List<String> row = new ArrayList<>(List.of(
                    r.name(),
                    Integer.toString(r.tid()),
                    Long.toString(r.javaId()),
                    r.cpus(),
                    r.pin().text()));
            for (String event : columns.events()) {
                Long value = r.counters().get(event);
                row.add(value == null ? "" : value.toString());
                row.add(decimal(r.coverage().get(event)));
            }
            for (String metric : columns.metrics()) {
                row.add(decimal(r.metrics().get(metric)));
            }
            row.add(pairs(r.unsupported()));
            row.add(pairs(r.sources()));
            row.add(record.type());
            row.add(Long.toString(record.epochMillis()));
            row.add(Long.toString(r.wallNanos()));
            row.add(r.state() == null ? "" : r.state().text());
            row.add(r.pmu() == null ? "" : r.pmu());
            row.add(r.nameCut() ? "true" : "");
            lines.add(row(row));
        }
        return lines;
    }

    /** The events and metrics that have columns, in order. */
    record Columns(List<String> events, List<String> metrics) {
        /**
         * The events selected ({@code selected}, in --events order: a recording's run record names them, a command
         * knows its own), each with its column whether or not a record counted it; then any other event that some
         * of the records counted, in their order (all of them where the selected are not known: a recording of
         * stat's or an older agent's). Then every metric those events give: a metric none of the records could
         * compute, which a recording writes as null, still has its column of empty fields, so that the columns
         * depend on the events (docs/outputs.md). A metric a record holds that its events do not give (a recording
         * written by hand, or by another version) follows them, not lost.
         */
        static Columns of(List<String> selected, List<ThreadRecord> records) {
            Set<String> events = new LinkedHashSet<>(selected);
            for (ThreadRecord r : records) {
                events.addAll(r.report().counters().keySet());
            }
            Set<String> metrics = new LinkedHashSet<>(ThreadReport.metricNames(List.copyOf(events)));
            records.forEach(r -> metrics.addAll(r.report().metrics().keySet()));
            return new Columns(List.copyOf(events), List.copyOf(metrics));
        }

        /**
         * Every event named and every metric they give: known before the first row, for rows written as they come
         * under one header.
         */
        static Columns ofEvents(List<String> events) {
            return new Columns(List.copyOf(new LinkedHashSet<>(events)), ThreadReport.metricNames(events));
        }

        List<String> header() {
            List<String> header = new ArrayList<>(List.of("name", "tid", "javaId", "cpus", "pin"));
            for (String event : events) {
                header.add(event);
                header.add(event + ":coverage");
            }
            header.addAll(metrics);
            header.addAll(List.of("unsupported", "source", "type", "time", "wallNanos", "state", "pmu", "nameCut"));
            return header;
        }
    }

    private static String pairs(Map<String, String> byEvent) {
        if (byEvent.isEmpty()) {
            return "";
        }
        StringBuilder joined = new StringBuilder();
        for (Map.Entry<String, String> e : byEvent.entrySet()) {
            if (joined.length() > 0) {
                joined.append("; ");
            }
            joined.append(e.getKey()).append(": ").append(e.getValue());
        }
        return joined.toString();
    }

    /**
     * {@code value} as the shortest plain decimal that reads back as it. {@link Double#toString} is that decimal
     * already, but for a trailing {@code .0} and the exponent form it takes outside 10^-3 to 10^7, which is left to
     * BigDecimal; the rest is done here because a stat prints a few thousand of them, most of them before the JIT
     * compiles anything.
     */
    static String decimal(Double value) {
        if (value == null || value.isNaN()) {
            return "";
        }
        if (value.isInfinite()) {
            return value > 0 ? "inf" : "-inf";
        }
        if (value == 0) {
            return "0"; // and -0.0, as BigDecimal has no negative zero
        }
        String text = Double.toString(value);
        if (text.indexOf('E') >= 0) {
            return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
        }
        int end = text.length();
        while (text.charAt(end - 1) == '0') {
            end--;
        }
        return text.substring(0, text.charAt(end - 1) == '.' ? end - 1 : end);
    }

    /** {@code header} with the {@value #RECORDING} column first, for a report that joins several recordings. */
    static String recordingHeader(List<String> header) {
        List<String> fields = new ArrayList<>(List.of(RECORDING));
        fields.addAll(header);
        return row(fields);
    }

    /** A row ({@link #row}, whole, even over several lines) read from {@code recording}, with it first. */
    static String fromRecording(Path recording, String row) {
        StringBuilder line = new StringBuilder();
        field(line, recording.toString());
        return line.append(',').append(row).toString();
    }

    static String row(List<String> fields) {
        StringBuilder row = new StringBuilder();
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                row.append(',');
            }
            field(row, fields.get(i));
        }
        return row.toString();
    }

    /**
     * {@code text} as a field, appended to {@code row}: quoted when it holds a comma, a quote or a line break; quotes
     * inside doubled. Half a character (a lone surrogate, which a thread name may hold and UTF-8 cannot carry) is
     * U+FFFD, the character that stands for one. Most fields need none of it, and are looked at once.
     */
    private static void field(StringBuilder row, String text) {
        int i = 0;
        while (i < text.length() && plain(text.charAt(i))) {
            i++;
        }
        if (i == text.length()) {
            row.append(text);
            return;
        }
        String value = Json.wholeCharacters(text);
        boolean quote = value.indexOf(',') >= 0
                || value.indexOf('"') >= 0
                || value.indexOf('\n') >= 0
                || value.indexOf('\r') >= 0;
        row.append(quote ? '"' + value.replace("\"", "\"\"") + '"' : value);
    }

    /** A character a field may hold as it is: neither a quote's reason nor half a character. */
    private static boolean plain(char c) {
        return c != ',' && c != '"' && c != '\n' && c != '\r' && !Character.isSurrogate(c);
    }
}
