package io.perfpin.cli;

import io.perfpin.report.Hint;
import io.perfpin.report.MethodRecord;
import io.perfpin.report.JsonLinesFile;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a command writes its reports: standard output, or a private file written through and flushed block
 * by block like the agent's recording ({@link JsonLinesFile}), so that what was written survives a later
 * failure. Hints go with a table, where people read; beside CSV or JSON they go to the terminal instead,
 * keeping the data parseable: to standard output when the data goes to a file, else to standard error.
 */
final class ReportOutput implements AutoCloseable {
    private final ReportFormat format;
    private final JsonLinesFile file;

    private ReportOutput(ReportFormat format, JsonLinesFile file) {
        this.format = format;
        this.file = file;
    }

    /** @param output null for standard output */
    static ReportOutput open(ReportFormat format, Path output) throws IOException {
        if (output == null) {
            return new ReportOutput(format, null);
        }
        try {
            return new ReportOutput(format, JsonLinesFile.create(output));
        } catch (IOException e) {
            throw new IOException("--output: " + e.getMessage(), e);
        }
    }

    void records(List<ThreadRecord> records) throws IOException {
        write(format.render(records));
    }

    void methods(List<MethodRecord> methods) throws IOException {
        write(format.renderMethods(methods));
    }

    void hints(List<Hint> hints) throws IOException {
        if (hints.isEmpty()) {
            return;
        }
        List<String> lines = hintLines(hints);
        if (format == ReportFormat.TABLE) {
            write(lines);
        } else {
            PrintStream terminal = file != null ? System.out : System.err;
            lines.forEach(terminal::println);
        }
    }

    /** Hints under a heading, set off by a blank line, for a terminal; nothing when there are none. */
    static List<String> hintLines(List<Hint> hints) {
        List<String> lines = new ArrayList<>();
        if (!hints.isEmpty()) {
            lines.add("");
            lines.add("Hints:");
            hints.forEach(h -> lines.add(TerminalText.escape("  " + h)));
        }
        return lines;
    }

    private void write(List<String> lines) throws IOException {
        if (file == null) {
            lines.forEach(System.out::println);
            System.out.flush();
            return;
        }
        for (String line : lines) {
            file.write(line);
        }
        file.flush();
    }

    @Override
    public void close() throws IOException {
        if (file != null) {
            file.close();
        }
    }
}
