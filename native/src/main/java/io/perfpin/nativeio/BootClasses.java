package io.perfpin.nativeio;

/**
 * Classes defined in the bootstrap class loader from their class files, by perfpin's C library (JNI
 * {@code DefineClass} with no loader). Unlike a jar appended to the bootstrap search after start-up, this
 * leaves the search path, class-data sharing and the JVM's output as they were. Only the JNI backend has it.
 */
public final class BootClasses {
    private BootClasses() {}

    /**
     * Defines {@code name} (binary name, {@code a.b.C}) from {@code classFile} in the bootstrap class loader, which
     * then finds it as if it were on its path. Its superclass and interfaces must already be visible there.
     *
     * @return 0, or -errno: -ENOSYS without the JNI backend, -EINVAL when the JVM refuses the class (not a class
     *         file, another name, or already defined there)
     */
    public static int define(Syscalls syscalls, String name, byte[] classFile) {
        return syscalls.backend() == Backend.JNI
                ? JniSyscalls.defineBootClass0(name.replace('.', '/'), classFile)
                : -Errno.ENOSYS;
    }

    /** Whether the bootstrap class loader has {@code name}, defined or found on its path; loads nothing else. */
    public static boolean has(String name) {
        try {
            Class.forName(name, false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
