package io.perfpin.event;

import io.perfpin.nativeio.OptionalLibrary;
import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.libpfm.LibpfmException;
import io.perfpin.nativeio.libpfm.LibpfmLibrary;
import java.util.List;
import java.util.function.Function;

/**
 * Event names encoded by libpfm4 ({@code libpfm.so.4}, loaded at run time through JNA; nothing is needed at
 * build time). libpfm knows the model-specific events of each PMU, Intel's {@code EVENT.UMASK} spelling
 * included ({@code DTLB_LOAD_MISSES.WALK_ACTIVE}, or libpfm's own {@code DTLB_LOAD_MISSES:WALK_ACTIVE}),
 * with modifiers such as {@code :u}, {@code :k}, {@code :c=2}, {@code :e}, {@code :i} and an optional
 * {@code pmu::} prefix.
 *
 * <p>Events count user space only unless the string asks otherwise ({@code :k}, {@code :u:k}). The
 * exclusions are libpfm's own: for a PMU that cannot filter the hypervisor level (Intel and AMD cores) it
 * leaves {@code exclude_hv} clear.
 *
 * <p>A forced model ({@code "skl"}, {@code "icl"}, ...) makes libpfm encode for that processor whatever
 * this machine is. The model is chosen per call: no state is left behind, so calls for different models
 * may interleave. libpfm is not thread-safe, so every call here is serialised.
 *
 * <p>The binding itself ({@link LibpfmLibrary}) is in the native module with the other native access; this
 * class owns its one instance and turns its encodings into {@link EventSpec}s.
 */
public final class LibpfmEncoder {
    private static final Object LOCK = new Object();
    private static final LibpfmLibrary LIBRARY;
    private static final String UNAVAILABLE_REASON;

    static {
        LibpfmLibrary library = null;
        // libpfm4 is bound through JNA, asked for first (OptionalLibrary): in the agent its jar may not be there
        String reason = OptionalLibrary.unavailable("com.sun.jna.Native");
        if (reason != null) {
            reason = "libpfm4 cannot be bound without JNA: " + reason;
        } else {
            try {
                library = LibpfmLibrary.load(LibpfmLibrary.SONAME);
            } catch (LinkageError e) {
                reason = LibpfmLibrary.unavailableReason(LibpfmLibrary.SONAME, e);
            }
        }
        LIBRARY = library;
        UNAVAILABLE_REASON = reason;
    }

    private LibpfmEncoder() {}

    /** Whether libpfm.so.4 could be loaded and initialised. */
    public static boolean available() {
        return LIBRARY != null;
    }

    /** Why libpfm4 cannot be used, with how to install it; null when {@link #available()}. */
    public static String unavailableReason() {
        return UNAVAILABLE_REASON;
    }

    /** Encodes {@code eventString} for this machine's PMUs; the result is named {@code eventString}. */
    public static EventSpec encode(String eventString) {
        return encode(eventString, null);
    }

    /**
     * Encodes {@code eventString} as libpfm does for the PMU model {@code forcedPmu} (a libpfm PMU name such
     * as "skl", "icl" or "spr", see {@link #models()}; null for this machine's own). The result is named
     * {@code eventString}.
     *
     * @throws LibpfmException when libpfm does not know the event, rejects its unit masks or modifiers, does
     *                         not know the model, or is not installed
     */
    public static EventSpec encode(String eventString, String forcedPmu) {
        PerfEventAttr attr = withLibrary(library -> library.encode(eventString, forcedPmu));
        return new EventSpec(
                eventString,
                attr.type(),
                attr.config(),
                attr.config1(),
                attr.config2(),
                (attr.flags() & PerfEventAttr.FLAG_EXCLUDE_USER) != 0,
                (attr.flags() & PerfEventAttr.FLAG_EXCLUDE_KERNEL) != 0,
                (attr.flags() & PerfEventAttr.FLAG_EXCLUDE_HV) != 0);
    }

    /**
     * The event names libpfm knows for {@code forcedPmu}'s PMU (null: the PMUs detected on this machine):
     * each event bare and with each of its unit masks in dotted form ({@code DTLB_LOAD_MISSES},
     * {@code DTLB_LOAD_MISSES.WALK_ACTIVE}), without a {@code pmu::} prefix, sorted. A bare name encodes only
     * when the event has a default unit mask; the list is meant for nearest-name suggestions.
     *
     * @throws LibpfmException when libpfm does not know the model or is not installed
     */
    public static List<String> eventNames(String forcedPmu) {
        return withLibrary(library -> library.eventNames(forcedPmu));
    }

    /** The core PMU models this libpfm4 can encode for (the values {@code forcedPmu} takes), sorted. */
    public static List<String> models() {
        return withLibrary(LibpfmLibrary::coreModels);
    }

    /** Runs {@code work} on the library, holding the lock libpfm needs. */
    static <T> T withLibrary(Function<LibpfmLibrary, T> work) {
        if (LIBRARY == null) {
            throw new LibpfmException(LibpfmLibrary.SONAME, 0, UNAVAILABLE_REASON);
        }
        synchronized (LOCK) {
            return work.apply(LIBRARY);
        }
    }
}
