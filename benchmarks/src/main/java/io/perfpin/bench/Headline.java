package io.perfpin.bench;

/**
 * One row of the report's first table: a figure measured with perfpin beside its baseline from the same run,
 * their ratio or difference, the project's target for it and the verdict.
 */
public record Headline(String measurement, String perfpin, String baseline, String comparison, String target,
                       Verdict verdict) {
}
