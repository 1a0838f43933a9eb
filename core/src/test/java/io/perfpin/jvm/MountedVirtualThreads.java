package io.perfpin.jvm;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.concurrent.CountDownLatch;

/**
 * A JVM (21 or later) with virtual threads mounted on their carriers while it is dumped: two spin, so each
 * stays on the carrier it started on, and one sleeps, unmounted. Each spinner reads its carrier's TID from
 * /proc/thread-self before it spins; the program prints those as {@code carrier TAB tid}, then its platform
 * thread as {@code platform TAB javaId TAB tid TAB name}, then {@code ready}, and lives until stdin closes.
 * The fixture {@code jvm/jdk25-virtual-thread-print.txt} was dumped from it.
 */
public final class MountedVirtualThreads {
    static volatile long sink;

    private MountedVirtualThreads() {}

    public static void main(String[] args) throws Exception {
        // Built for Java 17: the virtual-thread API is reached by reflection.
        Method ofVirtual = Thread.class.getMethod("ofVirtual");
        int spinners = 2;
        int[] carriers = new int[spinners];
        CountDownLatch mounted = new CountDownLatch(spinners);
        for (int i = 0; i < spinners; i++) {
            int index = i;
            start(ofVirtual, "spinning-virtual-" + i, () -> {
                carriers[index] = currentTid();
                mounted.countDown();
                long x = 0;
                while (true) {
                    sink = ++x; // no call that could unmount it
                }
            });
        }
        start(ofVirtual, "sleeping-virtual", () -> {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        CountDownLatch tid = new CountDownLatch(1);
        int[] platformTid = new int[1];
        Thread platform = new Thread(
                () -> {
                    platformTid[0] = currentTid();
                    tid.countDown();
                    try {
                        Thread.sleep(Long.MAX_VALUE);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "platform-sleeper");
        platform.setDaemon(true);
        platform.start();
        mounted.await();
        tid.await();
        for (int carrier : carriers) {
            System.out.println("carrier\t" + carrier);
        }
        System.out.println("platform\t" + platform.getId() + "\t" + platformTid[0] + "\t" + platform.getName());
        System.out.println("ready");
        System.in.read();
        System.exit(0);
    }

    private static void start(Method ofVirtual, String name, Runnable task) throws Exception {
        Class<?> builder = Class.forName("java.lang.Thread$Builder"); // the public interface, not its private class
        Object named = builder.getMethod("name", String.class).invoke(ofVirtual.invoke(null), name);
        builder.getMethod("start", Runnable.class).invoke(named, task);
    }

    private static int currentTid() {
        try {
            return Integer.parseInt(Files.readSymbolicLink(Paths.get("/proc/thread-self"))
                    .getFileName()
                    .toString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
