package io.perfpin.nativeio.libpfm;

import com.sun.jna.Memory;
import java.nio.ByteOrder;

/**
 * The parts of libpfm4's binary interface perfpin relies on (perfmon/pfmlib.h and pfmlib_perf_event.h of
 * libpfm 4.x, LP64 only). Every struct starts with pointers and carries its own {@code size} field: libpfm
 * versions its ABI by that field, accepts any size from the first published one ({@code *_ABI0}) up, and
 * fills only that many bytes. perfpin passes exactly the ABI0 sizes below, so any libpfm 4 release reads
 * and writes the same bytes.
 */
final class LibpfmAbi {
    static final int PFM_SUCCESS = 0;
    /** pfm_get_pmu_info's answer past the last PMU identifier ({@code PFM_PMU_MAX}); gaps answer NOTSUPP. */
    static final int PFM_ERR_INVAL = -2;

    /** {@code dfl_plm}: count at privilege level 3 (user) unless the event string has its own :u/:k. */
    static final int PFM_PLM3 = 0x08;

    /** {@code pfm_os_t}: PMU attributes only (event listing). */
    static final int PFM_OS_NONE = 0;
    /** {@code pfm_os_t}: PMU attributes plus perf_events' u, k, h, mg, mh; encodes a perf_event_attr. */
    static final int PFM_OS_PERF_EVENT = 1;

    /** {@code pfm_attr_t}: a unit mask, as opposed to a modifier such as {@code c=} or {@code e}. */
    static final int PFM_ATTR_UMASK = 1;

    /** {@code pfm_pmu_type_t}: a processor core PMU (the models {@code --pmu} names). */
    static final int PFM_PMU_TYPE_CORE = 1;

    /**
     * {@code pfm_pmu_info_t}, PFM_PMU_INFO_ABI0 = 56 bytes.
     * <pre>
     * offset  size  field
     *      0     8  name             const char *
     *      8     8  desc             const char *
     *     16     8  size             size_t, set by the caller
     *     24     4  pmu              pfm_pmu_t
     *     28     4  type             pfm_pmu_type_t
     *     32     4  nevents
     *     36     4  first_event      opaque index for pfm_get_event_next
     *     40     4  max_encoding
     *     44     4  num_cntrs
     *     48     4  num_fixed_cntrs
     *     52     4  flags            bit-fields: is_present, is_dfl, reserved:30
     * </pre>
     */
    static final class PmuInfo {
        static final int SIZE = 56;
        static final int NAME = 0;
        static final int SIZE_FIELD = 16;
        static final int PMU = 24;
        static final int TYPE = 28;
        static final int NEVENTS = 32;
        static final int FIRST_EVENT = 36;
        static final int FLAGS = 52;

        private PmuInfo() {}
    }

    /**
     * {@code pfm_event_info_t}, PFM_EVENT_INFO_ABI0 = 64 bytes.
     * <pre>
     * offset  size  field
     *      0     8  name             const char *
     *      8     8  desc             const char *
     *     16     8  equiv            const char *
     *     24     8  size             size_t, set by the caller
     *     32     8  code             raw event code
     *     40     4  pmu              pfm_pmu_t
     *     44     4  dtype
     *     48     4  idx              the opaque index asked for
     *     52     4  nattrs           attributes for the pfm_os_t asked for
     *     56     4  reserved
     *     60     4  flags            bit-fields: is_precise, is_speculative:2, support_hw_smpl, reserved
     * </pre>
     */
    static final class EventInfo {
        static final int SIZE = 64;
        static final int NAME = 0;
        static final int SIZE_FIELD = 24;
        static final int PMU = 40;
        static final int IDX = 48;
        static final int NATTRS = 52;

        private EventInfo() {}
    }

    /**
     * {@code pfm_event_attr_info_t}, PFM_ATTR_INFO_ABI0 = 64 bytes.
     * <pre>
     * offset  size  field
     *      0     8  name             const char *
     *      8     8  desc             const char *
     *     16     8  equiv            const char *
     *     24     8  size             size_t, set by the caller
     *     32     8  code
     *     40     4  type             pfm_attr_t
     *     44     4  idx
     *     48     4  ctrl             pfm_attr_ctrl_t
     *     52     4  flags            bit-fields: is_dfl, is_precise, is_speculative:2, support_hw_smpl, ...
     *     56     8  defaults         union of uint64, const char *, int
     * </pre>
     */
    static final class AttrInfo {
        static final int SIZE = 64;
        static final int NAME = 0;
        static final int SIZE_FIELD = 24;
        static final int TYPE = 40;

        private AttrInfo() {}
    }

    /**
     * {@code pfm_perf_encode_arg_t}, PFM_PERF_ENCODE_ABI0 = 40 bytes (with its explicit padding).
     * <pre>
     * offset  size  field
     *      0     8  attr             struct perf_event_attr *, in/out
     *      8     8  fstr             char **, NULL: no fully qualified string wanted
     *     16     8  size             size_t, set by the caller
     *     24     4  idx              out: opaque event index
     *     28     4  cpu              out: -1 unless a cpu= modifier (PFM_OS_PERF_EVENT_EXT only)
     *     32     4  flags            out: perf_event_open flags
     *     36     4  pad0
     * </pre>
     * libpfm copies min(attr.size, its own sizeof) bytes of the attr in and back out, so the attr must carry
     * its size; see {@link io.perfpin.nativeio.PerfEventAttr}.
     */
    static final class EncodeArg {
        static final int SIZE = 40;
        static final int ATTR = 0;
        static final int SIZE_FIELD = 16;

        private EncodeArg() {}
    }

    /**
     * The {@code is_present} bit of pfm_pmu_info_t's flags: the first bit-field sits in the low bit on
     * little-endian ABIs and in the high bit on big-endian ones.
     */
    static final int PMU_PRESENT_BIT = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 1 : 1 << 31;

    private LibpfmAbi() {}

    /** Zeroes a struct and writes its ABI0 size where libpfm looks for it. */
    static Memory reset(Memory struct, int sizeFieldOffset) {
        struct.clear();
        struct.setLong(sizeFieldOffset, struct.size());
        return struct;
    }
}
