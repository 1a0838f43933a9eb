package io.perfpin.bench;

import java.util.List;

/**
 * What one benchmark reports: its rows for the headline table, its own tables of detail, and notes that say
 * how it measured and what the figures show.
 */
public record Section(String title, List<Headline> headlines, List<MarkdownTable> details, List<String> notes) {}
