package io.perfpin.event;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/** Valid names closest to a mistyped one, by Damerau-Levenshtein distance (optimal string alignment). */
public final class NearestNames {
    static final int LIMIT = 3;

    private NearestNames() {}

    /**
     * Up to {@link #LIMIT} candidates nearest to the token, best first, ties in candidate order. Names more than a
     * third of the token's length away (two edits for short ones) are dropped: suggesting them would be noise.
     */
    public static List<String> nearest(String token, Collection<String> candidates) {
        int threshold = Math.max(2, token.length() / 3);
        List<Scored> scored = new ArrayList<>();
        for (String candidate : new LinkedHashSet<>(candidates)) {
            int d = score(token, candidate);
            if (d <= threshold) {
                scored.add(new Scored(candidate, d));
            }
        }
        scored.sort(Comparator.comparingInt(Scored::distance)); // stable: ties keep candidate order
        List<String> names = new ArrayList<>();
        for (int i = 0; i < Math.min(LIMIT, scored.size()); i++) {
            names.add(scored.get(i).name());
        }
        return names;
    }

    /** A sysfs event {@code pmu/event/} also matches its bare name, which is how users remember it. */
    private static int score(String token, String candidate) {
        int d = distance(token, candidate);
        int slash = candidate.indexOf('/');
        if (slash > 0 && slash < candidate.length() - 1 && candidate.endsWith("/")) {
            d = Math.min(d, distance(token, candidate.substring(slash + 1, candidate.length() - 1)));
        }
        return d;
    }

    /** Edits (insert, delete, substitute, swap two adjacent characters) from a to b, ignoring case. */
    static int distance(String a, String b) {
        String s = a.toLowerCase(Locale.ROOT);
        String t = b.toLowerCase(Locale.ROOT);
        int[][] d = new int[s.length() + 1][t.length() + 1];
        for (int i = 0; i <= s.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= t.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= s.length(); i++) {
            for (int j = 1; j <= t.length(); j++) {
                int cost = s.charAt(i - 1) == t.charAt(j - 1) ? 0 : 1;
                int best = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && s.charAt(i - 1) == t.charAt(j - 2) && s.charAt(i - 2) == t.charAt(j - 1)) {
                    best = Math.min(best, d[i - 2][j - 2] + 1);
                }
                d[i][j] = best;
            }
        }
        return d[s.length()][t.length()];
    }

    private record Scored(String name, int distance) {}
}
