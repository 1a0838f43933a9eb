package io.perfpin.cli;

import io.perfpin.files.FileErrors;
import io.perfpin.report.Comparison;
import io.perfpin.report.Recording;
import io.perfpin.report.RecordingFile;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.Timelines;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The summary of a JSON-lines recording (the agent's {@code out=}, or {@code --format json --output}): one
 * record per thread, its final one or else its last live sample (in a table busiest first), then the hints its
 * numbers suggest;
 * then the same of each JVM that the recorded one started with its options, recorded beside it (a run's family,
 * {@link StartedJvms}). Several recordings follow one another ({@link ReportOutput#recordings}). With
 * {@code --format html}, a page with plots over time, of one recording or of several side by side, then of each JVM
 * that one of them started under its own heading.
 */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        description = {
            "Summarise a recorded JSON-lines file: each thread's final record (or its last live sample"
                    + " when the recording ended first; in a table busiest first), then hints; then those of each"
                    + " JVM it started that recorded beside it (JMH's forks), each under its own heading.",
            "Several FILEs follow one another; in CSV and JSON each row says the file it came from (recording).",
            "With --format html: one self-contained page with each thread's plots over time; several FILEs are"
                    + " compared side by side (before, after); each JVM they started follows under its own"
                    + " heading.",
            "A last line cut short by a crash is skipped with a warning."
        })
final class ReportCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", arity = "1..*", description = "A JSON-lines recording, or several.")
    List<Path> files;

    @Mixin
    ThreadsOption threads;

    @Mixin
    ViewOptions view;

    @Option(
            names = "--busiest-virtual",
            paramLabel = "N",
            converter = ViewOptions.Count.class,
            description = "Also show the N busiest virtual threads of each group (the most task-clock) as themselves;"
                    + " virtual threads are shown by group otherwise.")
    Integer busiestVirtual;

    @Mixin
    OutputOptions output;

    @Override
    public Integer call() throws IOException {
        // A file named twice, however spelt, is reported once, as it was first named.
        Set<Object> named = new HashSet<>();
        files = files.stream().filter(file -> named.add(SameFile.of(file))).toList();
        if (output.format == ReportFormat.HTML) {
            return page();
        }
        List<RecordedJvm> jvms = new ArrayList<>();
        families().forEach(jvms::addAll);
        view.checkColumns(
                columns(jvms), files.size() == 1 ? files.get(0).toString() : "the " + files.size() + " recordings");
        try (ReportOutput out = output.open(read(jvms))) {
            out.recordings(jvms, RecordingReport.table(view));
        }
        return ExitCode.OK;
    }

    /**
     * Each FILE's {@link #family}, but for a FILE already in another's, as a started JVM: report F F.PID.jsonl shows
     * the fork once, under F's heading.
     */
    private List<List<RecordedJvm>> families() throws IOException {
        Set<Object> started = new HashSet<>();
        for (Path file : files) {
            List<Path> family;
            try {
                family = RecordingFile.family(file);
            } catch (IOException e) {
                throw FileErrors.unreadable(file, e);
            }
            family.subList(1, family.size()).forEach(member -> started.add(SameFile.of(member)));
        }
        List<List<RecordedJvm>> families = new ArrayList<>();
        for (Path file : files) {
            if (!started.contains(SameFile.of(file))) {
                families.add(family(file));
            }
        }
        return families;
    }

    /**
     * The columns a table of the recordings can show, each once: the events their run records say (else those their
     * threads' counts show: a recording cut short before its run record), and the metrics their threads hold.
     */
    private static List<String> columns(List<RecordedJvm> jvms) {
        Set<String> columns = new LinkedHashSet<>();
        Set<String> metrics = new LinkedHashSet<>();
        for (RecordedJvm jvm : jvms) {
            List<String> said = jvm.recording().events();
            if (said.isEmpty()) {
                jvm.threads().forEach(t -> columns.addAll(t.report().counters().keySet()));
            } else {
                columns.addAll(said);
            }
            jvm.threads().forEach(t -> metrics.addAll(t.report().metrics().keySet()));
        }
        columns.addAll(metrics);
        return new ArrayList<>(columns);
    }

    /** The files the report is made from: a report written over one of them would replace it. */
    private static List<Path> read(List<RecordedJvm> jvms) {
        return jvms.stream().map(RecordedJvm::file).toList();
    }

    /**
     * The JVM recorded in {@code file}, then those it started, recorded beside it ({@link StartedJvms}): a JMH run
     * with {@code --threads} for its workers finds them in its forks' files only. No thread shown in any of them
     * is an error, unless one of them holds {@code @Counted} methods.
     */
    private List<RecordedJvm> family(Path file) throws IOException {
        List<RecordedJvm> family = new ArrayList<>(
                List.of(RecordedJvm.of(file, read(file), threads, false, busiestVirtual == null ? 0 : busiestVirtual)));
        family.addAll(StartedJvms.read("report", file, threads));
        int started = family.size() - 1;
        // A recording of @Counted methods only (threads=none, or a pattern no thread matched) is shown as such.
        if (family.stream().anyMatch(jvm -> !jvm.recording().methods().isEmpty())) {
            return family;
        }
        if (family.stream().allMatch(jvm -> jvm.recording().threads().isEmpty())) {
            throw new IllegalStateException(file
                    + (started == 0
                            ? " holds"
                            : ", and the recordings beside it of the " + jvms(started) + " it started, hold")
                    + " no thread records");
        }
        if (family.stream().allMatch(jvm -> jvm.threads().isEmpty())) {
            throw new IllegalArgumentException("no thread recorded in " + file
                    + (started == 0 ? "" : " or beside it by the " + jvms(started) + " it started") + " matches "
                    + threads.forRecording(family.get(0).recording()).describe());
        }
        return family;
    }

    private static String jvms(int count) {
        return count == 1 ? "JVM" : count + " JVMs";
    }

    /**
     * The page: each recording's threads side by side, the busiest followed over time; then each JVM that one of
     * them started, recorded beside it (its family, as the other formats read it), under its own heading.
     */
    private int page() throws IOException {
        List<List<RecordedJvm>> families = families();
        boolean started = families.stream().anyMatch(family -> family.size() > 1);
        List<RecordedJvm> named = families.stream().map(family -> family.get(0)).toList();
        // Several named recordings are told apart by their labels; one with a family, by the JVMs' headings.
        List<HtmlReport.Part> parts = new ArrayList<>(
                List.of(part(named, started && named.size() == 1 ? named.get(0).heading() : null)));
        for (List<RecordedJvm> family : families) {
            for (RecordedJvm jvm : family.subList(1, family.size())) {
                parts.add(part(List.of(jvm), jvm.heading()));
            }
        }
        // Whole before the file is opened, and written in one piece: a page that fails is no page left half-written.
        String page = HtmlReport.render(parts);
        try (ReportOutput out =
                output.openPage(read(families.stream().flatMap(List::stream).toList()))) {
            out.page(List.of(page));
        }
        return ExitCode.OK;
    }

    /** The JVMs' recordings side by side, under {@code heading} (null for none), their busiest threads plotted. */
    private HtmlReport.Part part(List<RecordedJvm> jvms, String heading) {
        List<List<ThreadRecord>> selected =
                jvms.stream().map(RecordedJvm::threads).toList();
        List<Comparison.Row> rows = Comparison.byName(selected);
        Set<String> plotted = new HashSet<>();
        rows.subList(0, Math.min(HtmlReport.PLOTTED, rows.size()))
                .forEach(row -> row.runs().forEach(t -> {
                    if (t != null) {
                        plotted.add(t.threadKey());
                    }
                }));
        Set<String> plottedGroups = new HashSet<>();
        List<HtmlReport.GroupRow> groups = HtmlReport.groups(selected);
        groups.subList(0, Math.min(HtmlReport.PLOTTED, groups.size()))
                .forEach(group -> plottedGroups.add(group.totals().name()));
        List<HtmlReport.Run> runs = new ArrayList<>();
        for (RecordedJvm jvm : jvms) {
            Timelines timelines;
            try {
                timelines = Timelines.read(jvm.file(), plotted, plottedGroups);
            } catch (IOException e) {
                throw FileErrors.unreadable(jvm.file(), e);
            }
            Recording recording = jvm.recording();
            runs.add(new HtmlReport.Run(
                    label(jvm.file()), recording.run().orElse(null), jvm.threads(), recording.methods(), timelines));
        }
        String nothing = rows.isEmpty() ? jvms.get(0).nothing() : null;
        return new HtmlReport.Part(heading, nothing, runs, rows, groups);
    }

    /** A recording's name on the page: its file name, or its path where two have the same name. */
    private String label(Path file) {
        long same = files.stream()
                .filter(f -> f.getFileName().equals(file.getFileName()))
                .count();
        return same > 1 ? file.toString() : file.getFileName().toString();
    }

    private static Recording read(Path file) {
        Recording recording;
        try {
            recording = Recording.read(file);
        } catch (IOException e) {
            throw FileErrors.unreadable(file, e);
        } catch (IllegalArgumentException notARecording) {
            throw new IllegalStateException(notARecording.getMessage());
        }
        RecordingReport.caveats("report", file, recording);
        return recording;
    }
}
