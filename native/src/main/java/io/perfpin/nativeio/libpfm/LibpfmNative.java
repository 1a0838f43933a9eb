package io.perfpin.nativeio.libpfm;

import com.sun.jna.Library;
import com.sun.jna.Pointer;

/**
 * The libpfm4 entry points perfpin calls (perfmon/pfmlib.h, perfmon/pfmlib_perf_event.h), bound through JNA
 * so that only the runtime package is needed. Every {@code int} result is a {@code PFM_ERR_*} code, 0 on
 * success, except {@link #pfm_get_event_next}. Struct arguments are JNA memory laid out as {@link LibpfmAbi}
 * documents.
 */
interface LibpfmNative extends Library {
    int pfm_initialize();

    String pfm_strerror(int code);

    int pfm_get_pmu_info(int pmu, Pointer output);

    /** The next event of the same PMU after {@code idx}, or -1 after its last. */
    int pfm_get_event_next(int idx);

    int pfm_get_event_info(int idx, int os, Pointer output);

    int pfm_get_event_attr_info(int eventIdx, int attrIdx, int os, Pointer output);

    int pfm_get_os_event_encoding(String str, int dflPlm, int os, Pointer args);

    /** libc's environment calls: libpfm reads its switches from the C environment, which Java cannot write. */
    interface Libc extends Library {
        String getenv(String name);

        int setenv(String name, String value, int overwrite);

        int unsetenv(String name);
    }
}
