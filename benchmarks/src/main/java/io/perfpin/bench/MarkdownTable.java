package io.perfpin.bench;

import java.util.ArrayList;
import java.util.List;

/** A table in GitHub markdown; cells are text, a {@code |} inside one is escaped. */
public final class MarkdownTable {
    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    public MarkdownTable(String... header) {
        this.header = List.of(header);
    }

    public MarkdownTable row(String... cells) {
        if (cells.length != header.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + header.size() + " columns");
        }
        rows.add(List.of(cells));
        return this;
    }

    public String render() {
        StringBuilder text = new StringBuilder();
        line(text, header);
        line(text, header.stream().map(h -> "---").toList());
        rows.forEach(r -> line(text, r));
        return text.toString();
    }

    private static void line(StringBuilder text, List<String> cells) {
        text.append('|');
        for (String cell : cells) {
            text.append(' ').append(cell.replace("|", "\\|")).append(" |");
        }
        text.append('\n');
    }
}
