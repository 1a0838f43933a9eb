package io.perfpin.nativeio;

/** The ways perfpin reaches the kernel, in the order it tries them. */
public enum Backend {
    /** perfpin's own C library over JNI: the fastest, and the only one with rdpmc self-reads. */
    JNI,
    /** libc's {@code syscall(2)} through jffi, without perfpin's C code. */
    JFFI,
    /** libc's {@code syscall(2)} through JNA, without perfpin's C code. */
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
