package io.perfpin.cpu;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Where a pinned thread should run, as a user writes it:
 * <ul>
 *   <li>{@code 2-3} (any CPU list): exactly those CPUs, shared with whoever else is put there;</li>
 *   <li>{@code isolated}: one CPU of its own among those the kernel isolates ({@code isolcpus=},
 *       {@code nohz_full=});</li>
 *   <li>{@code core}: a whole physical core of its own, all SMT siblings reserved, so no other pinned
 *       thread shares its caches and execution units;</li>
 *   <li>{@code any}: every CPU the process may use, reserving nothing.</li>
 * </ul>
 * {@link #assign} resolves a placement on a machine; exclusive placements take the lowest free CPU or core.
 */
public final class Placement {
    public enum Kind {
        CPUS,
        ISOLATED,
        CORE,
        ANY
    }

    public static final Placement ISOLATED = new Placement(Kind.ISOLATED, CpuSet.EMPTY);
    public static final Placement CORE = new Placement(Kind.CORE, CpuSet.EMPTY);
    public static final Placement ANY = new Placement(Kind.ANY, CpuSet.EMPTY);

    private static final String FORMS = "a CPU list like 2-3 or 0,4, or one of isolated, core, any";

    private final Kind kind;
    private final CpuSet cpus;

    private Placement(Kind kind, CpuSet cpus) {
        this.kind = kind;
        this.cpus = cpus;
    }

    /** Exactly these CPUs. */
    public static Placement cpus(CpuSet cpus) {
        if (cpus.isEmpty()) {
            throw new IllegalArgumentException("a placement needs at least one CPU");
        }
        return new Placement(Kind.CPUS, cpus);
    }

    /**
     * Parses {@code 2-3}, {@code isolated}, {@code core} or {@code any}.
     *
     * @throws IllegalArgumentException naming the bad token, the allowed forms and the nearest keyword
     */
    public static Placement parse(String text) {
        String token = text.strip();
        if (!token.isEmpty() && Character.isDigit(token.charAt(0))) {
            try {
                return cpus(CpuSet.parseList(token));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("bad placement '" + token + "': " + e.getMessage(), e);
            }
        }
        String word = token.toLowerCase(Locale.ROOT);
        for (Placement keyword : List.of(ISOLATED, CORE, ANY)) {
            if (keyword.toString().equals(word)) {
                return keyword;
            }
        }
        throw new IllegalArgumentException("bad placement '" + token + "': expected " + FORMS
                + nearestKeyword(word).map(k -> "; did you mean '" + k + "'?").orElse(""));
    }

    public Kind kind() {
        return kind;
    }

    /** The CPUs of an explicit list; empty for the other kinds. */
    public CpuSet cpus() {
        return cpus;
    }

    /**
     * Resolves this placement for thread {@code tid} on {@code topology}, reserving through
     * {@code reservations} what {@code isolated} and {@code core} take.
     *
     * @throws IllegalArgumentException when a listed CPU is offline or outside the allowed set
     * @throws IllegalStateException    when no isolated CPU or whole core is available, saying why
     */
    public CpuAssignment assign(CpuTopology topology, CpuReservations reservations, int tid, String threadName)
            throws IOException {
        return switch (kind) {
            case CPUS -> {
                checkListed(topology);
                yield new CpuAssignment(this, cpus, null);
            }
            case ANY -> new CpuAssignment(this, topology.allowed(), null);
            case ISOLATED -> assignIsolated(topology, reservations, tid, threadName);
            default -> assignCore(topology, reservations, tid, threadName);
        };
    }

    /**
     * What can be known of this placement on {@code topology} before any thread is pinned, as {@link #assign} checks
     * it: a CPU list's CPUs are online and within the allowed set; {@code isolated} has isolated CPUs within it, and
     * {@code core} a whole core. Which of those are free depends on the reservations of the moment, and is checked
     * as they are assigned.
     *
     * @throws IllegalArgumentException when a listed CPU is offline or outside the allowed set
     * @throws IllegalStateException    when the machine has no isolated CPU or whole core that the process may use
     */
    public void check(CpuTopology topology) {
        switch (kind) {
            case CPUS -> checkListed(topology);
            case ISOLATED -> isolatedCandidates(topology);
            case CORE -> wholeCores(topology);
            default -> {}
        }
    }

    private void checkListed(CpuTopology topology) {
        CpuSet offline = cpus.minus(topology.online());
        if (!offline.isEmpty()) {
            throw new IllegalArgumentException("placement " + this + ": " + cpuWord(offline) + " not online"
                    + " (online CPUs: " + topology.online() + ")");
        }
        CpuSet outside = cpus.minus(topology.allowed());
        if (!outside.isEmpty()) {
            throw new IllegalArgumentException("placement " + this + ": " + cpuWord(outside)
                    + " outside the CPUs this process may use, " + allowedWithSources(topology));
        }
    }

    /** isolcpus= and nohz_full= both isolate: the second keeps the tick off, and is often given alone. */
    private CpuAssignment assignIsolated(CpuTopology topology, CpuReservations reservations, int tid, String threadName)
            throws IOException {
        CpuSet candidates = isolatedCandidates(topology);
        List<CpuSet> singles = new ArrayList<>();
        candidates.forEach(cpu -> singles.add(CpuSet.of(cpu)));
        return reserveFirst(singles, reservations, tid, threadName)
                .orElseThrow(
                        () -> new IllegalStateException("placement isolated: every isolated CPU this process may use ("
                                + candidates + ") is reserved: " + holders(reservations, candidates)));
    }

    /** The online isolated CPUs the process may use; refused when there are none. */
    private static CpuSet isolatedCandidates(CpuTopology topology) {
        CpuSet isolated = topology.isolated().union(topology.nohzFull()).intersect(topology.online());
        if (isolated.isEmpty()) {
            throw new IllegalStateException("placement isolated: this machine has no isolated CPUs; isolate some"
                    + " with the kernel parameters isolcpus=<cpus> nohz_full=<cpus> and reboot, or use core"
                    + " or a CPU list");
        }
        CpuSet candidates = isolated.intersect(topology.allowed());
        if (candidates.isEmpty()) {
            throw new IllegalStateException("placement isolated: the isolated CPUs " + isolated
                    + " are outside the CPUs this process may use, " + allowedWithSources(topology)
                    + "; start it with taskset -c covering them, or widen its cgroup's cpuset");
        }
        return candidates;
    }

    private CpuAssignment assignCore(CpuTopology topology, CpuReservations reservations, int tid, String threadName)
            throws IOException {
        CpuSet allowed = topology.allowed();
        return reserveFirst(wholeCores(topology), reservations, tid, threadName)
                .orElseThrow(() ->
                        new IllegalStateException("placement core: every core within the CPUs this process may use ("
                                + allowed + ") has a reserved CPU: " + holders(reservations, allowed)));
    }

    /** The cores all of whose CPUs the process may use; refused when there are none. */
    private static List<CpuSet> wholeCores(CpuTopology topology) {
        CpuSet allowed = topology.allowed();
        List<CpuSet> wholeCores =
                topology.cores().stream().filter(allowed::containsAll).collect(Collectors.toList());
        if (wholeCores.isEmpty()) {
            throw new IllegalStateException("placement core: no whole core lies within the CPUs this process may use, "
                    + allowedWithSources(topology));
        }
        return wholeCores;
    }

    private Optional<CpuAssignment> reserveFirst(
            List<CpuSet> choices, CpuReservations reservations, int tid, String threadName) throws IOException {
        for (CpuSet choice : choices) {
            Optional<CpuReservation> reservation = reservations.tryReserve(choice, tid, threadName);
            if (reservation.isPresent()) {
                return Optional.of(new CpuAssignment(this, choice, reservation.get()));
            }
        }
        return Optional.empty();
    }

    private static String holders(CpuReservations reservations, CpuSet cpus) {
        try {
            return reservations.list().stream()
                    .filter(h -> cpus.contains(h.cpu()))
                    .map(CpuReservations.Holder::toString)
                    .collect(Collectors.joining("; "));
        } catch (IOException e) {
            return "(cannot list them: " + e.getMessage() + ")";
        }
    }

    private static String allowedWithSources(CpuTopology topology) {
        return topology.allowed() + " (affinity " + topology.affinity() + ", cgroup cpuset " + topology.cgroupCpus()
                + ")";
    }

    private static String cpuWord(CpuSet cpus) {
        return cpus.inWords() + (cpus.size() == 1 ? " is" : " are");
    }

    private static Optional<String> nearestKeyword(String word) {
        String nearest = null;
        int best = 3;
        for (Placement keyword : List.of(ISOLATED, CORE, ANY)) {
            int distance = editDistance(word, keyword.toString());
            if (distance < best) {
                best = distance;
                nearest = keyword.toString();
            }
        }
        return Optional.ofNullable(nearest);
    }

    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Placement && kind == ((Placement) o).kind && cpus.equals(((Placement) o).cpus);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + cpus.hashCode();
    }

    /** The text {@link #parse} reads back. */
    @Override
    public String toString() {
        return kind == Kind.CPUS ? cpus.toString() : kind.name().toLowerCase(Locale.ROOT);
    }
}
