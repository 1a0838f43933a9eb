package io.perfpin.export;

import io.perfpin.report.Json;

/**
 * The group a thread's counts are exported under: its Java name less a numeric suffix and the separators before
 * it, as pools number their threads ({@code pool-3-thread-17} is in {@code pool-3-thread},
 * {@code ForkJoinPool.commonPool-worker-2} in {@code ForkJoinPool.commonPool-worker}). A pool that starts a
 * thousand threads exports one group, whatever their numbers.
 */
public final class ThreadGroupName {
    /** The group of a name that is only digits and separators. */
    public static final String NUMBERED = "(numbered)";
    /** The longest name or group a label carries: thread names have no bound of their own. */
    public static final int MAX_CHARS = 256;

    private static final String SEPARATORS = "-_.#: ";

    private ThreadGroupName() {}

    public static String of(String threadName) {
        int end = threadName.length();
        while (end > 0 && Character.isDigit(threadName.charAt(end - 1))) {
            end--;
        }
        if (end < threadName.length()) {
            while (end > 0 && SEPARATORS.indexOf(threadName.charAt(end - 1)) >= 0) {
                end--;
            }
            if (end == 0) {
                return NUMBERED;
            }
        }
        return bounded(threadName.substring(0, end));
    }

    /**
     * A thread's name or group as a metrics label carries it: at most {@link #MAX_CHARS} characters, half a character
     * (a lone surrogate, which a Java name may hold and UTF-8 cannot carry) as U+FFFD. Series are keyed on it, so
     * names that differ only in what UTF-8 cannot carry share one series rather than write two alike.
     */
    public static String label(String name) {
        return Json.wholeCharacters(bounded(name));
    }

    /** A name as a label carries it: at most {@link #MAX_CHARS} characters. */
    public static String bounded(String name) {
        return name.length() <= MAX_CHARS ? name : name.substring(0, MAX_CHARS);
    }
}
