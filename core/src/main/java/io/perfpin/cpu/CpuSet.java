package io.perfpin.cpu;

import java.util.Arrays;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * An immutable set of CPU numbers of any size.
 *
 * <p>Layout: bit {@code n % 64} of {@code words[n / 64]} is CPU n, which is the kernel's affinity mask
 * layout ({@code sched_setaffinity}), so {@link #toMask(int)} and {@link #fromMask(long[])} are plain copies.
 * Trailing zero words are never kept, so equal sets have equal arrays.
 *
 * <p>Text forms are the kernel's: the list syntax of sysfs {@code *_list} files and of
 * {@code Cpus_allowed_list} ({@code 0-3,8,10-11}), and the hex mask of sysfs {@code cpumap} files and of
 * {@code Cpus_allowed} ({@code ffffffff,ffffffff}: 32-bit groups, most significant first).
 */
public final class CpuSet {
    /** Higher than any kernel's NR_CPUS, low enough that a typo like {@code 0-4000000000} cannot exhaust memory. */
    public static final int MAX_CPU = (1 << 20) - 1;

    public static final CpuSet EMPTY = new CpuSet(new long[0]);

    private static final String LIST_SYNTAX = "CPU numbers and ranges separated by commas, like 0-3,8,10-11";
    private static final String MASK_SYNTAX =
            "hex groups of up to 8 digits separated by commas, like ffffffff,0000000f";

    private final long[] words;

    private CpuSet(long[] trimmedWords) {
        this.words = trimmedWords;
    }

    /** The set of the given CPU numbers. */
    public static CpuSet of(int... cpus) {
        long[] words = new long[0];
        for (int cpu : cpus) {
            checkCpu(cpu);
            words = grow(words, cpu);
            words[cpu >>> 6] |= 1L << cpu;
        }
        return trimmed(words);
    }

    /** CPUs {@code first} to {@code last}, both included. */
    public static CpuSet range(int first, int last) {
        checkCpu(first);
        checkCpu(last);
        if (last < first) {
            return EMPTY;
        }
        long[] words = grow(new long[0], last);
        setRange(words, first, last);
        return new CpuSet(words);
    }

    /** A copy of a kernel affinity mask; the array may be longer than needed. */
    public static CpuSet fromMask(long[] mask) {
        return trimmed(mask.clone());
    }

    /**
     * Parses the kernel's list syntax: {@code 0-3,8,10-11}. Surrounding whitespace (sysfs files end in a
     * newline) and blanks around tokens are ignored; an empty or blank string is the empty set.
     *
     * @throws IllegalArgumentException naming the bad token and the syntax
     */
    public static CpuSet parseList(String text) {
        String trimmed = text.strip();
        if (trimmed.isEmpty()) {
            return EMPTY;
        }
        long[] words = new long[0];
        for (String raw : trimmed.split(",", -1)) {
            String token = raw.strip();
            int dash = token.indexOf('-');
            int first = parseCpu(token, dash < 0 ? token : token.substring(0, dash), text);
            int last = dash < 0 ? first : parseCpu(token, token.substring(dash + 1), text);
            if (last < first) {
                throw badToken("CPU list", token, text, LIST_SYNTAX + " (ranges go upwards)");
            }
            words = grow(words, last);
            setRange(words, first, last);
        }
        return trimmed(words);
    }

    /**
     * Parses the kernel's hex mask syntax: {@code ffffffff,ffffffff}, 32-bit groups with the most
     * significant first, as in sysfs {@code cpumap} files and {@code Cpus_allowed}.
     *
     * @throws IllegalArgumentException naming the bad group and the syntax
     */
    public static CpuSet parseMask(String text) {
        String trimmed = text.strip();
        if (trimmed.isEmpty()) {
            return EMPTY;
        }
        String[] groups = trimmed.split(",", -1);
        long[] words = new long[(groups.length + 1) / 2];
        for (int i = 0; i < groups.length; i++) {
            String group = groups[i].strip();
            if (group.isEmpty() || group.length() > 8) {
                throw badToken("CPU mask", group, text, MASK_SYNTAX);
            }
            long bits;
            try {
                bits = Long.parseLong(group, 16);
            } catch (NumberFormatException e) {
                throw badToken("CPU mask", group, text, MASK_SYNTAX);
            }
            int lowBit = (groups.length - 1 - i) * 32;
            if (bits != 0 && lowBit > MAX_CPU) {
                throw badToken("CPU mask", group, text, "CPUs up to " + MAX_CPU);
            }
            words[lowBit >>> 6] |= bits << (lowBit & 63);
        }
        return trimmed(words);
    }

    public boolean contains(int cpu) {
        int word = cpu >>> 6;
        return cpu >= 0 && word < words.length && (words[word] & (1L << cpu)) != 0;
    }

    public boolean isEmpty() {
        return words.length == 0;
    }

    public int size() {
        int size = 0;
        for (long word : words) {
            size += Long.bitCount(word);
        }
        return size;
    }

    /** The lowest CPU, or -1 when empty. */
    public int first() {
        return next(0);
    }

    /** The highest CPU, or -1 when empty. */
    public int last() {
        return words.length == 0
                ? -1
                : (words.length - 1) * 64 + 63 - Long.numberOfLeadingZeros(words[words.length - 1]);
    }

    /** The lowest CPU at or above {@code from}, or -1: {@code for (int c = s.first(); c >= 0; c = s.next(c + 1))}. */
    public int next(int from) {
        if (from < 0) {
            from = 0;
        }
        int index = from >>> 6;
        if (index >= words.length) {
            return -1;
        }
        long word = words[index] & (-1L << from);
        while (true) {
            if (word != 0) {
                return index * 64 + Long.numberOfTrailingZeros(word);
            }
            if (++index == words.length) {
                return -1;
            }
            word = words[index];
        }
    }

    public void forEach(IntConsumer action) {
        for (int cpu = first(); cpu >= 0; cpu = next(cpu + 1)) {
            action.accept(cpu);
        }
    }

    public IntStream stream() {
        return IntStream.iterate(first(), cpu -> cpu >= 0, cpu -> next(cpu + 1));
    }

    public int[] toArray() {
        return stream().toArray();
    }

    public CpuSet union(CpuSet other) {
        long[] result = Arrays.copyOf(words, Math.max(words.length, other.words.length));
        for (int i = 0; i < other.words.length; i++) {
            result[i] |= other.words[i];
        }
        return new CpuSet(result);
    }

    public CpuSet intersect(CpuSet other) {
        long[] result = new long[Math.min(words.length, other.words.length)];
        for (int i = 0; i < result.length; i++) {
            result[i] = words[i] & other.words[i];
        }
        return trimmed(result);
    }

    /** This set without the CPUs of {@code other}. */
    public CpuSet minus(CpuSet other) {
        long[] result = words.clone();
        for (int i = 0; i < Math.min(result.length, other.words.length); i++) {
            result[i] &= ~other.words[i];
        }
        return trimmed(result);
    }

    public boolean containsAll(CpuSet other) {
        return other.minus(this).isEmpty();
    }

    public boolean intersects(CpuSet other) {
        return !intersect(other).isEmpty();
    }

    /** How many 64-bit words the kernel mask of this set needs. */
    public int maskWords() {
        return words.length;
    }

    /**
     * This set as a kernel affinity mask of exactly {@code length} words.
     *
     * @throws IllegalArgumentException when the set has a CPU beyond {@code length * 64 - 1}
     */
    public long[] toMask(int length) {
        if (length < words.length) {
            throw new IllegalArgumentException("CPU " + last() + " does not fit a mask of " + length + " words");
        }
        return Arrays.copyOf(words, length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CpuSet && Arrays.equals(words, ((CpuSet) o).words);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(words);
    }

    /**
     * The set as English says it in a message: {@code CPU 0}, {@code CPUs 0-3,8}; {@code no CPU} for the empty set.
     * The one way every message of perfpin's names CPUs, so that one CPU is never "CPUs 0".
     */
    public String inWords() {
        return isEmpty() ? "no CPU" : (size() == 1 ? "CPU " : "CPUs ") + this;
    }

    /** The kernel's list syntax, such as {@code 0-3,8}; the empty set is the empty string. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        for (int first = first(); first >= 0; ) {
            int last = first;
            while (contains(last + 1)) {
                last++;
            }
            if (text.length() > 0) {
                text.append(',');
            }
            text.append(first);
            if (last > first) {
                text.append('-').append(last);
            }
            first = next(last + 1);
        }
        return text.toString();
    }

    private static int parseCpu(String token, String number, String text) {
        String digits = number.strip();
        if (digits.isEmpty()) {
            throw badToken("CPU list", token, text, LIST_SYNTAX);
        }
        // A loop, not a stream: a report's hints parse each thread's list, in code run for the first time.
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                throw badToken("CPU list", token, text, LIST_SYNTAX);
            }
        }
        // Past 9 digits no int holds it, and no CPU has it.
        int cpu = digits.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(digits);
        if (cpu > MAX_CPU) {
            throw badToken("CPU list", token, text, "CPUs up to " + MAX_CPU);
        }
        return cpu;
    }

    private static IllegalArgumentException badToken(String what, String token, String text, String allowed) {
        return new IllegalArgumentException(
                "bad " + what + " token '" + token + "' in \"" + text.strip() + "\": expected " + allowed);
    }

    private static void checkCpu(int cpu) {
        if (cpu < 0 || cpu > MAX_CPU) {
            throw new IllegalArgumentException("CPU " + cpu + " is outside 0-" + MAX_CPU);
        }
    }

    private static long[] grow(long[] words, int cpu) {
        int needed = (cpu >>> 6) + 1;
        return needed <= words.length ? words : Arrays.copyOf(words, needed);
    }

    private static void setRange(long[] words, int first, int last) {
        int firstWord = first >>> 6;
        int lastWord = last >>> 6;
        for (int i = firstWord; i <= lastWord; i++) {
            long mask = -1L;
            if (i == firstWord) {
                mask &= -1L << first;
            }
            if (i == lastWord) {
                mask &= -1L >>> (63 - (last & 63));
            }
            words[i] |= mask;
        }
    }

    private static CpuSet trimmed(long[] words) {
        int length = words.length;
        while (length > 0 && words[length - 1] == 0) {
            length--;
        }
        return length == 0 ? EMPTY : new CpuSet(length == words.length ? words : Arrays.copyOf(words, length));
    }
}
