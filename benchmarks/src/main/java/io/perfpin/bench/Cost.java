package io.perfpin.bench;

/**
 * What a tool costs: what it adds over running with no tool at all, perfpin's beside a peer's that does the same
 * work, and how many times the peer's addition perfpin's is. A ratio of total times would hide the cost in what
 * both runs share (the JVM's own start, the thread's own work); the addition is what a user pays for the tool.
 *
 * @param none        the figure with no tool, or null where the figure is a cost already (a command's own time)
 * @param perfpinAdds perfpin's figure less {@code none}
 * @param peerAdds    the peer's figure less {@code none}; null where no peer was measured
 */
public record Cost(Summary none, Summary perfpinAdds, Summary peerAdds) {

    /** From the figures as measured: with no tool, with perfpin, with the peer (null when not measured). */
    public static Cost measured(Summary none, Summary perfpin, Summary peer) {
        return new Cost(none, Summary.difference(perfpin, none), peer == null ? null : Summary.difference(peer, none));
    }

    /** perfpin's addition over the peer's; null without a peer, or where the peer's median adds nothing. */
    public Summary ratio() {
        return peerAdds == null ? null : Summary.additionRatio(perfpinAdds, peerAdds);
    }
}
