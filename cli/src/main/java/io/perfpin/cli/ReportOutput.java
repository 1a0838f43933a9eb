package io.perfpin.cli;

import io.perfpin.files.OutputFile;
import io.perfpin.report.Hint;
import io.perfpin.report.JsonLinesFile;
import io.perfpin.report.MethodRecord;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where a command writes its reports: standard output, or a private file written through and flushed block
 * by block like the agent's recording ({@link JsonLinesFile}), so that what was written survives a later
 * failure. Hints go with a table, where people read; beside CSV or JSON they go to the terminal instead,
 * keeping the data parseable: to standard output when the data goes to a file, else to standard error.
 *
 * <p>The file is checked when the output is opened, before the command measures anything, and made (replacing one
 * of the user's) only when the first lines are written: a command that fails before it has anything to write, its
 * target gone or refused, leaves a file already there as it was.
 */
final class ReportOutput implements AutoCloseable {
    private final ReportFormat format;
    /** The --output FILE; null for standard output. */
    private final Path output;
    /** {@link #output} once made, by the first write; null until then. */
    private JsonLinesFile file;
    /** The file this run made at {@link #output}, by its first write: only that one is removed after a failure. */
    private Object made;
    /**
     * Whether the first write replaced a file of the user's: one that fails then leaves what it wrote, since removing
     * it would leave neither that file nor this output.
     */
    private boolean replaced;
    /** Set once a write failed and the file was removed: nothing more is written or closed. */
    private boolean failed;
    /** How tables of samples are laid out; its width is also that of the lines for people beside them (hints). */
    private TableLayout layout;
    /** The columns of the CSV header written before the first interval's rows; null until then. */
    private ReportCsv.Columns intervalColumns;

    private boolean intervals;

    private ReportOutput(ReportFormat format, Path output, TableLayout layout) {
        this.format = format;
        this.output = output;
        this.layout = layout;
    }

    /** @param output null for standard output; else checked now, and made by the first write */
    static ReportOutput open(ReportFormat format, Path output, TableLayout layout) throws IOException {
        if (output != null) {
            if (output.toString().isEmpty()) {
                throw new IllegalArgumentException("--output '': an empty name; expected a file to write");
            }
            try {
                OutputFile.check(output);
            } catch (IOException e) {
                throw new IOException("--output: " + e.getMessage(), e);
            }
        }
        return new ReportOutput(format, output, layout);
    }

    /**
     * Lays out the tables of samples written from now on as {@code samples} says, and fits hints to its width: a
     * live view knows its layout only once it knows whether it draws on a terminal, after the command has opened its
     * output.
     */
    void layout(TableLayout samples) {
        layout = samples;
    }

    ReportFormat format() {
        return format;
    }

    /** Whether the data goes to standard output (not to an --output file). */
    boolean toStandardOutput() {
        return output == null;
    }

    /** Whether standard output holds data to be parsed, CSV or JSON, which nothing else may write into. */
    boolean parseableOnStandardOutput() {
        return output == null && format != ReportFormat.TABLE;
    }

    /**
     * Where lines for people go beside the data: with the data when it is a table; to the terminal beside CSV or
     * JSON, so that they stay parseable: standard output when the data goes to a file, else standard error.
     */
    PrintStream people() {
        return format == ReportFormat.TABLE || output != null ? System.out : System.err;
    }

    /** Lines for people: with a table's data, else to {@link #people()}. */
    void say(List<String> lines) throws IOException {
        if (format == ReportFormat.TABLE) {
            write(lines);
        } else {
            lines.forEach(people()::println);
            people().flush();
        }
    }

    /**
     * A whole report, a table laid out as {@code table} says, CSV with a column for each of {@code events} (those
     * selected, in --events order; empty where not known). After intervals: in CSV, rows under the header the
     * intervals' rows have; in a table, under a line that tells it from the intervals' blocks.
     */
    void records(List<ThreadRecord> records, List<String> events, TableLayout table) throws IOException {
        if (format == ReportFormat.CSV && intervalColumns != null) {
            write(ReportCsv.rows(records, intervalColumns));
            notCountedBeside(records);
            return;
        }
        if (format == ReportFormat.TABLE && intervals) {
            write(List.of("--- totals: each thread's counts since it was first counted ---"));
        }
        write(format.render(records, events, table));
        notCountedBeside(records);
    }

    /**
     * Beside CSV or JSON, the events not counted, for people, as a table says them under itself: the data holds them
     * as fields (unsupported), which no one reads on a terminal.
     */
    private void notCountedBeside(List<ThreadRecord> records) throws IOException {
        if (format != ReportFormat.TABLE) {
            say(ReportTable.notCountedLines(
                    ReportTable.notCounted(
                            records.stream().map(ThreadRecord::report).collect(Collectors.toList())),
                    layout.width()));
        }
    }

    /**
     * One interval's samples as they come: under {@code heading} (and {@code notes}, lines said once) in a table,
     * as rows under one header for all intervals in CSV (with a column for every event of {@code events} and every
     * metric they give, known before the first row), as JSON lines.
     */
    void interval(String heading, List<String> notes, List<ThreadRecord> samples, List<String> events, String empty)
            throws IOException {
        intervals = true;
        switch (format) {
            case TABLE -> {
                List<String> lines = new ArrayList<>(List.of(heading));
                lines.addAll(notes);
                lines.addAll(
                        samples.isEmpty()
                                ? List.of(empty)
                                : ReportTable.render(
                                        samples.stream()
                                                .map(ThreadRecord::report)
                                                .collect(Collectors.toList()),
                                        layout));
                write(lines);
            }
            case CSV -> {
                List<String> rows = new ArrayList<>();
                if (intervalColumns == null) {
                    intervalColumns = ReportCsv.Columns.ofEvents(events);
                    rows.add(ReportCsv.row(intervalColumns.header()));
                }
                rows.addAll(ReportCsv.rows(samples, intervalColumns));
                write(rows);
            }
            default -> write(format.render(samples));
        }
    }

    /** A whole page, as it is. */
    void page(List<String> lines) throws IOException {
        write(lines);
    }

    /**
     * Sets off what follows as the records of another JVM, one started with the same agent options and recorded
     * beside the file reported ({@link io.perfpin.report.RecordingFile}): in a table under its heading (with what is
     * said when none of its threads is shown), in CSV as a block of its own after a blank line, in JSON after its
     * {@code "type":"jvm"} record.
     */
    void startedJvm(RecordedJvm jvm) throws IOException {
        switch (format) {
            case TABLE -> {
                List<String> lines = new ArrayList<>(List.of(""));
                lines.addAll(ReportTable.fold(jvm.heading(), layout.width()));
                if (jvm.nothing() != null) {
                    lines.add(jvm.nothing());
                }
                write(lines);
            }
            case CSV -> write(List.of(""));
            default -> write(List.of(jvm.recording().jvm().orElseThrow().toJson()));
        }
    }

    /**
     * The JVMs' recordings that {@code report} shows, one after another, their threads as {@code table} lays them
     * out: each with its {@code @Counted} methods and its hints. Where there are several (the JVMs a run started,
     * or several FILEs), a table shows each under its heading; CSV is one table, a {@code recording} column first
     * saying where each row was read from, the methods' rows likewise after a blank line; JSON lines each say it in
     * their {@code recording} field, and a started JVM's records follow its {@code "type":"jvm"} record.
     */
    void recordings(List<RecordedJvm> jvms, TableLayout table) throws IOException {
        layout = table;
        boolean several = jvms.size() > 1;
        if (format == ReportFormat.CSV && several) {
            recordingsCsv(jvms);
            return;
        }
        for (int i = 0; i < jvms.size(); i++) {
            RecordedJvm jvm = jvms.get(i);
            // The file each record was read from, in the user's words (a started JVM's spelt beside the named file).
            Path recording = several ? jvm.file() : null;
            if (format == ReportFormat.TABLE && several) {
                List<String> lines = new ArrayList<>(i == 0 ? List.of() : List.of(""));
                lines.addAll(ReportTable.fold(jvm.heading(), layout.width()));
                if (jvm.nothing() != null) {
                    lines.add(jvm.nothing());
                }
                write(lines);
            } else if (format == ReportFormat.JSON && jvm.started()) {
                write(List.of(jvm.recording().jvm().orElseThrow().toJson(recording)));
            }
            if (!jvm.threads().isEmpty()) {
                write(
                        format == ReportFormat.JSON
                                ? ReportFormat.json(jvm.threads(), recording)
                                : format.render(jvm.threads(), jvm.recording().events(), table));
                notCountedBeside(jvm.threads());
            }
            List<MethodRecord> methods = jvm.recording().methods();
            write(
                    format == ReportFormat.JSON
                            ? methods.stream().map(m -> m.toJson(recording)).collect(Collectors.toList())
                            : format.renderMethods(methods, table.width()));
            hints(RecordingReport.hints(jvm.threads()));
            String simulated = Stream.concat(
                            jvm.threads().stream().map(t -> t.report().pmu()),
                            methods.stream().map(MethodRecord::pmu))
                    .filter(Objects::nonNull)
                    .findFirst()
                    .orElse(null);
            if (format == ReportFormat.TABLE && simulated != null) {
                write(List.of(simulatedPmu(simulated)));
            }
        }
    }

    /** Under a table whose hardware counts a simulated PMU made (tests only): they are no measurement. */
    static String simulatedPmu(String pmu) {
        return "hardware counts from a " + pmu
                + " PMU, made from each thread's task-clock for tests: not a measurement";
    }

    /** Every JVM's rows under one header, the file each was read from first; then the methods' likewise. */
    private void recordingsCsv(List<RecordedJvm> jvms) throws IOException {
        List<ThreadRecord> all = new ArrayList<>();
        List<String> events = new ArrayList<>();
        jvms.forEach(jvm -> {
            all.addAll(jvm.threads());
            events.addAll(jvm.recording().events());
        });
        ReportCsv.Columns columns = ReportCsv.Columns.of(events, all);
        List<String> lines = new ArrayList<>(List.of(ReportCsv.recordingHeader(columns.header())));
        List<String> methods = new ArrayList<>();
        for (RecordedJvm jvm : jvms) {
            ReportCsv.rows(jvm.threads(), columns).forEach(row -> lines.add(ReportCsv.fromRecording(jvm.file(), row)));
            MethodTable.rows(jvm.recording().methods())
                    .forEach(row -> methods.add(ReportCsv.fromRecording(jvm.file(), ReportCsv.row(row))));
        }
        if (!methods.isEmpty()) {
            lines.addAll(List.of("", ReportCsv.recordingHeader(MethodTable.CSV_COLUMNS)));
            lines.addAll(methods);
        }
        write(lines);
        notCountedBeside(all);
        hints(RecordingReport.hints(all));
    }

    /** The {@code @Counted} methods, a table as wide as {@code table} lets it be. */
    void methods(List<MethodRecord> methods, TableLayout table) throws IOException {
        write(format.renderMethods(methods, table.width()));
    }

    void hints(List<Hint> hints) throws IOException {
        if (!hints.isEmpty()) {
            say(hintLines(hints, layout.width()));
        }
    }

    /**
     * Hints under a heading, set off by a blank line, for a terminal, each in lines of at most {@code width} terminal
     * columns (0: one line however long); nothing when there are none.
     */
    static List<String> hintLines(List<Hint> hints, int width) {
        List<String> lines = new ArrayList<>();
        if (!hints.isEmpty()) {
            lines.add("");
            lines.add("Hints:");
            hints.forEach(h -> lines.addAll(ReportTable.fold(TerminalText.escape("  " + h), width)));
        }
        return lines;
    }

    private void write(List<String> lines) throws IOException {
        if (output == null) {
            // CSV keeps another program's text as it is, for the program that reads it; read on a terminal, a name's
            // controls are shown escaped, as in a table, rather than acted on
            boolean escaped = format == ReportFormat.CSV && LiveView.isTerminal();
            for (String line : lines) {
                System.out.println(escaped ? TerminalText.escape(line) : line);
            }
            System.out.flush();
            return;
        }
        if (file == null) {
            replaced = Files.exists(output, LinkOption.NOFOLLOW_LINKS);
            try {
                file = JsonLinesFile.create(output);
            } catch (IOException e) {
                throw new IOException("--output: " + e.getMessage(), e);
            }
            made = SameFile.of(output);
        }
        try {
            for (String line : lines) {
                file.write(line);
            }
            file.flush();
        } catch (IOException e) {
            throw removed(e);
        }
    }

    @Override
    public void close() throws IOException {
        if (file != null && !failed) {
            try {
                file.close();
            } catch (IOException e) {
                throw removed(e);
            }
        }
    }

    /**
     * A write to the file this run made failed (a full disk): the file goes, as a command that fails leaves no half
     * of its output, unless another file took its name meanwhile; the failure names it.
     */
    private IOException removed(IOException e) {
        String what = "--output " + output + ": " + e.getMessage();
        failed = true;
        try {
            file.close();
        } catch (IOException alsoFailed) {
            // the failure that counts is the first
        }
        if (replaced) {
            return new IOException(what + "; it holds the part written, in place of the file it replaced", e);
        }
        try {
            if (removeMade()) {
                what += "; removed the part written";
            }
        } catch (IOException notRemoved) {
            what += "; cannot remove the part written: " + notRemoved.getMessage();
        }
        return new IOException(what, e);
    }

    /**
     * Removes the file this run made, where its name still holds it: looked at and removed in its directory opened
     * once, so that no path is walked twice, and a directory on the way that was swapped meanwhile (in a directory
     * another user may change) makes perfpin remove nothing of anyone else's.
     */
    private boolean removeMade() throws IOException {
        Path name = output.getFileName();
        try (DirectoryStream<Path> directory =
                Files.newDirectoryStream(output.toAbsolutePath().getParent())) {
            if (!(directory instanceof SecureDirectoryStream<Path> opened)) {
                return false; // no directory descriptor to work from: left as it is
            }
            Object there = opened.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes()
                    .fileKey();
            if (!made.equals(there)) {
                return false;
            }
            opened.deleteFile(name);
            return true;
        } catch (NoSuchFileException gone) {
            return false;
        }
    }
}
