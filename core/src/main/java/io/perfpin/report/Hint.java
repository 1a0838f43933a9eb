package io.perfpin.report;

/**
 * Advice for one thread, with the numbers that led to it, e.g. {@code thread 'io-1': page walks take 14.2%
 * of cycles (walk-cycles-share 0.142 > 0.10): try -XX:+UseLargePages}.
 *
 * @param finding  what the numbers say, in words
 * @param evidence the measured value against the threshold it crossed
 * @param advice   what to try
 */
public record Hint(String thread, String finding, String evidence, String advice) {
    @Override
    public String toString() {
        return "thread '" + thread + "': " + finding + " (" + evidence + "): " + advice;
    }
}
