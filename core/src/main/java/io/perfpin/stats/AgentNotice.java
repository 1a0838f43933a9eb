package io.perfpin.stats;

import io.perfpin.options.UrlText;

/**
 * Something the agent told its user, as its stats file keeps it for viewers to show in their own output.
 *
 * @param refused whether it is something the options asked (a pin, a thread counted) that the agent could not do,
 *                as against information (an event this machine cannot count, say)
 */
public record AgentNotice(boolean refused, String text) {
    /** Every notice, on stderr or in the stats file, shows a URL with its credentials masked ({@link UrlText}). */
    public AgentNotice {
        text = UrlText.masked(text);
    }

    public static AgentNotice info(String text) {
        return new AgentNotice(false, text);
    }

    public static AgentNotice refused(String text) {
        return new AgentNotice(true, text);
    }
}
