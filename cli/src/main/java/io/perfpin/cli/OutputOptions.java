package io.perfpin.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** {@code --format} and {@code --output}, the agent's {@code format=} and {@code out=}: how and where reports go. */
final class OutputOptions {
    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            defaultValue = "table",
            converter = Format.class,
            description =
                    "table, csv (header row, a row per thread), json (JSON lines) or html (report only: a page with"
                            + " plots); default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Option(
            names = "--output",
            paramLabel = "FILE",
            description = "Write the report to FILE (created 0600, its directory 0700 when missing) instead of"
                    + " standard output.")
    Path output;

    /** The options as when none is given: a table on standard output. */
    static OutputOptions table() {
        OutputOptions options = new OutputOptions();
        options.format = ReportFormat.TABLE;
        return options;
    }

    /**
     * Where the report goes; opened before any counting, so that an unwritable FILE costs no measurement, and
     * refused where FILE is one of the files the command reads, {@code inputs}: the report would replace it.
     */
    ReportOutput open(List<Path> inputs) throws IOException {
        if (format == ReportFormat.HTML) {
            throw new IllegalArgumentException(
                    "--format html: a page is made from recordings, by perfpin report;" + " here: table, csv or json");
        }
        return openPage(inputs);
    }

    /** As {@link #open(List)}, for a command that reads no file. */
    ReportOutput open() throws IOException {
        return open(List.of());
    }

    /** Where {@code report}'s page goes, for {@code --format html}, refused where it is one of {@code inputs}. */
    ReportOutput openPage(List<Path> inputs) throws IOException {
        if (output != null) {
            for (Path input : inputs) {
                if (SameFile.of(output).equals(SameFile.of(input))) {
                    throw new IllegalArgumentException("--output " + output + ": the same file as " + input
                            + ", which this command reads; write the report to another file");
                }
            }
        }
        return ReportOutput.open(format, output, TableLayout.ALL);
    }

    static final class Format implements ITypeConverter<ReportFormat> {
        @Override
        public ReportFormat convert(String token) {
            return ReportFormat.parse(token);
        }
    }
}
