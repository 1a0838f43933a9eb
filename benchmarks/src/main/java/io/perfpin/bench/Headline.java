package io.perfpin.bench;

import java.util.function.Function;

/**
 * One row of the report's first table: the figure with no tool, what perfpin adds to it and what the peer adds
 * (each with its name), how many times the peer's addition perfpin's is, the kernel's own floor for the same
 * work where there is one, the project's target for it and the verdict. Cells that do not apply are empty.
 */
public record Headline(
        String measurement,
        String noTool,
        String perfpin,
        String peer,
        String ratio,
        String floor,
        String target,
        Verdict verdict) {

    /**
     * A row of a {@link Cost}: {@code format} writes a figure with its unit, {@code peerName} names the peer in
     * its cell.
     */
    public static Headline of(
            String measurement,
            Cost cost,
            String peerName,
            Function<Summary, String> format,
            String floor,
            String target,
            Verdict verdict) {
        Summary ratio = cost.ratio();
        String ratioText =
                cost.peerAdds() == null ? "" : ratio == null ? "the peer adds nothing here" : ratio.format(2) + "x";
        return new Headline(
                measurement,
                cost.none() == null ? "" : format.apply(cost.none()),
                format.apply(cost.perfpinAdds()),
                cost.peerAdds() == null ? "" : peerName + ": " + format.apply(cost.peerAdds()),
                ratioText,
                floor,
                target,
                verdict);
    }

    /** A row with no peer to compare with: a figure of perfpin's own beside what it is measured over. */
    public static Headline alone(
            String measurement, String noTool, String perfpin, String floor, String target, Verdict verdict) {
        return new Headline(measurement, noTool, perfpin, "", "", floor, target, verdict);
    }
}
