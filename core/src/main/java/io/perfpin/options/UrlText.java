package io.perfpin.options;

/**
 * URLs as perfpin shows them: with the user-info, where credentials go, masked ({@code http://user:secret@host:4318}
 * is shown as {@code http://***@host:4318}), and so is each value of the query, where receivers take API keys
 * ({@code /v1/metrics?api_key=secret} is shown as {@code /v1/metrics?api_key=***}). perfpin refuses a URL with
 * credentials or a query ({@link OtlpEndpoint}), but its refusal, like every message, lands on the application's
 * stderr and in its logs, and in the stats file for every viewer: it must not carry them.
 *
 * <p>The user-info is taken to end at the last {@code @} of the URL, not at the first {@code /} as RFC 3986 reads
 * it: a password written with an unencoded {@code /}, {@code ?}, {@code #} or {@code @} (a URL refused anyway) is
 * still masked whole. A path with an {@code @} in it is masked up to it too, and a query with one from its start,
 * which hides, never shows.
 */
public final class UrlText {
    public static final String MASK = "***";
    private static final String SCHEME_END = "://";

    private UrlText() {}

    /**
     * {@code text} with the user-info of every URL in it ({@code SCHEME://...}) masked. A URL in a message ends at
     * white space or a quote: {@code 'otlp=http://u:p@host': ...}.
     */
    public static String masked(String text) {
        int scheme = text.indexOf(SCHEME_END);
        if (scheme < 0) {
            return text;
        }
        StringBuilder shown = new StringBuilder(text.length());
        int done = 0;
        for (; scheme >= 0; scheme = text.indexOf(SCHEME_END, done)) {
            int start = scheme + SCHEME_END.length();
            int end = start;
            while (end < text.length()
                    && !Character.isWhitespace(text.charAt(end))
                    && text.charAt(end) != '\''
                    && text.charAt(end) != '"') {
                end++;
            }
            shown.append(text, done, start);
            mask(text, start, end, shown);
            done = end;
        }
        return shown.append(text, done, text.length()).toString();
    }

    /**
     * One URL as the user gave it, its user-info masked: after {@code ://}, or from its start where it has none
     * ({@code user:secret@host:4318}, a URL mistyped, is refused and shown as {@code ***@host:4318}).
     */
    public static String maskedUrl(String url) {
        int scheme = url.indexOf(SCHEME_END);
        int start = scheme < 0 ? 0 : scheme + SCHEME_END.length();
        return mask(url, start, url.length(), new StringBuilder(url.length()).append(url, 0, start))
                .toString();
    }

    /**
     * Appends {@code text[start, end)}, what comes before its last {@code @} replaced by {@link #MASK}, and each value
     * of its query ({@code name=value} between {@code ?}, {@code &} or {@code ;}) too: any of them may be a key.
     */
    private static StringBuilder mask(String text, int start, int end, StringBuilder shown) {
        int at = text.lastIndexOf('@', end - 1);
        int from = start;
        if (at >= start) {
            shown.append(MASK);
            from = at;
        }
        int query = text.indexOf('?', start);
        if (query < 0 || query >= end) {
            return shown.append(text, from, end);
        }
        int pair;
        boolean inValue;
        if (query >= from) {
            shown.append(text, from, query + 1);
            pair = query + 1;
            inValue = false;
        } else {
            // the last @ is in the query (?email=a@b&key=...), or in a password with a ?: either way what follows it,
            // to the pair's end, may be the rest of a value, and is masked
            shown.append('@');
            pair = at + 1;
            inValue = true;
        }
        while (pair < end) {
            int next = pair;
            while (next < end && text.charAt(next) != '&' && text.charAt(next) != ';') {
                next++;
            }
            int equals = text.indexOf('=', pair);
            if (inValue) {
                shown.append(MASK);
            } else if (equals >= 0 && equals < next) {
                shown.append(text, pair, equals + 1).append(MASK);
            } else {
                shown.append(text, pair, next); // a name alone
            }
            if (next < end) {
                shown.append(text.charAt(next));
            }
            inValue = false;
            pair = next + 1;
        }
        return shown;
    }
}
