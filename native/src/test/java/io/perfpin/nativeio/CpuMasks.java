package io.perfpin.nativeio;

/** Affinity masks as the kernel takes them, in the sizes the native tests use (core's CpuSet is out of reach). */
final class CpuMasks {
    /** 2048 CPUs: more than any machine these tests run on. */
    static final int WORDS = 32;

    private CpuMasks() {}

    static long[] of(int cpu) {
        long[] mask = new long[WORDS];
        mask[cpu / Long.SIZE] |= 1L << (cpu % Long.SIZE);
        return mask;
    }

    static boolean has(long[] mask, int cpu) {
        return (mask[cpu / Long.SIZE] & 1L << (cpu % Long.SIZE)) != 0;
    }
}
