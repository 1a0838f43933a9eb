package io.perfpin.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

/**
 * {@code docs/benchmarks.md}: the machine, how the run was made, every headline figure in one table, then
 * each benchmark's details. Written whole from one run, so every ratio in it was measured side by side.
 */
final class BenchReport {
    private BenchReport() {}

    static String render(
            Map<String, String> machine,
            List<String> settings,
            List<Section> sections,
            Instant finished,
            Duration took) {
        StringBuilder text = new StringBuilder();
        text.append("# Benchmarks\n\n")
                .append("Written by `./bench` (module `benchmarks`) on ")
                .append(finished.truncatedTo(ChronoUnit.SECONDS))
                .append(", in ")
                .append(took.toMinutes())
                .append(" min ")
                .append(took.toSecondsPart())
                .append(" s. ")
                .append("Run it again to refresh this file: it is generated whole, edits are lost. ")
                .append("Benchmarks report; they assert nothing, and a missed target is said, not tuned away.\n\n");
        MarkdownTable machineTable = new MarkdownTable("machine", "");
        machine.forEach(machineTable::row);
        text.append("## Machine\n\n").append(machineTable.render()).append('\n');
        text.append("## How\n\n");
        settings.forEach(s -> text.append("- ").append(s).append('\n'));
        text.append('\n');
        text.append("## Results\n\n").append(results(sections));
        sections.forEach(section -> text.append(details(section)));
        return text.toString();
    }

    /**
     * Every headline figure of these sections in one table: each a cost, what perfpin adds over no tool, beside
     * what a peer adds for the same work and the kernel's floor; never a ratio of total times, which hides it.
     */
    static String results(List<Section> sections) {
        MarkdownTable headlines = new MarkdownTable(
                "measurement",
                "no tool: median (min–max)",
                "perfpin − no tool",
                "peer − no tool",
                "perfpin's addition / peer's",
                "kernel's floor",
                "target",
                "verdict");
        for (Section section : sections) {
            for (Headline h : section.headlines()) {
                headlines.row(
                        h.measurement(),
                        h.noTool(),
                        h.perfpin(),
                        h.peer(),
                        h.ratio(),
                        h.floor(),
                        h.target(),
                        h.verdict().text());
            }
        }
        return headlines.render() + '\n';
    }

    /** One benchmark's heading, tables of detail and notes. */
    static String details(Section section) {
        StringBuilder text = new StringBuilder("## ").append(section.title()).append("\n\n");
        section.details().forEach(t -> text.append(t.render()).append('\n'));
        section.notes().forEach(n -> text.append("- ").append(n).append('\n'));
        return text.append('\n').toString();
    }

    static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
