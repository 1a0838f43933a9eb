package io.perfpin.nativeio.libpfm;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.perfpin.nativeio.PerfEventAttr;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * libpfm4, loaded and initialised once for every PMU model it supports. libpfm keeps its state
 * process-wide and is not thread-safe, so one instance exists (core's {@code io.perfpin.event.LibpfmEncoder}
 * owns it) and every call holds the encoder's lock. What the encodings mean (event specs, the lookup order of
 * event names) is core's; this binding only speaks to libpfm.
 *
 * <p>How another model than this machine's is encoded: libpfm is initialised with
 * {@code LIBPFM_ENCODE_INACTIVE=1}, its documented switch for encoding events of supported but undetected
 * PMUs, and the event string is qualified with the model ({@code skl::EVENT}). Unqualified names still
 * resolve on the detected PMUs only. The other route, {@code LIBPFM_FORCE_PMU} with
 * {@code pfm_terminate()} and a new {@code pfm_initialize()} per model, is wrong in libpfm 4.13:
 * terminate leaves the previous model flagged active, so after forcing skl and then icl,
 * {@code BR_INST_RETIRED.COND} still encodes with Skylake's unit mask 0x01 instead of Ice Lake's 0x11. Both
 * routes give identical encodings when each forced model runs in a fresh process.
 */
public final class LibpfmLibrary {
    /** The runtime package's soname: the unversioned libpfm.so exists only with the -dev package. */
    public static final String SONAME = "libpfm.so.4";

    private static final String ENCODE_INACTIVE_VARIABLE = "LIBPFM_ENCODE_INACTIVE";
    private static final String PMU_DELIMITER = "::";

    private final LibpfmNative pfm;
    private final List<Pmu> pmus;

    private LibpfmLibrary(LibpfmNative pfm) {
        this.pfm = pfm;
        this.pmus = readPmus();
    }

    /**
     * Binds libpfm4 from {@code soname} and initialises it; throws a LinkageError when it cannot be
     * loaded or initialised.
     */
    public static LibpfmLibrary load(String soname) {
        if (Native.POINTER_SIZE != Long.BYTES) {
            throw new UnsatisfiedLinkError("perfpin reads libpfm4's structs in their 64-bit layout only");
        }
        LibpfmNative pfm = Native.load(soname, LibpfmNative.class);
        int rc = initializeEncodingInactive(pfm, Native.load("c", LibpfmNative.Libc.class));
        if (rc != LibpfmAbi.PFM_SUCCESS) {
            throw new UnsatisfiedLinkError("pfm_initialize failed: " + pfm.pfm_strerror(rc));
        }
        return new LibpfmLibrary(pfm);
    }

    /**
     * libpfm reads its switches from the C environment inside pfm_initialize() only, which Java cannot
     * write: set the variable around that one call and put back what was there.
     */
    private static int initializeEncodingInactive(LibpfmNative pfm, LibpfmNative.Libc libc) {
        String previous = libc.getenv(ENCODE_INACTIVE_VARIABLE);
        libc.setenv(ENCODE_INACTIVE_VARIABLE, "1", 1);
        try {
            return pfm.pfm_initialize();
        } finally {
            if (previous == null) {
                libc.unsetenv(ENCODE_INACTIVE_VARIABLE);
            } else {
                libc.setenv(ENCODE_INACTIVE_VARIABLE, previous, 1);
            }
        }
    }

    /**
     * The one line a user sees when {@link #load} failed. JNA's message starts with "Unable to load
     * library 'x':" and has dlopen's own reason on the next line.
     */
    public static String unavailableReason(String soname, Throwable cause) {
        String message = cause.getMessage() == null ? cause.toString() : cause.getMessage();
        List<String> lines =
                message.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        String detail = lines.isEmpty()
                ? cause.toString()
                : lines.size() > 1 && lines.get(0).endsWith(":") ? lines.get(1) : lines.get(0);
        return "libpfm4 is not available (" + (detail.contains(soname) ? detail : soname + ": " + detail)
                + "); install it with 'apt-get install libpfm4' or 'dnf install libpfm'";
    }

    /**
     * Encodes one event string for perf_events, as {@code pfm_get_os_event_encoding(PFM_OS_PERF_EVENT)}
     * does with user-level counting as the default, for PMU model {@code model} (null: the PMUs libpfm
     * detects on this machine). libpfm also sets {@code exclude_guest}, and honours the {@code :mg}/{@code :mh}
     * modifiers through {@code exclude_guest}/{@code exclude_host}; the attr returned carries type, config,
     * config1, config2 and the flags libpfm set.
     */
    public PerfEventAttr encode(String eventString, String model) {
        String qualified = qualify(eventString, model);
        Memory attr = new Memory(PerfEventAttr.SIZE);
        attr.clear();
        attr.setInt(PerfEventAttr.SIZE_OFFSET, PerfEventAttr.SIZE);
        Memory arg = LibpfmAbi.reset(new Memory(LibpfmAbi.EncodeArg.SIZE), LibpfmAbi.EncodeArg.SIZE_FIELD);
        arg.setPointer(LibpfmAbi.EncodeArg.ATTR, attr);
        int rc = pfm.pfm_get_os_event_encoding(qualified, LibpfmAbi.PFM_PLM3, LibpfmAbi.PFM_OS_PERF_EVENT, arg);
        if (rc != LibpfmAbi.PFM_SUCCESS) {
            throw new LibpfmException(
                    eventString,
                    rc,
                    "libpfm4 (" + describe(model) + ") rejects '" + eventString + "': " + pfm.pfm_strerror(rc));
        }
        return new PerfEventAttr()
                .type(attr.getInt(PerfEventAttr.TYPE_OFFSET))
                .config(attr.getLong(PerfEventAttr.CONFIG_OFFSET))
                .config1(attr.getLong(PerfEventAttr.CONFIG1_OFFSET))
                .config2(attr.getLong(PerfEventAttr.CONFIG2_OFFSET))
                .flags(attr.getLong(PerfEventAttr.FLAGS_OFFSET));
    }

    /**
     * The string libpfm is given. With encoding of inactive PMUs switched on, libpfm would accept any
     * {@code pmu::} prefix; perfpin keeps libpfm's ordinary rule instead: a prefix must name an active PMU,
     * or the forced model.
     */
    private String qualify(String eventString, String model) {
        int delimiter = eventString.indexOf(PMU_DELIMITER);
        String prefix = delimiter < 0 ? null : eventString.substring(0, delimiter);
        if (model != null) {
            String name = pmu(model).name();
            if (prefix == null) {
                return name + PMU_DELIMITER + eventString;
            }
            if (!prefix.equalsIgnoreCase(name)) {
                throw new LibpfmException(
                        eventString,
                        0,
                        "'" + eventString + "' names PMU " + prefix + " but PMU model " + name + " is forced");
            }
        } else if (prefix != null
                && pmus.stream().noneMatch(p -> p.present() && p.name().equalsIgnoreCase(prefix))) {
            throw new LibpfmException(
                    eventString,
                    0,
                    "'" + eventString + "' names PMU " + prefix + ", which is not active on this machine; active: "
                            + String.join(", ", presentNames()));
        }
        return eventString;
    }

    /**
     * The event names of {@code model}'s PMU (null: of the PMUs detected on this machine): each event bare
     * and with each of its unit masks in Intel's dotted spelling ({@code DTLB_LOAD_MISSES} and
     * {@code DTLB_LOAD_MISSES.WALK_ACTIVE}), sorted, without the {@code pmu::} prefix. A bare event name
     * encodes only when the event has a default unit mask.
     */
    public List<String> eventNames(String model) {
        List<Pmu> sources = model == null ? pmus.stream().filter(Pmu::present).toList() : List.of(pmu(model));
        TreeSet<String> names = new TreeSet<>();
        for (Pmu pmu : sources) {
            for (Event event : events(pmu)) {
                names.add(event.name());
                for (String unitMask : unitMasks(event)) {
                    names.add(event.name() + "." + unitMask);
                }
            }
        }
        return List.copyOf(names);
    }

    /** The names of the core PMU models this libpfm4 supports, detected or not, sorted. */
    public List<String> coreModels() {
        TreeSet<String> names = new TreeSet<>();
        for (Pmu pmu : pmus) {
            if (pmu.core()) {
                names.add(pmu.name());
            }
        }
        return List.copyOf(names);
    }

    /** One PMU libpfm knows, from pfm_pmu_info_t; present means detected on this machine. */
    public record Pmu(int id, String name, int type, int eventCount, int firstEvent, boolean present) {
        /** A processor core PMU: the models a forced model may name. */
        public boolean core() {
            return type == LibpfmAbi.PFM_PMU_TYPE_CORE;
        }
    }

    /** One event of a PMU, from pfm_event_info_t. */
    public record Event(int idx, String name, int pmu, int attributeCount) {}

    /** Every PMU libpfm supports, as read once after initialisation. */
    public List<Pmu> pmus() {
        return pmus;
    }

    /** The PMU named {@code model} (case as libpfm compares it: ignored). */
    public Pmu pmu(String model) {
        Optional<Pmu> pmu =
                pmus.stream().filter(p -> p.name().equalsIgnoreCase(model)).findFirst();
        return pmu.orElseThrow(() -> new LibpfmException(
                model, 0, "unknown PMU model '" + model + "'; libpfm4 knows: " + String.join(", ", coreModels())));
    }

    private List<String> presentNames() {
        return pmus.stream().filter(Pmu::present).map(Pmu::name).toList();
    }

    /**
     * Identifiers are not contiguous: gaps answer NOTSUPP, and INVAL marks the end ({@code PFM_PMU_MAX}).
     */
    private List<Pmu> readPmus() {
        List<Pmu> found = new ArrayList<>();
        Memory info = new Memory(LibpfmAbi.PmuInfo.SIZE);
        for (int id = 0; ; id++) {
            int rc = pfm.pfm_get_pmu_info(id, LibpfmAbi.reset(info, LibpfmAbi.PmuInfo.SIZE_FIELD));
            if (rc == LibpfmAbi.PFM_ERR_INVAL) {
                return List.copyOf(found);
            }
            if (rc == LibpfmAbi.PFM_SUCCESS) {
                found.add(new Pmu(
                        info.getInt(LibpfmAbi.PmuInfo.PMU),
                        string(info, LibpfmAbi.PmuInfo.NAME),
                        info.getInt(LibpfmAbi.PmuInfo.TYPE),
                        info.getInt(LibpfmAbi.PmuInfo.NEVENTS),
                        info.getInt(LibpfmAbi.PmuInfo.FIRST_EVENT),
                        (info.getInt(LibpfmAbi.PmuInfo.FLAGS) & LibpfmAbi.PMU_PRESENT_BIT) != 0));
            }
        }
    }

    /** The events of a PMU, in libpfm's order. */
    public List<Event> events(Pmu pmu) {
        List<Event> events = new ArrayList<>();
        Memory info = new Memory(LibpfmAbi.EventInfo.SIZE);
        for (int idx = pmu.firstEvent(); idx != -1; idx = pfm.pfm_get_event_next(idx)) {
            int rc = pfm.pfm_get_event_info(
                    idx, LibpfmAbi.PFM_OS_NONE, LibpfmAbi.reset(info, LibpfmAbi.EventInfo.SIZE_FIELD));
            if (rc == LibpfmAbi.PFM_SUCCESS) {
                events.add(new Event(
                        info.getInt(LibpfmAbi.EventInfo.IDX),
                        string(info, LibpfmAbi.EventInfo.NAME),
                        info.getInt(LibpfmAbi.EventInfo.PMU),
                        info.getInt(LibpfmAbi.EventInfo.NATTRS)));
            }
        }
        return events;
    }

    /** The unit-mask names of an event (its modifiers such as c= or e left out). */
    public List<String> unitMasks(Event event) {
        List<String> unitMasks = new ArrayList<>();
        Memory info = new Memory(LibpfmAbi.AttrInfo.SIZE);
        for (int a = 0; a < event.attributeCount(); a++) {
            int rc = pfm.pfm_get_event_attr_info(
                    event.idx(), a, LibpfmAbi.PFM_OS_NONE, LibpfmAbi.reset(info, LibpfmAbi.AttrInfo.SIZE_FIELD));
            if (rc == LibpfmAbi.PFM_SUCCESS && info.getInt(LibpfmAbi.AttrInfo.TYPE) == LibpfmAbi.PFM_ATTR_UMASK) {
                unitMasks.add(string(info, LibpfmAbi.AttrInfo.NAME));
            }
        }
        return unitMasks;
    }

    private static String string(Memory struct, int pointerOffset) {
        Pointer p = struct.getPointer(pointerOffset);
        return p == null ? "" : p.getString(0);
    }

    private static String describe(String model) {
        return model == null ? "this machine's PMUs" : "PMU model " + model;
    }
}
