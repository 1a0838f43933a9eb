package io.perfpin.options;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many file descriptors perfpin may hold in the process it counts, as the agent's {@code fds=} spells it:
 * a share of those the process had free under its limit when counting began ({@code 25%}), or a number
 * ({@code 4000}), never more than were free.
 */
public final class DescriptorShare {
    public static final String ALLOWED =
            "a share of the free file descriptors from 1% to 100% (e.g. 25%), or a" + " number of them (e.g. 4000)";
    /**
     * A quarter: the application keeps three quarters of the headroom it had, so its own files never meet
     * perfpin's counters, while a JVM of many threads still has most of them counted at common limits. The
     * JVM raises its soft limit to the hard one, which is 524,288 under systemd: a quarter of that counts
     * about 21,800 threads of the six {@code sched} events; of 65,536, about 2,700; even of 20,000, 830.
     */
    public static final DescriptorShare DEFAULT = new DescriptorShare(25, 0);
    /**
     * Nine tenths, for a process of perfpin's own, such as {@code perfpin stat}, which counts from outside: no
     * application shares it, and the tenth left serves what perfpin itself opens while it counts (its jars, the
     * report it writes, /proc, a thread dump's socket), which is a few dozen descriptors.
     */
    public static final DescriptorShare OWN_PROCESS = new DescriptorShare(90, 0);

    /** Compiled when an fds= is first parsed, not with the default share that every agent's start makes. */
    private static final class Syntax {
        static final Pattern SHARE = Pattern.compile("(\\d{1,3})%|(\\d{1,9})");
    }

    /** 1 to 100, or 0 when {@link #count} is the number of descriptors. */
    private final int percent;

    private final long count;

    private DescriptorShare(int percent, long count) {
        this.percent = percent;
        this.count = count;
    }

    /**
     * @param token the whole option the user wrote, named in the message
     * @throws IllegalArgumentException one line naming the token and what is allowed
     */
    public static DescriptorShare parse(String token, String value) {
        return matching(value)
                .orElseThrow(() -> new IllegalArgumentException("bad option '" + token + "': expected " + ALLOWED));
    }

    /**
     * A command-line option's value, such as {@code --fds}'s.
     *
     * @throws IllegalArgumentException one line naming the value and what is allowed
     */
    public static DescriptorShare parse(String value) {
        return matching(value)
                .orElseThrow(() -> new IllegalArgumentException("bad share '" + value + "': expected " + ALLOWED));
    }

    private static Optional<DescriptorShare> matching(String value) {
        Matcher m = Syntax.SHARE.matcher(value);
        if (m.matches()) {
            DescriptorShare share = m.group(1) != null
                    ? new DescriptorShare(Integer.parseInt(m.group(1)), 0)
                    : new DescriptorShare(0, Long.parseLong(m.group(2)));
            if (share.percent > 0 && share.percent <= 100 || share.count > 0) {
                return Optional.of(share);
            }
        }
        return Optional.empty();
    }

    /** Of {@code free} descriptors, how many perfpin may hold. */
    public long of(long free) {
        long headroom = Math.max(free, 0);
        return percent > 0 ? (long) (headroom * (percent / 100.0)) : Math.min(count, headroom);
    }

    @Override
    public String toString() {
        return percent > 0 ? percent + "%" : Long.toString(count);
    }
}
