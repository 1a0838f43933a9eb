package io.perfpin.stats;

import io.perfpin.options.UrlText;
import java.util.Objects;

/**
 * Something the agent told its user, as its stats file keeps it for viewers to show in their own output. A reader
 * tells notices apart by their {@link Kind}, never by their English text; the text is for people.
 *
 * @param kind    what sort of thing it says
 * @param subject what it is about, which with its kind makes it the same notice as another ({@link SaidOnce}): its
 *                text for most, the failed step for a failure (each exception of a step that keeps failing is the
 *                same notice), the event for one not counted. Not kept in the stats file: read back, it is the text
 * @param text    what it says, for people
 * @param cause   the exception a failure comes from, for the agent's {@code log=} file; null for none. Not kept in
 *                the stats file
 */
public record AgentNotice(Kind kind, String subject, String text, Throwable cause) {
    /** The sorts of notices, each with the code the stats file keeps ({@link StatsLayout}). */
    public enum Kind {
        /** Information: how the agent counts here (an event from /proc, a recording beside the one asked). */
        INFO(StatsLayout.NOTICE_INFO, "info"),
        /** Something the options asked (a pin, a thread counted, an export) that the agent could not do. */
        REFUSED(StatsLayout.NOTICE_REFUSED, "refused"),
        /** An event this machine or kernel does not count: a viewer says so with its table, from the reasons. */
        NOT_COUNTED(StatsLayout.NOTICE_NOT_COUNTED, "not-counted"),
        /** A step that failed with an exception (a write, an export, a class woven): the agent goes on without it. */
        FAILURE(StatsLayout.NOTICE_FAILURE, "failure");

        private final int code;
        private final String word;

        Kind(int code, String word) {
            this.code = code;
            this.word = word;
        }

        /** Its code in the stats file. */
        public int code() {
            return code;
        }

        /** Null for a code no kind has. */
        public static Kind ofCode(int code) {
            for (Kind kind : values()) {
                if (kind.code == code) {
                    return kind;
                }
            }
            return null;
        }

        /** How a log line names it: {@code info}, {@code refused}, {@code not-counted}, {@code failure}. */
        @Override
        public String toString() {
            return word;
        }
    }

    /**
     * The most characters a notice's text or subject keeps. What the application names goes into some (a thread's
     * name, which may be a million characters): a notice is one line on stderr and in the log, and the notices said
     * are kept ({@link SaidOnce}), so each has a bound.
     */
    public static final int MAX_TEXT = 1_000;

    /**
     * Every notice, on stderr or in the stats file, shows a URL with its credentials masked ({@link UrlText}), and
     * keeps at most {@link #MAX_TEXT} characters: its start and its end, around an ellipsis.
     */
    public AgentNotice {
        Objects.requireNonNull(kind, "kind");
        text = bounded(UrlText.masked(text));
        subject = subject == null ? text : bounded(UrlText.masked(subject));
    }

    /**
     * Masked first, then cut: a cut never shows part of a credential. In characters, not terminal columns: this bounds
     * what is kept and printed as one line, and a view fits it to its columns. A surrogate pair is kept whole or left
     * out.
     */
    private static String bounded(String text) {
        if (text.length() <= MAX_TEXT) {
            return text;
        }
        int head = MAX_TEXT / 2;
        int tail = text.length() - (MAX_TEXT - head - 1);
        if (Character.isHighSurrogate(text.charAt(head - 1))) {
            head--;
        }
        if (Character.isLowSurrogate(text.charAt(tail))) {
            tail++;
        }
        return text.substring(0, head) + "\u2026" + text.substring(tail);
    }

    /** A notice of {@code kind} whose subject is its text, as a notice read back from the stats file is. */
    public AgentNotice(Kind kind, String text) {
        this(kind, text, text, null);
    }

    public static AgentNotice info(String text) {
        return new AgentNotice(Kind.INFO, text);
    }

    public static AgentNotice refused(String text) {
        return new AgentNotice(Kind.REFUSED, text);
    }

    /** The kernel or machine does not count {@code event}, for {@code reason}. */
    public static AgentNotice notCounted(String event, String reason) {
        return new AgentNotice(Kind.NOT_COUNTED, event, "not counting " + event + ": " + reason, null);
    }

    /** {@code what} failed with {@code cause}: said as {@code WHAT: CAUSE}. */
    public static AgentNotice failure(String what, Throwable cause) {
        return new AgentNotice(Kind.FAILURE, what, what + ": " + shown(cause), cause);
    }

    /** {@code what} failed with {@code cause}, and {@code consequence} says what goes on: {@code WHAT: CAUSE; ...}. */
    public static AgentNotice failure(String what, Throwable cause, String consequence) {
        return new AgentNotice(Kind.FAILURE, what, what + ": " + shown(cause) + "; " + consequence, cause);
    }

    /**
     * A class that could not be loaded names only itself; why is its cause's message (the agent could not install
     * the library it is in), which stderr says too, not only the log.
     */
    private static String shown(Throwable cause) {
        Throwable why = cause instanceof LinkageError ? cause.getCause() : null;
        return why != null && why.getMessage() != null ? cause + " (" + why.getMessage() + ")" : String.valueOf(cause);
    }

    /**
     * Whether it says that the agent could not do something its options asked: a refusal, or a failure of a step
     * they asked for (a recording, an export). {@code perfpin attach} ends in failure when the agent said one.
     */
    public boolean refused() {
        return kind == Kind.REFUSED || kind == Kind.FAILURE;
    }
}
