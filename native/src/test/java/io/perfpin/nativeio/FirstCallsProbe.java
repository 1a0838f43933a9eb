package io.perfpin.nativeio;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Run in a child JVM by {@link JniContractTest}: calls of the C library whose first in a JVM is what is tested, since
 * what it looks up then it keeps. Prints what each call returned, one line each.
 */
public final class FirstCallsProbe {
    /** How many threads ask for their TIDs at once, the first to ask in this JVM: as many as can run at once. */
    static final int CALLERS = Math.max(2, Runtime.getRuntime().availableProcessors());

    private FirstCallsProbe() {}

    public static void main(String[] args) throws InterruptedException {
        Syscalls jni = Backends.load(Backend.JNI);
        if (args[0].equals("tids")) {
            concurrentFirstTids(jni);
        } else if (args[0].equals("hooks-without-methods")) {
            hooksWithoutMethods(jni);
        }
    }

    /**
     * Each start that looks up its hooks' methods, given a class without them (the first start of each in a JVM looks
     * them up, and keeps them): what each says. Run under -Xcheck:jni, where a JNI call made with the lookup's
     * exception still pending prints a warning.
     */
    private static void hooksWithoutMethods(Syscalls jni) {
        System.out.println("thread events " + ThreadLifecycleEvents.enable(jni, Object.class));
        long attr = NativeBuffer.allocate(jni, PerfEventAttr.SIZE).address();
        ByteBuffer held = ByteBuffer.allocateDirect(2 * Long.BYTES).alignedSlice(Long.BYTES);
        System.out.println("enrolment " + NativeEnrolment.start(jni, Object.class, new long[] {attr}, held, 1, 1));
        System.out.println("virtual threads " + VirtualThreadCounting.start(jni, Object.class, attr, 1, 1, 1));
    }

    /**
     * {@link #CALLERS} threads let go at once, each asking for its own TID: how many each found. They spin rather than
     * wait to be woken, so that as many ask at once as there are CPUs.
     */
    private static void concurrentFirstTids(Syscalls jni) throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(CALLERS);
        AtomicBoolean go = new AtomicBoolean();
        AtomicIntegerArray found = new AtomicIntegerArray(CALLERS);
        Thread[] callers = new Thread[CALLERS];
        for (int i = 0; i < CALLERS; i++) {
            int index = i;
            callers[i] = new Thread(() -> {
                ready.countDown();
                while (!go.get()) {
                    Thread.onSpinWait();
                }
                found.set(index, JavaThreadIds.of(jni, new Thread[] {Thread.currentThread()}, new int[1]));
            });
            callers[i].start();
        }
        ready.await();
        go.set(true);
        for (Thread caller : callers) {
            caller.join();
        }
        for (int i = 0; i < CALLERS; i++) {
            System.out.println("found " + found.get(i));
        }
    }
}
