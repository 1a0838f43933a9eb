package io.perfpin.nativeio;

import java.nio.ByteBuffer;

/** The {@link Backend#JNI} backend: perfpin's C library, bound in its {@code JNI_OnLoad}. */
public final class JniSyscalls implements Syscalls {
    /** Read by the C library's JNI_OnLoad to find this class, whatever package shading moved it to. */
    static final String BINDING_CLASS_PROPERTY = "io.perfpin.jni.bindingClass";

    private JniSyscalls() {}

    /** Loads the C library ({@link JniLibrary} says where from) and binds it. */
    public static Syscalls load() {
        System.setProperty(BINDING_CLASS_PROPERTY, JniSyscalls.class.getName());
        JniLibrary.load();
        return new JniSyscalls();
    }

    @Override
    public Backend backend() {
        return Backend.JNI;
    }

    @Override
    public long syscall(long number, long a1, long a2, long a3, long a4, long a5) {
        return syscall0(number, a1, a2, a3, a4, a5);
    }

    @Override
    public int gettid() {
        return gettid0();
    }

    @Override
    public int setAffinity(int tid, long[] mask) {
        return setAffinity0(tid, mask);
    }

    @Override
    public int getAffinity(int tid, long[] mask) {
        return getAffinity0(tid, mask);
    }

    @Override
    public long getcpu() {
        return getcpu0();
    }

    @Override
    public int perfEventOpen(long attrAddress, int pid, int cpu, int groupFd, long flags) {
        return perfEventOpen0(attrAddress, pid, cpu, groupFd, flags);
    }

    @Override
    public long read(int fd, long address, int length) {
        return read0(fd, address, length);
    }

    @Override
    public int ioctl(int fd, long request, long arg) {
        return ioctl0(fd, request, arg);
    }

    @Override
    public int close(int fd) {
        return close0(fd);
    }

    @Override
    public long mmapPerfPage(int fd) {
        return mmapPerfPage0(fd);
    }

    @Override
    public int munmapPerfPage(long pageAddress) {
        return munmapPerfPage0(pageAddress);
    }

    @Override
    public int selfRead(long pageAddress, int fd, long outAddress) {
        return selfRead0(pageAddress, fd, outAddress);
    }

    @Override
    public long addressOf(ByteBuffer direct) {
        return Errno.check(addressOf0(direct), "GetDirectBufferAddress");
    }

    private static native long syscall0(long number, long a1, long a2, long a3, long a4, long a5);

    private static native int gettid0();

    private static native int setAffinity0(int tid, long[] mask);

    private static native int getAffinity0(int tid, long[] mask);

    private static native long getcpu0();

    private static native int perfEventOpen0(long attrAddress, int pid, int cpu, int groupFd, long flags);

    private static native long read0(int fd, long address, int length);

    private static native int ioctl0(int fd, long request, long arg);

    private static native int close0(int fd);

    private static native long mmapPerfPage0(int fd);

    private static native int munmapPerfPage0(long pageAddress);

    private static native int selfRead0(long pageAddress, int fd, long outAddress);

    private static native long addressOf0(ByteBuffer direct);

    static native int threadEvents0(Class<?> hooks, boolean enable);

    static native int virtualThreads0(Class<?> hooks, long attrAddress, int count, int groups, int states);

    static native int virtualRead0(long[] totals);

    static native int virtualStop0(int[] left);

    static native int virtualRunning0(long[] sums);

    static native int virtualRefused0();

    static native int javaThreadIds0(Thread[] threads, int[] tids);

    static native int watchdogStart0(int[] pidAndFd);

    static native int watchdogPinning0(
            int fd,
            int pid,
            int tid,
            long startTime,
            long exeDevice,
            long exeInode,
            int[] credentials,
            long[] before,
            long[] pinned);

    static native int watchdogReleased0(int fd, int pid, int tid);

    static native int watchdogReap0(int pid);

    static native int defineBootClass0(String name, byte[] classFile);

    static native int releaseMapping0(ByteBuffer mapped);

    static native int enrolStart0(Class<?> hooks, long[] attrAddresses, ByteBuffer budgetHeld, long budget, int slots);

    static native int enrolStop0();

    static native boolean enrolEnrolled0();

    static native void enrolEndCalls0();

    static native int enrolAdopt0(Thread[] threads, int[] info);

    static native long enrolRead0(int slot, long generation, long address, int bytes);

    static native void enrolRelease0(int slot, long generation);

    static native int enrolTableMark0(int mark, Thread sampler);

    static native int enrolTableReached0();
}
