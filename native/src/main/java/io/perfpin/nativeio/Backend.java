package io.perfpin.nativeio;

/** The ways perfpin reaches the kernel, in the order it tries them. */
public enum Backend {
    /** perfpin's own C library over JNI: the fastest, and the only one with rdpmc self-reads. */
    JNI,
    /** libc through jffi, without perfpin's C code (no rdpmc self-reads): {@link JffiSyscalls}. */
    JFFI,
    /** libc through JNA's direct mapping, without perfpin's C code (no rdpmc self-reads): {@link JnaSyscalls}. */
    JNA;

    /** Parses a property value such as {@code jni}; null when it names no backend. */
    public static Backend parse(String value) {
        for (Backend backend : values()) {
            if (backend.name().equalsIgnoreCase(value.trim())) {
                return backend;
            }
        }
        return null;
    }
}
