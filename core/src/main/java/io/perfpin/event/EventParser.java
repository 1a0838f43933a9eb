package io.perfpin.event;

import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.PmuModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Turns one event, as a user writes it, into an {@link EventSpec}. Accepted, in the order tried:
 * <ul>
 *   <li>perf's symbolic names ({@link GenericEvents}): {@code cycles}, {@code L1-dcache-load-misses},
 *       {@code context-switches}...</li>
 *   <li>raw codes {@code rNNNN}: up to 16 hex digits, passed as the config of {@code PERF_TYPE_RAW};</li>
 *   <li>sysfs PMU events {@code pmu/term=value,term,.../} and {@code pmu/named-event/}, read from
 *       {@code <root>/sys/bus/event_source/devices/<pmu>};</li>
 *   <li>anything else is asked of the {@link EventLookup} (libpfm4's tables).</li>
 * </ul>
 * Each may end in perf's privilege modifiers: {@code :u}, {@code :k}, {@code :h} or a combination such as
 * {@code :uk} counts only the levels named ({@code cpu/.../u} for the PMU syntax). Without one, software events
 * count user and kernel side, every other type user space only (see {@link EventSpec}).
 */
public final class EventParser {
    private static final String ALLOWED_MODIFIERS =
            "allowed are u (user), k (kernel), h (hypervisor) and their combinations";
    private static final int MAX_LISTED_PMUS = 12;

    private final Path root;
    private final EventLookup lookup;
    /** The simulated model's {@code cpu} PMU, in place of sysfs's, where a simulated PMU counts; null otherwise. */
    private final SysfsPmu simulatedCpu;

    /**
     * Reads this machine's sysfs and asks the platform's lookup for CPU-specific names; where a simulated PMU
     * counts this process's hardware events (tests only), its model's {@code cpu} PMU and event names instead.
     */
    public EventParser() {
        this(Path.of("/"), Backends.simulatedPmuModel());
    }

    private EventParser(Path root, PmuModel simulated) {
        this(root, EventLookup.platform(simulated), simulated);
    }

    /**
     * @param root   the directory holding {@code sys/bus/event_source/devices}: {@code /}, or a fixture tree
     * @param lookup where names outside perf's tables and sysfs are looked up
     */
    public EventParser(Path root, EventLookup lookup) {
        this(root, lookup, null);
    }

    /** @param simulated the simulated PMU's model, whose {@code cpu} PMU replaces sysfs's; null: none */
    EventParser(Path root, EventLookup lookup, PmuModel simulated) {
        this.root = Objects.requireNonNull(root, "root");
        this.lookup = Objects.requireNonNull(lookup, "lookup");
        this.simulatedCpu = simulated == null ? null : SysfsPmu.simulated(simulated);
    }

    public Path root() {
        return root;
    }

    /**
     * The event a user's string names, named by it (perf's aliases take their canonical name:
     * {@code cpu-cycles:k} gives {@code cycles:k}).
     *
     * @throws UnknownEventException when no source knows the name, with the nearest valid names
     * @throws InvalidEventException when the string is malformed: bad modifier, value, unclosed PMU syntax
     */
    public EventSpec parse(String event) {
        String token = event.trim();
        if (token.isEmpty()) {
            throw new InvalidEventException(
                    "empty event name: expected a perf event name, rNNN, pmu/terms/ or a" + " CPU event name");
        }
        if (token.indexOf('/') >= 0) {
            return parsePmuEvent(token);
        }
        int colon = token.lastIndexOf(':');
        String modifiers = colon >= 0 && isModifiers(token.substring(colon + 1)) ? token.substring(colon + 1) : null;
        String base = modifiers == null ? token : token.substring(0, colon);

        Optional<EventSpec> generic = GenericEvents.lookup(base);
        if (generic.isPresent()) {
            EventSpec spec = generic.get();
            return modifiers == null ? spec : withModifiers(spec.named(spec.name() + ":" + modifiers), modifiers);
        }
        if (isRawCode(base)) {
            EventSpec spec = EventSpec.userOnly(
                    token, PerfEventAttr.TYPE_RAW, Long.parseUnsignedLong(base.substring(1), 16), 0, 0);
            return modifiers == null ? spec : withModifiers(spec, modifiers);
        }
        if (colon >= 0
                && modifiers == null
                && GenericEvents.lookup(token.substring(0, colon)).isPresent()) {
            throw new InvalidEventException(
                    "unknown modifier '" + token.substring(colon + 1) + "' in '" + token + "': " + ALLOWED_MODIFIERS);
        }
        try {
            EventSpec spec = lookup.encode(base).named(token);
            return modifiers == null ? spec : withModifiers(spec, modifiers);
        } catch (UnknownEventException e) {
            throw new UnknownEventException("event", token, e.reason(), NearestNames.nearest(base, knownSpellings()));
        }
    }

    /**
     * Whether {@code text} is one or more of the modifiers u, k and h. Checked by hand here and in {@link #isRawCode}:
     * the agent parses its events in premain, where compiling a pattern loaded the regex engine before main(). Reports
     * read an event name's modifiers with it too.
     */
    public static boolean isModifiers(String text) {
        if (text.isEmpty()) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != 'u' && c != 'k' && c != 'h') {
                return false;
            }
        }
        return true;
    }

    /** {@code r} and 1 to 16 hex digits: a raw event code. */
    private static boolean isRawCode(String text) {
        if (text.length() < 2 || text.length() > 17 || text.charAt(0) != 'r') {
            return false;
        }
        for (int i = 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')) {
                return false;
            }
        }
        return true;
    }

    /**
     * Every name this parser knows without asking the lookup: perf's canonical names, then each sysfs PMU's named
     * events as {@code pmu/event/}. For listing; presets are not events and are not included.
     */
    public List<String> knownNames() {
        List<String> names = new ArrayList<>(GenericEvents.names());
        addSysfsEvents(names);
        return names;
    }

    private EventSpec parsePmuEvent(String token) {
        int open = token.indexOf('/');
        int close = token.lastIndexOf('/');
        if (close == open) {
            throw new InvalidEventException("unclosed '/' in '" + token + "': expected pmu/term=value,.../");
        }
        String pmuName = token.substring(0, open);
        String tail = token.substring(close + 1);
        String modifiers = tail.startsWith(":") ? tail.substring(1) : tail;
        if (!tail.isEmpty() && !isModifiers(modifiers)) {
            throw new InvalidEventException("unknown modifier '" + tail + "' after '" + token.substring(0, close + 1)
                    + "': " + ALLOWED_MODIFIERS);
        }
        SysfsPmu pmu = pmu(pmuName).orElseThrow(() -> unknownPmu(pmuName, token));
        long[] words = pmu.encode(token.substring(open + 1, close), token);
        EventSpec spec =
                EventSpec.withDefaultLevels(token, pmu.type(), words[0], words[1], words[2], isCpuPmu(pmuName));
        return modifiers.isEmpty() ? spec : withModifiers(spec, modifiers);
    }

    /** The PMU of that name: the simulated {@code cpu} PMU where there is one, otherwise sysfs's. */
    private Optional<SysfsPmu> pmu(String name) {
        if (simulatedCpu != null && simulatedCpu.name().equals(name)) {
            return Optional.of(simulatedCpu);
        }
        return SysfsPmu.load(root, name);
    }

    /** The PMUs under the root, sorted, with the simulated {@code cpu} PMU where there is one. */
    private List<String> pmuNames() {
        List<String> names = SysfsPmu.names(root);
        if (simulatedCpu != null && !names.contains(simulatedCpu.name())) {
            names.add(simulatedCpu.name());
            names.sort(null);
        }
        return names;
    }

    /**
     * Only the CPU's own PMU separates user from kernel for one thread; the others (msr, power, uncore)
     * refuse any exclusion with EINVAL, so they count all levels unless a modifier says otherwise.
     */
    private static boolean isCpuPmu(String pmuName) {
        return pmuName.equals("cpu") || pmuName.startsWith("cpu_") || pmuName.startsWith("armv");
    }

    private UnknownEventException unknownPmu(String pmuName, String token) {
        List<String> pmus = pmuNames();
        // Servers have dozens of uncore PMUs: past a screenful, the nearest names say more than the list.
        String here = pmus.size() <= MAX_LISTED_PMUS
                ? "PMUs here: " + String.join(", ", pmus)
                : pmus.size() + " PMUs under " + root.resolve(SysfsPmu.DEVICES);
        return new UnknownEventException(
                "PMU", pmuName, "in '" + token + "'; " + here, NearestNames.nearest(pmuName, pmus));
    }

    /** perf's rule: once any level is named, only the named levels count. */
    private static EventSpec withModifiers(EventSpec spec, String modifiers) {
        return spec.withExclusions(modifiers.indexOf('u') < 0, modifiers.indexOf('k') < 0, modifiers.indexOf('h') < 0);
    }

    /** What a typo is compared against: perf's spellings, preset names and sysfs named events. */
    private List<String> knownSpellings() {
        List<String> names = new ArrayList<>(GenericEvents.spellings());
        names.addAll(Presets.names());
        addSysfsEvents(names);
        names.addAll(lookup.names());
        return names;
    }

    private void addSysfsEvents(List<String> names) {
        for (String pmuName : pmuNames()) {
            pmu(pmuName)
                    .map(SysfsPmu::events)
                    .map(Map::keySet)
                    .ifPresent(events -> events.forEach(event -> names.add(pmuName + "/" + event + "/")));
        }
    }
}
