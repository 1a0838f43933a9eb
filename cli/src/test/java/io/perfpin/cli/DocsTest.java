package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.report.TerminalText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The output the README and the pages under docs/ quote fits {@value ViewOptions#DEFAULT_WIDTH} columns, as perfpin's
 * tables and notes do: a fenced block without a language is perfpin's output for people, and each of its lines fits,
 * but for a message, which is one line whatever its length (a user error, a refusal, a notice: it starts with
 * {@code perfpin }, {@code [perfpin] } or JMH's {@code # perfpin: }). Blocks with a language are not output for
 * people: {@code sh} commands, {@code csv} data (checked against the schema in OutputContractTest), {@code text}
 * another program's output quoted as it is.
 */
class DocsTest {
    private static final Path ROOT = Paths.get("..");
    private static final Pattern FENCE = Pattern.compile("^\\s*```(\\S*)\\s*$");
    private static final List<String> MESSAGES = List.of("perfpin ", "[perfpin] ", "# perfpin: ");

    @Test
    void everyQuotedOutputFits120Columns() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        assertTrue(pages.size() > 5, "the pages: " + pages);
        List<String> over = new ArrayList<>();
        int blocks = 0;
        for (Path page : pages) {
            String language = null;
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                Matcher fence = FENCE.matcher(line);
                if (fence.matches()) {
                    language = language == null ? fence.group(1) : null;
                    blocks += language != null && language.isEmpty() ? 1 : 0;
                } else if (language != null
                        && language.isEmpty()
                        && TerminalText.width(line) > ViewOptions.DEFAULT_WIDTH
                        && MESSAGES.stream().noneMatch(line::startsWith)) {
                    over.add(page.getFileName() + ":" + (i + 1) + " (" + TerminalText.width(line) + "): " + line);
                }
            }
            assertFalse(language != null, page + " ends inside a fenced block");
        }
        assertTrue(blocks > 10, "output blocks found: " + blocks);
        assertTrue(over.isEmpty(), "lines over " + ViewOptions.DEFAULT_WIDTH + " columns:\n" + String.join("\n", over));
    }
}
