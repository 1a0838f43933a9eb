package io.perfpin.agent.apps;

import io.perfpin.apps.PageToucher;

/**
 * A main() that touches PAGES pages, starts a thread that keeps the JVM up for MILLIS ms, and returns at once: its
 * thread then runs on as the JVM's {@code DestroyJavaVM}, waiting for the other's end. Prints "main ended", and
 * "lingered" as the JVM is about to exit.
 *
 * <p>Usage: {@code java io.perfpin.agent.apps.MainEndsFirst PAGES MILLIS}.
 */
public final class MainEndsFirst {
    private MainEndsFirst() {}

    public static void main(String[] args) {
        PageToucher.touch(Long.parseLong(args[0]) * PageToucher.PAGE_SIZE);
        long millis = Long.parseLong(args[1]);
        Thread linger = new Thread(
                () -> {
                    try {
                        Thread.sleep(millis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    System.out.println("lingered");
                },
                "linger");
        linger.start();
        System.out.println("main ended");
    }
}
