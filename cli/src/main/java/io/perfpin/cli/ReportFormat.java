package io.perfpin.cli;

import io.perfpin.report.MethodRecord;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** How thread reports are written ({@code --format}, the agent's {@code format=}): the one place that chooses. */
enum ReportFormat {
    /** Aligned columns for people ({@link ReportTable}). */
    TABLE,
    /** A header row, then a row per thread ({@link ReportCsv}). */
    CSV,
    /** JSON lines, one record per thread ({@link ThreadRecords}). */
    JSON,
    /** One self-contained page with plots, from recordings: {@code report} only ({@link HtmlReport}). */
    HTML;

    static final String ALLOWED = "table, csv, json or html";

    /** @throws IllegalArgumentException naming the token and the formats */
    static ReportFormat parse(String token) {
        for (ReportFormat format : values()) {
            if (format.toString().equals(token.toLowerCase(Locale.ROOT))) {
                return format;
            }
        }
        throw new IllegalArgumentException("bad format '" + token + "': expected " + ALLOWED);
    }

    List<String> render(List<ThreadRecord> records) {
        return render(records, List.of(), TableLayout.ALL);
    }

    /**
     * @param events the events selected, in --events order, where known (else empty): CSV has a column for each,
     *               counted or not ({@link ReportCsv.Columns#of})
     * @param layout how a table lays the records out; CSV and JSON keep every value, in the order given
     */
    List<String> render(List<ThreadRecord> records, List<String> events, TableLayout layout) {
        return switch (this) {
            case CSV -> ReportCsv.render(records, events);
            case JSON -> json(records, null);
            default -> table(records, layout);
        };
    }

    /** JSON lines, one per record; each says the file it was read from ({@code recording}) unless that is null. */
    static List<String> json(List<ThreadRecord> records, Path recording) {
        return records.stream()
                .map(r -> ThreadRecords.toJson(r.type(), recording, r.epochMillis(), r.report()))
                .collect(Collectors.toList());
    }

    /**
     * The {@code @Counted} methods after the threads, in the same format, a table in at most {@code width} terminal
     * columns (0: however wide); nothing when there are none.
     */
    List<String> renderMethods(List<MethodRecord> methods, int width) {
        if (methods.isEmpty()) {
            return List.of();
        }
        return switch (this) {
            case CSV -> {
                List<String> lines = new ArrayList<>(List.of("", ReportCsv.row(MethodTable.CSV_COLUMNS)));
                MethodTable.rows(methods).forEach(row -> lines.add(ReportCsv.row(row)));
                yield lines;
            }
            case JSON -> methods.stream().map(MethodRecord::toJson).collect(Collectors.toList());
            default -> MethodTable.render(methods, width);
        };
    }

    /** A thread without a final record is shown from its last live sample, and said so below the table. */
    private static List<String> table(List<ThreadRecord> records, TableLayout layout) {
        List<ThreadReport> reports = records.stream().map(ThreadRecord::report).collect(Collectors.toList());
        List<String> lines = new ArrayList<>(ReportTable.render(reports, layout));
        List<String> unfinished = records.stream()
                .filter(r -> !r.isFinal())
                .map(r -> TerminalText.escape(r.report().name()) + " (tid "
                        + r.report().tid() + ")")
                .collect(Collectors.toList());
        if (!unfinished.isEmpty()) {
            lines.add("");
            String said = "No final record, shown from the last live sample (the thread still ran when the recording"
                    + " ended):";
            String line = said + " " + String.join(", ", unfinished);
            int width = layout.width();
            if (width <= 0 || TerminalText.width(line) <= width) {
                lines.add(line);
            } else {
                // The names under it, so that none is broken from its tid.
                lines.add(said);
                lines.addAll(ReportTable.fold("  " + String.join(", ", unfinished), width));
            }
        }
        return lines;
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
